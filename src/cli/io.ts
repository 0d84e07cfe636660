/**
 * What a CLI command is given instead of reaching for `process`: its output streams, folder,
 * environment and clock. Tests pass their own and read what was written.
 */
import type { Clock } from '../core/clock';

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
