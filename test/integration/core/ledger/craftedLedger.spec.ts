import { buildSync } from 'esbuild';
import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_MAX_BYTES } from '../../../../src/core/ledger/ledgerFile';
import { markAsRung, migrate, MIGRATIONS, SCHEMA_VERSION } from '../../../../src/core/ledger/schema';
import { readMergeSource } from '../../../../src/core/ledger/workspaceLedger';
import { makeTempDir, WASM_PATH } from '../../../unit/support/tempDir';
import { scaled } from '../../../timeScale';

/**
 * Ledger files made to hang or exhaust whatever opens them: built with sql.js here, each opened in a
 * process of its own, since a query that never ends cannot be interrupted on the thread that runs it.
 * A file refused must come back refused (or, in Rung's own `.rung/ledger.sqlite`, moved aside), and
 * promptly: the wait below only tells "finished" from "still spinning".
 */

/** How long a child may take before it counts as hung (inside the test's own 30 s, both scaled); an open that finishes takes well under a second. */
const HUNG_AFTER_MS = scaled(20_000);

let sql: SqlJsStatic;
let build: ReturnType<typeof makeTempDir>;
let worker: string;
let dir: ReturnType<typeof makeTempDir>;

beforeAll(async () => {
  sql = await initSqlJs();
  build = makeTempDir('rung-crafted-worker-');
  worker = join(build.path, 'openLedgerWorker.js');
  buildSync({
    entryPoints: [join(__dirname, 'fixtures/openLedgerWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: worker,
    logLevel: 'error',
  });
});
afterAll(() => build.remove());
beforeEach(() => (dir = makeTempDir('rung-crafted-')));
afterEach(() => dir.remove());

type Outcome =
  | { outcome: 'opened'; notices: { kind: string; message: string }[]; graded: number }
  | { outcome: 'refused'; message: string }
  | { outcome: 'hung' };

function openInChild(path: string, readOnly = false): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = fork(worker, [path, WASM_PATH, ...(readOnly ? ['read-only'] : [])], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ outcome: 'hung' });
    }, HUNG_AFTER_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0 && !out) reject(new Error(`the worker failed (${String(code)}): ${err}`));
      else if (out) resolve(JSON.parse(out.trim()) as Outcome);
    });
  });
}

/** A ledger at the current schema, marked as Rung's, with `statements` run on it after. */
function writeLedger(path: string, statements: string[], options: { migrated?: boolean } = {}): Buffer {
  const db = new sql.Database();
  if (options.migrated !== false) migrate(db, 0, { now: 1, newId: () => 'crafted' });
  markAsRung(db);
  for (const statement of statements) db.run(statement);
  const bytes = Buffer.from(db.export());
  db.close();
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  return bytes;
}

/** An 8 KB file with Rung's application id whose `meta` is a view that recurses for ever: the attack as found. */
function writeRecursiveMeta(path: string): Buffer {
  return writeLedger(
    path,
    [
      "CREATE VIEW meta AS WITH RECURSIVE r(key, value) AS (SELECT 'schema_version', '5' UNION ALL SELECT key, value FROM r) SELECT key, value FROM r",
      // A table beside it, so the file is not taken for an empty one.
      'CREATE TABLE ratings (model TEXT)',
    ],
    { migrated: false },
  );
}

