/**
 * The workspace ledger's benchmark: opening it, saving a batch, and the memory it holds, with 1k, 10k
 * and 100k decisions recorded — and the measurement behind keeping decisions out of the SQLite file.
 *
 * @remarks
 * Targets at 100k decisions: open ≤ 200 ms, batch save ≤ 50 ms at p99, ≤ 64 MB held. A batch is what
 * one second of busy routing produces: 20 graded observations, a spawn start and end, and 20 decision
 * rows. "Open" is what a window does at start: open the ledger and read the last 50 decisions for the
 * panel. The same batch is also saved into a sql.js file that holds the decisions as a table, the
 * design this one rejected, so the reason for rejecting it stays measurable.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { systemClock } from '../core/clock';
import type { DecisionRow } from '../core/decisions/decision';
import { writeFileAtomic } from '../core/files/atomicWrite';
import { DecisionLog, decisionLogPath } from '../core/ledger/decisionLog';
import { loadSqlJs, type WasmSource } from '../core/ledger/sqlJs';
import { WorkspaceLedger, type Scheduler } from '../core/ledger/workspaceLedger';
import type { Observation } from '../core/ratings';
import { round, summarise, type BenchRow } from './benchRow';

export type { BenchRow } from './benchRow';

/** Decision counts the ledger is measured at. */
export const DECISION_COUNTS = [1_000, 10_000, 100_000];
/** Rows and observations per saved batch: about one busy second of routing. */
export const BATCH_SIZE = 20;
const OPEN_RUNS = 30;
/** Untimed opens first, so the JIT's first compilation of the open path is not reported as the p99. */
const OPEN_WARMUP_RUNS = 3;
const SAVE_RUNS = 60;
/** The rejected design rewrites the whole file per batch, so fewer runs keep the bench short at 100k. */
const SQLITE_SAVE_RUNS: Record<number, number> = { 1_000: 30, 10_000: 15, 100_000: 5 };
const MODELS = ['qwen2.5:3b', 'qwen3:14b', 'qwen3.6:27b', 'openai/gpt-4o-mini', 'deepseek/deepseek-v4-flash', 'anthropic/claude-haiku', 'llama3.3:70b', 'gemma3:12b'];
const CLASSES = ['plan', 'chat', 'edit', 'leaf', 'edit/typescript', 'edit/python', 'leaf/oversized', 'plan/json', 'chat/long', 'edit/go', 'edit/rust', 'leaf/small'];
const MB = 1024 * 1024;

/** Timers never fire during the bench: every save is an explicit flush, so what is timed is the save. */
const noTimers: Scheduler = () => () => undefined;

export async function runLedgerBench(options: WasmSource = {}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'rung-ledger-bench-'));
  try {
    const loadStart = process.memoryUsage().rss;
    const loadStarted = performance.now();
    const sql = await loadSqlJs(options);
    rows.push({ name: 'sqljs.load', n: 0, medianMs: round(performance.now() - loadStarted), p99Ms: round(performance.now() - loadStarted), extra: { rssMB: round((process.memoryUsage().rss - loadStart) / MB, 1) } });
    const paths = new Map<number, string>();
    for (const n of DECISION_COUNTS) {
      const path = join(dir, `n${n}`, 'ledger.sqlite');
      await prepare(path, n, sql);
      paths.set(n, path);
    }
    // Memory first, before the timing loops leave garbage that a later RSS reading would mistake for the ledger's.
    for (const [n, path] of paths) rows.push(await measureMemory(path, n, sql));
    for (const [n, path] of paths) rows.push(await measureOpen(path, n, sql));
    for (const [n, path] of paths) rows.push(...(await measureSave(path, n, sql)));
    // Last, because a 100k-row sql.js database grows the shared WebAssembly heap and it never shrinks.
    for (const n of DECISION_COUNTS) rows.push(measureDecisionsInSqlite(join(dir, `sqlite-${n}.sqlite`), n, sql));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function decision(i: number, at: number): DecisionRow {
  const model = MODELS[i % MODELS.length] ?? 'qwen3:14b';
  return {
    v: 1, at, call: `call-${i}`, run: `run-${Math.floor(i / 50)}`, class: 'edit', shape: 'typescript',
    candidates: MODELS.slice(0, 4), rung: i % 4, escalation: MODELS.slice(0, i % 4), model, resolved: model,
    explore: i % 20 === 0, propensity: i % 20 === 0 ? 0.05 : 0.95, verdict: i % 3 === 0 ? 'fail' : 'pass',
    verdictReason: i % 3 === 0 ? 'tsc: 2 errors in src/app.ts' : null, inputTokens: 1200 + (i % 500), outputTokens: 300 + (i % 200),
    cost: 0.00012, latencyMs: 900 + (i % 1000), reason: 'measured 12/13 success class=edit/typescript', mode: i % 2 ? 'local' : 'cloud',
    pruned: [{ model: 'llama3.3:70b', reason: 'pruned: busy llama3.3:70b 1/1 in flight' }, { model: 'anthropic/claude-haiku', reason: 'pruned: output price 75.00 > cap 20.00' }],
    final: false,
  };
}

function observations(i: number): Observation[] {
  return Array.from({ length: BATCH_SIZE }, (_, k) => ({
    model: MODELS[(i + k) % MODELS.length] ?? 'qwen3:14b', classKey: CLASSES[(i * 7 + k) % CLASSES.length] ?? 'plan', success: (i + k) % 3 !== 0, at: systemClock.now(),
  }));
}

/** A ledger with every model rated in every class, and a decision log of n rows beside it. */
async function prepare(path: string, n: number, sql: SqlJsStatic): Promise<void> {
  const ledger = await WorkspaceLedger.open({ path, clock: systemClock, sql, schedule: noTimers });
  for (let i = 0; i < 40; i++) ledger.observe(observations(i));
  await ledger.close();
  const at = systemClock.now();
  // Written in chunks of 1k rows so that preparing 100k rows does not itself hold 70 MB of strings.
  writeFileSync(decisionLogPath(path), '');
  for (let start = 0; start < n; start += 1_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(n, start + 1_000); i++) lines.push(`${JSON.stringify(decision(i, at))}\n`);
    appendFileSync(decisionLogPath(path), lines.join(''));
  }
}

