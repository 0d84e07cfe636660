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

  it('tells a directory, an empty file, garbage and another application\'s database apart', () => {
    const directory = join(dir.path, 'a-directory');
    mkdirSync(directory);
    expect(inspectLedgerFile(directory, sql)).toEqual({ kind: 'not-a-file', problem: 'is a directory, not a ledger file' });
    const empty = join(dir.path, 'empty.sqlite');
    writeFileSync(empty, '');
    expect(inspectLedgerFile(empty, sql).kind).toBe('empty');
    const garbage = join(dir.path, 'garbage.sqlite');
    writeFileSync(garbage, 'not a database at all');
    expect(inspectLedgerFile(garbage, sql)).toMatchObject({ kind: 'damaged', problem: expect.stringMatching(/^is not a readable SQLite database/) });
    const other = join(dir.path, 'other.db');
    const db = new sql.Database();
    db.run('CREATE TABLE users (id INTEGER)');
    writeFileSync(other, db.export());
    db.close();
    expect(inspectLedgerFile(other, sql)).toEqual({ kind: 'foreign', problem: 'is an SQLite database but not a Rung ledger (no meta table (tables: users))' });
    expect(statSync(other).size).toBeGreaterThan(0);
  });
});
