import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, RUNG_APPLICATION_ID, SCHEMA_VERSION } from '../../../../src/core/ledger/schema';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { SIGNAL_SLOTS } from '../../../../src/core/signal/promptFeatures';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { sqliteLines } from '../../support/sqliteFile';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});
let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

/** A v1 file as the first release wrote it, built by hand rather than by the code under test. */
function writeV1(path: string): void {
  const db = new sql.Database();
  db.run(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  db.run(
    `CREATE TABLE ratings (model TEXT NOT NULL, class_key TEXT NOT NULL, rating REAL NOT NULL, graded INTEGER NOT NULL, ok INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (model, class_key))`,
  );
  db.run(`CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT NOT NULL)`);
  db.run(`INSERT INTO meta VALUES ('schema_version', '1'), ('created_at', '1')`);
  db.run(`INSERT INTO ratings VALUES ('qwen3:14b', 'plan', 1.25, 9, 7, 1000)`);
  db.run(`INSERT INTO aliases VALUES ('~v/m-latest', 'v/m-1')`);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, db.export());
  db.close();
}

/** A v2 file: v1 plus spawns and a ledger id. */
function writeV2(path: string): void {
  const db = new sql.Database();
  db.run(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  db.run(
    `CREATE TABLE ratings (model TEXT NOT NULL, class_key TEXT NOT NULL, rating REAL NOT NULL, graded INTEGER NOT NULL, ok INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (model, class_key))`,
  );
  db.run(`CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT NOT NULL)`);
  db.run(
    `CREATE TABLE spawns (spawn_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, model TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER)`,
  );
  db.run(`INSERT INTO meta VALUES ('schema_version', '2'), ('created_at', '1'), ('ledger_id', 'v2-ledger')`);
  db.run(`INSERT INTO ratings VALUES ('qwen3:14b', 'plan', 1.25, 9, 7, 1000)`);
  db.run(`INSERT INTO spawns VALUES ('s1', 't1', 'qwen3:14b', ${new FixedClock().now()}, NULL)`);
  writeFileSync(path, db.export());
  db.close();
}

/** A v5 file, from before the per-prompt signal and the confidence counts: the steps to v5 as that release ran them, and one rating. */
function writeV5(path: string): void {
  const db = new sql.Database();
  for (const migration of MIGRATIONS.filter((step) => step.to <= 5)) migration.apply(db, { now: 1, newId: () => 'v5-ledger' });
  db.run(`INSERT INTO meta VALUES ('schema_version', '5')`);
  db.run(`INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('qwen3:14b', 'chat', 0.5, 9, 7, 1000)`);
  writeFileSync(path, db.export());
  db.close();
}

/** A v7 file, the last before the confidence counts: the steps to v7 as that release ran them, a rating with its observed cost and a class of the per-prompt signal. */
function writeV7(path: string): void {
  const db = new sql.Database();
  for (const migration of MIGRATIONS.filter((step) => step.to <= 7)) migration.apply(db, { now: 1, newId: () => 'v7-ledger' });
  db.run(`INSERT INTO meta VALUES ('schema_version', '7')`);
  db.run(
    `INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at, cost_observed, cost_listed, cost_attempts) VALUES ('qwen3:14b', 'chat', 0.5, 9, 7, 1000, 0.03, 0.02, 5)`,
  );
  db.run(
    `INSERT INTO prompt_signal_weights VALUES ('mean', ${SIGNAL_SLOTS}, zeroblob(${4 * SIGNAL_SLOTS})), ('unanswerable', ${SIGNAL_SLOTS}, zeroblob(${4 * SIGNAL_SLOTS}))`,
  );
  db.run(`INSERT INTO prompt_signal_classes VALUES ('chat', 250, 0.4, 0.2, 0.1, 0.05)`);
  db.run(`PRAGMA application_id = ${RUNG_APPLICATION_ID}`);
  writeFileSync(path, db.export());
  db.close();
}

/** A v8 file: every table up to the confidence counts, a rating and a count, and no timings. */
function writeV8(path: string): void {
  const db = new sql.Database();
  for (const migration of MIGRATIONS.filter((step) => step.to <= 8)) migration.apply(db, { now: 1, newId: () => 'v8-ledger' });
  db.run(`INSERT INTO meta VALUES ('schema_version', '8')`);
  db.run(`INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('qwen2.5-coder:1.5b', 'edit', -1.5, 9, 1, 1000)`);
  db.run(`INSERT INTO confidence_counts VALUES ('k', 2, 1)`);
  db.run(`PRAGMA application_id = ${RUNG_APPLICATION_ID}`);
  writeFileSync(path, db.export());
  db.close();
}

describe('ledger schema', () => {
  it('numbers its migrations 1, 2, 3 … with no gaps, ending at the version it writes', () => {
    expect(MIGRATIONS.map((migration) => migration.to)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
  });

  it('recognises a v1 file, which has neither application id nor ledger id, and migrates it forward, keeping its ratings and aliases, and says so', async () => {
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    writeV1(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule, newId: () => 'fresh-id' });
    expect(ledger.notices.map((notice) => notice.kind)).toEqual(['migrated']);
    expect(ledger.snapshot(clock.now()).rating('qwen3:14b', 'plan')).toEqual({ rating: 1.25, graded: 9, ok: 7 });
    expect(ledger.snapshot(clock.now()).resolve('v/m-latest')).toBe('v/m-1');
    expect(ledger.id).toBe('fresh-id');
    ledger.spawnStarted({ spawnId: 's', traceId: 't', model: 'qwen3:14b', startedAt: clock.now() });
    ledger.setProfileCaps('plan', { maxConsecutivePerProvider: null, maxTotalPerProvider: 2 });
    await ledger.close();
    const out = sqliteLines(
      sql,
      path,
      `SELECT value FROM meta WHERE key = 'schema_version'; SELECT count(*) FROM spawns; SELECT max_total_per_provider FROM profile_caps; PRAGMA application_id;`,
    );
    expect(out).toEqual([String(SCHEMA_VERSION), '1', '2', String(RUNG_APPLICATION_ID)]);
  });

  it('migrates a v2 file forward, keeping its ledger id and spawns', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV2(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(ledger.id).toBe('v2-ledger');
    expect(ledger.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(1);
    expect(ledger.notices[0]?.message).toContain(`from schema v2 to v${SCHEMA_VERSION}`);
    const out = sqliteLines(sql, path, `SELECT value FROM meta WHERE key = 'schema_version'; SELECT count(*) FROM merged_sources;`);
    expect(out).toEqual([String(SCHEMA_VERSION), '0']);
  });

  it('opens a file from before the drift state with none on its ratings, then saves the state an observation leaves', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV2(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    const [before] = ledger.entries();
    expect([before?.surprise, before?.sinceDrift]).toEqual([0, undefined]);
    ledger.observe([{ model: 'qwen3:14b', classKey: 'plan', success: false, at: clock.now() }]);
    await ledger.close();
    const out = sqliteLines(sql, path, `SELECT graded, drift_surprise < 0, drift_since IS NULL FROM ratings`);
    expect(out).toEqual(['10|1|1']);
  });

  it('keeps a rating from before v5 where its evidence put it when the prior moves, and saves the information a new rating gathers', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV2(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    const [old] = ledger.entries();
    expect([old?.information, old?.followedPrior]).toEqual([undefined, undefined]);
    // An uninformative outcome (a call nearly sure to be unanswerable) under a prior far above the rating.
    const difficulty = { mean: 0, sd: 1.5, unanswerable: 0.999 };
    ledger.observe([
      { model: 'qwen3:14b', classKey: 'plan', success: false, difficulty, prior: 3, at: clock.now() },
      { model: 'qwen3:14b', classKey: 'plan', success: false, difficulty, prior: 4, at: clock.now() },
      { model: 'fresh', classKey: 'plan', success: false, difficulty, prior: 2, at: clock.now() },
    ]);
    const after = new Map(ledger.entries().map((entry) => [entry.model, entry]));
    expect(after.get('qwen3:14b')?.rating).toBeCloseTo(1.25, 1);
    expect(after.get('qwen3:14b')?.information).toBeUndefined();
    await ledger.close();
    const out = sqliteLines(sql, path, `SELECT model, information IS NULL, followed_prior FROM ratings ORDER BY model`);
    expect(out).toEqual(['fresh|0|2', 'qwen3:14b|1|']);
    const reopened = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    const fresh = reopened.entries().find((entry) => entry.model === 'fresh');
    expect(fresh?.followedPrior).toBe(2);
    expect(fresh?.information).toBeGreaterThanOrEqual(0);
    await reopened.close();
  });

  it('opens a v5 file with no confidence counts, then keeps the counts the confidence check adds across a reopen', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV5(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(ledger.notices[0]?.message).toContain(`from schema v5 to v${SCHEMA_VERSION}`);
    expect(ledger.confidenceCounts()).toEqual([]);
    const key = ['v1', 'grade', 'chat', 'qwen3:14b', '6'].join('\u0000');
    ledger.countConfidence([{ key, n: 1, ok: 1 }]);
    ledger.countConfidence([{ key, n: 1, ok: 0 }]);
    await ledger.close();
    const reopened = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(reopened.confidenceCounts()).toEqual([[key, { n: 2, ok: 1 }]]);
    expect(reopened.entries().map((entry) => [entry.model, entry.graded])).toEqual([['qwen3:14b', 9]]);
    await reopened.close();
    const out = sqliteLines(sql, path, `SELECT value FROM meta WHERE key = 'schema_version'; SELECT n, ok FROM confidence_counts;`);
    expect(out).toEqual([String(SCHEMA_VERSION), '2|1']);
  });

  it('opens a v7 file with no confidence counts, keeping its observed costs and its signal, then keeps the counts the confidence check adds across a reopen', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV7(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(ledger.notices[0]?.message).toContain(`from schema v7 to v${SCHEMA_VERSION}`);
    expect(ledger.confidenceCounts()).toEqual([]);
    const key = ['v1', 'grade', 'chat', 'qwen3:14b', '6'].join('\u0000');
    ledger.countConfidence([{ key, n: 3, ok: 2 }]);
    await ledger.close();
    const reopened = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(reopened.confidenceCounts()).toEqual([[key, { n: 3, ok: 2 }]]);
    expect(reopened.entries().map((entry) => [entry.model, entry.graded, entry.cost])).toEqual([
      ['qwen3:14b', 9, { observed: 0.03, listed: 0.02, attempts: 5 }],
    ]);
    await reopened.close();
    const out = sqliteLines(
      sql,
      path,
      `SELECT value FROM meta WHERE key = 'schema_version'; SELECT class_key, calls FROM prompt_signal_classes; SELECT n, ok FROM confidence_counts;`,
    );
    expect(out).toEqual([String(SCHEMA_VERSION), 'chat|250', '3|2']);
  });

  it('opens a v8 file with no timings, keeping its ratings and counts, then keeps the times its answers add across a reopen', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV8(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(ledger.notices[0]?.message).toContain(`from schema v8 to v${SCHEMA_VERSION}`);
    expect(ledger.timings()).toEqual([]);
    expect(ledger.snapshot(clock.now()).timing?.('qwen2.5-coder:1.5b', 'edit')).toBeUndefined();
    ledger.observeTiming([
      { model: 'qwen2.5-coder:1.5b', classKey: 'edit', totalMs: 3000, firstTokenMs: 1000, outputTokens: 100 },
      { model: 'qwen2.5-coder:1.5b', classKey: 'edit', totalMs: 3200 },
    ]);
    await ledger.close();
    const reopened = await WorkspaceLedger.open({ path, clock, sql, schedule: new ManualScheduler(clock).schedule });
    expect(reopened.snapshot(clock.now()).timing?.('qwen2.5-coder:1.5b', 'edit')).toEqual({
      attempts: 2,
      totalMs: 6200,
      firstTokenAttempts: 1,
      firstTokenMs: 1000,
      outputTokens: 100,
      writingMs: 2000,
    });
    expect(reopened.entries().map((entry) => [entry.model, entry.graded, entry.ok])).toEqual([['qwen2.5-coder:1.5b', 9, 1]]);
    expect(reopened.confidenceCounts()).toEqual([['k', { n: 2, ok: 1 }]]);
    await reopened.close();
    const out = sqliteLines(
      sql,
      path,
      `SELECT value FROM meta WHERE key = 'schema_version'; SELECT model, class_key, attempts, total_ms FROM timings;`,
    );
    expect(out).toEqual([String(SCHEMA_VERSION), 'qwen2.5-coder:1.5b|edit|2|6200']);
  });

  it('forgets the timings of a class that is reset with its ratings, and keeps the others', async () => {
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({
      path: join(dir.path, 'ledger.sqlite'),
      clock,
      sql,
      schedule: new ManualScheduler(clock).schedule,
    });
    ledger.observeTiming([
      { model: 'm', classKey: 'edit', totalMs: 100 },
      { model: 'm', classKey: 'edit/typescript', totalMs: 100 },
      { model: 'm', classKey: 'chat', totalMs: 100 },
    ]);
    await ledger.reset('edit');
    expect(ledger.timings().map((timing) => timing.classKey)).toEqual(['chat']);
    await ledger.close();
  });

  it('forgets the confidence counts of a class that is reset, and keeps the others', async () => {
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({
      path: join(dir.path, 'ledger.sqlite'),
      clock,
      sql,
      schedule: new ManualScheduler(clock).schedule,
    });
    const key = (classKey: string): string => ['v1', 'seen', classKey, 'qwen3:14b', '3'].join('\u0000');
    ledger.countConfidence([
      { key: key('chat'), n: 1, ok: 0 },
      { key: key('plan'), n: 1, ok: 0 },
    ]);
    ledger.reset('chat');
    expect(ledger.confidenceCounts().map(([stored]) => stored)).toEqual([key('plan')]);
    await ledger.close();
  });

  it('migrates an old file in memory only when opened read-only', async () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeV1(path);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, readOnly: true });
    expect(ledger.entries().map((entry) => entry.model)).toEqual(['qwen3:14b']);
    expect(sqliteLines(sql, path, `SELECT value FROM meta WHERE key = 'schema_version'`)).toEqual(['1']);
  });

  it("merges a teammate's v1 ledger, which has no id, only once", async () => {
    const teammate = join(dir.path, 'teammate.sqlite');
    writeV1(teammate);
    const clock = new FixedClock();
    const ledger = await WorkspaceLedger.open({
      path: join(dir.path, 'ledger.sqlite'),
      clock,
      sql,
      schedule: new ManualScheduler(clock).schedule,
    });
    expect((await ledger.merge(teammate)).addedGraded).toBe(9);
    expect((await ledger.merge(teammate)).addedGraded).toBe(0);
  });
});
