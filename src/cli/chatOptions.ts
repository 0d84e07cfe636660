/**
 * `rung chat`'s flags, declared once for its parser and its `--help`, and the pieces of its command
 * check a terminal needs: the timeout flag read as milliseconds, and the "still checking" line.
 *
 * @remarks
 * Kept apart from chatCommand.ts so the top-level `rung --help` and the chat command read the same
 * declaration, whoever shapes the command itself.
 */
import { COMMAND_TIMEOUT_MS, type CheckProgress } from '../core/verifiers/commandVerifier';
import { VARIABLE_NAME } from '../core/verifiers/commandEnvironment';
import { DEFAULT_ATTEMPT_TIMEOUT_SECONDS, MAX_ATTEMPT_TIMEOUT_SECONDS } from '../core/panel';
import type { StoreLocation } from '../core/store/storeLocation';
import { cliStoreLocation, SEND_WORKSPACE_LEDGER_FLAG } from './cliStore';
import { CONFIDENCE_CHECK_MODES, DEFAULT_CONFIDENCE_CHECK, type ConfidenceCheckMode } from '../core/confidence/liveConfidence';
import { UsageError, type CliIo } from './io';
import { PANEL_FLAG_DESCRIPTION } from './panelOption';
import { readPrompt, STDIN_OPERAND } from './prompt';
import { parseCommandArgs, type CommandUsage } from './usage';

export const CHAT_COMMAND = {
  name: 'rung chat',
  summary: 'Routes one prompt through the panel: streams the answer, checks it, and escalates to a stronger model when the check fails.',
  operands: `[PROMPT... | ${STDIN_OPERAND}]`,
  operandHelp: [
    ['PROMPT...', 'the prompt, as words on the command line'],
    [STDIN_OPERAND, 'read the prompt from standard input; a pipe with no PROMPT is read the same way'],
  ],
  flags: {
    panel: { type: 'string', value: 'FILE', description: PANEL_FLAG_DESCRIPTION },
    class: {
      type: 'string',
      value: 'CLASS',
      description:
        'the class of request (plan, chat, edit, leaf or your own, with /shape); absent: read from the prompt (plan for JSON, edit for code, else chat)',
    },
    schema: { type: 'string', value: 'FILE', description: 'a JSON Schema the answer must match; asks the models for JSON' },
    'verify-command': {
      type: 'string',
      value: 'CMD',
      description: "a command (npm test) run on a scratch copy of this folder with the answer's files written in; exit 0 passes",
    },
    'verify-timeout': {
      type: 'string',
      value: 'MS',
      description: `how long --verify-command may run before the check is called unverified (default: ${COMMAND_TIMEOUT_MS})`,
    },
    'verify-env': {
      type: 'string',
      value: 'NAME',
      multiple: true,
      description:
        "let --verify-command see this environment variable too (repeat for more); it gets only PATH, HOME, the locale and the toolchains' own locations otherwise, and never a RUNG_*_API_KEY",
    },
    'attempt-timeout': {
      type: 'string',
      value: 'SECS',
      description: `how long one model may take to stream its whole answer before the attempt is a provider error and the next rung is tried (default: the panel's routing.attemptTimeoutSeconds, else ${DEFAULT_ATTEMPT_TIMEOUT_SECONDS})`,
    },
    'confidence-check': {
      type: 'string',
      value: 'MODE',
      description: `which models the confidence check asks "is this answer right?", a second one-token call on an answer nothing else can check: local (free models on a local provider), all (paid models too, at their price) or off (default: ${DEFAULT_CONFIDENCE_CHECK})`,
    },
    ledger: {
      type: 'string',
      value: 'FILE|URL',
      description:
        'learn into this ledger, decisions in decisions.jsonl beside it (without it: learn in memory and forget); a team server (postgres://…) keeps the decisions in .rung/ here',
    },
    'share-decisions': {
      type: 'boolean',
      default: false,
      description:
        "also send this run's decision rows (no prompts: class, candidates, model, verdict, cost) to the team server named by --ledger postgres://…; off: they stay in .rung/ here",
    },
    ...SEND_WORKSPACE_LEDGER_FLAG,
    json: {
      type: 'boolean',
      default: false,
      description: 'print one JSON object (answer, model, checks, cost, attempts) on stdout; notices go to stderr',
    },
    'prompt-file': { type: 'string', value: 'FILE', description: 'read the prompt from FILE, for a prompt too long for the command line' },
  },
  notes: ['Keys come from RUNG_<PROVIDER>_API_KEY (RUNG_OPENROUTER_API_KEY) and are never printed.'],
} as const satisfies CommandUsage;

