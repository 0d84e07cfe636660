/**
 * Replaces a file's contents all at once: write a sibling temp file, fsync it, rename it over the target.
 *
 * @remarks
 * `rename` within a directory is atomic on POSIX and on NTFS, so a reader (or a process killed in the
 * middle of a save) sees either the whole old file or the whole new one, never a mixture. The fsync
 * before the rename orders the data before the name on disk: without it a power cut after the rename
 * could leave the new name pointing at unwritten blocks. Temp files are named `<file>.tmp-<pid>-<random>`
 * so a writer killed mid-save leaves one behind that the next lock holder can remove.
 *
 * The rename puts a new file, with its own mode, where the old one was, so the old file's mode is given
 * to the temp file first: a ledger the user made private (600) came back 644 after one save. The rename
 * also needs only the folder to be writable, so a file the user made read-only (444) was replaced as
 * though it were not; it is refused instead ({@link ReadOnlyFileError}), on its mode bits rather than on
 * a failed open, because root may open any file and CI runs as root.
 *
 * The temp file is created with `O_EXCL` and `O_NOFOLLOW`, and a symbolic link (or anything but a file)
 * at the target is refused before anything is written (see safeFiles.ts): the rename would replace the
 * link rather than write through it, but a link where Rung keeps its file was put there by someone.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { unlinkQuietly } from './fileLock';
import { lstatIfExists, openNoFollow, refuseUnlessFile } from './safeFiles';

/** A file nobody may write (no write bit in its mode), which {@link writeFileAtomic} will not replace. */
export class ReadOnlyFileError extends Error {
  constructor(
    readonly path: string,
    /** The permission bits, `0o444`. */
    readonly mode: number,
  ) {
    super(
      `${path} is read-only (mode ${mode.toString(8).padStart(3, '0')}), so Rung leaves it as it is; make it writable (chmod u+w) to save to it`,
    );
    this.name = 'ReadOnlyFileError';
  }
}

/**
 * Writes `data` to `path` atomically, keeping the mode of the file it replaces; returns the new file's
 * stat (its inode survives the rename). Throws {@link ReadOnlyFileError}, writing nothing, when the
 * file there is read-only.
 */
export function writeFileAtomic(path: string, data: Uint8Array): BigIntStats {
  refuseUnlessFile(path);
  const mode = modeToKeep(path);
  if (mode !== undefined && (mode & 0o222) === 0) throw new ReadOnlyFileError(path, mode);
  const temp = `${path}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  // Created with the old mode so the temp file is never more open than the file it replaces; the umask
  // may have taken bits from it, so they are set again exactly.
  const fd = openNoFollow(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o666);
  let stat: BigIntStats;
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    let offset = 0;
    while (offset < data.byteLength) offset += writeSync(fd, data, offset, data.byteLength - offset);
    fsyncSync(fd);
    stat = fstatSync(fd, { bigint: true });
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
  fsyncDirectory(dirname(path));
  return stat;
}

/**
 * The permission bits of the regular file at `path`, or undefined when there is none: a new file takes
 * the umask's default, and a path that cannot be read is left to the write to fail on, as before. The
 * set-id and sticky bits are not carried over; a data file has no use for them.
 */
function modeToKeep(path: string): number | undefined {
  try {
    const stat = lstatIfExists(path);
    return stat?.isFile() ? stat.mode & 0o777 : undefined;
  } catch {
    return undefined;
  }
}

/** Removes temp files a killed writer left beside `path`. Call only while holding the file's lock. */
export function removeLeftoverTemps(path: string): number {
  const prefix = `${basename(path)}.tmp-`;
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return 0;
  }
  for (const name of names) {
    if (name.startsWith(prefix)) {
      unlinkQuietly(join(dirname(path), name));
      removed++;
    }
  }
  return removed;
}

/** Makes the rename itself durable; not every platform can open a directory, so failure is tolerated. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
