import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { STALE_SPAWN_MS } from '../../../../src/core/ledger/ledger';
import { importRowSchema, validRows } from '../../../../src/core/ledger/teamRows';
import { readMergeSource, WorkspaceLedger, type LedgerNotice } from '../../../../src/core/ledger/workspaceLedger';
import { seededRandom } from '../../../../src/core/random';
import { Router } from '../../../../src/core/routing/router';
import { SIGNAL_SLOTS } from '../../../../src/core/signal/promptFeatures';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { alphaBetaPanel } from '../../support/panels';
import { request } from '../../support/routerHarness';
import { FAIL, PASS, ScriptedAttempts } from '../../support/ScriptedAttempts';
import { sqliteChange, sqliteLines } from '../../support/sqliteFile';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

/**
 * Values in a ledger file that Rung could not have written: each row is held to the ranges Rung
 * writes as it is read, and a row that does not fit is left out, counted and said, so that nothing
 * that is not a finite number reaches the planner or a save.
 */

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

async function open(options: { readOnly?: boolean; path?: string } = {}): Promise<{ ledger: WorkspaceLedger; notices: LedgerNotice[] }> {
  const notices: LedgerNotice[] = [];
  const ledger = await WorkspaceLedger.open({
    path: options.path ?? ledgerPath(),
    clock,
    sql,
    schedule: scheduler.schedule,
    onNotice: (notice) => notices.push(notice),
    ...(options.readOnly ? { readOnly: true } : {}),
  });
  return { ledger, notices };
}

/** A ledger Rung wrote, with alpha and beta rated at plan, then `statements` run on the file as a hand would. */
async function tamperedLedger(statements: string, path = ledgerPath()): Promise<void> {
  const { ledger } = await open({ path });
  ledger.observe([
    { model: 'alpha', classKey: 'plan', success: true, at: clock.now() },
    { model: 'beta', classKey: 'plan', success: true, at: clock.now() },
  ]);
  await ledger.close();
  sqliteChange(sql, path, statements);
}

function routerOver(ledger: WorkspaceLedger): Router {
  return new Router({ panel: alphaBetaPanel(), ledger, clock, sink: new MemoryDecisionSink(), random: seededRandom(1) });
}