/** `rung chat`'s command line, read and checked: the flags' values and the prompt from wherever it came. */
export interface ChatCommandLine {
  /** `--panel`; undefined to find the panel as the extension does (panelOption.ts). */
  panel: string | undefined;
  classKey: string | undefined;
  schema: string | undefined;
  verifyCommand: string | undefined;
  /** `--verify-timeout`, ms; undefined keeps the verifier's default ({@link COMMAND_TIMEOUT_MS}). */
  verifyTimeoutMs: number | undefined;
  /** `--verify-env`: variables the command may see beyond those every command gets. */
  verifyEnv: string[];
  /** `--attempt-timeout`, seconds; undefined keeps the panel's (or the default). */
  attemptTimeoutSeconds: number | undefined;
  /** `--confidence-check`: which models the confidence check asks. */
  confidenceCheck: ConfidenceCheckMode;
  /** `--ledger`, read: where ratings and decision rows are kept (memory without it). */
  store: StoreLocation;
  /** `--share-decisions`: the team's opt-in to receive this member's decision rows; needs a team `--ledger`. */
  shareDecisions: boolean;
  /** `--send-workspace-ledger`: send the workspace ledger to the team even when this machine did not make it; needs a team `--ledger`. */
  sendWorkspaceLedger: boolean;
  json: boolean;
  prompt: string;
}

/**
 * Reads `rung chat`'s arguments (the words after `chat`) and its prompt; throws a {@link UsageError}
 * (or parseArgs' own error) for anything the user must fix.
 *
 * @remarks
 * The flags are checked before the prompt is read, so a typo is reported at once rather than after
 * a megabyte of standard input has been taken in.
 */
export async function readChatCommandLine(argv: readonly string[], io: Pick<CliIo, 'cwd' | 'stdin'>): Promise<ChatCommandLine> {
  const { values, positionals } = parseCommandArgs(CHAT_COMMAND, argv);
  // An empty --class= reached shaped() only once the call was routed, and failed as a run-time error, exit 1.
  if (values.class !== undefined && !values.class.trim())
    throw new UsageError('--class needs a class (plan, chat, edit, leaf or your own), not an empty one; leave it out for the default');
  const verifyTimeoutMs = parseVerifyTimeout(values['verify-timeout']);
  if (verifyTimeoutMs !== undefined && values['verify-command'] === undefined)
    throw new UsageError('--verify-timeout limits --verify-command, which is missing');
  const verifyEnv = values['verify-env'] ?? [];
  if (verifyEnv.length > 0 && values['verify-command'] === undefined)
    throw new UsageError('--verify-env names variables for --verify-command, which is missing');
  for (const name of verifyEnv) {
    if (!VARIABLE_NAME.test(name))
      throw new UsageError(`--verify-env takes the name of an environment variable (letters, digits and _), not ${JSON.stringify(name)}`);
  }
  const store = cliStoreLocation(values.ledger, io, 'memory');
  if (values['share-decisions'] && store.kind !== 'team')
    throw new UsageError('--share-decisions sends decision rows to a team server: it needs --ledger postgres://…');
  if (values['send-workspace-ledger'] && store.kind !== 'team')
    throw new UsageError('--send-workspace-ledger sends the workspace ledger to a team server: it needs --ledger postgres://…');
  const attemptTimeoutSeconds = parseAttemptTimeout(values['attempt-timeout']);
  const confidenceCheck = parseConfidenceCheck(values['confidence-check']);
  const prompt = await readPrompt({ positionals, promptFile: values['prompt-file'] }, io);
  return {
    panel: values.panel,
    classKey: values.class,
    schema: values.schema,
    verifyCommand: values['verify-command'],
    verifyTimeoutMs,
    verifyEnv,
    attemptTimeoutSeconds,
    confidenceCheck,
    store,
    shareDecisions: values['share-decisions'],
    sendWorkspaceLedger: values['send-workspace-ledger'] === true,
    json: values.json,
    prompt,
  };
}

/** Reads `--verify-timeout MS`: a whole number of milliseconds, at least 1; undefined keeps the default. */
export function parseVerifyTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(`--verify-timeout must be a whole number of milliseconds, at least 1, not "${text}"`);
  return Number(text);
}

/** Reads `--attempt-timeout SECS`: a number of seconds above 0, at most a day; undefined keeps the panel's. */
export function parseAttemptTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(seconds > 0) || seconds > MAX_ATTEMPT_TIMEOUT_SECONDS) {
    throw new UsageError(`--attempt-timeout must be a number of seconds above 0 and at most ${MAX_ATTEMPT_TIMEOUT_SECONDS}, not "${text}"`);
  }
  return seconds;
}

/** Reads `--confidence-check off|local|all`; absent, {@link DEFAULT_CONFIDENCE_CHECK}. */
export function parseConfidenceCheck(text: string | undefined): ConfidenceCheckMode {
  if (text === undefined) return DEFAULT_CONFIDENCE_CHECK;
  const mode = CONFIDENCE_CHECK_MODES.find((each) => each === text);
  if (!mode) throw new UsageError(`--confidence-check must be ${CONFIDENCE_CHECK_MODES.join(', ')}, not "${text}"`);
  return mode;
}

/** The stderr line while a check runs long: `still checking \`npm test\` after 10 s (gives up at 120 s)`. */
export function checkProgressLine(progress: CheckProgress): string {
  return `still checking \`${progress.command}\` after ${seconds(progress.elapsedMs)} (gives up at ${seconds(progress.timeoutMs)})`;
}

/** The `onProgress` for a command check that writes {@link checkProgressLine} on stderr, as its own line. */
export function printCheckProgress(io: Pick<CliIo, 'stderr'>, prefix = 'rung chat'): (progress: CheckProgress) => void {
  return (progress) => io.stderr(`${prefix}: ${checkProgressLine(progress)}\n`);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