describe('a crafted ledger', () => {
  it('whose meta is a recursive view is refused promptly where the user named it, and left byte for byte as it was', async () => {
    const path = join(dir.path, 'team-copy.sqlite');
    const bytes = writeRecursiveMeta(path);
    expect(bytes.length).toBe(8192);
    const outcome = await openInChild(path);
    expect(outcome).toEqual({
      outcome: 'refused',
      message: `cannot use ${path} as the ledger: it is shaped like a Rung ledger but is not one Rung wrote: it holds a view named "meta", and Rung never creates views or triggers (one can make a read of the file run forever); it was left as it is`,
    });
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("in the workspace's own .rung/ledger.sqlite is moved aside, saying why, and a fresh ledger learns", async () => {
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    const bytes = writeRecursiveMeta(path);
    const outcome = await openInChild(path);
    expect(outcome).toMatchObject({ outcome: 'opened', graded: 1 });
    const moved = outcome.outcome === 'opened' ? outcome.notices.find((notice) => notice.kind === 'moved-aside') : undefined;
    expect(moved?.message).toMatch(/holds a view named "meta".*it was moved to .*ledger\.sqlite\.corrupt-\d+ and a fresh ledger started$/);
    const aside = readdirSync(join(dir.path, '.rung')).find((name) => name.startsWith('ledger.sqlite.corrupt-')) as string;
    expect(readFileSync(join(dir.path, '.rung', aside)).equals(bytes)).toBe(true);
  });

  it('whose ratings is a recursive view is refused read-only too, where `rung ledger show` opens it', async () => {
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    writeLedger(path, [
      'DROP TABLE ratings',
      "CREATE VIEW ratings AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 'm' AS model, 'c' AS class_key, 0.0 AS rating, n AS graded, 0 AS ok, 0 AS updated_at, 0.0 AS drift_surprise, NULL AS drift_since, NULL AS information, NULL AS followed_prior FROM r",
    ]);
    const outcome = await openInChild(path, true);
    expect(outcome).toMatchObject({ outcome: 'opened', graded: 0 });
    expect(outcome.outcome === 'opened' ? outcome.notices.map((notice) => notice.message) : []).toEqual([
      `the ledger ${path} is shaped like a Rung ledger but is not one Rung wrote: it holds a view named "ratings", and Rung never creates views or triggers (one can make a read of the file run forever); showing nothing`,
    ]);
  });

  it('with a trigger that would run on every save is refused before the save', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeLedger(path, [
      "CREATE TRIGGER spin AFTER INSERT ON ratings BEGIN INSERT INTO aliases SELECT 'a' || n, 'b' FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r); END",
    ]);
    const outcome = await openInChild(path);
    expect(outcome).toMatchObject({ outcome: 'refused', message: expect.stringContaining('it holds a trigger named "spin"') });
  });

  it("with a trigger named like SQLite's statistics table is refused before the save it would hang, read-only too", async () => {
    // A genuine ledger with 120 ratings; the trigger's five-way join is 120^5 = 2.5e10 rows on the first
    // save's DELETE. SQLite refuses the name, so it is written with writable_schema, as an attacker would.
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    const rows = Array.from({ length: 120 }, (_, index) => `('m${index}', 'c', 0.5, 1, 1, 1)`).join(', ');
    const bytes = writeLedger(path, [
      `INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ${rows}`,
      'PRAGMA writable_schema = ON',
      'CREATE TRIGGER sqlite_stat1 BEFORE DELETE ON ratings BEGIN SELECT count(*) FROM ratings a, ratings b, ratings c, ratings d, ratings e; END',
      'PRAGMA writable_schema = OFF',
    ]);
    const said = 'it holds a trigger named "sqlite_stat1", and Rung never creates views or triggers';
    const shown = await openInChild(path, true);
    expect(shown.outcome === 'opened' ? shown.notices.map((notice) => notice.message) : shown).toEqual([expect.stringContaining(said)]);
    const named = join(dir.path, 'teammate.sqlite');
    writeFileSync(named, bytes);
    expect(await openInChild(named)).toMatchObject({ outcome: 'refused', message: expect.stringContaining(said) });
    expect(() => readMergeSource(named, sql, 0)).toThrow(said);
    const opened = await openInChild(path);
    expect(opened).toMatchObject({ outcome: 'opened', graded: 1 });
    expect(opened.outcome === 'opened' ? opened.notices.find((notice) => notice.kind === 'moved-aside')?.message : '').toContain(said);
  });

  it('with an index or a view named sqlite_stat1, or such a table of its own shape, is refused', async () => {
    const cases: [string, string[], string][] = [
      ['index', ['CREATE INDEX sqlite_stat1 ON ratings (rating)'], 'it holds an index named "sqlite_stat1"'],
      ['view', ['CREATE VIEW sqlite_stat1 AS SELECT 1'], 'it holds a view named "sqlite_stat1"'],
      [
        'table',
        ['CREATE TABLE sqlite_stat1 (tbl, idx, stat CHECK (length(zeroblob(100000000)) > 0))'],
        'it holds a table named "sqlite_stat1" that Rung\'s schema v',
      ],
    ];
    for (const [name, statements, said] of cases) {
      const path = join(dir.path, name, 'ledger.sqlite');
      writeLedger(path, ['PRAGMA writable_schema = ON', ...statements, 'PRAGMA writable_schema = OFF']);
      expect(await openInChild(path), name).toMatchObject({ outcome: 'refused', message: expect.stringContaining(said) });
    }
  });

  it('with a column missing from a table Rung reads is refused, naming the columns', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeLedger(path, ['DROP TABLE aliases', 'CREATE TABLE aliases (slug TEXT PRIMARY KEY)']);
    const outcome = await openInChild(path);
    expect(outcome).toEqual({
      outcome: 'refused',
      message: `cannot use ${path} as the ledger: it is shaped like a Rung ledger but is not one Rung wrote: its table "aliases" is not the one Rung creates (columns slug; Rung's are slug, resolved); it was left as it is`,
    });
  });

  it('with a generated column, a CHECK of its own or a table Rung never makes is refused', async () => {
    const cases: [string, string[], string][] = [
      [
        'generated',
        [
          'DROP TABLE aliases',
          "CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL)",
        ],
        'has a generated column "resolved"',
      ],
      [
        'check',
        [
          'DROP TABLE aliases',
          'CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT NOT NULL CHECK (length(zeroblob(100000000)) > 0))',
        ],
        'its table "aliases" is not the one Rung creates (the same columns, defined otherwise)',
      ],
      ['extra', ['CREATE TABLE notes (body TEXT)'], 'it holds a table named "notes" that Rung\'s schema v'],
    ];
    for (const [name, statements, said] of cases) {
      const path = join(dir.path, name, 'ledger.sqlite');
      writeLedger(path, statements);
      expect(await openInChild(path), name).toMatchObject({ outcome: 'refused', message: expect.stringContaining(said) });
    }
  });

  it('with a confidence_counts table of another shape, or one in a file from before the table, is refused', async () => {
    const reshaped = join(dir.path, 'reshaped', 'ledger.sqlite');
    writeLedger(reshaped, ['DROP TABLE confidence_counts', 'CREATE TABLE confidence_counts (key TEXT PRIMARY KEY, n REAL NOT NULL)']);
    expect(await openInChild(reshaped)).toMatchObject({
      outcome: 'refused',
      message: expect.stringContaining(`its table "confidence_counts" is not the one Rung creates (columns key, n; Rung's are key, n, ok)`),
    });
    const early = join(dir.path, 'early', 'ledger.sqlite');
    const db = new sql.Database();
    for (const step of MIGRATIONS.filter((migration) => migration.to <= 7)) step.apply(db, { now: 1, newId: () => 'early' });
    db.run(`INSERT INTO meta (key, value) VALUES ('schema_version', '7')`);
    db.run('CREATE TABLE confidence_counts (key TEXT PRIMARY KEY, n REAL NOT NULL, ok REAL NOT NULL)');
    markAsRung(db);
    mkdirSync(join(early, '..'), { recursive: true });
    writeFileSync(early, Buffer.from(db.export()));
    db.close();
    expect(await openInChild(early)).toMatchObject({
      outcome: 'refused',
      message: expect.stringContaining(`it holds a table named "confidence_counts" that Rung's schema v7 does not have`),
    });
  });

  it('is refused as a merge source, naming what it holds', () => {
    const path = join(dir.path, 'teammate.sqlite');
    writeRecursiveMeta(path);
    expect(() => readMergeSource(path, sql, 0)).toThrow(
      `cannot merge ${path}: it is shaped like a Rung ledger but is not one Rung wrote: it holds a view named "meta"`,
    );
  });
});

