/**
 * One chat attempt on one rung: stream the answer from the candidate's provider, pass each part on,
 * assemble the answer, check it, and report what the cascade needs.
 *
 * @remarks
 * Transport faults are thrown as {@link ProviderFailure}s, never turned into verdicts here: the router
 * reads a throw as "skip this rung, grade nobody" (or "stop" for the user's abort), so a dropped
 * socket can never count against a model. Only an answer that arrived whole reaches the verifier.
 */
import type { Clock } from '../clock';
import {
  ProviderError,
  ProviderFailure,
  ProviderStopped,
  ProviderUnavailable,
  type ChatMessage,
  type ChatOptions,
  type FinishReason,
  type ProviderAdapter,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
} from '../providers/provider';
import { Deadline } from '../providers/deadline';
import type { AttemptFn, AttemptOutcome, Candidate } from '../routing/types';
import type { Check, Verifier } from '../verifiers/verifier';
import { callCost } from '../panel';
import { spendFigure } from '../decisions/decision';

/** What one attempt produced. */
export interface ChatAnswer {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  /** The configured slug. */
  model: string;
  /** The response's own model field. */
  resolvedModel: string;
  finishReason: FinishReason;
  /** Options the provider could not honour. */
  warnings: string[];
  /** The checks that judged the answer, in words ("JSON"); empty when none did (`Check.checks`). */
  checks: string[];
}

/** Where an attempt reports what it learned about a provider's health (a {@link ProviderHealthBoard}). */
export interface HealthRecorder {
  recordFailure(provider: string, failure: ProviderFailure): void;
  recordSuccess(provider: string): void;
}

export interface ProviderAttemptOptions {
  adapters: ReadonlyMap<string, ProviderAdapter>;
  messages: ChatMessage[];
  tools: ToolSpec[];
  verifier: Verifier;
  /** Every part as it arrives, with the configured slug that sent it: the chat view streams from here. */
  onPart?: (model: string, part: StreamPart) => void;
  clock: Clock;
  /** The user's stop, for the whole call. */
  signal?: AbortSignal;
  chatOptions?: Omit<ChatOptions, 'signal'>;
  think?: boolean;
  health?: HealthRecorder;
  /**
   * How long one rung may take to stream its whole answer, ms; past it the attempt is a provider error.
   * No limit when absent. The check that follows has its own.
   */
  attemptTimeoutMs?: number;
  /**
   * The most output tokens a paid (non-local) rung may write, when a spending limit priced its attempt
   * at that bound: sent as its maximum, so the estimate holds. An answer cut there fails as one cut at
   * the model's own limit does: the caller asked for no limit.
   */
  paidOutputTokens?: number;
}

/** The panel setting, the VS Code setting and the `rung chat` flag that set how long an attempt may take, for the message that says it ran out. */
const ATTEMPT_TIMEOUT_SETTINGS =
  'routing.attemptTimeoutSeconds in the panel, the rung.routing.attemptTimeoutSeconds setting, or rung chat --attempt-timeout';

