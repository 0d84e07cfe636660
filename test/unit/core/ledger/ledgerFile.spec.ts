import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inspectLedgerFile, type FileReader } from '../../../../src/core/ledger/ledgerFile';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});
let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

/** A reader that fails the way a file system does, with the error's code (tests run as root, where chmod cannot cause EACCES). */
function failingReader(code: string): FileReader {
  return (path) => {
    throw Object.assign(new Error(`${code}: failed, open '${path}'`), { code });
  };
}

describe('inspectLedgerFile', () => {
  it('calls a file it may not or cannot read unreadable, never damaged', () => {
    const path = join(dir.path, 'ledger.sqlite');
    for (const code of ['EACCES', 'EIO', 'EPERM']) {
      const file = inspectLedgerFile(path, sql, failingReader(code));
      expect(file).toEqual({ kind: 'unreadable', problem: `cannot be read (${code}: failed, open '${path}')` });
    }
    expect(inspectLedgerFile(path, sql, failingReader('ENOENT'))).toEqual({ kind: 'missing' });
  });

  it("tells a directory, an empty file, garbage and another application's database apart", () => {
    const directory = join(dir.path, 'a-directory');
    mkdirSync(directory);
    expect(inspectLedgerFile(directory, sql)).toEqual({ kind: 'not-a-file', problem: 'is a directory, not a ledger file' });
    const empty = join(dir.path, 'empty.sqlite');
    writeFileSync(empty, '');
    expect(inspectLedgerFile(empty, sql).kind).toBe('empty');
    const garbage = join(dir.path, 'garbage.sqlite');
    writeFileSync(garbage, 'not a database at all');
    expect(inspectLedgerFile(garbage, sql)).toMatchObject({
      kind: 'damaged',
      problem: expect.stringMatching(/^is not a readable SQLite database/),
    });
    const other = join(dir.path, 'other.db');
    const db = new sql.Database();
    db.run('CREATE TABLE users (id INTEGER)');
    writeFileSync(other, db.export());
    db.close();
    expect(inspectLedgerFile(other, sql)).toEqual({
      kind: 'foreign',
      problem: 'is an SQLite database but not a Rung ledger (no meta table (tables: users))',
    });
    expect(statSync(other).size).toBeGreaterThan(0);
  });

  it('calls a database foreign when a query it makes to classify it fails, rather than damaged', () => {
    const path = join(dir.path, 'app.db');
    writeDatabase(path, ['CREATE TABLE meta (name TEXT, val TEXT)', "INSERT INTO meta VALUES ('schema_version', '3')"]);
    expect(inspectLedgerFile(path, sql)).toMatchObject({
      kind: 'foreign',
      problem: expect.stringMatching(/^is an SQLite database but not a Rung ledger/),
    });
  });

  it("calls a database foreign when it has a Rung-like meta but not Rung's ratings table", () => {
    const path = join(dir.path, 'app.db');
    writeDatabase(path, [
      'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)',
      "INSERT INTO meta VALUES ('schema_version', '2')",
      'CREATE TABLE notes (id INTEGER)',
    ]);
    expect(inspectLedgerFile(path, sql)).toMatchObject({ kind: 'foreign', problem: expect.stringContaining('ratings') });
  });

  it("calls a database with another application's id foreign, even with tables shaped like Rung's", () => {
    const path = join(dir.path, 'app.db');
    writeDatabase(path, ['PRAGMA application_id = 1234', ...V1_TABLES]);
    expect(inspectLedgerFile(path, sql)).toMatchObject({ kind: 'foreign', problem: expect.stringContaining('application_id') });
  });

  it('recognises a v1 ledger, which has no application id and no ledger id, by its tables', () => {
    const path = join(dir.path, 'v1.sqlite');
    writeDatabase(path, V1_TABLES);
    const file = inspectLedgerFile(path, sql);
    expect(file).toMatchObject({ kind: 'ledger', version: 1 });
    if (file.kind === 'ledger') file.db.close();
  });

  it("calls a file with Rung's application id whose tables cannot be read damaged", () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeDatabase(path, [`PRAGMA application_id = ${0x52554e47}`, 'CREATE TABLE leftovers (x)']);
    expect(inspectLedgerFile(path, sql)).toMatchObject({
      kind: 'damaged',
      problem: expect.stringMatching(/^is a Rung ledger whose tables cannot be read/),
    });
  });
});

/** The tables of a v1 ledger as the first release wrote them, built by hand rather than by the code under test. */
const V1_TABLES = [
  'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  'CREATE TABLE ratings (model TEXT NOT NULL, class_key TEXT NOT NULL, rating REAL NOT NULL, graded INTEGER NOT NULL, ok INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (model, class_key))',
  'CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT NOT NULL)',
  "INSERT INTO meta VALUES ('schema_version', '1'), ('created_at', '1')",
];

function writeDatabase(path: string, statements: string[]): void {
  const db = new sql.Database();
  for (const statement of statements) db.run(statement);
  writeFileSync(path, db.export());
  db.close();
}
