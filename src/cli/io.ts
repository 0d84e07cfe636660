/**
 * What a CLI command is given instead of reaching for `process`: its output streams, standard input,
 * folder, environment, clock and the user's stop. Tests pass their own and read what was written.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Clock } from '../core/clock';
import { PanelError, parsePanelText, type Panel } from '../core/panel';
import { readPanelFileBytes } from '../core/panelFileText';

/**
 * The exit code when a command did what it was asked.
 *
 * @remarks
 * One convention for every subcommand, so a script can tell the user's mistake from a failure:
 * {@link EXIT_USAGE} when the command line or a file it names cannot be used as given, {@link EXIT_FAILED}
 * when something went wrong while running, {@link EXIT_STOPPED} when the user pressed Ctrl-C. docs/cli.md
 * carries the same table.
 */
export const EXIT_OK = 0;
/** A failure at run time: no answer stands, a provider or the disk refused, the ledger could not be read. */
export const EXIT_FAILED = 1;
/** Usage and bad input: an unknown flag, a missing value, a panel, outcomes or schema file that does not parse. */
export const EXIT_USAGE = 2;
/** The user stopped the command (Ctrl-C): 128 + SIGINT, as shells report it. */
export const EXIT_STOPPED = 130;

/** Standard input as a command sees it. */
export interface CliInput {
  /** Whether it is a terminal (a person would have to type the prompt), not a pipe or a file. */
  isTTY: boolean;
  /** Reads all of it as UTF-8 text. */
  readAll(): Promise<string>;
}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
  clock: Clock;
  /** Standard input; absent means there is none to read (as when it is a terminal). */
  stdin?: CliInput;
  /** Whether stderr is a terminal, where a progress line that rewrites itself is welcome; absent means no. */
  stderrIsTTY?: boolean;
  /** Whether stdout is a terminal, which would obey escape sequences in a model's answer; absent means no. */
  stdoutIsTTY?: boolean;
  /** The user's stop (Ctrl-C), when the caller wires one. */
  signal?: AbortSignal;
}

/** A mistake in how the command was called: printed with the usage, exit code {@link EXIT_USAGE}. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The user stopped the command before it finished: exit code {@link EXIT_STOPPED}. */
export class StoppedError extends Error {
  override name = 'StoppedError';
  constructor() {
    super('stopped by the user');
  }
}

/** Whether `node:util` parseArgs rejected the arguments (an unknown flag, a missing value). */
export function isParseArgsError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  );
}

/**
 * Reads a file the user named with `flag`, relative to the command's folder, as UTF-8 text; a missing
 * file, or one that is not UTF-8 text, is a usage error that says which.
 */
export function readUserFile(path: string, io: Pick<CliIo, 'cwd'>, flag: string): string {
  const full = resolve(io.cwd, path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(full);
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${full}: ${readFailure(error)}`);
  }
  const notText = notUtf8Text(bytes);
  if (notText) throw new UsageError(`cannot read ${flag} ${full}: ${notText}`);
  return bytes.toString('utf8');
}

/** How many leading bytes are searched for a NUL, as git does to call a file binary. */
const BINARY_SNIFF_BYTES = 8000;

/**
 * Why `bytes` are not UTF-8 text, or undefined.
 *
 * @remarks
 * Decoded as they were, such files failed as "not valid JSON" on line 1 with the raw bytes in the
 * message (`Unexpected token '', "�7%k�"...`): a gzip of the outcomes, or the UTF-16 that Windows
 * PowerShell's `>` writes. What the file is says what to do.
 */
function notUtf8Text(bytes: Buffer): string | undefined {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'it is gzip-compressed; decompress it first (gunzip)';
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return 'it is UTF-16 text; save it as UTF-8';
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return 'it is a binary file, not text';
  return undefined;
}

/** Why a named file could not be read, in words: the user typed a path, not a system call. */
const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'that is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return (code === undefined ? undefined : READ_FAILURES[code]) ?? code ?? (error as Error).message;
}

/**
 * Reads and validates a panel file; the default providers follow the command's environment (`OLLAMA_HOST`).
 *
 * @remarks
 * Read by the panel's own reader (panelFileText.ts): anything but a regular file, or a file larger than
 * any panel, is refused before it is read (a `--panel /dev/zero` read 630 MB). A link the user made is
 * followed: they named the path.
 */
export function readPanelFile(path: string, io: Pick<CliIo, 'cwd' | 'env'>): Panel {
  const full = resolve(io.cwd, path);
  let bytes: Buffer | undefined;
  try {
    bytes = readPanelFileBytes(full, { followLinks: true });
  } catch (error) {
    if (error instanceof PanelError) throw new UsageError(`cannot read --panel ${full}: ${error.issues.join('; ')}`);
    if (error instanceof Error && 'code' in error) throw new UsageError(`cannot read --panel ${full}: ${readFailure(error)}`);
    throw error;
  }
  if (bytes === undefined) throw new UsageError(`cannot read --panel ${full}: ${READ_FAILURES.ENOENT}`);
  const notText = notUtf8Text(bytes);
  if (notText) throw new UsageError(`cannot read --panel ${full}: ${notText}`);
  return parsePanelText(bytes.toString('utf8'), path, io.env);
}

/**
 * Reads a stream to its end as UTF-8 text: `process.stdin` for {@link CliInput.readAll}.
 *
 * @remarks
 * Chunks are kept as buffers and decoded once, so a character split across two chunks is not mangled.
 */
export async function readStreamText(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