/** Builds the {@link AttemptFn} the router runs once per rung. */
export function providerAttempt(options: ProviderAttemptOptions): AttemptFn<ChatAnswer> {
  return async (candidate, context) => {
    const signals = [options.signal, context.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const adapter = options.adapters.get(candidate.provider);
    if (!adapter) throw new ProviderUnavailable(`no adapter for provider "${candidate.provider}"`, { provider: candidate.provider });
    const started = options.clock.now();
    // The whole attempt's deadline: the transport's timers end a stream that goes quiet, not one that
    // keeps sending, which held a call for good.
    const deadline = new Deadline(signal);
    const limitMs = options.attemptTimeoutMs;
    if (limitMs !== undefined) deadline.arm(limitMs);
    let streamed: Streamed;
    try {
      streamed = await stream(adapter, candidate, options, deadline.signal);
    } catch (error) {
      const failure =
        deadline.timedOut !== null && !signal?.aborted
          ? new ProviderError(
              `${candidate.provider}: ${candidate.slug} gave no whole answer within ${seconds(limitMs ?? 0)}, the time one attempt may take; for a slower model raise ${ATTEMPT_TIMEOUT_SETTINGS}`,
              { provider: candidate.provider },
            )
          : asFailure(error, candidate.provider, signal);
      options.health?.recordFailure(candidate.provider, failure);
      throw failure;
    } finally {
      deadline.clear();
    }
    options.health?.recordSuccess(candidate.provider);
    const latencyMs = options.clock.now() - started;
    const answer: ChatAnswer = { ...streamed.answer, model: candidate.slug, checks: [] };
    // A refusal is the model's own "no", and an answer stopped at the model's output limit is one the
    // provider itself says is not whole: failures to climb from, not answers for a check to pass or
    // leave unverified, so no verifier is asked. A limit the caller set is the caller's to live with.
    let check: Check;
    if (streamed.refusal !== undefined)
      check = { verdict: 'fail', reason: `the model refused: ${oneLine(streamed.refusal, REFUSAL_REASON_CHARS)}` };
    else if (answer.finishReason === 'length' && options.chatOptions?.maxOutputTokens === undefined)
      check = { verdict: 'fail', reason: CUT_AT_OUTPUT_LIMIT };
    else {
      check = await options.verifier.verify({ text: answer.text, toolCalls: answer.toolCalls, model: candidate.slug }, signal);
      if (check.verdict !== 'unverified') answer.checks = check.checks ?? [options.verifier.label ?? options.verifier.name];
    }
    // The provider's own figure, then the price the user wrote into the panel, then the catalog's list
    // price: a panel price is an override, and an override the recorded cost ignored would be none.
    const answerCost = streamed.cost ?? panelCost(candidate, streamed.inputTokens, streamed.outputTokens) ?? streamed.catalogCost;
    // A check that asked a model of its own (the confidence question) spent money on this attempt too.
    const checkSpent = 'spent' in check ? check.spent : undefined;
    const checkCost = checkSpent
      ? (checkSpent.cost ?? panelCost(candidate, checkSpent.inputTokens, checkSpent.outputTokens) ?? checkSpent.catalogCost)
      : 0;
    const cost = answerCost === undefined ? undefined : answerCost + (spendFigure(checkCost) ?? 0);
    const outcome: AttemptOutcome<ChatAnswer> = {
      verdict: check.verdict,
      verdictReason: check.reason,
      ...('confidence' in check && check.confidence !== undefined ? { confidence: check.confidence } : {}),
      ...(check.selfJudged ? { selfJudged: true } : {}),
      resolvedModel: answer.resolvedModel,
      latencyMs,
      ...(streamed.firstPartAt !== undefined ? { firstTokenMs: streamed.firstPartAt - started } : {}),
      value: answer,
    };
    // A provider's usage is its word, and a negative or non-finite figure is no cost (spendFigure).
    const inputTokens = spendFigure(streamed.inputTokens);
    const outputTokens = spendFigure(streamed.outputTokens);
    const spent = spendFigure(cost);
    if (inputTokens !== null) outcome.inputTokens = inputTokens;
    if (outputTokens !== null) outcome.outputTokens = outputTokens;
    if (spent !== null) outcome.cost = spent;
    return outcome;
  };
}

interface Streamed {
  answer: Omit<ChatAnswer, 'model' | 'checks'>;
  inputTokens: number | null;
  outputTokens: number | null;
  /** USD as the provider reported it. */
  cost?: number;
  /** USD at the catalog's list price. */
  catalogCost?: number;
  /** The model declined, in these words. */
  refusal?: string;
  /** When the first part of the answer (text, reasoning or a tool call) arrived, by the attempt's clock. */
  firstPartAt?: number;
}

/** The verdict reason of an answer the provider stopped at the model's output limit (finish reason `length`). */
export const CUT_AT_OUTPUT_LIMIT = "cut off at the model's output limit (finish reason length): not a whole answer";

/** How much of a refusal goes into the verdict reason, characters: enough to say why, short enough for a log row. */
const REFUSAL_REASON_CHARS = 200;

/** Milliseconds as seconds for a message: `600 s`, `0.25 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

async function stream(
  adapter: ProviderAdapter,
  candidate: Candidate,
  options: ProviderAttemptOptions,
  signal: AbortSignal | undefined,
): Promise<Streamed> {
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  const warnings: string[] = [];
  let firstPartAt: number | undefined;
  const parts = adapter.chat(
    candidate.slug,
    options.messages,
    options.tools,
    { ...chatOptionsFor(candidate, options), signal },
    options.think,
  );
  for await (const part of parts) {
    if (signal?.aborted) throw new ProviderStopped(undefined, { provider: candidate.provider });
    options.onPart?.(candidate.slug, part);
    if (firstPartAt === undefined && (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-call'))
      firstPartAt = options.clock.now();
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        break;
      case 'reasoning-delta':
        reasoning += part.text;
        break;
      case 'tool-call':
        toolCalls.push(part.call);
        break;
      case 'warning':
        warnings.push(part.message);
        break;
      case 'error':
        throw part.error;
      case 'finish':
        return {
          answer: {
            text,
            reasoning,
            toolCalls,
            resolvedModel: part.resolvedModel || candidate.slug,
            finishReason: part.finishReason,
            warnings,
          },
          inputTokens: part.usage.inputTokens,
          outputTokens: part.usage.outputTokens,
          ...(part.cost !== undefined ? { cost: part.cost } : {}),
          ...(part.catalogCost !== undefined ? { catalogCost: part.catalogCost } : {}),
          ...(part.refusal !== undefined ? { refusal: part.refusal } : {}),
          ...(firstPartAt !== undefined ? { firstPartAt } : {}),
        };
    }
  }
  if (signal?.aborted) throw new ProviderStopped(undefined, { provider: candidate.provider });
  throw new ProviderError(`${candidate.provider}: the stream ended without a finish`, { provider: candidate.provider });
}

/** The options one rung is sent: the caller's, with a paid rung held to the bound its spending limit priced. */
function chatOptionsFor(candidate: Candidate, options: ProviderAttemptOptions): Omit<ChatOptions, 'signal'> {
  const asked = options.chatOptions ?? {};
  const bound = options.paidOutputTokens;
  if (bound === undefined || candidate.local) return asked;
  return { ...asked, maxOutputTokens: Math.min(asked.maxOutputTokens ?? bound, bound) };
}

/** Anything thrown while streaming, as the failure the cascade reads; a user's abort is always `stopped`. */
function asFailure(error: unknown, provider: string, signal: AbortSignal | undefined): ProviderFailure {
  if (signal?.aborted)
    return error instanceof ProviderFailure && error.kind === 'stopped' ? error : new ProviderStopped(undefined, { provider });
  if (error instanceof ProviderFailure) return error;
  return new ProviderError(`${provider}: ${error instanceof Error ? error.message : String(error)}`, { provider });
}

/**
 * USD at the panel's price; a local model the panel gives no price costs nothing; else undefined.
 *
 * @remarks
 * The panel's price wins on a local model too, as it does in the ranking: a user who prices a local
 * server (a shared GPU box billed by the hour) should see the same figure in the ranking and the spend.
 */
function panelCost(candidate: Candidate, inputTokens: number | null, outputTokens: number | null): number | undefined {
  const price = candidate.spec.price;
  if (!price) return candidate.local ? 0 : undefined;
  if (inputTokens === null || outputTokens === null) return undefined;
  return callCost(price, inputTokens, outputTokens);
}
