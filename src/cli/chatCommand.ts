/**
 * `rung chat`: one prompt routed through the real providers from a terminal — streamed to stdout,
 * checked, and escalated visibly when the check fails; the closing line names the model, the checks
 * that judged its answer (or "unchecked") and the cost.
 *
 * @remarks
 * The same Router, adapters and verifiers the extension uses, so what a user sees here is what the
 * chat participant does. Keys come from `RUNG_<PROVIDER>_API_KEY` and go to the adapter only; they
 * are never printed, and the adapters keep them out of every message. With `--json`, stdout carries
 * exactly one JSON object and everything else (escalations, skips, pruned rungs) goes to stderr, so
 * a script can parse stdout whole.
 */
import { tmpdir } from 'node:os';
import { parseJsonText } from '../core/jsonText';
import { apiKeyVariable, PanelError, type Panel } from '../core/panel';
import { seededRandom } from '../core/random';
import { RoutingError } from '../core/routing/rank';
import { prunedLine, type PrunedCandidate } from '../core/decisions/decision';
import { schemaProblems, sweepDeadScratch } from '../core/session/callChecks';
import { RungSession } from '../core/session/session';
import { reasonText } from '../core/verdict';
import type { SessionChatResult, SessionEvent, VerdictWithReason } from '../core/session/types';
import { printable, printableAnswer, printableJson } from '../core/terminalText';
import { CHAT_COMMAND, checkProgressLine, readChatCommandLine, type ChatCommandLine } from './chatOptions';
import { EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE, isParseArgsError, readUserFile, UsageError, type CliIo } from './io';
import { commandPanel } from './panelOption';
import type { StoreOpener } from './cliStore';
import { asksForHelp, formatHelp, usageLine } from './usage';
import { userCacheFolder } from './userCache';

/** The usage line, as `rung --help` and a usage error print it. */
export const CHAT_USAGE = usageLine(CHAT_COMMAND);

/** What chat is given: the CLI's io, with the user's stop (Ctrl-C) when the caller wires one. */
export type ChatIo = CliIo;

interface AttemptLine {
  model: string;
  verdict: string;
  reason: string;
  /** The checks that judged the attempt's answer, in words; empty when none did. */
  checks: string[];
  /** The model's confidence in the answer (a log-probability), when the confidence check read one. */
  confidence?: number;
}

/**
 * Runs `rung chat` with `argv` (the words after `chat`); returns the exit code: 0 an answer stands,
 * 1 no rung produced one, 2 the command was called wrongly, 130 the user stopped it.
 *
 * @remarks
 * Every routing rule (the class, the checks, the context the prompt needs, the escalation) is the
 * session's; this command only prints its events. Without `--ledger` the call learns into memory and
 * forgets; with it, ratings land in that ledger file and the decision rows in the decision log beside
 * it, through the opener main.ts supplies (as for `rung rank` and `rung replay`).
 */
