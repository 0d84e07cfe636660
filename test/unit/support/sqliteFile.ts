/**
 * Reads and changes SQLite files as the sqlite3 command line tool would, through sql.js: a unit spec
 * starts no process, and what a ledger saves is an ordinary SQLite database either way.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SqlJsStatic } from 'sql.js';

/**
 * Every row each of `statements` returns from the file at `path`, as the tool prints them: values joined
 * by `|`, NULL as nothing (a REAL prints as JavaScript writes the number: `2`, where the tool says `2.0`).
 * Never writes the file.
 */
export function sqliteLines(sql: SqlJsStatic, path: string, statements: string): string[] {
  const db = new sql.Database(readFileSync(path));
  try {
    return db
      .exec(statements)
      .flatMap((result) => result.values.map((row) => row.map((value) => (value === null ? '' : String(value))).join('|')));
  } finally {
    db.close();
  }
}

/** Runs `statements` on the file at `path` (a new database when there is none) and writes the result back in place. */
export function sqliteChange(sql: SqlJsStatic, path: string, statements: string): void {
  const db = existsSync(path) ? new sql.Database(readFileSync(path)) : new sql.Database();
  try {
    db.exec(statements);
    writeFileSync(path, db.export());
  } finally {
    db.close();
  }
}
