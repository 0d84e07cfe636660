/**
 * Replaces a file's contents all at once: write a sibling temp file, fsync it, rename it over the target.
 *
 * @remarks
 * `rename` within a directory is atomic on POSIX and on NTFS, so a reader (or a process killed in the
 * middle of a save) sees either the whole old file or the whole new one, never a mixture. The fsync
 * before the rename orders the data before the name on disk: without it a power cut after the rename
 * could leave the new name pointing at unwritten blocks. Temp files are named `<file>.tmp-<pid>-<random>`
 * so a writer killed mid-save leaves one behind that the next lock holder can remove.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, renameSync, writeSync, type BigIntStats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { unlinkQuietly } from './fileLock';

/** Writes `data` to `path` atomically; returns the new file's stat (its inode survives the rename). */
export function writeFileAtomic(path: string, data: Uint8Array): BigIntStats {
  const temp = `${path}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  const fd = openSync(temp, 'w');
  let stat: BigIntStats;
  try {
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