export async function runChatCommand(argv: string[], io: ChatIo, openStore?: StoreOpener): Promise<number> {
  if (asksForHelp(argv, CHAT_COMMAND.flags)) {
    io.stdout(formatHelp(CHAT_COMMAND));
    return EXIT_OK;
  }
  let parsed: ChatCommandLine;
  let panel: Panel;
  let schema: unknown;
  try {
    parsed = await readChatCommandLine(argv, io);
    panel = await commandPanel(parsed.panel, io, CHAT_COMMAND.name);
    if (parsed.attemptTimeoutSeconds !== undefined)
      panel = { ...panel, routing: { ...panel.routing, attemptTimeoutSeconds: parsed.attemptTimeoutSeconds } };
    schema = parsed.schema === undefined ? undefined : readSchema(parsed.schema, io);
    if (parsed.store.kind !== 'memory' && !openStore) throw new UsageError('--ledger is not available in this build');
  } catch (error) {
    if (error instanceof PanelError) {
      io.stderr(`rung chat: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (!(error instanceof UsageError) && !isParseArgsError(error)) throw error;
    io.stderr(`rung chat: ${(error as Error).message}\n${CHAT_USAGE}\n(rung chat --help describes every flag)\n`);
    return EXIT_USAGE;
  }
  const { json } = parsed;
  const printer = new ChatPrinter(io, json);
  if (parsed.verifyCommand !== undefined) {
    for (const path of await sweepDeadScratch(tmpdir()))
      printer.notice(`removed ${path}, a scratch copy of the workspace that a run which died left behind`);
  }
  // The store keeps its decision log beside the ledger file; a team's decisions stay in this workspace.
  const session = await RungSession.open({
    panel,
    clock: io.clock,
    random: seededRandom(io.clock.now()),
    store: parsed.store,
    ...(openStore
      ? {
          openStore: (location, said) =>
            openStore(location, io, { shareDecisions: parsed.shareDecisions, sendWorkspaceLedger: parsed.sendWorkspaceLedger }, said),
        }
      : {}),
    keys: async (provider) => io.env[apiKeyVariable(provider)],
    keyHint: (provider) => `set ${apiKeyVariable(provider)}`,
    // The user's cache folder, never the working folder's `.rung/` (userCache.ts).
    catalogDir: userCacheFolder(io.env) ?? null,
    environment: io.env,
    confidenceCheck: parsed.confidenceCheck,
    log: (_level, message) => printer.notice(message),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  try {
    // Stopped while probing or fetching a catalog: no call was made, and routing now would only report
    // the providers the stop cut short as unavailable.
    if (io.signal?.aborted) {
      if (json) io.stdout(`${JSON.stringify({ answer: null, model: null, checks: [], checked: 'unchecked', cost: 0, attempts: [] })}\n`);
      io.stderr('rung chat: stopped by the user\n');
      return EXIT_STOPPED;
    }
    let result: SessionChatResult | undefined;
    try {
      result = await session.chat(
        {
          messages: [{ role: 'user', content: parsed.prompt }],
          ...(parsed.classKey !== undefined ? { classKey: parsed.classKey } : {}),
          checks: {
            ...(schema !== undefined ? { schema } : {}),
            ...(parsed.verifyCommand !== undefined
              ? {
                  command: {
                    command: parsed.verifyCommand,
                    cwd: io.cwd,
                    ...(parsed.verifyTimeoutMs !== undefined ? { timeoutMs: parsed.verifyTimeoutMs } : {}),
                    ...(parsed.verifyEnv.length > 0 ? { allowEnv: parsed.verifyEnv } : {}),
                    onProgress: (progress) => printer.notice(checkProgressLine(progress)),
                  },
                }
              : {}),
          },
          ...(io.signal ? { signal: io.signal } : {}),
        },
        (event) => printer.event(event),
      );
    } catch (error) {
      if (!(error instanceof RoutingError)) throw error;
      printer.notice(error.message);
    }
    return printer.finish(result);
  } finally {
    await session.dispose();
  }
}

/**
 * Prints a call's events: the answer streamed to stdout, everything else on its own line.
 *
 * @remarks
 * With `--json`, stdout carries exactly one JSON object at the end and every narration goes to stderr.
 * Without it, a notice on stderr after streamed text first ends the answer's line on stdout, so a
 * terminal showing both never reads `step two.rung chat: pruned …`.
 */
class ChatPrinter {
  /** Whether stdout ends at the start of a line. */
  private atLineStart = true;
  /** Whether the answer's last piece to a terminal ended in `\r`, held back until the next says whether a `\n` follows it. */
  private heldReturn = false;
  private prunedSeen = 0;

  constructor(
    private readonly io: ChatIo,
    private readonly json: boolean,
  ) {}

  event(event: SessionEvent): void {
    switch (event.type) {
      case 'routed':
        this.pruned(event.ranking.pruned);
        break;
      case 'part':
        if (event.part.type === 'text-delta' && !this.json && event.part.text) this.answer(event.part.text);
        if (event.part.type === 'warning') this.notice(event.part.message);
        break;
      case 'escalated':
        // The reason quotes the check or the provider: their text, escaped like every line said about a call.
        if (this.json) this.io.stderr(`${printable(event.reason)}\n`);
        else this.out(`${this.atLineStart ? '\n' : '\n\n'}${printable(event.reason)}\n\n`);
        break;
      case 'skipped':
        this.notice(`skipped ${event.model} (${phrase(event.verdict)}); trying ${event.next}`);
        break;
      case 'done':
        // Rungs the climb gave up on are known only at its end.
        this.pruned(event.result.ranking.pruned);
        break;
      case 'rung-started':
      case 'verdict':
        break;
    }
  }

  /**
   * One line on stderr, starting on its own line, with control characters escaped: a provider's error
   * text, a model's refusal and a catalog's model ids reach these lines, and a terminal must show them,
   * not obey them (see terminalText.ts).
   */
  notice(message: string): void {
    this.endLine();
    this.io.stderr(`rung chat: ${printable(message)}\n`);
  }

  /** Prints the outcome; returns the exit code. */
  finish(result: SessionChatResult | undefined): number {
    const attempts: AttemptLine[] = (result?.attempts ?? []).map((attempt) => ({
      model: attempt.model,
      verdict: attempt.verdict.kind,
      reason:
        reasonText({
          verdictReason: attempt.verdict.reason,
          ...(attempt.verdict.failure !== undefined ? { failure: attempt.verdict.failure } : {}),
        }) ?? '',
      checks: attempt.checks,
      ...(attempt.confidence !== undefined ? { confidence: attempt.confidence } : {}),
    }));
    const answer = result?.answer;
    if (this.json) {
      const outcome = {
        answer: answer?.text ?? null,
        model: answer?.model ?? null,
        checks: result?.checks ?? [],
        checked: result?.checked ?? 'unchecked',
        cost: result?.cost ?? 0,
        attempts,
      };
      this.io.stdout(`${printableJson(outcome)}\n`);
    } else {
      // Ends the answer's line; a call that printed nothing leaves stdout empty, not one blank line.
      this.endLine();
      const last = result?.attempts.at(-1);
      if (result && answer && last)
        this.notice(`answered by ${answer.model} (${phrase(last.verdict)}); ${result.checked}; cost ${usd(result.cost)}`);
      else if (last) this.notice(`no answer stands; last attempt ${last.model} (${phrase(last.verdict)})`);
    }
    if (result?.stopped) return EXIT_STOPPED;
    return answer ? EXIT_OK : EXIT_FAILED;
  }

  /** Prints the pruned rungs not printed yet, each once: `pruned qwen2.5:3b: needs context 25601 > 4000`. */
  private pruned(pruned: readonly PrunedCandidate[]): void {
    for (const entry of pruned.slice(this.prunedSeen)) this.notice(prunedLine(entry));
    this.prunedSeen = Math.max(this.prunedSeen, pruned.length);
  }

  /**
   * A piece of the answer, as the provider sent it to a pipe or a file, and with its control characters
   * escaped to a terminal (terminalText.ts): a terminal obeys them, and the answer is the provider's text.
   */
  private answer(text: string): void {
    if (!this.io.stdoutIsTTY) {
      this.out(text);
      return;
    }
    // A provider streams `\r\n` in two pieces as readily as in one; a `\r` alone is escaped, one ending a line is not.
    let piece = this.heldReturn ? `\r${text}` : text;
    this.heldReturn = false;
    const hold = piece.endsWith('\r');
    if (hold) piece = piece.slice(0, -1);
    if (piece) this.out(printableAnswer(piece));
    this.heldReturn = hold;
  }

  private out(text: string): void {
    if (this.heldReturn) {
      // Something other than the answer follows its `\r`: no line feed came, so it is shown, not obeyed.
      this.heldReturn = false;
      this.out('\\r');
    }
    this.io.stdout(text);
    this.atLineStart = text.endsWith('\n');
  }

  private endLine(): void {
    if (this.heldReturn) this.out('');
    if (!this.json && !this.atLineStart) this.out('\n');
  }
}

/**
 * A verdict and its reason as one phrase: `fail: no JSON found`, `provider-error: unavailable: openrouter:
 * the API key was rejected (401)`, `stopped: stopped by the user`.
 *
 * @remarks
 * Built from the verdict's parts, the failure's kind said only when it adds to the verdict: a reason
 * once carried its kind as a prefix, and adding the verdict again printed `stopped: stopped: …`.
 */
function phrase(verdict: VerdictWithReason): string {
  const failure = verdict.failure !== undefined && verdict.failure !== verdict.kind ? `${verdict.failure}: ` : '';
  return `${verdict.kind}: ${failure}${verdict.reason}`;
}

/** USD to three significant figures (`$0.0000146`): a local call's `$0` and a cloud call's fraction of a cent both read as they are. */
function usd(amount: number): string {
  return amount === 0 ? '$0' : `$${amount.toPrecision(3)}`;
}

/**
 * The `--schema` file, parsed and checked as a schema before any model is asked.
 *
 * @remarks
 * A schema the check cannot read is the user's mistake, and a usage error (exit 2) here; let through, it
 * failed every rung in turn (`{"type": "nonsense"}`), each paid for and graded down in the ledger, or
 * passed any answer (`[1, 2]`).
 */
function readSchema(path: string, io: CliIo): unknown {
  let schema: unknown;
  try {
    schema = parseJsonText(readUserFile(path, io, '--schema'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--schema ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const problems = schemaProblems(schema);
  if (problems.length > 0) throw new UsageError(`--schema ${path} is not a JSON Schema Rung can check: ${problems.join('; ')}`);
  return schema;
}