async function measureOpen(path: string, n: number, sql: SqlJsStatic): Promise<BenchRow> {
  const samples: number[] = [];
  for (let run = -OPEN_WARMUP_RUNS; run < OPEN_RUNS; run++) {
    const started = performance.now();
    const ledger = await WorkspaceLedger.open({ path, clock: systemClock, sql, schedule: noTimers });
    const recent = new DecisionLog({ path: decisionLogPath(path), clock: systemClock, schedule: noTimers }).last(50);
    if (run >= 0) samples.push(performance.now() - started);
    if (recent.length !== 50 || ledger.entries().length === 0) throw new Error('bench ledger is not what prepare() wrote');
    await ledger.close();
  }
  return { name: 'ledger.open+last50', n, ...summarise(samples), extra: { ledgerBytes: statSync(path).size, decisionLogBytes: statSync(decisionLogPath(path)).size } };
}

/** What opening one ledger and its log keeps alive: heap, RSS and external (WebAssembly, buffers) growth. */
async function measureMemory(path: string, n: number, sql: SqlJsStatic): Promise<BenchRow> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const ledger = await WorkspaceLedger.open({ path, clock: systemClock, sql, schedule: noTimers });
  const log = new DecisionLog({ path: decisionLogPath(path), clock: systemClock, schedule: noTimers });
  const recent = log.last(50);
  const elapsed = performance.now() - started;
  gc?.();
  const after = process.memoryUsage();
  if (recent.length === 0 || ledger.entries().length === 0) throw new Error('unexpected empty bench ledger');
  await ledger.close();
  return {
    name: 'ledger.memory-held',
    n,
    medianMs: round(elapsed),
    p99Ms: round(elapsed),
    extra: {
      heapMB: round((after.heapUsed - before.heapUsed) / MB, 2),
      rssMB: round((after.rss - before.rss) / MB, 2),
      externalMB: round((after.external - before.external) / MB, 2),
      totalRssMB: round(after.rss / MB, 1),
      gcAvailable: gc ? 1 : 0,
    },
  };
}

async function measureSave(path: string, n: number, sql: SqlJsStatic): Promise<BenchRow[]> {
  const ledger = await WorkspaceLedger.open({ path, clock: systemClock, sql, schedule: noTimers });
  const log = new DecisionLog({ path: decisionLogPath(path), clock: systemClock, schedule: noTimers });
  const ledgerSamples: number[] = [];
  const logSamples: number[] = [];
  const both: number[] = [];
  for (let run = 0; run < SAVE_RUNS; run++) {
    const at = systemClock.now();
    ledger.observe(observations(run));
    ledger.spawnStarted({ spawnId: `bench-${run}`, traceId: 'bench', model: 'qwen3:14b', startedAt: at });
    ledger.spawnEnded(`bench-${run}`, at);
    for (let k = 0; k < BATCH_SIZE; k++) log.append(decision(n + run * BATCH_SIZE + k, at));
    const started = performance.now();
    await ledger.flush();
    const middle = performance.now();
    await log.flush();
    const ended = performance.now();
    ledgerSamples.push(middle - started);
    logSamples.push(ended - middle);
    both.push(ended - started);
  }
  await ledger.close();
  await log.close();
  return [
    { name: 'batch-save (ledger + decisions)', n, ...summarise(both) },
    { name: 'batch-save ledger only', n, ...summarise(ledgerSamples) },
    { name: 'batch-save decisions.jsonl append', n, ...summarise(logSamples) },
  ];
}

/**
 * The rejected design: decisions as a table in the sql.js file, saved the only way sql.js can — re-read
 * the file, insert the batch, export the whole database, write it atomically.
 */
function measureDecisionsInSqlite(path: string, n: number, sql: SqlJsStatic): BenchRow {
  const columns = '(at INTEGER, call TEXT, model TEXT, verdict TEXT, row TEXT)';
  const seed = new sql.Database();
  seed.run(`CREATE TABLE decisions ${columns}`);
  seed.run('BEGIN');
  const insert = seed.prepare('INSERT INTO decisions VALUES (?, ?, ?, ?, ?)');
  const at = systemClock.now();
  for (let i = 0; i < n; i++) {
    const row = decision(i, at);
    insert.run([row.at, row.call, row.model, row.verdict, JSON.stringify(row)]);
  }
  insert.free();
  seed.run('COMMIT');
  writeFileAtomic(path, seed.export());
  seed.close();
  const samples: number[] = [];
  for (let run = 0; run < (SQLITE_SAVE_RUNS[n] ?? 5); run++) {
    const started = performance.now();
    const db = new sql.Database(readFileSync(path));
    db.run('BEGIN');
    const statement = db.prepare('INSERT INTO decisions VALUES (?, ?, ?, ?, ?)');
    for (let k = 0; k < BATCH_SIZE; k++) {
      const row = decision(n + run * BATCH_SIZE + k, at);
      statement.run([row.at, row.call, row.model, row.verdict, JSON.stringify(row)]);
    }
    statement.free();
    db.run('COMMIT');
    writeFileAtomic(path, db.export());
    db.close();
    samples.push(performance.now() - started);
  }
  return { name: 'rejected: decisions in sql.js, batch save', n, ...summarise(samples), extra: { fileBytes: statSync(path).size } };
}

