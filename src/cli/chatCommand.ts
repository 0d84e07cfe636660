/**
 * `rung chat`: one prompt routed through the real providers from a terminal — streamed to stdout,
 * checked, and escalated visibly when the check fails.
 *
 * @remarks
 * The same Router, adapters and verifiers the extension uses, so what a user sees here is what the
 * chat participant does. Keys come from `RUNG_<PROVIDER>_API_KEY` and go to the adapter only; they
 * are never printed, and the adapters keep them out of every message. With `--json`, stdout carries
 * exactly one JSON object and everything else (escalations, skips, pruned rungs) goes to stderr, so
 * a script can parse stdout whole.
 */
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { providerAttempt, type ChatAnswer } from '../core/chat/providerAttempt';
import { shaped, splitClassKey } from '../core/classKey';
import { MemoryDecisionSink, type DecisionSink } from '../core/decisions/decision';
import { DecisionLog, decisionLogPath } from '../core/ledger/decisionLog';
import type { Ledger } from '../core/ledger/ledger';
import { MemoryLedger } from '../core/ledger/memoryLedger';
import { apiKeyVariable, PanelError, type Panel } from '../core/panel';
import { connectProviders } from '../core/providers/connectProviders';
import { ProviderHealthBoard } from '../core/providers/providerHealthBoard';
import { ProviderFailure, type ChatMessage, type ProviderAdapter } from '../core/providers/provider';
import { seededRandom } from '../core/random';
import { RoutingError } from '../core/routing/rank';
import { Router } from '../core/routing/router';
import type { AttemptFn } from '../core/routing/types';
import { AllVerifiers } from '../core/verifiers/allVerifiers';
import { CodeSyntaxVerifier } from '../core/verifiers/codeSyntaxVerifier';
import { CommandVerifier } from '../core/verifiers/commandVerifier';
import { StructuredOutputVerifier } from '../core/verifiers/structuredOutputVerifier';
import type { Verifier } from '../core/verifiers/verifier';
import { readPanelFile, readUserFile, UsageError, type CliIo } from './io';
import type { LedgerOpener } from './replayCommand';

export const CHAT_USAGE = `usage: rung chat --panel FILE [--class CLASS] [--schema FILE] [--verify-command CMD] [--ledger FILE] [--json] "PROMPT"`;

/** Exit code when the user stopped the call: 128 + SIGINT, as shells report it. */
const EXIT_STOPPED = 130;

export interface ChatIo extends CliIo {
  /** The user's stop (Ctrl-C), when the caller wires one. */
  signal?: AbortSignal;
}

interface AttemptLine {
  model: string;
  verdict: string;
  reason: string;
}

/**
 * Runs `rung chat` with `argv` (the words after `chat`); returns the exit code: 0 an answer stands,
 * 1 no rung produced one, 2 the command was called wrongly, 130 the user stopped it.
 *
 * @remarks
 * Without `--ledger` the call learns into memory and forgets; with it, ratings land in that ledger
 * file and the decision rows in the decision log beside it, through the opener main.ts supplies
 * (as for `rung rank` and `rung replay`).
 */
