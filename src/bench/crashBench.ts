/**
 * The crash benchmark: what a `kill -9` costs the other writers and the killed one, in wall time and in
 * observations kept: a writer waiting out a dead process's lock, and a replay killed before its end
 * keeping nothing, measured rather than asserted (a timed test proves nothing).
 *
 * Usage (from the repository root, after `npm run build` so `dist/cli.js` is current):
 *
 *   npx esbuild src/bench/crashBench.ts --bundle --platform=node --outfile=/tmp/crashBench.js --log-level=error
 *   node /tmp/crashBench.js lock [ROUNDS]                 # next writer's delay after a writer is killed inside a save
 *   node /tmp/crashBench.js replay OUTCOMES [KILL_MS...]  # observations a `rung replay --ledger` keeps when killed
 *
 * `RUNG_CLI=path/to/cli.js` runs the replay figures against another build (say, one from before a change).
 * `lock`: a writer saves in a tight loop and is killed at a random moment until a kill leaves its lock
 * behind; then a second process opens the same ledger, records one observation and closes, and its
 * time from start to saved is the figure. `replay`: `node dist/cli.js replay OUTCOMES --ledger L
 * --decisions D` is killed after KILL_MS of wall time; the attempts it made (rows in D, written one by
 * one) are set against the graded observations its ledger kept.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import initSqlJs from 'sql.js';
import { systemClock } from '../core/clock';
import { WorkspaceLedger } from '../core/ledger/workspaceLedger';

const WASM = resolve(__dirname, '../node_modules/sql.js/dist/sql-wasm.wasm');
const WASM_FALLBACK = resolve(process.cwd(), 'node_modules/sql.js/dist/sql-wasm.wasm');
const wasmPath = existsSync(WASM) ? WASM : WASM_FALLBACK;
/** Ratings written before each round, so a save lasts long enough for a random kill to land inside it. */
const PADDING_RATINGS = 400;

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  switch (mode) {
    case 'lock':
      return lockBench(Number(rest[0] ?? 5));
    case 'replay':
      return replayBench(rest[0] ?? '', rest.slice(1).map(Number));
    case 'hammer':
      return hammer(rest[0] ?? '');
    case 'next':
      return nextWriter(rest[0] ?? '');
    default:
      throw new Error('usage: crashBench lock [ROUNDS] | replay OUTCOMES [KILL_MS...]');
  }
}

async function lockBench(rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'rung-crash-'));
    try {
      const path = join(dir, 'ledger.sqlite');
      const seed = await WorkspaceLedger.open({ path, clock: systemClock, wasmPath });
      seed.observe(Array.from({ length: PADDING_RATINGS }, (_, i) => ({ model: `pad-${i}`, classKey: `class-${i % 7}`, success: true, at: systemClock.now() })));
      await seed.close();
      let kills = 0;
      while (!existsSync(`${path}.lock`)) {
        kills++;
        const child = fork(__filename, ['hammer', path], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
        await printed(child, 'ready');
        await sleep(20 + Math.random() * 150);
        child.kill('SIGKILL');
        await exited(child);
      }
      const after = await timedNextWriter(path);
      // The same writer again, with no lock left behind: what starting Node and sql.js costs by itself.
      const baseline = await timedNextWriter(path);
      process.stdout.write(
        `round ${round + 1}: lock left after ${kills} kill(s); next writer exited after ${Math.round(after.elapsedMs)} ms (without a lock left behind: ${Math.round(baseline.elapsedMs)} ms)\n${after.out.trimEnd().replace(/^/gm, '  ')}\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Runs the next writer as its own process; its wall time from spawn to exit, and what it printed. */
async function timedNextWriter(path: string): Promise<{ elapsedMs: number; out: string }> {
  const started = performance.now();
  const next = fork(__filename, ['next', path], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  next.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await exited(next);
  return { elapsedMs: performance.now() - started, out };
}

/** Saves in a tight loop until killed; says `ready` once its first save has landed. */
async function hammer(path: string): Promise<void> {
  const ledger = await WorkspaceLedger.open({ path, clock: systemClock, wasmPath });
  let first = true;
  for (;;) {
    ledger.observe([{ model: 'steady', classKey: 'plan', success: true, at: systemClock.now() }]);
    await ledger.flush();
    if (first && ledger.queued === 0) {
      process.stdout.write('ready\n');
      first = false;
    }
  }
}

/** The writer that comes after a crash: one observation, saved, with every notice it was given. */
async function nextWriter(path: string): Promise<void> {
  const started = performance.now();
  const ledger = await WorkspaceLedger.open({
    path,
    clock: systemClock,
    wasmPath,
    onNotice: (notice) => process.stdout.write(`${Math.round(performance.now() - started)} ms: ${notice.kind}: ${notice.message}\n`),
  });
  ledger.observe([{ model: 'after', classKey: 'plan', success: true, at: systemClock.now() }]);
  await ledger.close();
  process.stdout.write(`${Math.round(performance.now() - started)} ms: saved\n`);
}

async function replayBench(outcomes: string, killAtMs: number[]): Promise<void> {
  // RUNG_CLI names another build to compare, such as one from before a change.
  const cli = resolve(process.cwd(), process.env.RUNG_CLI ?? 'dist/cli.js');
  const sql = await initSqlJs({ locateFile: () => wasmPath });
  for (const killAt of killAtMs.length ? killAtMs : [600, 1000, 1500]) {
    const dir = mkdtempSync(join(tmpdir(), 'rung-crash-'));
    try {
      const path = join(dir, 'ledger.sqlite');
      // `--decisions` writes each attempt's row at once: the count of attempts made before the kill.
      const decisions = join(dir, 'decisions.jsonl');
      const child = spawn(process.execPath, [cli, 'replay', outcomes, '--ledger', path, '--decisions', decisions], { stdio: 'ignore' });
      await sleep(killAt);
      child.kill('SIGKILL');
      const { signal } = await exited(child);
      let graded = 0;
      if (existsSync(path)) {
        const db = new sql.Database(readFileSync(path));
        graded = Number(db.exec('SELECT coalesce(sum(graded), 0) FROM ratings')[0]?.values[0]?.[0] ?? 0);
        db.close();
      }
      const made = existsSync(decisions) ? readFileSync(decisions, 'utf8').split('\n').filter(Boolean).length : 0;
      process.stdout.write(`killed at ${killAt} ms (${signal ?? 'finished first'}): ${made} attempts made, ${graded} graded observations kept in the ledger\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function printed(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(word)) resolve();
    });
    child.on('exit', () => reject(new Error(`child exited before printing ${word}`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
