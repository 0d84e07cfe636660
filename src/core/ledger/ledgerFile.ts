/**
 * What a path offered as a ledger turns out to be: one rule for the workspace ledger's load and save and
 * for `rung ledger merge`'s check of its source.
 *
 * @remarks
 * The ledger repairs a damaged file by renaming it aside and starting afresh, so this rule decides what
 * may be renamed. Only a regular file that SQLite cannot open or whose integrity check fails is
 * `damaged`, and a file that carries Rung's mark (see `readSchema`) but whose tables turn out broken.
 * A directory, a file this process may not or cannot read (EACCES, EIO), and another application's
 * SQLite database passed as `--ledger` all belong to something else: renaming them once broke that
 * something, so they are refused by name and left exactly as they are. An SQL error while telling
 * whose a whole database is counts for that: such a file is foreign, never damaged.
 */
import { closeSync, constants, fstatSync, readSync, type BigIntStats } from 'node:fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { readSchema } from './schema';
import { describeBytes, isCode, openNoFollow, UnsafePathError, whatIs } from '../files/safeFiles';

export { whatIs } from '../files/safeFiles';

export type LedgerFile =
  | { kind: 'missing' }
  /** Zero bytes, or an SQLite database with no tables: a ledger that was never written. */
  | { kind: 'empty'; stat: BigIntStats }
  /** A Rung ledger at `version`; the caller owns `db` and must close it. */
  | { kind: 'ledger'; db: Database; version: number; stat: BigIntStats }
  /** A regular file that is not a whole SQLite database, or a marked Rung ledger that cannot be read: the only kind that may be moved aside. */
  | { kind: 'damaged'; problem: string }
  /**
   * Something that is not a ledger and is not ours to move: a directory, an unreadable file, another
   * application's database, a file larger than any ledger Rung writes.
   */
  | { kind: 'not-a-file' | 'unreadable' | 'foreign' | 'too-large'; problem: string }
  /**
   * An SQLite database shaped like a Rung ledger that holds what Rung never creates (see `readSchema`):
   * moved aside only from Rung's own place, refused anywhere else.
   */
  | { kind: 'crafted'; problem: string };

/**
 * The largest file read as a ledger, bytes.
 *
 * @remarks
 * sql.js runs on the thread that opened it, the extension host's included, so once views and triggers
 * are refused what is left to bound is size: an open's time follows the file's size whatever fills it,
 * about 85–100 ms a MiB on this 2-core machine at load average 4 and 300–400 ms a MiB at 12
 * (`RUNG_BENCH_ONLY=ledger-open npm run bench`, BENCHMARKS.md). And not only at open: every save reads
 * the file again under the lock, about once a second while calls are routed, so a file of Rung's own
 * shape padded to the bound would cost that much each second. Rung's own ledgers are small: the replay
 * of all 5,533 recorded prompts by subfamily writes 907 ratings in 184 KiB, and 4 MiB (about 60,000
 * ratings) is over twenty times that, read in about 0.35 s at load 4. A worker with a deadline would
 * bound the open but not those synchronous re-reads, so the bound is a size. A file over it is refused,
 * left as it is and never moved aside: it may be a real ledger, and saying so costs its owner one `mv`.
 */
export const LEDGER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Reads a file's bytes and the stat that describes exactly those bytes; a seam for tests of read errors.
 * A file of more than `maxBytes` comes back with its stat and no bytes.
 */
export type FileReader = (path: string, maxBytes: number) => { bytes: Uint8Array; stat: BigIntStats };

/**
 * Classifies `path`. Every `problem` reads after "the file …", e.g. "is a directory, not a ledger file".
 */
export function inspectLedgerFile(path: string, sql: SqlJsStatic, read: FileReader = readWithStat): LedgerFile {
  let bytes: Uint8Array;
  let stat: BigIntStats;
  try {
    ({ bytes, stat } = read(path, LEDGER_MAX_BYTES));
  } catch (error) {
    if (isCode(error, 'ENOENT')) return { kind: 'missing' };
    // A symbolic link: not ours to read, move or replace (see safeFiles.ts).
    if (error instanceof UnsafePathError) return { kind: 'not-a-file', problem: error.problem };
    return { kind: 'unreadable', problem: `cannot be read (${describe(error)})` };
  }
  if (!stat.isFile()) return { kind: 'not-a-file', problem: `is ${whatIs(stat)}, not a ledger file` };
  if (stat.size > BigInt(LEDGER_MAX_BYTES)) {
    return {
      kind: 'too-large',
      problem: `is ${describeBytes(Number(stat.size))}, larger than any ledger Rung writes (it reads at most ${describeBytes(LEDGER_MAX_BYTES)}, so that opening one cannot hold the editor); if it is a ledger of yours, move it aside and Rung starts a fresh one`,
    };
  }
  if (bytes.length === 0) return { kind: 'empty', stat };
  const opened = openWhole(bytes, sql);
  if ('problem' in opened) return { kind: 'damaged', problem: `is not a readable SQLite database (${opened.problem})` };
  // A whole SQLite database: from here an error says nothing about damage, and readSchema decides whose it is.
  const { db } = opened;
  const schema = readSchema(db, sql);
  if (schema.kind === 'rung') return { kind: 'ledger', db, version: schema.version, stat };
  db.close();
  switch (schema.kind) {
    case 'empty':
      return { kind: 'empty', stat };
    case 'broken':
      return { kind: 'damaged', problem: `is a Rung ledger whose tables cannot be read (${schema.reason})` };
    case 'foreign':
      return { kind: 'foreign', problem: `is an SQLite database but not a Rung ledger (${schema.reason})` };
    case 'crafted':
      return { kind: 'crafted', problem: `is shaped like a Rung ledger but is not one Rung wrote: ${schema.reason}` };
  }
}

/** Opens `bytes` as a database that passes SQLite's quick integrity check, or says why they are not one. */
function openWhole(bytes: Uint8Array, sql: SqlJsStatic): { db: Database } | { problem: string } {
  let db: Database | undefined;
  try {
    db = new sql.Database(bytes);
    const check = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
    if (check !== 'ok') throw new Error(`integrity check: ${String(check)}`);
    return { db };
  } catch (error) {
    db?.close();
    return { problem: describe(error) };
  }
}

/**
 * Reads a whole file through one descriptor, so the stat describes exactly the bytes read.
 *
 * @remarks
 * Opened non-blocking so a named pipe at the path cannot hang the open, and never through a symbolic
 * link (an {@link UnsafePathError}); anything but a regular file is returned unread, for the caller to
 * refuse by what it is.
 */
export function readWithStat(path: string, maxBytes = Number.POSITIVE_INFINITY): { bytes: Uint8Array; stat: BigIntStats } {
  const fd = openNoFollow(path, constants.O_RDONLY);
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile() || Number(stat.size) > maxBytes) return { bytes: new Uint8Array(0), stat };
    const bytes = new Uint8Array(Number(stat.size));
    let offset = 0;
    while (offset < bytes.length) {
      const count = readSync(fd, bytes, offset, bytes.length - offset, offset);
      if (count === 0) break;
      offset += count;
    }
    return { bytes: bytes.subarray(0, offset), stat };
  } finally {
    closeSync(fd);
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