export async function runChatCommand(argv: string[], io: ChatIo, openLedger?: LedgerOpener): Promise<number> {
  let parsed: ReturnType<typeof parseChatArgs>;
  let panel: Panel;
  let schema: unknown;
  try {
    parsed = parseChatArgs(argv);
    panel = readPanelFile(parsed.panel, io);
    schema = parsed.schema === undefined ? undefined : readJson(parsed.schema, io, '--schema');
    if (parsed.ledger !== undefined && !openLedger) throw new UsageError('--ledger is not available in this build');
  } catch (error) {
    if (error instanceof PanelError) {
      io.stderr(`rung chat: ${error.message}\n`);
      return 2;
    }
    io.stderr(`rung chat: ${error instanceof Error ? error.message : String(error)}\n${CHAT_USAGE}\n`);
    return 2;
  }
  const { json, prompt } = parsed;
  const classKey = shaped(parsed.class ?? (schema !== undefined ? 'plan' : 'chat'));
  // By class, not by prefix: `editor` is a class of its own, `edit/typescript` is an edit.
  const isEdit = splitClassKey(classKey).cls === 'edit';

  const health = new ProviderHealthBoard({ clock: io.clock });
  const { adapters, facts } = await connectProviders({
    panel,
    clock: io.clock,
    health,
    keyFor: (provider) => io.env[apiKeyVariable(provider)],
    keyHint: (provider) => `set ${apiKeyVariable(provider)}`,
    catalogPath: (provider) => join(io.cwd, '.rung', `catalog-${provider}.json`),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  // Stopped while probing or fetching a catalog: no call was made, and routing now would only report
  // the providers the stop cut short as unavailable.
  if (io.signal?.aborted) {
    if (json) io.stdout(`${JSON.stringify({ answer: null, model: null, attempts: [] })}\n`);
    io.stderr('rung chat: stopped by the user\n');
    return EXIT_STOPPED;
  }
  const verifier = buildVerifier({ schema, command: parsed.verifyCommand, isEdit, cwd: io.cwd, env: io.env });
  const messages: ChatMessage[] = [];
  if (schema !== undefined) {
    messages.push({ role: 'system', content: `Answer with JSON only, matching this JSON Schema:\n${JSON.stringify(schema)}` });
  }
  messages.push({ role: 'user', content: prompt });

  const ledgerPath = parsed.ledger === undefined ? undefined : resolve(io.cwd, parsed.ledger);
  const ledger: Ledger = ledgerPath && openLedger ? await openLedger(ledgerPath, io) : new MemoryLedger();
  const sink: DecisionSink & { close?: () => Promise<void> } = ledgerPath ? new DecisionLog({ path: decisionLogPath(ledgerPath), clock: io.clock }) : new MemoryDecisionSink();
  const router = new Router({ panel, ledger, clock: io.clock, sink, random: seededRandom(io.clock.now()), health, facts });
  const verifiable = schema !== undefined || parsed.verifyCommand !== undefined || isEdit;
  try {
    return await routeAndPrint({ router, adapters, messages, verifier, health, io, json, classKey, verifiable, askJson: schema !== undefined });
  } finally {
    await sink.close?.();
    await ledger.close();
  }
}

interface RouteAndPrintOptions {
  router: Router;
  adapters: Map<string, ProviderAdapter>;
  messages: ChatMessage[];
  verifier: Verifier;
  health: ProviderHealthBoard;
  io: ChatIo;
  json: boolean;
  classKey: string;
  verifiable: boolean;
  /** Ask the providers for a JSON answer. */
  askJson: boolean;
}

/** Routes the one call, streaming and narrating as it goes, and prints the result; returns the exit code. */
async function routeAndPrint(options: RouteAndPrintOptions): Promise<number> {
  const { router, io, json } = options;
  const note = (text: string): void => (json ? io.stderr(`${text}\n`) : io.stdout(`\n\n${text}\n\n`));
  const inner = providerAttempt({
    adapters: options.adapters,
    messages: options.messages,
    tools: [],
    verifier: options.verifier,
    clock: io.clock,
    signal: io.signal,
    health: options.health,
    chatOptions: options.askJson ? { json: true } : {},
    onPart: (_model, part) => {
      if (part.type === 'text-delta' && !json) io.stdout(part.text);
      if (part.type === 'warning') io.stderr(`rung chat: ${part.message}\n`);
    },
  });
  const lines: AttemptLine[] = [];
  // Wraps each attempt so the switch to the next rung is said out loud, with the reason.
  const attempt: AttemptFn<ChatAnswer> = async (candidate, context) => {
    const previous = lines.at(-1);
    if (previous?.verdict === 'fail') note(`escalated from ${previous.model} to ${candidate.slug}: ${previous.reason}`);
    else if (previous) io.stderr(`rung chat: skipped ${previous.model} (${verdictWithReason(previous)}); trying ${candidate.slug}\n`);
    try {
      const outcome = await inner(candidate, context);
      lines.push({ model: candidate.slug, verdict: outcome.verdict, reason: outcome.verdictReason ?? '' });
      return outcome;
    } catch (error) {
      const failure = error instanceof ProviderFailure ? error : undefined;
      lines.push({ model: candidate.slug, verdict: failure?.kind === 'stopped' ? 'stopped' : 'provider-error', reason: failure ? `${failure.kind}: ${failure.message}` : String(error) });
      throw error;
    }
  };

  const request = { callId: `chat-${randomUUID()}`, classKey: options.classKey, verifiable: options.verifiable };
  let attempts: AttemptLine[] = [];
  let answer: { text: string; model: string } | undefined;
  let stopped = false;
  try {
    const result = await router.route(request, attempt, io.signal);
    for (const pruned of result.ranking.pruned) io.stderr(`rung chat: pruned ${pruned.model}: ${pruned.reason}\n`);
    attempts = result.attempts.map((record) => ({ model: record.model, verdict: record.verdict, reason: record.verdictReason ?? '' }));
    stopped = result.attempts.some((record) => record.verdict === 'stopped');
    if (result.answer?.value) answer = { text: result.answer.value.text, model: result.answer.model };
  } catch (error) {
    if (!(error instanceof RoutingError)) throw error;
    io.stderr(`rung chat: ${error.message}\n`);
  }

  if (json) {
    io.stdout(`${JSON.stringify({ answer: answer?.text ?? null, model: answer?.model ?? null, attempts })}\n`);
  } else {
    io.stdout('\n');
    const last = attempts.at(-1);
    if (answer && last) io.stderr(`rung chat: answered by ${answer.model} (${verdictWithReason(last)})\n`);
    else if (last) io.stderr(`rung chat: no answer stands; last attempt ${last.model} (${verdictWithReason(last)})\n`);
  }
  if (stopped) return EXIT_STOPPED;
  return answer ? 0 : 1;
}

/**
 * An attempt's verdict and reason as one phrase: `fail: no JSON found`.
 *
 * @remarks
 * A failed call's reason already opens with the failure's kind (`provider-error: ollama: server error
 * (500)`, `stopped: stopped by the user`), as the decision rows record it; prefixing the verdict again
 * printed `stopped: stopped: stopped by the user`.
 */
function verdictWithReason(attempt: AttemptLine): string {
  return attempt.reason.startsWith(`${attempt.verdict}: `) ? attempt.reason : `${attempt.verdict}: ${attempt.reason}`;
}

function parseChatArgs(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      panel: { type: 'string' },
      class: { type: 'string' },
      schema: { type: 'string' },
      'verify-command': { type: 'string' },
      ledger: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.panel) throw new UsageError('rung chat needs --panel FILE');
  const prompt = positionals.join(' ').trim();
  if (!prompt) throw new UsageError('rung chat needs a prompt');
  return { panel: values.panel, class: values.class, schema: values.schema, verifyCommand: values['verify-command'], ledger: values.ledger, json: values.json, prompt };
}

function readJson(path: string, io: CliIo, flag: string): unknown {
  try {
    return JSON.parse(readUserFile(path, io, flag));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${flag} ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The checks a call gets: the schema if one was given, the command if one was given, code syntax for
 * edits. The command gets the command's own environment (`io.env`), which it strips of keys.
 */
function buildVerifier(options: { schema: unknown; command: string | undefined; isEdit: boolean; cwd: string; env: Record<string, string | undefined> }): Verifier {
  const verifiers: Verifier[] = [];
  if (options.schema !== undefined) verifiers.push(new StructuredOutputVerifier({ schema: options.schema }));
  if (options.isEdit) verifiers.push(new CodeSyntaxVerifier());
  if (options.command) verifiers.push(new CommandVerifier({ command: options.command, cwd: options.cwd, env: options.env }));
  return new AllVerifiers({ verifiers });
}
