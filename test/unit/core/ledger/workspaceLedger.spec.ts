import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STALE_SPAWN_MS } from '../../../../src/core/ledger/ledger';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { SCHEMA_VERSION } from '../../../../src/core/ledger/schema';
import {
  FLUSH_INTERVAL_MS,
  REFRESH_INTERVAL_MS,
  SPAWN_FLUSH_DELAY_MS,
  WorkspaceLedger,
  type LedgerNotice,
} from '../../../../src/core/ledger/workspaceLedger';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { sqliteChange, sqliteLines } from '../../support/sqliteFile';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';
import type { Observation } from '../../../../src/core/ratings';

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});

let dir: ReturnType<typeof makeTempDir>;
let clock: FixedClock;
let scheduler: ManualScheduler;
beforeEach(() => {
  dir = makeTempDir();
  clock = new FixedClock();
  scheduler = new ManualScheduler(clock);
});
afterEach(() => dir.remove());

function ledgerPath(): string {
  return join(dir.path, '.rung', 'ledger.sqlite');
}

function open(extra: { readOnly?: boolean; path?: string } = {}): Promise<WorkspaceLedger> {
  return WorkspaceLedger.open({ path: extra.path ?? ledgerPath(), clock, sql, schedule: scheduler.schedule, readOnly: extra.readOnly });
}

function observation(model: string, success: boolean, classKey = 'plan'): Observation {
  return { model, classKey, success, at: clock.now() };
}

