/**
 * The live confidence read: ask the model that answered whether its answer is right, and read the
 * log-probability it gives "Y".
 *
 * @remarks
 * Why a second question and not the answer's own token log-probabilities. The thresholds the check
 * learns start from what the recorded cascades measured, and the source measured two signals: on
 * multiple-choice families (one-letter answers) the answer token's own log-probability, and on
 * free-form ones (gsm8k, triviaqa, truthfulqa) exactly this question, "is this proposed answer
 * correct? Y or N", one token, log P(Y). The calls that reach this check are free-form by
 * construction (no schema, no JSON, no tools, no code check), and for an answer of many tokens the
 * own-token signal is not a confidence in the answer: their sum falls with length, their mean
 * measures fluency, and neither was measured against grades. So the check asks, as the source did.
 * The answer's own tokens are still read when the server gives them (the adapters put them on the
 * finish) and cost nothing; a later version may learn from them beside this. What the question costs
 * is charged to the attempt: on the recorded free-form families it tripled the cost of the answer
 * calls (BENCHMARKS.md), so it is asked with the question and answer bounded and one output token.
 *
 * A server that gives no log-probabilities (an old Ollama, an endpoint that refuses the parameter, a
 * reasoning model that does not support it) leaves the check silent: no number, never a failure.
 */
import type { ChatMessage, ProviderAdapter, TokenLogprob } from '../providers/provider';
import { isProviderFailure } from '../providers/provider';

/** How much of the request and of the answer the question quotes, characters: enough to judge, bounded so the question stays cheap. */
export const SELF_CHECK_QUOTE_CHARS = 6_000;
/** How many likeliest alternatives the question asks for: enough to find "Y" when the model said "N". */
export const SELF_CHECK_ALTERNATIVES = 5;

/** The source's wording for free-form answers, made general: the judge sees the request and the proposed answer. */
export const SELF_CHECK_SYSTEM =
  'Your task is to judge whether a proposed answer to a request is correct. If it is correct, output "Y". Otherwise, output "N". Only respond with "Y" or "N", nothing else.';

/** What one self-check found: the confidence (a log-probability, or null when none could be read), and what asking cost. */
export interface SelfCheck {
  logprob: number | null;
  /** Why there is no confidence, when there is none. */
  silentBecause?: string;
  /** The model answered the question, and its server sent no log-probabilities with the answer. */
  noLogprobs?: boolean;
  inputTokens: number | null;
  outputTokens: number | null;
  /** USD the provider reported for the question, when it did. */
  cost?: number;
  /** USD at the catalog's list price, when the provider reported none. */
  catalogCost?: number;
}

/** The messages of the question about `answer` to the request the conversation ends with. */
export function selfCheckMessages(conversation: readonly ChatMessage[], answer: string): ChatMessage[] {
  const request = [...conversation].reverse().find((message) => message.role === 'user')?.content ?? '';
  const user = [
    'Consider a proposed answer to the following request:',
    '',
    '<request>',
    quote(request),
    '</request>',
    '',
    `Proposed answer: ${quote(answer)}`,
    '',
    'Is the proposed answer correct? Respond with exactly "Y" if it is correct. Otherwise, respond with "N". Output only "Y" or "N", nothing else.',
  ].join('\n');
  return [
    { role: 'system', content: SELF_CHECK_SYSTEM },
    { role: 'user', content: user },
  ];
}

/**
 * Asks `model` on `adapter` whether `answer` is right and reads log P("Y").
 *
 * @remarks
 * A provider failure on the question (a 400 for the `logprobs` parameter, a timeout) is the check's
 * silence, not the answer's failure; only the user's stop is passed on.
 */