describe('a ledger file larger than any Rung writes', () => {
  it("is refused before it is read, left as it is, even in the workspace's own .rung", async () => {
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    writeLedger(path, []);
    writeFileSync(path, Buffer.alloc(LEDGER_MAX_BYTES + 4096), { flag: 'a' });
    const outcome = await openInChild(path);
    expect(outcome).toMatchObject({
      outcome: 'refused',
      message: expect.stringMatching(
        /^cannot use .*ledger\.sqlite as the ledger: it is 4\.\d MiB, larger than any ledger Rung writes \(it reads at most 4\.0 MiB/,
      ),
    });
    expect(readdirSync(join(dir.path, '.rung'))).toEqual(['ledger.sqlite']);
  });
});

describe('ledgers Rung wrote', () => {
  it("open and save with SQLite's own statistics tables in them, as ANALYZE left them", async () => {
    const path = join(dir.path, 'analysed.sqlite');
    writeLedger(path, [
      "INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('m', 'c', 0.5, 1, 1, 1)",
      'ANALYZE',
    ]);
    const db = new sql.Database(readFileSync(path));
    expect(db.exec("SELECT sql FROM sqlite_master WHERE name = 'sqlite_stat1'")[0]?.values).toEqual([
      ['CREATE TABLE sqlite_stat1(tbl,idx,stat)'],
    ]);
    db.close();
    expect(await openInChild(path)).toMatchObject({ outcome: 'opened', notices: [], graded: 2 });
  });

  it('open as before at every schema version, as each Rung version left them, with the application id or without', () => {
    for (let version = 1; version <= SCHEMA_VERSION; version++) {
      const path = join(dir.path, `v${version}.sqlite`);
      const db = new sql.Database();
      for (const step of MIGRATIONS.filter((migration) => migration.to <= version)) step.apply(db, { now: 1, newId: () => 'own' });
      db.run(
        `INSERT INTO meta (key, value) VALUES ('schema_version', '${version}') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      );
      if (version > 1) markAsRung(db);
      writeFileSync(path, Buffer.from(db.export()));
      db.close();
      expect(() => readMergeSource(path, sql, 0), `v${version}`).not.toThrow();
    }
  });
});
