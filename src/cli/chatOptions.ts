/**
 * `rung chat`'s flags, declared once for its parser and its `--help`, and the pieces of its command
 * check a terminal needs: the timeout flag read as milliseconds, and the "still checking" line.
 *
 * @remarks
 * Kept apart from chatCommand.ts so the top-level `rung --help` and the chat command read the same
 * declaration, whoever shapes the command itself.
 */
import { COMMAND_TIMEOUT_MS, type CheckProgress } from '../core/verifiers/commandVerifier';
import { UsageError } from './io';
import { STDIN_OPERAND } from './prompt';
import type { CommandUsage } from './usage';

export const CHAT_COMMAND = {
  name: 'rung chat',
  summary: 'Routes one prompt through the panel: streams the answer, checks it, and escalates to a stronger model when the check fails.',
  operands: `[PROMPT... | ${STDIN_OPERAND}]`,
  operandHelp: [
    ['PROMPT...', 'the prompt, as words on the command line'],
    [STDIN_OPERAND, 'read the prompt from standard input; a pipe with no PROMPT is read the same way'],
  ],
  flags: {
    panel: { type: 'string', value: 'FILE', description: 'the panel: models, providers, prices and routing settings (JSON)' },
    class: { type: 'string', value: 'CLASS', description: 'the class of request (plan, chat, edit, leaf or your own, with /shape); plan with --schema, else chat' },
    schema: { type: 'string', value: 'FILE', description: 'a JSON Schema the answer must match; asks the models for JSON' },
    'verify-command': { type: 'string', value: 'CMD', description: 'a command (npm test) run on a scratch copy of this folder with the answer\'s files written in; exit 0 passes' },
    'verify-timeout': { type: 'string', value: 'MS', description: `how long --verify-command may run before the check is called unverified (default: ${COMMAND_TIMEOUT_MS})` },
    ledger: { type: 'string', value: 'FILE', description: 'learn into this ledger, decisions in decisions.jsonl beside it (without it: learn in memory and forget)' },
    json: { type: 'boolean', default: false, description: 'print one JSON object (answer, model, attempts) on stdout; notices go to stderr' },
    'prompt-file': { type: 'string', value: 'FILE', description: 'read the prompt from FILE, for a prompt too long for the command line' },
  },
  required: ['panel'],
  notes: ['Keys come from RUNG_<PROVIDER>_API_KEY (RUNG_OPENROUTER_API_KEY) and are never printed.'],
} as const satisfies CommandUsage;

/** Reads `--verify-timeout MS`: a whole number of milliseconds, at least 1; undefined keeps the default. */
export function parseVerifyTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--verify-timeout must be a whole number of milliseconds, at least 1, not "${text}"`);
  return Number(text);
}

/** The stderr line while a check runs long: `still checking \`npm test\` after 10 s (gives up at 120 s)`. */
export function checkProgressLine(progress: CheckProgress): string {
  return `still checking \`${progress.command}\` after ${seconds(progress.elapsedMs)} (gives up at ${seconds(progress.timeoutMs)})`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