export async function askConfidence(
  adapter: ProviderAdapter,
  model: string,
  conversation: readonly ChatMessage[],
  answer: string,
  signal?: AbortSignal,
): Promise<SelfCheck> {
  let logprobs: TokenLogprob[] | undefined;
  let text = '';
  let usage: Omit<SelfCheck, 'logprob' | 'silentBecause'> = { inputTokens: null, outputTokens: null };
  try {
    for await (const part of adapter.chat(
      model,
      selfCheckMessages(conversation, answer),
      [],
      { signal, maxOutputTokens: 1, temperature: 0, logprobs: SELF_CHECK_ALTERNATIVES },
      false,
    )) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'finish') {
        logprobs = part.logprobs;
        usage = {
          inputTokens: part.usage.inputTokens,
          outputTokens: part.usage.outputTokens,
          ...(part.cost !== undefined ? { cost: part.cost } : {}),
          ...(part.catalogCost !== undefined ? { catalogCost: part.catalogCost } : {}),
        };
      }
      if (part.type === 'error') throw part.error;
    }
  } catch (error) {
    if (signal?.aborted || (isProviderFailure(error) && error.kind === 'stopped')) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { logprob: null, silentBecause: `the confidence question failed: ${message}`, ...usage };
  }
  if (!logprobs?.length) return { logprob: null, silentBecause: 'its server sent no log-probabilities', noLogprobs: true, ...usage };
  const first = logprobs[0] as TokenLogprob;
  if (!isLogprob(first.logprob) || (first.top ?? []).some((alternative) => !isLogprob(alternative.logprob)))
    return {
      logprob: null,
      silentBecause: 'its server sent a log-probability above 0 or not a number, which no probability has',
      ...usage,
    };
  const logprob = yesLogprob(first);
  if (logprob === null)
    return {
      logprob: null,
      silentBecause: `it answered the confidence question with neither Y nor N (${JSON.stringify(text.slice(0, 20))})`,
      ...usage,
    };
  return { logprob, ...usage };
}

/**
 * log P("Y") at the first token: the sum over every spelling of yes among the chosen token and its
 * alternatives (`Y`, ` y`, `Yes`); when only no was given, what the listed tokens left for yes; null
 * when the token is neither and no alternatives say otherwise.
 *
 * @remarks
 * When yes is not listed, its probability is at most what the listed tokens leave (1 − their sum) and
 * at most the least likely of them, and that bound is read as its probability: it is what the model
 * allowed, and the calibration learns what it is worth. The bound is kept finite (a log of at least
 * the smallest double), because −∞ is no number in JSON and the confidence is written to the decision
 * log and the CLI's output.
 */
export function yesLogprob(first: TokenLogprob): number | null {
  const entries = new Map<string, number>([[first.token, first.logprob]]);
  for (const alternative of first.top ?? []) entries.set(alternative.token, alternative.logprob);
  const yes = [...entries].filter(([token]) => isYes(token)).map(([, logprob]) => logprob);
  if (yes.length) return logSumExp(yes);
  if (!isNo(first.token)) return null;
  const listed = [...entries.values()];
  const left = 1 - listed.reduce((sum, logprob) => sum + Math.exp(logprob), 0);
  const bound = Math.log(Math.max(left, Number.MIN_VALUE));
  // A loop, not Math.min(...listed): a server's list of 300,000 alternatives overflowed the stack.
  let least = bound;
  if (first.top?.length) for (const logprob of listed) least = Math.min(least, logprob);
  return least;
}

/** A log-probability a probability can have: finite, and at most 0. */
function isLogprob(value: number): boolean {
  return Number.isFinite(value) && value <= 0;
}

function isYes(token: string): boolean {
  const word = token.trim().toUpperCase();
  return word === 'Y' || word === 'YES';
}

function isNo(token: string): boolean {
  const word = token.trim().toUpperCase();
  return word === 'N' || word === 'NO';
}

function logSumExp(values: readonly number[]): number {
  let top = Number.NEGATIVE_INFINITY;
  for (const value of values) top = Math.max(top, value);
  if (!Number.isFinite(top)) return top;
  return top + Math.log(values.reduce((sum, value) => sum + Math.exp(value - top), 0));
}

function quote(text: string): string {
  return text.length <= SELF_CHECK_QUOTE_CHARS ? text : `${text.slice(0, SELF_CHECK_QUOTE_CHARS)} […]`;
}
