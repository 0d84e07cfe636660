/**
 * How every `rung` subcommand describes itself: one declaration of its flags that both `node:util`
 * parseArgs and `--help` read.
 *
 * @remarks
 * The usage strings used to be written by hand beside the parseArgs options, and they drifted: `rung
 * replay --help` was an unknown option, and a flag could be added without a word in the usage. Here a
 * flag is declared once, with its description, so it cannot be parsed without being documented.
 */
import { parseArgs } from 'node:util';

/** One flag: what parseArgs needs, and what `--help` prints. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  /** The value's placeholder in the usage (`FILE`, `MS`); string flags only. */
  value?: string;
  /** What the flag does, in a phrase or two. */
  description: string;
  default?: string | boolean;
  short?: string;
  /** The flag may be given more than once; its values are collected in order. */
  multiple?: boolean;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** A subcommand as its usage and help describe it. */
export interface CommandUsage {
  /** `rung replay`, `rung ledger show`. */
  name: string;
  /** What the command does, one sentence. */
  summary: string;
  /** The positional arguments as the usage line shows them: `OUTCOMES.jsonl`, `[PROMPT | -]`. */
  operands?: string;
  /** The positional arguments described, each a name and what it is. */
  operandHelp?: readonly (readonly [string, string])[];
  flags: FlagSpecs;
  /** Flags the usage line shows without brackets, because the command cannot run without them. */
  required?: readonly string[];
  /** Closing lines: defaults, where files go. */
  notes?: readonly string[];
}

/** The column the flag descriptions start at in `--help`. */
const DESCRIPTION_COLUMN = 28;
/** Where the usage line wraps, characters: a terminal's usual width, with room to spare. */
const USAGE_WIDTH = 100;

/**
 * A list of commands for a help text: each name in one column two spaces wider than the longest, then
 * its summary.
 *
 * @remarks
 * The column used to be a fixed width, and `evaluate`, as wide as it, ran into its summary
 * (`evaluateEstimates what …`).
 */
export function commandList(entries: readonly (readonly [name: string, summary: string])[]): string[] {
  const width = Math.max(0, ...entries.map(([name]) => name.length)) + 2;
  return entries.map(([name, summary]) => `  ${name.padEnd(width)}${summary}`);
}

/** `--panel FILE`, `--json`. */
function flagWords(name: string, flag: FlagSpec): string {
  return flag.type === 'string' ? `--${name} ${flag.value ?? 'VALUE'}` : `--${name}`;
}

/**
 * The usage line: `usage: rung rank --panel FILE --class CLASS [--shape SHAPE] …`, wrapped under the
 * command's name.
 */
export function usageLine(usage: CommandUsage): string {
  const lead = `usage: ${usage.name}`;
  const words = [
    ...Object.entries(usage.flags).map(
      ([name, flag]) =>
        `${usage.required?.includes(name) ? flagWords(name, flag) : `[${flagWords(name, flag)}]`}${flag.multiple ? '...' : ''}`,
    ),
    ...(usage.operands ? [usage.operands] : []),
  ];
  const lines: string[] = [];
  let line = lead;
  for (const word of words) {
    if (line.length + 1 + word.length > USAGE_WIDTH && line.trim() !== '') {
      lines.push(line);
      line = ' '.repeat(lead.length);
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Words laid out in lines of at most {@link USAGE_WIDTH} characters, every line after the first indented by `indent`. */
function wrap(text: string, firstLength: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  let room = USAGE_WIDTH - firstLength;
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = '';
      room = USAGE_WIDTH - indent;
    }
    line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** The whole `--help` text: usage line, summary, every argument and flag described, then the notes. */
export function formatHelp(usage: CommandUsage): string {
  const row = (left: string, right: string): string =>
    left.length + 2 > DESCRIPTION_COLUMN
      ? `${left}\n${' '.repeat(DESCRIPTION_COLUMN)}${wrap(right, DESCRIPTION_COLUMN, DESCRIPTION_COLUMN)}`
      : `${left.padEnd(DESCRIPTION_COLUMN)}${wrap(right, DESCRIPTION_COLUMN, DESCRIPTION_COLUMN)}`;
  const lines = [usageLine(usage), '', wrap(usage.summary, 0, 0)];
  if (usage.operandHelp?.length) {
    lines.push('', 'arguments:');
    for (const [name, description] of usage.operandHelp) lines.push(row(`  ${name}`, description));
  }
  lines.push('', 'flags:');
  for (const [name, flag] of Object.entries(usage.flags)) {
    const left = `  ${flag.short ? `-${flag.short}, ` : ''}${flagWords(name, flag)}${flag.multiple ? '...' : ''}`;
    const fallback = flag.type === 'string' && typeof flag.default === 'string' ? ` (default: ${flag.default})` : '';
    lines.push(row(left, `${flag.description}${fallback}`));
  }
  lines.push(row('  -h, --help', 'print this help and exit'));
  if (usage.notes?.length) lines.push('', ...usage.notes.map((note) => wrap(note, 0, 0)));
  return `${lines.join('\n')}\n`;
}

/**
 * Whether the arguments ask for help (`--help` or `-h`), read the way parseArgs reads them.
 *
 * @remarks
 * Tokenised with the command's own flags, so `--class -h` (a value) and `-- -h` (after the end of the
 * flags) are not requests for help; any other mistake in the arguments is left for the real parse to
 * report, because someone asking for help should get it even with a typo beside it.
 */
export function asksForHelp(argv: readonly string[], flags: FlagSpecs = {}): boolean {
  const { tokens } = parseArgs({
    args: [...argv],
    options: { ...flags, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  return tokens.some((token) => token.kind === 'option' && token.name === 'help');
}

/**
 * Parses `argv` against the command's declared flags, strictly: an unknown flag, or an argument to a
 * command that declares no operands, is a usage error.
 */
export function parseCommandArgs<const U extends CommandUsage>(usage: U, argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: usage.flags as U['flags'], allowPositionals: usage.operands !== undefined, strict: true });
}
