import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DecisionLog, decisionLogPath } from '../../../../src/core/ledger/decisionLog';
import initSqlJs from 'sql.js';
import { FLUSH_INTERVAL_MS, REFRESH_INTERVAL_MS, WorkspaceLedger, type LedgerNotice } from '../../../../src/core/ledger/workspaceLedger';
import { decisionRow } from '../../support/decisionRow';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
let clock: FixedClock;
let scheduler: ManualScheduler;
beforeEach(() => {
  dir = makeTempDir();
  clock = new FixedClock();
  scheduler = new ManualScheduler(clock);
});
afterEach(() => dir.remove());

function openLog(): DecisionLog {
  return new DecisionLog({ path: join(dir.path, 'decisions.jsonl'), clock, schedule: scheduler.schedule });
}

describe('DecisionLog', () => {
  it('lives beside the ledger as .rung/decisions.jsonl', () => {
    expect(decisionLogPath(join('ws', '.rung', 'ledger.sqlite'))).toBe(join('ws', '.rung', 'decisions.jsonl'));
  });

  it('batches appended rows and writes them whole, one JSON object per line', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'c1' }));
    log.append(decisionRow({ call: 'c2' }));
    expect(existsSync(log.path)).toBe(false);
    expect(scheduler.pendingDelays()).toEqual([0]);
    await log.flush();
    const lines = readFileSync(log.path, 'utf8').split('\n');
    expect(lines.map((line) => (line ? (JSON.parse(line) as { call: string }).call : ''))).toEqual(['c1', 'c2', '']);
    log.append(decisionRow({ call: 'c3' }));
    expect(scheduler.pendingDelays()).toEqual([FLUSH_INTERVAL_MS]);
  });

  it('reads the last rows, skipping a torn last line', async () => {
    const log = openLog();
    for (let i = 0; i < 5; i++) log.append(decisionRow({ call: `c${i}` }));
    await log.close();
    appendFileSync(log.path, '{"call":"torn","model":"qwen');
    expect(log.last(3).map((row) => row.call)).toEqual(['c2', 'c3', 'c4']);
    expect(log.last(100).map((row) => row.call)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    const all = log.readAll();
    expect(all.rows).toHaveLength(5);
    expect(all.skipped).toBe(1);
  });

  it('skips a row whose time no Date can hold, and counts it with the other unreadable lines', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'a', at: 1 }));
    log.append(decisionRow({ call: 'far', at: 1e300 }));
    log.append(decisionRow({ call: 'b', at: 2 }));
    await log.flush();
    expect(log.readAll()).toMatchObject({ skipped: 1, rows: [{ call: 'a' }, { call: 'b' }] });
    expect(log.last(5).map((row) => row.call)).toEqual(['a', 'b']);
    expect(log.forCall('far').rows).toEqual([]);
  });

  it('starts a fresh line after a torn row, so the next row is not lost with it', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'c0' }));
    await log.flush();
    appendFileSync(log.path, '{"call":"torn","mod');
    log.append(decisionRow({ call: 'c1' }));
    await log.flush();
    expect(log.readAll()).toMatchObject({ skipped: 1 });
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['c0', 'c1']);
    expect(log.last(1).map((row) => row.call)).toEqual(['c1']);
  });

  it('reads the last rows across many read chunks', async () => {
    const log = openLog();
    for (let i = 0; i < 600; i++) log.append(decisionRow({ call: `c${i}`, reason: 'é'.repeat(i % 300) }));
    await log.flush();
    expect(log.last(450).map((row) => row.call)).toEqual(Array.from({ length: 450 }, (_, i) => `c${i + 150}`));
  });

  it('takes the last row of a call id as the truth', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'a', verdict: 'unverified' }));
    log.append(decisionRow({ call: 'b' }));
    log.append(decisionRow({ call: 'a', verdict: 'fail', final: true }));
    await log.flush();
    // A short final row as an older writer might have left it: only call, model and verdict.
    appendFileSync(log.path, '{"call":"a","model":"qwen2.5:3b","verdict":"pass","final":true}\n');
    const found = log.forCall('a');
    expect(found.rows.map((row) => row.verdict)).toEqual(['unverified', 'fail', 'pass']);
    expect(found.truth).toMatchObject({ verdict: 'pass', final: true });
    expect(log.forCall('missing')).toEqual({ rows: [], truth: undefined });
  });

  it('compacts rows past the retention age or count and keeps the rest byte for byte', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'old', at: clock.now() - 10_000 }));
    for (let i = 0; i < 4; i++) log.append(decisionRow({ call: `new${i}`, at: clock.now() }));
    await log.flush();
    appendFileSync(log.path, '{"future":true,"call":"n","model":"m","verdict":"pass","at":' + clock.now() + '}\n{"torn');
    expect(await log.compact({ maxAgeMs: 5_000 })).toEqual({ kept: 5, dropped: 1, setAside: 1, setAsidePath: `${log.path}.unreadable` });
    expect(readFileSync(log.path, 'utf8')).toContain('"future":true');
    expect(await log.compact({ maxRows: 2 })).toEqual({ kept: 2, dropped: 3, setAside: 0 });
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['new3', 'n']);
  });

  it('moves lines that are not JSON aside instead of deleting them, and keeps what it had moved before', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'a', at: clock.now() }));
    await log.flush();
    appendFileSync(log.path, '<<<<<<< HEAD\n\n');
    log.append(decisionRow({ call: 'b', at: clock.now() }));
    await log.flush();
    appendFileSync(log.path, '{"call":"c","at":');
    expect(await log.compact()).toEqual({ kept: 2, dropped: 0, setAside: 2, setAsidePath: `${log.path}.unreadable` });
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['a', 'b']);
    appendFileSync(log.path, 'not json either\n');
    expect((await log.compact()).setAside).toBe(1);
    expect(readFileSync(`${log.path}.unreadable`, 'utf8')).toBe('<<<<<<< HEAD\n{"call":"c","at":\nnot json either\n');
  });

  it('keeps a whole last row that has no newline after it, and ends the log with one', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'a', at: clock.now() }));
    await log.flush();
    // As an editor or a merge that drops the final newline leaves the log.
    appendFileSync(log.path, JSON.stringify(decisionRow({ call: 'b', at: clock.now() })));
    expect(await log.compact({ maxAgeMs: 5_000 })).toEqual({ kept: 2, dropped: 0, setAside: 0 });
    expect(existsSync(log.unreadablePath)).toBe(false);
    expect(readFileSync(log.path, 'utf8').endsWith('}\n')).toBe(true);
    expect(log.readAll()).toMatchObject({ skipped: 0 });
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['a', 'b']);
  });

  it('sets lines aside with their exact bytes, and keeps a row that is not valid UTF-8 as it was', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'old', at: clock.now() - 10_000 }));
    await log.flush();
    const garbage = Buffer.from([0x00, 0x00, 0xff, 0xfe]);
    // A row whose reason holds a byte that is not UTF-8: a reader sees U+FFFD, the file keeps the byte.
    const oddRow = Buffer.concat([
      Buffer.from(`{"call":"odd","model":"m","verdict":"pass","at":${clock.now()},"reason":"`),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    appendFileSync(log.path, Buffer.concat([garbage, Buffer.from('\n'), oddRow, Buffer.from('\n')]));
    expect(await log.compact({ maxAgeMs: 5_000 })).toEqual({ kept: 1, dropped: 1, setAside: 1, setAsidePath: log.unreadablePath });
    expect(readFileSync(log.unreadablePath)).toEqual(Buffer.concat([garbage, Buffer.from('\n')]));
    expect(readFileSync(log.path)).toEqual(Buffer.concat([oddRow, Buffer.from('\n')]));
  });

  it('sets aside JSON that is not an object as not a decision row, whatever its value', async () => {
    const log = openLog();
    log.append(decisionRow({ call: 'a', at: clock.now() }));
    await log.flush();
    appendFileSync(log.path, '[1,2,3]\nnull\n42\n"call"\n');
    expect(await log.compact()).toEqual({ kept: 1, dropped: 0, setAside: 4, setAsidePath: log.unreadablePath });
    expect(readFileSync(log.unreadablePath, 'utf8')).toBe('[1,2,3]\nnull\n42\n"call"\n');
    expect(log.readAll()).toMatchObject({ skipped: 0 });
  });

  it('refuses a directory at its path by name, reading or compacting, and leaves it as it is', async () => {
    const log = openLog();
    mkdirSync(log.path);
    const refusal = `cannot use ${log.path} as the decision log: it is a directory, not a decision log file`;
    expect(() => log.readAll()).toThrow(refusal);
    expect(() => log.last(5)).toThrow(refusal);
    expect(() => log.forCall('c')).toThrow(refusal);
    await expect(log.compact()).rejects.toThrow(refusal);
    expect(existsSync(log.unreadablePath)).toBe(false);
    expect(existsSync(`${log.path}.lock`)).toBe(false);
  });

  it('keeps its rows queued while another process holds the lock', async () => {
    const log = new DecisionLog({
      path: join(dir.path, 'decisions.jsonl'),
      clock,
      schedule: scheduler.schedule,
      lock: { attempts: 2, intervalMs: 1 },
    });
    writeFileSync(`${log.path}.lock`, JSON.stringify({ token: 'other', pid: 1, at: clock.now() }));
    log.append(decisionRow({ call: 'c' }));
    await log.flush();
    expect(log.queued).toBe(1);
    clock.advance(31_000);
    await log.close();
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['c']);
  });
});

