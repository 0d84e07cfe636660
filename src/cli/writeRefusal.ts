/**
 * What to tell the user when the disk refuses a write: which folder, why, and what to do — instead of
 * Node's raw `EACCES: permission denied, open '…/ledger.sqlite.lock'`.
 *
 * @remarks
 * The raw message names the file Rung tried to create (the lock, a folder it was making), which the
 * user never asked for and cannot fix by itself; what they can act on is the folder that refused, found
 * here by walking up to the nearest part of the path that exists.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

/** The error codes that mean "this place cannot be written", and how each is said. */
const DENIALS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
};
/** The error codes that mean a file stands where a folder was needed (`mkdir` through or onto a file). */
const FILE_IN_THE_WAY = new Set(['ENOTDIR', 'EEXIST']);

/** The way past a refused write that always works, when the caller knows no flag to name. */
const ELSEWHERE = 'or choose a path in a folder you can write';

/**
 * A sentence naming the folder (or file) that refused a write, why, and what to do; undefined when
 * `error` is not a refused write (the caller reports it as it is).
 *
 * @param flag - the flag that chose the path (`--ledger FILE`), so the advice can name it.
 */
export function explainWriteRefusal(error: unknown, flag?: string): string | undefined {
  const elsewhere = flag === undefined ? ELSEWHERE : `or pass ${flag} with a path in a folder you can write`;
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const path = 'path' in error && typeof error.path === 'string' ? error.path : undefined;
  const blocker = path === undefined ? undefined : nearestExisting(path);
  if (path === undefined || blocker === undefined) return undefined;
  if (FILE_IN_THE_WAY.has(error.code)) {
    if (!blocker.isFile) return undefined;
    const what =
      blocker.path === path ? `${path} is a file, not a folder` : `cannot create ${path}: ${blocker.path} is a file, not a folder`;
    return `${what}; move that file, ${elsewhere}`;
  }
  const why = DENIALS[error.code];
  if (why === undefined) return undefined;
  const what = blocker.isFile ? `cannot write ${blocker.path}` : `cannot write in the folder ${blocker.path}`;
  // Permissions can be changed by their owner; a read-only file system cannot, from here.
  const fix =
    error.code === 'EROFS' ? elsewhere.replace(/^or /, '') : `give yourself write access to it (chmod u+w ${blocker.path}), ${elsewhere}`;
  return `${what} (${why}); ${fix}`;
}

/** The path itself or its nearest ancestor that exists, and whether that is a file. */
function nearestExisting(path: string): { path: string; isFile: boolean } | undefined {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { path: current, isFile: !statSync(current).isDirectory() };
    } catch (error) {
      // A file in the middle of the path makes everything below it ENOTDIR; keep walking up to it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
    }
    if (dirname(current) === current) return undefined;
  }
}

/** A write the disk refused, said as which folder and what to do (see {@link explainWriteRefusal}). */
export class WriteRefusedError extends Error {
  override name = 'WriteRefusedError';
}

/**
 * Runs `action`; a write it had refused becomes a {@link WriteRefusedError} that opens with `what` and
 * names the folder and the `flag` that chose the path. Any other failure passes through untouched.
 */
export async function explainingRefusal<T>(what: string, flag: string, action: () => T | Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const explanation = explainWriteRefusal(error, flag);
    if (explanation !== undefined) throw new WriteRefusedError(`${what}: ${explanation}`, { cause: error });
    throw error;
  }
}