describe('a ledger file with values Rung could not have written', () => {
  it('leaves out a rating of -Infinity, so what is learned after it stays finite, saying so and keeping the file as it was', async () => {
    // 9e999 is SQLite's way to write infinity in a statement.
    await tamperedLedger(
      "UPDATE ratings SET rating = -9e999, graded = 20, ok = 10 WHERE model = 'alpha'; UPDATE ratings SET graded = 20, ok = 10 WHERE model = 'beta'",
    );
    const before = readFileSync(ledgerPath());
    const { ledger, notices } = await open();
    expect(ledger.entries().map((entry) => entry.model)).toEqual(['beta']);
    // The cheaper rung's rating is the dearer one's prior: read as -Infinity it made beta's rating NaN,
    // and the planner then found no rung to climb to on every later call.
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const router = routerOver(ledger);
    for (let call = 0; call < 3; call++) expect((await router.route(request(), attempts.fn)).answer?.model).toBe('beta');
    expect(ledger.entries().every((entry) => Number.isFinite(entry.rating))).toBe(true);
    await ledger.close();
    const said = notices.find((notice) => notice.kind === 'skipped-rows');
    expect(said?.message).toBe(
      `the ledger ${ledgerPath()} held 1 rating that Rung cannot use (a value not finite, not whole, or out of the range Rung writes), now left out of it; the file as it was is kept at ${said?.movedTo ?? ''}`,
    );
    expect(readFileSync(said?.movedTo as string).equals(before)).toBe(true);
    expect(sqliteLines(sql, ledgerPath(), "SELECT count(*) FROM ratings WHERE model = 'alpha' AND rating < -6")).toEqual(['0']);
  });

  it('leaves out NaN ratings and keeps saving afterwards', async () => {
    // A REAL column keeps text it cannot read as a number: Number('NaN') was the rating.
    await tamperedLedger(
      "UPDATE ratings SET rating = 'NaN' WHERE model = 'alpha'; UPDATE ratings SET drift_surprise = 'x' WHERE model = 'beta'",
    );
    const { ledger, notices } = await open();
    expect(ledger.entries()).toEqual([]);
    ledger.observe([{ model: 'alpha', classKey: 'plan', success: true, at: clock.now() }]);
    await ledger.flush();
    expect(notices.filter((notice) => notice.kind === 'save-failed')).toEqual([]);
    expect(notices.find((notice) => notice.kind === 'skipped-rows')?.message).toContain('held 2 ratings that Rung cannot use');
    await ledger.close();
    expect(sqliteLines(sql, ledgerPath(), 'SELECT model, graded FROM ratings')).toEqual(['alpha|1']);
  });

  it('leaves out per-prompt signal weights that are not finite, and saves', async () => {
    const nan = new Uint8Array(4 * SIGNAL_SLOTS);
    new DataView(nan.buffer).setFloat32(4 * 7, Number.NaN, true);
    const hex = Buffer.from(nan).toString('hex');
    await tamperedLedger(
      `INSERT INTO prompt_signal_weights VALUES ('mean', ${SIGNAL_SLOTS}, x'${hex}'), ('unanswerable', ${SIGNAL_SLOTS}, x'${'0'.repeat(8 * SIGNAL_SLOTS)}');
       INSERT INTO prompt_signal_classes VALUES ('plan', 3, 'NaN', 0, 0, 0)`,
    );
    const { ledger, notices } = await open();
    expect(ledger.snapshot(clock.now()).signal?.()).toBeUndefined();
    await ledger.close();
    expect(notices.filter((notice) => notice.kind === 'save-failed')).toEqual([]);
    expect(notices.find((notice) => notice.kind === 'skipped-rows')?.message).toContain('held 1 per-prompt signal row that');
  });

  it('is only read, and said once, where `rung ledger show` opens it read-only', async () => {
    await tamperedLedger(
      "UPDATE ratings SET graded = 1e18, ok = 1e18 WHERE model = 'alpha'; UPDATE ratings SET ok = graded + 1 WHERE model = 'beta'",
    );
    const before = readFileSync(ledgerPath());
    const { ledger, notices } = await open({ readOnly: true });
    expect(ledger.entries()).toEqual([]);
    expect(ledger.refresh()).toBe(false);
    await ledger.close();
    expect(notices.map((notice) => notice.message)).toEqual([
      `the ledger ${ledgerPath()} holds 2 ratings that Rung cannot use (a value not finite, not whole, or out of the range Rung writes), left out of what is shown`,
    ]);
    expect(readFileSync(ledgerPath()).equals(before)).toBe(true);
    expect(readdirSync(join(dir.path, '.rung')).filter((name) => name.includes('skipped'))).toEqual([]);
  });

  it("merges none of a teammate's Infinity ratings or 1e18 graded answers, and says how many it left out", async () => {
    const teammate = join(dir.path, 'teammate', 'ledger.sqlite');
    mkdirSync(join(dir.path, 'teammate'));
    await tamperedLedger(
      "UPDATE ratings SET rating = 9e999, graded = 1e18, ok = 1e18 WHERE model = 'alpha'; UPDATE ratings SET graded = 1e18 WHERE model = 'beta'; INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ('gamma', 'plan', 0.5, 3, 2, 1)",
      teammate,
    );
    const source = readMergeSource(teammate, sql, clock.now());
    expect([...source.ratings.values()].map((entry) => entry.model)).toEqual(['gamma']);
    const { ledger } = await open();
    const report = await ledger.merge(teammate);
    expect(report).toMatchObject({ addedGraded: 3, sourceRatings: 1, skippedRows: '2 ratings' });
    expect(ledger.entries().map((entry) => [entry.model, entry.graded])).toEqual([['gamma', 3]]);
    await ledger.close();
    expect(existsSync(teammate)).toBe(true);
  });

  it('does not count a call in flight dated in the future as making its model busy, and drops it', async () => {
    await tamperedLedger(
      `INSERT INTO spawns VALUES ('future', 't', 'alpha', ${clock.now() + 100 * 365 * 24 * 3600 * 1000}, NULL), ('now', 't', 'beta', ${clock.now()}, NULL)`,
    );
    const { ledger } = await open();
    expect(ledger.snapshot(clock.now()).inFlight('alpha')).toBe(0);
    // The wait the planner weighs reads the starts themselves: a start from the future queued a whole
    // call ahead of every local rung on alpha's provider.
    expect(ledger.snapshot(clock.now()).inFlightStarts?.('alpha')).toEqual([]);
    expect(ledger.snapshot(clock.now()).inFlight('beta')).toBe(1);
    expect(ledger.snapshot(clock.now() + STALE_SPAWN_MS).inFlight('beta')).toBe(0);
    ledger.observe([{ model: 'alpha', classKey: 'plan', success: true, at: clock.now() }]);
    await ledger.close();
    expect(sqliteLines(sql, ledgerPath(), 'SELECT spawn_id FROM spawns')).toEqual(['now']);
  });

  it('drops a call in flight dated less than an hour ahead at the first save, so it never makes its model busy later', async () => {
    // Kept because it was within the hour spawn rows are kept either side of now, a start 50 minutes
    // ahead counted as a call in flight once its time came, and for half an hour after: 80 minutes busy.
    await tamperedLedger(`INSERT INTO spawns VALUES ('soon', 't', 'alpha', ${clock.now() + 50 * 60 * 1000}, NULL)`);
    const { ledger } = await open();
    ledger.observe([{ model: 'beta', classKey: 'plan', success: true, at: clock.now() }]);
    await ledger.flush();
    expect(sqliteLines(sql, ledgerPath(), 'SELECT count(*) FROM spawns')).toEqual(['0']);
    clock.advance(55 * 60 * 1000);
    expect(ledger.snapshot(clock.now()).inFlight('alpha')).toBe(0);
    await ledger.close();
  });

  it("leaves out a model's timings that are not finite, so the wait the planner weighs is a number", async () => {
    await tamperedLedger(
      "INSERT INTO timings VALUES ('alpha', 'plan', 3, -9e999, 0, 0, 0, 0), ('beta', 'plan', 'NaN', 3000, 0, 0, 0, 0), ('gamma', 'plan', 3, 3000, 3, 600, 90, 2400)",
    );
    const { ledger, notices } = await open({ readOnly: true });
    expect(ledger.timings().map((timing) => timing.model)).toEqual(['gamma']);
    await ledger.close();
    expect(notices.map((notice) => notice.message)).toEqual([expect.stringContaining('holds 2 timings that Rung cannot use')]);
  });

  it('keeps a rating at the count limit through several calls, a snapshot and a save, and the file still opens whole', async () => {
    // A billion graded answers is the most a row may hold when read. The state is changed in place
    // between snapshots, so one more graded call at the limit must not make a row the next read skips:
    // that would drop the user's evidence for the model at the following save.
    await tamperedLedger(
      "UPDATE ratings SET rating = 3, graded = 1000000000, ok = 900000000, information = 1.7e308, cost_observed = 100000, cost_listed = 100000, cost_attempts = 1000000000 WHERE model = 'alpha'",
    );
    const { ledger, notices } = await open();
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const router = routerOver(ledger);
    for (let call = 0; call < 3; call++) await router.route(request(), attempts.fn);
    expect(attempts.models()).toContain('alpha');
    const alpha = ledger.snapshot(clock.now()).rating('alpha', 'plan');
    expect(alpha).toMatchObject({ graded: 1_000_000_000, cost: { attempts: 1_000_000_000 } });
    // Three failures at the limit: the record keeps its share of passes, a few fewer of them.
    expect(alpha?.ok).toBeGreaterThanOrEqual(899_999_997);
    expect(alpha?.ok).toBeLessThan(900_000_000);
    expect(Number.isFinite(alpha?.information)).toBe(true);
    await ledger.close();
    const reopened = await open();
    expect(reopened.ledger.entries().map((entry) => [entry.model, entry.graded])).toEqual(
      expect.arrayContaining([['alpha', 1_000_000_000]]),
    );
    await reopened.ledger.close();
    expect([...notices, ...reopened.notices]).toEqual([]);
  });

  it("merges a teammate's rows at the edges of their ranges onto the user's own without making a row the next read leaves out", async () => {
    const teammate = join(dir.path, 'teammate', 'ledger.sqlite');
    mkdirSync(join(dir.path, 'teammate'));
    // Every value here is one Rung may write, so the teammate's file is read whole; summed with the
    // user's, the counts passed a billion and the information and costs overflowed to Infinity, and the
    // next open left the user's own ratings of alpha and beta out (and the save after dropped them).
    await tamperedLedger(
      'UPDATE ratings SET graded = 1000000000, ok = 600000000, information = 1.7e308, cost_observed = 1.7e308, cost_listed = 1.7e308, cost_attempts = 1000000000',
      teammate,
    );
    await tamperedLedger('UPDATE ratings SET information = 1e308, cost_observed = 1e308, cost_listed = 1e308, cost_attempts = 5');
    // A second teammate's copy of the same file, under its own ledger id: two billion graded answers.
    const second = join(dir.path, 'teammate', 'second.sqlite');
    copyFileSync(teammate, second);
    sqliteChange(sql, second, "UPDATE meta SET value = 'second-teammate' WHERE key = 'ledger_id'");
    const { ledger, notices } = await open();
    expect(await ledger.merge(teammate)).toMatchObject({ sourceRatings: 2 });
    expect(await ledger.merge(second)).toMatchObject({ sourceRatings: 2 });
    for (const entry of ledger.entries()) {
      expect(entry.graded).toBeLessThanOrEqual(1_000_000_000);
      expect(entry.ok).toBeLessThanOrEqual(entry.graded);
      // The teammate's 60% and the user's own record, not every answer a pass.
      expect(entry.ok / entry.graded).toBeLessThan(0.7);
      expect(Number.isFinite(entry.information)).toBe(true);
      expect([entry.cost?.observed, entry.cost?.listed].every(Number.isFinite)).toBe(true);
    }
    ledger.observe([{ model: 'alpha', classKey: 'plan', success: true, at: clock.now() }]);
    await ledger.close();
    const reopened = await open();
    expect(
      reopened.ledger
        .entries()
        .map((entry) => entry.model)
        .sort(),
    ).toEqual(['alpha', 'beta']);
    await reopened.ledger.close();
    expect([...notices, ...reopened.notices]).toEqual([]);
  });

  it('keeps bad rows out of every snapshot through calls, a merge and a save in one process, and a snapshot taken earlier as it was', async () => {
    // The state's tables are changed in place until a snapshot reads them: a bad row left out when the
    // file is read must stay out of every later state, and a snapshot held across calls must not see them.
    await tamperedLedger(
      `UPDATE ratings SET rating = -9e999, graded = 20, ok = 10 WHERE model = 'alpha'; UPDATE ratings SET rating = 'NaN' WHERE model = 'beta'; INSERT INTO spawns VALUES ('soon', 't', 'alpha', ${clock.now() + 20 * 60 * 1000}, NULL)`,
    );
    const teammate = join(dir.path, 'teammate', 'ledger.sqlite');
    mkdirSync(join(dir.path, 'teammate'));
    await tamperedLedger("UPDATE ratings SET rating = 9e999, graded = 1e18 WHERE model = 'alpha'", teammate);
    const { ledger, notices } = await open();
    const router = routerOver(ledger);
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const held = ledger.snapshot(clock.now());
    expect([held.rating('alpha', 'plan'), held.rating('beta', 'plan')]).toEqual([undefined, undefined]);
    const finite = (): void => {
      const snapshot = ledger.snapshot(clock.now());
      for (const model of ['alpha', 'beta']) {
        const rating = snapshot.rating(model, 'plan');
        if (rating) expect([rating.rating, rating.graded, rating.ok].every(Number.isFinite), model).toBe(true);
        expect(snapshot.inFlight(model)).toBeLessThanOrEqual(1);
        expect(snapshot.inFlightStarts?.(model).every((start) => start <= clock.now())).toBe(true);
      }
    };
    for (let call = 0; call < 4; call++) {
      await router.route(request(), attempts.fn);
      finite();
      clock.advance(1_000);
    }
    await ledger.merge(teammate);
    finite();
    for (let call = 0; call < 2; call++) await router.route(request(), attempts.fn);
    finite();
    // The snapshot taken before the calls still reads the state it was taken of.
    expect([held.rating('alpha', 'plan'), held.rating('beta', 'plan')]).toEqual([undefined, undefined]);
    await ledger.close();
    const reopened = await open();
    expect(
      reopened.ledger
        .entries()
        .map((entry) => entry.model)
        .sort(),
    ).toEqual(['alpha', 'beta']);
    await reopened.ledger.close();
    expect(notices.filter((notice) => notice.kind === 'save-failed')).toEqual([]);
    expect(notices.filter((notice) => notice.kind === 'skipped-rows')).toHaveLength(1);
    expect(reopened.notices).toEqual([]);
  });

  it('routes calls over ratings whose costs are at the edge of what a row may hold', async () => {
    // Every value is one the read accepts (finite, in range), but a cost per attempt near the largest
    // number divided by a chance of success overflowed to Infinity for every rung, the planner then
    // chose none, and every call at the class failed with "Cannot read properties of undefined".
    await tamperedLedger(
      'UPDATE ratings SET rating = -1, graded = 100, ok = 40, cost_observed = 1.79e308, cost_listed = 1.79e308, cost_attempts = 4',
    );
    const { ledger, notices } = await open();
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const router = routerOver(ledger);
    for (let call = 0; call < 3; call++) {
      const result = await router.route(request(), attempts.fn);
      expect(result.attempts.length).toBeGreaterThan(0);
    }
    await ledger.close();
    expect(notices).toEqual([]);
  });

  it('opens and saves every value Rung writes at the edges of their ranges', async () => {
    await tamperedLedger(
      "UPDATE ratings SET rating = -6, graded = 1000000000, ok = 0, drift_surprise = -1, information = 0 WHERE model = 'alpha'; UPDATE ratings SET rating = 6, graded = 0, ok = 0, drift_surprise = 1 WHERE model = 'beta'",
    );
    const { ledger, notices } = await open();
    expect(ledger.entries().map((entry) => [entry.model, entry.rating, entry.graded])).toEqual([
      ['beta', 6, 0],
      ['alpha', -6, 1_000_000_000],
    ]);
    await ledger.close();
    expect(notices).toEqual([]);
  });
});

describe("a team's imported ratings", () => {
  it('are held to the ranges a ledger file is: a rating past ±6, a count past a billion or more ok than graded is skipped', () => {
    const row = { source_id: 's', model: 'm', class_key: 'plan', graded: 3, ok: 2, rating: 0.5, updated_at: '1' };
    const { valid, skipped } = validRows(importRowSchema, [
      row,
      { ...row, rating: 1e300 },
      { ...row, graded: 2_000_000_000, ok: 0 },
      { ...row, ok: 4 },
    ]);
    expect(valid).toEqual([row]);
    expect(skipped).toBe(3);
  });
});