describe('DecisionLog beside a ledger', () => {
  it('reports a background write that fails, keeps the rows, and writes them once it can', async () => {
    const notices: LedgerNotice[] = [];
    let told: () => void = () => undefined;
    const failed = new Promise<void>((resolve) => (told = resolve));
    const path = join(dir.path, 'decisions.jsonl');
    const log = new DecisionLog({ path, clock, schedule: scheduler.schedule, onNotice: (notice) => (notices.push(notice), told()) });
    // A directory where the log should be: every append fails until it is gone.
    mkdirSync(path);
    log.append(decisionRow({ call: 'c' }));
    scheduler.runDue();
    await failed;
    expect(notices.map((notice) => [notice.kind, notice.path])).toEqual([['save-failed', path]]);
    expect(notices[0]?.message).toMatch(/^could not write 1 decision row to .*decisions\.jsonl: .*; will retry$/);
    expect(log.notices).toEqual(notices);
    expect(log.queued).toBe(1);
    expect(scheduler.pendingDelays()).toEqual([FLUSH_INTERVAL_MS]);
    rmdirSync(path);
    await log.close();
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['c']);
  });

  it("lands its rows and the ledger's observations on one timer when given the ledger's", async () => {
    const sql = await initSqlJs({ locateFile: () => WASM_PATH });
    const ledgerPath = join(dir.path, 'ledger.sqlite');
    const ledger = await WorkspaceLedger.open({ path: ledgerPath, clock, sql, schedule: scheduler.schedule });
    const log = new DecisionLog({ path: decisionLogPath(ledgerPath), clock, flushTimer: ledger.flushTimer });
    ledger.observe([{ model: 'm', classKey: 'plan', success: true, at: clock.now() }]);
    log.append(decisionRow({ call: 'c' }));
    // The ledger's refresh and one flush timer for both, due as soon as the first of them wants it.
    expect(scheduler.pendingDelays()).toEqual([REFRESH_INTERVAL_MS, 0]);
    scheduler.runDue();
    for (let turn = 0; turn < 100 && (ledger.queued > 0 || log.queued > 0); turn++) await new Promise((resolve) => setImmediate(resolve));
    expect([ledger.queued, log.queued]).toEqual([0, 0]);
    expect(log.readAll().rows.map((row) => row.call)).toEqual(['c']);
    await ledger.close();
    expect(scheduler.pendingDelays()).toEqual([]);
  });
});

describe('reading decision rows whose cost is not a spend', () => {
  it('reads a negative or non-finite cost and token count as unknown, keeping the rest of the row', async () => {
    const log = new DecisionLog({ path: join(dir.path, 'decisions.jsonl'), clock });
    writeFileSync(
      log.path,
      `${JSON.stringify(decisionRow({ call: 'forged', cost: -450, inputTokens: -1 }))}\n${JSON.stringify(decisionRow({ call: 'huge' })).replace('"cost":0', '"cost":1e999')}\n`,
    );
    const { rows, skipped } = log.readAll();
    expect(skipped).toBe(0);
    expect(rows.map((row) => [row.call, row.cost, row.inputTokens])).toEqual([
      ['forged', null, null],
      ['huge', null, 120],
    ]);
  });
});
