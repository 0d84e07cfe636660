/**
 * The CLI's guard before it opens a ledger file for writing: a file that does not even start like an
 * SQLite database was named by mistake, and is refused rather than repaired.
 *
 * @remarks
 * The ledger repairs a file SQLite cannot open by renaming it aside (`*.corrupt-<time>`) and starting a
 * fresh one in its place (see ledgerFile.ts). For a ledger that is the right repair; for `--ledger
 * notes.md` or `--ledger outcomes.jsonl`, a slip of the finger, it moved the user's file away from its
 * name and left an SQLite file there, with exit 0. Every SQLite database, damaged pages or not, opens
 * with the same 16-byte header, so a file without it was never a ledger in any state a writer leaves:
 * Rung saves by an atomic rename, and an empty file is a ledger never written (it is allowed). Only the
 * CLI refuses, and not at the workspace's own ledger (`.rung/ledger.sqlite`, the default path, which the
 * extension opens too): a file there was put there by Rung, so whatever it holds can only be damage, and
 * the CLI repairs it as the extension does.
 */
import { closeSync, constants, readSync } from 'node:fs';
import { isRungsOwnLedgerPath } from '../core/ledger/workspaceLedger';
import { openNoFollow } from '../core/files/safeFiles';
import { UsageError } from './io';

/** What every SQLite database file begins with: "SQLite format 3" and a NUL. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Throws a {@link UsageError} when `path` is a non-empty file, not the workspace's own ledger, that does not begin with the SQLite header; anything else is left to the ledger. */
export function refuseNonSqliteLedger(path: string): void {
  if (isRungsOwnLedgerPath(path)) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let length: number;
  try {
    // Not through a link: the ledger's own open refuses one by name.
    const fd = openNoFollow(path, constants.O_RDONLY);
    try {
      length = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Missing, a folder, a link, unreadable: the ledger's own open says each of those by name.
    return;
  }
  if (length === 0 || head.equals(SQLITE_HEADER)) return;
  throw new UsageError(
    `${path} is not a ledger: it is not an SQLite database at all; it was left as it is. ` +
      `Pass --ledger with another file (a new one is created), or if it is a ledger damaged past its first bytes, move it aside yourself and run again`,
  );
}
