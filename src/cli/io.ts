/**
 * What a CLI command is given instead of reaching for `process`: its output streams, folder,
 * environment and clock. Tests pass their own and read what was written.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Clock } from '../core/clock';
import { parsePanelText, type Panel } from '../core/panel';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
  clock: Clock;
}

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Whether `node:util` parseArgs rejected the arguments (an unknown flag, a missing value). */
export function isParseArgsError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS');
}

/** Reads a file the user named with `flag`, relative to the command's folder; a missing file is a usage error that says which. */
export function readUserFile(path: string, io: Pick<CliIo, 'cwd'>, flag: string): string {
  const full = resolve(io.cwd, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${full}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Reads and validates a panel file; the default providers follow the command's environment (`OLLAMA_HOST`). */
export function readPanelFile(path: string, io: Pick<CliIo, 'cwd' | 'env'>): Panel {
  return parsePanelText(readUserFile(path, io, '--panel'), path, io.env);
}