describe('WorkspaceLedger', () => {
  it('creates a plain SQLite file that passes its integrity check and reads with plain SQL', async () => {
    const ledger = await open();
    ledger.observe([observation('qwen3:14b', true), observation('qwen3:14b', false)]);
    ledger.alias('~vendor/model-latest', 'vendor/model-2026-01');
    await ledger.close();
    const out = sqliteLines(
      sql,
      ledgerPath(),
      "PRAGMA integrity_check; SELECT model, class_key, graded, ok FROM ratings; SELECT resolved FROM aliases; SELECT value FROM meta WHERE key = 'schema_version';",
    );
    expect(out).toEqual(['ok', 'qwen3:14b|plan|2|1', 'vendor/model-2026-01', String(SCHEMA_VERSION)]);
  });

  it('shows an observation to the next snapshot at once, before anything is saved', async () => {
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    expect(ledger.queued).toBe(1);
    const other = await open();
    expect(other.snapshot(clock.now()).rating('m', 'plan')).toBeUndefined();
  });

  it('keeps a snapshot as it was when taken, whatever the ledger learns or starts afterwards', async () => {
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    ledger.spawnStarted({ spawnId: 's1', traceId: 't', model: 'm', startedAt: clock.now() });
    const before = ledger.snapshot(clock.now());
    ledger.observe([observation('m', false), observation('n', true, 'edit')]);
    ledger.spawnStarted({ spawnId: 's2', traceId: 't', model: 'm', startedAt: clock.now() });
    ledger.spawnEnded('s1', clock.now());
    ledger.alias('m', 'm-2026');
    expect(before.rating('m', 'plan')).toMatchObject({ graded: 1, ok: 1 });
    expect(before.hasMeasurements('edit')).toBe(false);
    expect(before.inFlight('m')).toBe(1);
    expect(before.resolve('m')).toBe('m');
    const after = ledger.snapshot(clock.now());
    expect(after.rating('m', 'plan')).toMatchObject({ graded: 2, ok: 1 });
    expect(after.hasMeasurements('edit')).toBe(true);
    expect(after.inFlight('m')).toBe(1);
    expect(after.resolve('m')).toBe('m-2026');
  });

  it("keeps an in-memory ledger's snapshot as it was too, and frees a model once its call ends", () => {
    const memory = new MemoryLedger();
    memory.spawnStarted({ spawnId: 's1', traceId: 't', model: 'm', startedAt: clock.now() });
    const before = memory.snapshot(clock.now());
    memory.observe([observation('m', true)]);
    memory.spawnEnded('s1');
    expect(before.rating('m', 'plan')).toBeUndefined();
    expect(before.inFlight('m')).toBe(1);
    expect(memory.snapshot(clock.now()).rating('m', 'plan')).toEqual({
      rating: expect.any(Number),
      graded: 1,
      ok: 1,
      information: expect.any(Number),
      followedPrior: 0,
    });
    expect(memory.snapshot(clock.now()).inFlight('m')).toBe(0);
  });

  it('rates exactly as the in-memory ledger does', async () => {
    const ledger = await open();
    const memory = new MemoryLedger();
    const observations = Array.from({ length: 30 }, (_, i) => observation(`m${i % 2}`, i % 3 !== 0));
    ledger.observe(observations);
    memory.observe(observations);
    await ledger.flush();
    const reopened = await open();
    expect(reopened.entries()).toEqual(memory.entries());
  });

  it('saves at most once a second: the first observation after a save waits for the interval', async () => {
    const ledger = await open();
    clock.advance(FLUSH_INTERVAL_MS);
    ledger.observe([observation('m', true)]);
    // The refresh timer, overdue since open, and the save, due at once.
    expect(scheduler.pendingDelays()).toEqual([REFRESH_INTERVAL_MS - FLUSH_INTERVAL_MS, 0]);
    scheduler.runDue();
    await ledger.flush();
    ledger.observe([observation('m', true)]);
    expect(scheduler.pendingDelays()).toEqual([REFRESH_INTERVAL_MS, FLUSH_INTERVAL_MS]);
    clock.advance(FLUSH_INTERVAL_MS);
    scheduler.runDue();
    await ledger.flush();
    expect(ledger.queued).toBe(0);
  });

  it("keeps both windows' observations when two ledgers on one file save in turn", async () => {
    const first = await open();
    const second = await open();
    first.observe([observation('m', true), observation('m', true)]);
    second.observe([observation('m', false)]);
    await first.flush();
    await second.flush();
    const reopened = await open();
    expect(reopened.snapshot(clock.now()).rating('m', 'plan')).toMatchObject({ graded: 3, ok: 2 });
    // The second window sees the first's work after its own save, without a refresh.
    expect(second.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(3);
  });

  it("replays queued observations rather than their ratings on top of another writer's save", async () => {
    const first = await open();
    const second = await open();
    const memory = new MemoryLedger();
    const a = [observation('m', true), observation('m', false)];
    const b = [observation('m', true)];
    first.observe(a);
    second.observe(b);
    await first.flush();
    await second.flush();
    memory.observe([...a, ...b]);
    const expected = memory.snapshot(clock.now()).rating('m', 'plan');
    expect((await open()).snapshot(clock.now()).rating('m', 'plan')).toEqual({
      rating: expected?.rating,
      graded: 3,
      ok: 2,
      information: expected?.information,
      followedPrior: expected?.followedPrior,
    });
  });

  it('refreshes from another writer only when the file changed', async () => {
    const reader = await open();
    expect(reader.refresh()).toBe(false);
    const writer = await open();
    writer.observe([observation('m', true)]);
    await writer.flush();
    expect(reader.refresh()).toBe(true);
    expect(reader.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    expect(reader.refresh()).toBe(false);
  });

  it('shows a call started in another window within one refresh interval, with nobody calling refresh', async () => {
    const starter = await open();
    const watcher = await open();
    starter.spawnStarted({ spawnId: 's1', traceId: 't', model: 'qwen3:14b', startedAt: clock.now() });
    clock.advance(SPAWN_FLUSH_DELAY_MS);
    scheduler.runDue();
    await starter.flush(); // waits for the save the timer began
    expect(watcher.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(0);
    clock.advance(REFRESH_INTERVAL_MS - SPAWN_FLUSH_DELAY_MS);
    scheduler.runDue();
    expect(watcher.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(1);
    starter.spawnEnded('s1', clock.now());
    clock.advance(REFRESH_INTERVAL_MS);
    scheduler.runDue();
    await starter.flush();
    clock.advance(REFRESH_INTERVAL_MS);
    scheduler.runDue();
    expect(watcher.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(0);
  });

  it('stops re-reading the file once closed', async () => {
    const ledger = await open();
    expect(scheduler.pendingDelays()).toEqual([REFRESH_INTERVAL_MS]);
    await ledger.close();
    expect(scheduler.pendingDelays()).toEqual([]);
  });

  it('keeps its own unsaved observations across a refresh', async () => {
    const reader = await open();
    reader.observe([observation('mine', true)]);
    const writer = await open();
    writer.observe([observation('theirs', true)]);
    await writer.flush();
    reader.refresh();
    const snapshot = reader.snapshot(clock.now());
    expect(snapshot.rating('mine', 'plan')?.graded).toBe(1);
    expect(snapshot.rating('theirs', 'plan')?.graded).toBe(1);
  });

  it('counts a call in flight until it ends, and ignores a start with no end after 30 minutes', async () => {
    const ledger = await open();
    ledger.spawnStarted({ spawnId: 's1', traceId: 't', model: 'qwen3:14b', startedAt: clock.now() });
    ledger.spawnStarted({ spawnId: 's2', traceId: 't', model: 'qwen3:14b', startedAt: clock.now() });
    await ledger.flush();
    const other = await open();
    expect(other.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(2);
    ledger.spawnEnded('s1', clock.now());
    await ledger.flush();
    other.refresh();
    expect(other.snapshot(clock.now()).inFlight('qwen3:14b')).toBe(1);
    expect(other.snapshot(clock.now() + STALE_SPAWN_MS - 1).inFlight('qwen3:14b')).toBe(1);
    expect(other.snapshot(clock.now() + STALE_SPAWN_MS).inFlight('qwen3:14b')).toBe(0);
  });

  it('holds only the calls still in flight in memory, however many ended since the last save, and still saves every end', async () => {
    const ledger = await open();
    const calls = 1000;
    for (let i = 0; i < calls; i++) {
      ledger.spawnStarted({ spawnId: `s${i}`, traceId: 't', model: 'm', startedAt: clock.now() });
      ledger.spawnEnded(`s${i}`, clock.now());
    }
    ledger.spawnStarted({ spawnId: 'running', traceId: 't', model: 'm', startedAt: clock.now() });
    expect(ledger.spawnsHeld).toBe(1);
    expect(ledger.queued).toBe(2 * calls + 1);
    await ledger.flush();
    expect(ledger.spawnsHeld).toBe(1);
    expect(ledger.snapshot(clock.now()).inFlight('m')).toBe(1);
    const out = sqliteLines(
      sql,
      ledgerPath(),
      'SELECT count(*) FROM spawns WHERE ended_at IS NOT NULL; SELECT count(*) FROM spawns WHERE ended_at IS NULL;',
    );
    expect(out).toEqual([String(calls), '1']);
    const other = await open();
    expect(other.spawnsHeld).toBe(1);
  });

  it('lands spawn records sooner than the once-a-second batching', async () => {
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    scheduler.runDue();
    await ledger.flush();
    ledger.spawnStarted({ spawnId: 's1', traceId: 't', model: 'm', startedAt: clock.now() });
    expect(Math.max(...scheduler.pendingDelays())).toBeLessThan(FLUSH_INTERVAL_MS);
  });

  it('resolves a floating alias with or without its tilde', async () => {
    const ledger = await open();
    ledger.alias('~vendor/model-latest', 'vendor/model-2026-01');
    await ledger.close();
    const snapshot = (await open()).snapshot(clock.now());
    expect(snapshot.resolve('~vendor/model-latest')).toBe('vendor/model-2026-01');
    expect(snapshot.resolve('vendor/model-latest')).toBe('vendor/model-2026-01');
    expect(snapshot.resolve('other')).toBe('other');
  });

  it('keeps per-profile caps with null meaning unbounded, never 0', async () => {
    const ledger = await open();
    ledger.setProfileCaps('plan', { maxConsecutivePerProvider: 2, maxTotalPerProvider: null });
    await ledger.close();
    expect((await open()).profileCaps('plan')).toEqual({ maxConsecutivePerProvider: 2, maxTotalPerProvider: null });
    const out = sqliteLines(
      sql,
      ledgerPath(),
      'SELECT class_key, max_consecutive_per_provider, max_total_per_provider IS NULL FROM profile_caps',
    );
    expect(out).toEqual(['plan|2|1']);
  });

  it('moves a corrupt ledger aside, never deleting it, starts fresh and says where the old one is', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.close();
    const garbage = Buffer.from('this is not a database, it is a shopping list: eggs, milk'.repeat(200));
    writeFileSync(path, garbage);
    const notices: LedgerNotice[] = [];
    const reopened = await WorkspaceLedger.open({
      path,
      clock,
      sql,
      schedule: scheduler.schedule,
      onNotice: (notice) => notices.push(notice),
    });
    expect(notices.map((notice) => notice.kind)).toEqual(['moved-aside']);
    const movedTo = notices[0]?.movedTo ?? '';
    expect(movedTo).toBe(`${path}.corrupt-${clock.now()}`);
    expect(readFileSync(movedTo)).toEqual(garbage);
    expect(notices[0]?.message).toContain(movedTo);
    expect(reopened.entries()).toEqual([]);
    expect(sqliteLines(sql, path, 'PRAGMA integrity_check')).toEqual(['ok']);
  });

  it('repairs a ledger another process left corrupt, on the save after a refresh noticed it', async () => {
    const path = ledgerPath();
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    await ledger.flush();
    writeFileSync(path, 'garbage written in place by something that is not Rung');
    expect(ledger.refresh()).toBe(true);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    await ledger.flush();
    expect(ledger.notices.map((notice) => notice.kind)).toEqual(['moved-aside']);
    // The fresh file starts from what this window knew rather than from nothing.
    expect((await open()).snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
  });

  it('reports a corrupt ledger opened read-only without moving it', async () => {
    const path = ledgerPath();
    await (await open()).close();
    writeFileSync(path, 'not a database');
    const ledger = await open({ readOnly: true });
    expect(ledger.notices.map((notice) => notice.kind)).toEqual(['unreadable']);
    expect(readFileSync(path, 'utf8')).toBe('not a database');
  });

  it('refuses a directory at the ledger path, naming it, and leaves it as it is', async () => {
    const path = ledgerPath();
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'keep.txt'), 'mine');
    for (const readOnly of [false, true]) {
      await expect(open({ readOnly })).rejects.toThrow(`cannot use ${path} as the ledger: it is a directory, not a ledger file`);
    }
    expect(readFileSync(join(path, 'keep.txt'), 'utf8')).toBe('mine');
    expect(readdirSync(join(dir.path, '.rung'))).toEqual(['ledger.sqlite']);
  });

  it("refuses another application's SQLite database passed as the ledger and never changes its bytes", async () => {
    const path = join(dir.path, 'app.db');
    sqliteChange(sql, path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada');");
    const before = readFileSync(path);
    await expect(open({ path })).rejects.toThrow(
      /app\.db as the ledger: it is an SQLite database but not a Rung ledger \(no meta table \(tables: users\)\)/,
    );
    await expect(open({ path, readOnly: true })).rejects.toThrow(/not a Rung ledger/);
    expect(readFileSync(path)).toEqual(before);
    expect(readdirSync(dir.path)).toEqual(['app.db']);
  });

  it("leaves alone another application's database whose meta table has other columns", async () => {
    const path = ledgerPath();
    mkdirSync(join(dir.path, '.rung'));
    sqliteChange(sql, path, `CREATE TABLE meta (name TEXT, val TEXT); INSERT INTO meta VALUES ('schema_version', '4');`);
    const before = readFileSync(path);
    await expect(open()).rejects.toThrow(/it is an SQLite database but not a Rung ledger/);
    expect(readFileSync(path)).toEqual(before);
    expect(readdirSync(join(dir.path, '.rung'))).toEqual(['ledger.sqlite']);
  });

  it("leaves alone another application's database with a key-value meta and a schema_version but none of Rung's tables", async () => {
    const path = ledgerPath();
    mkdirSync(join(dir.path, '.rung'));
    sqliteChange(
      sql,
      path,
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '2'); CREATE TABLE notes (id INTEGER, body TEXT);`,
    );
    const before = readFileSync(path);
    for (const readOnly of [false, true])
      await expect(open({ readOnly })).rejects.toThrow(/it is an SQLite database but not a Rung ledger/);
    expect(readFileSync(path)).toEqual(before);
    expect(readdirSync(join(dir.path, '.rung'))).toEqual(['ledger.sqlite']);
  });

  it("marks the file it writes as Rung's with SQLite's application id", async () => {
    await (await open()).close();
    expect(sqliteLines(sql, ledgerPath(), 'PRAGMA application_id')).toEqual([String(0x52554e47)]);
  });

  it('reports a background save whose folder cannot be made, and lands it on a later try once it can', async () => {
    const path = ledgerPath();
    const ledger = await open();
    const folder = join(dir.path, '.rung');
    // A regular file where the ledger's folder was: making the folder fails with ENOTDIR, even for root.
    renameSync(folder, `${folder}.away`);
    writeFileSync(folder, 'not a folder');
    ledger.observe([observation('m', true)]);
    clock.advance(FLUSH_INTERVAL_MS);
    scheduler.runDue();
    // The timer's save has no caller: let it run to its end on its own.
    await new Promise((resolve) => setImmediate(resolve));
    const failed = ledger.notices.filter((notice) => notice.kind === 'save-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.message).toContain(path);
    expect(ledger.queued).toBe(1);
    expect(scheduler.pendingDelays()).toContain(FLUSH_INTERVAL_MS);
    rmSync(folder);
    renameSync(`${folder}.away`, folder);
    clock.advance(FLUSH_INTERVAL_MS);
    scheduler.runDue();
    await ledger.flush();
    expect(ledger.queued).toBe(0);
    await ledger.close();
    const reopened = await open();
    expect(reopened.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    await reopened.close();
  });

  it.runIf(process.platform !== 'win32')('keeps a private ledger private: a 600 file is still 600 after a save', async () => {
    const path = ledgerPath();
    const first = await open();
    await first.close();
    chmodSync(path, 0o600);
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    await ledger.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const reopened = await open({ readOnly: true });
    expect(reopened.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    await reopened.close();
  });

  it('refuses to save over a read-only ledger, saying so and keeping what it queued, and saves once it is writable again', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.flush();
    chmodSync(path, 0o444);
    const before = readFileSync(path);
    ledger.observe([observation('m', true)]);
    await expect(ledger.flush()).rejects.toThrow(`${path} is read-only (mode 444)`);
    expect(readFileSync(path)).toEqual(before);
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(ledger.notices.filter((notice) => notice.kind === 'save-failed').map((notice) => notice.message)).toEqual([
      `could not save the ledger ${path}: ${path} is read-only (mode 444), so Rung leaves it as it is; make it writable (chmod u+w) to save to it; will retry`,
    ]);
    expect(ledger.queued).toBe(1);
    chmodSync(path, 0o644);
    await ledger.close();
    const reopened = await open({ readOnly: true });
    expect(reopened.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    await reopened.close();
  });

  it('says a save that fails while closing once, by throwing, with no notice promising a retry', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.flush();
    chmodSync(path, 0o444);
    ledger.observe([observation('m', true)]);
    await expect(ledger.close()).rejects.toThrow(`${path} is read-only (mode 444)`);
    expect(ledger.notices.filter((notice) => notice.kind === 'save-failed')).toEqual([]);
    expect(ledger.queued).toBe(1);
    chmodSync(path, 0o644);
    await ledger.close();
  });

  it("saves nothing over another application's database that replaced the ledger while it ran", async () => {
    const path = ledgerPath();
    const ledger = await open();
    sqliteChange(sql, `${path}.other`, 'CREATE TABLE users (id INTEGER PRIMARY KEY);');
    renameSync(`${path}.other`, path);
    const before = readFileSync(path);
    expect(ledger.refresh()).toBe(true);
    ledger.observe([observation('m', true)]);
    await expect(ledger.flush()).rejects.toThrow(/not a Rung ledger/);
    expect(readFileSync(path)).toEqual(before);
    expect(ledger.notices.map((notice) => notice.kind)).toEqual(['unreadable', 'save-failed']);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
  });

  it('moves aside a Rung ledger whose tables are broken', async () => {
    const path = ledgerPath();
    await (await open()).close();
    sqliteChange(sql, path, 'DROP TABLE ratings;');
    const reopened = await open();
    expect(reopened.notices.map((notice) => notice.kind)).toEqual(['moved-aside']);
    expect(reopened.notices[0]?.message).toContain('whose tables cannot be read');
    expect(sqliteLines(sql, path, 'SELECT count(*) FROM ratings')).toEqual(['0']);
  });

  it('moves a truncated ledger aside', async () => {
    const path = ledgerPath();
    const ledger = await open();
    ledger.observe(Array.from({ length: 50 }, (_, i) => observation(`model-${i}`, true)));
    await ledger.close();
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2) + 7));
    const reopened = await open();
    expect(reopened.notices.map((notice) => notice.kind)).toEqual(['moved-aside']);
    expect(readdirSync(join(dir.path, '.rung')).filter((name) => name.includes('.corrupt-'))).toHaveLength(1);
  });

  it('opens a ledger from a newer schema read-only and never changes its bytes', async () => {
    const path = ledgerPath();
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    await ledger.close();
    sqliteChange(sql, path, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'; CREATE TABLE future (x);`);
    const before = readFileSync(path);
    const newer = await open();
    expect(newer.isWritable).toBe(false);
    expect(newer.notices.map((notice) => notice.kind)).toEqual(['newer-schema']);
    expect(newer.notices[0]?.message).toContain('read-only');
    expect(newer.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    newer.observe([observation('m', false)]);
    newer.spawnStarted({ spawnId: 's', traceId: 't', model: 'm', startedAt: clock.now() });
    await newer.flush();
    await newer.close();
    await expect(newer.reset()).rejects.toThrow(/read-only/);
    expect(readFileSync(path)).toEqual(before);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('keeps its own observations and calls in flight across a refresh while read-only, and writes none of them', async () => {
    const path = ledgerPath();
    const ledger = await open();
    ledger.observe([observation('m', true)]);
    await ledger.close();
    sqliteChange(sql, path, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    const newer = await open();
    expect(newer.isWritable).toBe(false);
    newer.observe([observation('m', false)]);
    newer.spawnStarted({ spawnId: 'running', traceId: 't', model: 'm', startedAt: clock.now() });
    newer.spawnStarted({ spawnId: 'done', traceId: 't', model: 'm', startedAt: clock.now() });
    newer.spawnEnded('done', clock.now());
    // A newer Rung in another window lands its own work.
    sqliteChange(sql, path, `INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('theirs', 'plan', 0, 1, 1, 0)`);
    const before = readFileSync(path);
    expect(newer.refresh()).toBe(true);
    const snapshot = newer.snapshot(clock.now());
    expect(snapshot.inFlight('m')).toBe(1);
    expect(snapshot.rating('m', 'plan')).toMatchObject({ graded: 2, ok: 1 });
    expect(snapshot.rating('theirs', 'plan')?.graded).toBe(1);
    expect(newer.spawnsHeld).toBe(1);
    await newer.close();
    expect(readFileSync(path)).toEqual(before);
  });

  it('goes read-only when another process upgrades the file to a newer schema while it runs', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.flush();
    sqliteChange(sql, path, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    const before = readFileSync(path);
    ledger.observe([observation('m', true)]);
    await ledger.flush();
    expect(ledger.isWritable).toBe(false);
    expect(readFileSync(path)).toEqual(before);
  });

  it('frees a model after a refresh when its call, started while writable, ends after the file went read-only', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.flush();
    sqliteChange(sql, path, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    ledger.spawnStarted({ spawnId: 's1', traceId: 't', model: 'm', startedAt: clock.now() });
    await ledger.flush();
    expect(ledger.isWritable).toBe(false);
    ledger.spawnEnded('s1', clock.now());
    sqliteChange(sql, path, `INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('theirs', 'plan', 0, 1, 1, 0)`);
    expect(ledger.refresh()).toBe(true);
    expect(ledger.snapshot(clock.now()).inFlight('m')).toBe(0);
  });

  it('waits out a busy lock without losing what it queued', async () => {
    const path = ledgerPath();
    const ledger = await WorkspaceLedger.open({ path, clock, sql, schedule: scheduler.schedule, lock: { attempts: 2, intervalMs: 1 } });
    writeFileSync(`${path}.lock`, JSON.stringify({ token: 'someone-else', pid: 1, at: clock.now() }));
    ledger.observe([observation('m', true)]);
    await ledger.flush();
    expect(ledger.queued).toBe(1);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
    await ledger.flush();
    // One line for the whole stall, naming who holds the lock, however many rounds it waits.
    expect(ledger.notices.map((notice) => notice.message)).toEqual([
      `waiting for the ledger lock ${path}.lock, held by pid 1 for 0 s; nothing is lost meanwhile, and the lock is taken over once it is 30 s old`,
    ]);
    clock.advance(31_000);
    await ledger.flush();
    expect(ledger.queued).toBe(0);
    expect(ledger.notices.map((notice) => [notice.kind, notice.reason])).toEqual([
      ['lock-waiting', undefined],
      ['lock-taken-over', 'stale'],
    ]);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect((await open()).snapshot(clock.now()).rating('m', 'plan')?.graded).toBe(1);
  });

  it("merges a teammate's ledger by adding graded counts, and merging the same file again counts nothing twice", async () => {
    const teammatePath = join(dir.path, 'teammate.sqlite');
    const teammate = await open({ path: teammatePath });
    teammate.observe([observation('m', true), observation('m', true), observation('m', false), observation('n', true, 'edit')]);
    teammate.alias('~v/x-latest', 'v/x-1');
    await teammate.close();
    const ledger = await open();
    ledger.observe([observation('m', false)]);
    await ledger.flush();
    const first = await ledger.merge(teammatePath);
    expect(first.addedGraded).toBe(4);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')).toMatchObject({ graded: 4, ok: 2 });
    const again = await ledger.merge(teammatePath);
    expect(again.addedGraded).toBe(0);
    const reopened = await open();
    expect(reopened.snapshot(clock.now()).rating('m', 'plan')).toMatchObject({ graded: 4, ok: 2 });
    expect(reopened.snapshot(clock.now()).rating('n', 'edit')).toMatchObject({ graded: 1, ok: 1 });
    expect(reopened.snapshot(clock.now()).resolve('~v/x-latest')).toBe('v/x-1');
  });

  it("folds only the new evidence when a teammate's ledger grew since the last merge", async () => {
    const teammatePath = join(dir.path, 'teammate.sqlite');
    const teammate = await open({ path: teammatePath });
    teammate.observe([observation('m', true)]);
    await teammate.flush();
    const ledger = await open();
    await ledger.merge(teammatePath);
    teammate.observe([observation('m', false), observation('m', true)]);
    await teammate.close();
    expect((await ledger.merge(teammatePath)).addedGraded).toBe(2);
    expect(ledger.snapshot(clock.now()).rating('m', 'plan')).toMatchObject({ graded: 3, ok: 2 });
  });

  it('refuses to merge a ledger into itself', async () => {
    const ledger = await open();
    await expect(ledger.merge(ledgerPath())).rejects.toThrow(/this ledger/);
  });

  it('resets one class and its shapes, or everything', async () => {
    const ledger = await open();
    ledger.observe([
      observation('m', true, 'edit'),
      observation('m', true, 'edit/typescript'),
      observation('m', true, 'plan'),
      observation('m', true, 'editor'),
    ]);
    expect(await ledger.reset('edit')).toBe(2);
    expect(ledger.entries().map((entry) => entry.classKey)).toEqual(['editor', 'plan']);
    expect(await ledger.reset()).toBe(2);
    expect((await open()).entries()).toEqual([]);
  });

  it('keeps the same ledger id across reopening', async () => {
    const ledger = await open();
    await ledger.close();
    const id = ledger.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await open()).id).toBe(id);
  });

  it('removes temp files a killed writer left behind', async () => {
    const path = ledgerPath();
    const ledger = await open();
    await ledger.close();
    writeFileSync(`${path}.tmp-99999-deadbeef`, 'half a save');
    const again = await open();
    again.observe([observation('m', true)]);
    await again.close();
    expect(readdirSync(join(dir.path, '.rung')).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('opens a missing ledger read-only the way the CLI does, creating neither file, folder nor lock', async () => {
    const path = join(dir.path, 'not-yet', 'ledger.sqlite');
    const ledger = await WorkspaceLedger.open({ path, clock, readOnly: true });
    expect(ledger.isWritable).toBe(false);
    expect(ledger.entries()).toEqual([]);
    expect(ledger.snapshot(clock.now()).inFlight('m')).toBe(0);
    ledger.observe([observation('m', true)]);
    await ledger.flush();
    await ledger.close();
    expect(readdirSync(dir.path)).toEqual([]);
  });

  it('reads a missing ledger as empty without creating it when opened read-only', async () => {
    const ledger = await open({ readOnly: true });
    expect(ledger.entries()).toEqual([]);
    await ledger.close();
    expect(existsSync(ledgerPath())).toBe(false);
  });
});
