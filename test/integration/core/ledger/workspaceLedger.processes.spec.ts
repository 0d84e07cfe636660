import { buildSync } from 'esbuild';
import { fork, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { WorkspaceLedger, type LedgerNotice } from '../../../../src/core/ledger/workspaceLedger';
import { makeTempDir, WASM_PATH } from '../../../unit/support/tempDir';
import { scaled } from '../../../timeScale';

// Real OS processes share one ledger file here, so the worker is bundled once into a temp directory.
let build: ReturnType<typeof makeTempDir>;
let worker: string;
let sql: SqlJsStatic;
beforeAll(async () => {
  build = makeTempDir('rung-worker-');
  worker = join(build.path, 'worker.js');
  buildSync({
    entryPoints: [join(__dirname, 'fixtures/ledgerWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: worker,
    logLevel: 'error',
  });
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});
afterAll(() => build.remove());

function start(args: string[]): ChildProcess {
  return fork(worker, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

function printed(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(word)) resolve();
    });
    child.on('exit', () => reject(new Error(`worker exited before printing ${word}`)));
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + scaled(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Graded observations in a ledger file, summed over every model and class. */
function totalGraded(path: string): number {
  const db = new sql.Database(readFileSync(path));
  try {
    return Number(db.exec('SELECT coalesce(sum(graded), 0) FROM ratings')[0]?.values[0]?.[0]);
  } finally {
    db.close();
  }
}

/** Starts a writer that takes the ledger's lock, and kills it (SIGKILL) while it holds it. */
async function killedHoldingTheLock(path: string): Promise<number> {
  const child = start(['hold', path, WASM_PATH]);
  const done = exited(child);
  await printed(child, 'holding');
  child.kill('SIGKILL');
  expect((await done).signal).toBe('SIGKILL');
  expect(existsSync(`${path}.lock`)).toBe(true);
  return child.pid as number;
}

/** Reads a ledger file the way a fresh process would, checking it is a whole, consistent database. */
function readConsistent(path: string): { steady: { graded: number; ok: number } | undefined; padding: number } {
  const db = new sql.Database(readFileSync(path));
  try {
    expect(db.exec('PRAGMA integrity_check')[0]?.values[0]?.[0]).toBe('ok');
    const steady = db.exec(`SELECT graded, ok FROM ratings WHERE model = 'steady'`)[0]?.values[0];
    const padding = Number(db.exec(`SELECT count(*) FROM ratings WHERE model LIKE 'pad-%'`)[0]?.values[0]?.[0]);
    return { steady: steady ? { graded: Number(steady[0]), ok: Number(steady[1]) } : undefined, padding };
  } finally {
    db.close();
  }
}

describe('WorkspaceLedger across processes', () => {
  it('keeps every observation of four processes writing at once, each counted once', async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, '.rung', 'ledger.sqlite');
      const processes = 4;
      const count = 50;
      const children = Array.from({ length: processes }, (_, index) => start(['observe', path, WASM_PATH, String(index), String(count)]));
      const results = await Promise.all(children.map(exited));
      expect(results.map((result) => result.stderr)).toEqual(results.map(() => ''));
      expect(results.map((result) => result.code)).toEqual(results.map(() => 0));
      const ledger = await WorkspaceLedger.open({ path, clock: systemClock, sql, readOnly: true });
      const entries = ledger.entries();
      const plan = entries.filter((entry) => entry.classKey === 'plan');
      expect(plan.reduce((sum, entry) => sum + entry.graded, 0)).toBe(processes * count);
      // Worker i passes when (n + i) is even: over 50 calls every worker passes 25 times.
      expect(plan.reduce((sum, entry) => sum + entry.ok, 0)).toBe((processes * count) / 2);
      const chat = entries.filter((entry) => entry.classKey === 'chat').map((entry) => [entry.model, entry.graded]);
      expect(chat).toEqual(expect.arrayContaining(Array.from({ length: processes }, (_, index) => [`worker-${index}`, count])));
      expect(readdirSync(join(dir.path, '.rung')).filter((name) => name.includes('.tmp-') || name.endsWith('.lock'))).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  it('leaves a file that opens and holds an old-or-new state however often a writer is killed mid-save', async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, 'ledger.sqlite');
      // Padding makes each save a few pages long, so a kill has a real chance of landing inside one.
      const seed = await WorkspaceLedger.open({ path, clock: systemClock, sql });
      seed.observe(
        Array.from({ length: 400 }, (_, i) => ({ model: `pad-${i}`, classKey: `class-${i % 7}`, success: true, at: systemClock.now() })),
      );
      await seed.close();
      let previous = 0;
      for (let round = 0; round < 6; round++) {
        const child = start(['hammer', path, WASM_PATH]);
        const done = exited(child);
        await printed(child, 'ready');
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
        child.kill('SIGKILL');
        expect((await done).signal).toBe('SIGKILL');
        const state = readConsistent(path);
        expect(state.padding).toBe(400);
        // Every save observes one more pass: a consistent state has graded == ok, and it never goes back.
        expect(state.steady?.graded).toBe(state.steady?.ok);
        expect(state.steady?.graded ?? 0).toBeGreaterThanOrEqual(previous);
        previous = state.steady?.graded ?? 0;
        expect(execFileSync('/usr/bin/sqlite3', [path, 'PRAGMA integrity_check'], { encoding: 'utf8' }).trim()).toBe('ok');
      }
      expect(previous).toBeGreaterThan(0);
      // A writer killed holding the lock leaves it behind; a clock 31 s on lets the next writer take it over and land.
      const after = await WorkspaceLedger.open({ path, clock: { now: () => systemClock.now() + 31_000 }, sql });
      after.observe([{ model: 'steady', classKey: 'plan', success: true, at: systemClock.now() }]);
      await after.close();
      expect(readConsistent(path).steady?.graded).toBe(previous + 1);
      expect(readdirSync(dir.path)).toEqual(['ledger.sqlite']);
    } finally {
      dir.remove();
    }
  });

  it('makes a model busy in another process once that process starts a call, and free once it ends', async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, 'ledger.sqlite');
      const watcher = await WorkspaceLedger.open({ path, clock: systemClock, sql });
      const child = start(['spawn', path, WASM_PATH, 'qwen3:14b']);
      const done = exited(child);
      await printed(child, 'started');
      // Nobody calls refresh here: the watcher's own timer must pick the other process's saves up.
      await until(() => watcher.snapshot(systemClock.now()).inFlight('qwen3:14b') === 1, "the other process's call to show as in flight");
      child.send('end');
      await until(() => watcher.snapshot(systemClock.now()).inFlight('qwen3:14b') === 0, 'the call to end');
      expect((await done).code).toBe(0);
      await watcher.close();
    } finally {
      dir.remove();
    }
  });

  it('takes over at once the lock of a writer killed while holding it, and saves without waiting for the age rule', async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, 'ledger.sqlite');
      const pid = await killedHoldingTheLock(path);
      const notices: LedgerNotice[] = [];
      // The real clock and the default 30 s age rule: only the dead holder can let this writer in early.
      const next = await WorkspaceLedger.open({ path, clock: systemClock, sql, onNotice: (notice) => notices.push(notice) });
      next.observe([{ model: 'steady', classKey: 'plan', success: true, at: systemClock.now() }]);
      await next.flush();
      expect(next.queued).toBe(0);
      // Taken over on the first attempt: no wait was reported, and the reason is the dead holder, not the lock's age.
      expect(notices.map((notice) => [notice.kind, notice.reason, notice.holder?.pid])).toEqual([['lock-taken-over', 'holder-dead', pid]]);
      expect(notices[0]?.holder?.ageMs).toBeLessThan(30_000);
      await next.close();
      expect(readConsistent(path).steady).toEqual({ graded: 1, ok: 1 });
      expect(existsSync(`${path}.lock`)).toBe(false);
    } finally {
      dir.remove();
    }
  });

  it("waits for the age rule on a dead writer's lock that names another host, saying once who holds it", async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, 'ledger.sqlite');
      const pid = await killedHoldingTheLock(path);
      const lock = JSON.parse(readFileSync(`${path}.lock`, 'utf8')) as { at: number };
      // The same dead pid, as if written from a machine sharing the folder: the pid means nothing here.
      writeFileSync(`${path}.lock`, JSON.stringify({ ...lock, host: 'another-machine' }));
      const notices: LedgerNotice[] = [];
      let offset = 0;
      const clock = { now: () => systemClock.now() + offset };
      const next = await WorkspaceLedger.open({
        path,
        clock,
        sql,
        lock: { attempts: 2, intervalMs: 1 },
        onNotice: (notice) => notices.push(notice),
      });
      next.observe([{ model: 'steady', classKey: 'plan', success: true, at: clock.now() }]);
      await next.flush();
      await next.flush();
      expect(next.queued).toBe(1);
      expect(notices.map((notice) => [notice.kind, notice.holder?.pid, notice.holder?.host])).toEqual([
        ['lock-waiting', pid, 'another-machine'],
      ]);
      expect(notices[0]?.message).toContain(`held by pid ${pid} on another-machine`);
      offset = 31_000;
      await next.close();
      expect(notices.map((notice) => [notice.kind, notice.reason])).toEqual([
        ['lock-waiting', undefined],
        ['lock-taken-over', 'stale'],
      ]);
      expect(readConsistent(path).steady).toEqual({ graded: 1, ok: 1 });
    } finally {
      dir.remove();
    }
  });

  it("keeps at least the first half of a long replay's observations when it is killed halfway", async () => {
    const dir = makeTempDir();
    try {
      const path = join(dir.path, 'ledger.sqlite');
      const child = start(['replay', path, WASM_PATH]);
      const done = exited(child);
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await printed(child, '\n');
      // The worker is blocked inside its second half: no timer of its own can fire before this kill.
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      const firstHalf = Number(/^half (\d+)$/m.exec(out)?.[1]);
      // 60 prompts, each answered by one to four models.
      expect(firstHalf).toBeGreaterThanOrEqual(60);
      expect(totalGraded(path)).toBeGreaterThanOrEqual(firstHalf);
      expect(readConsistent(path).padding).toBe(0);
    } finally {
      dir.remove();
    }
  });
});
