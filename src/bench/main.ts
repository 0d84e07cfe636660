/**
 * `npm run bench`: the numbers BENCHMARKS.md reports — a replay of the recorded outcomes, the router's
 * overhead per decision, that overhead against the size of the decision history, and the workspace
 * ledger's open, save and memory.
 *
 * @remarks
 * Benchmarks live here and not in tests: a timed assertion fails on a loaded machine and proves
 * nothing on an idle one. The recorded outcomes are read from `../shared/data` (or the path given as
 * the first argument, or `RUNG_OUTCOMES`) and never copied into the repository.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { systemClock } from '../core/clock';
import type { DecisionRow } from '../core/decisions/decision';
import { decisionLogPath } from '../core/ledger/decisionLog';
import { WorkspaceLedger } from '../core/ledger/workspaceLedger';
import { parsePanel } from '../core/panel';
import { seededRandom } from '../core/random';
import { parseOutcomes } from '../core/replay/outcomes';

type OutcomeRows = ReturnType<typeof parseOutcomes>;
import { parsePrompts } from '../core/replay/prompts';
import type { PromptText } from '../core/signal/promptFeatures';
import { runReplay } from '../core/replay/replay';
import { MemoryDecisionSink } from '../core/decisions/decision';
import { Router } from '../core/routing/router';
import { round, summarise, type BenchRow } from './benchRow';
import { DECISION_COUNTS, runLedgerBench } from './ledgerBench';
import { runLedgerViewBench } from './ledgerViewBench';
import { runLedgerOpenBench } from './ledgerOpenBench';
import { runChecksBench } from './checksBench';
import { runStreamBench } from './streamBench';
import { runAnswerBench, runAnswerScalingBench } from './answerBench';
import { runPanelFileBench } from './panelFileBench';

const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');
const REPLAY_RUNS = 5;
const RANK_RUNS = 5_000;

async function main(): Promise<void> {
  // `RUNG_BENCH_ONLY=panel npm run bench` measures the ledger view alone (about a minute instead of several).
  if (process.env.RUNG_BENCH_ONLY === 'panel') {
    process.stdout.write(table(await runLedgerViewBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=stream npm run bench`: the provider transport reading one long line in small pieces.
  if (process.env.RUNG_BENCH_ONLY === 'stream') {
    process.stdout.write(table(await runStreamBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=answers npm run bench`: fences and tool calls read from hostile answers.
  if (process.env.RUNG_BENCH_ONLY === 'answers') {
    process.stdout.write(table(await runAnswerBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=answer-scaling npm run bench`: the same scans at 256 KB, 512 KB and 1 MiB.
  if (process.env.RUNG_BENCH_ONLY === 'answer-scaling') {
    process.stdout.write(table(await runAnswerScalingBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=panel-file npm run bench`: a panel file of small mistakes, its issues found and placed.
  if (process.env.RUNG_BENCH_ONLY === 'panel-file') {
    process.stdout.write(table(await runPanelFileBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=ledger-open npm run bench`: how long opening a ledger holds the thread, by its size.
  if (process.env.RUNG_BENCH_ONLY === 'ledger-open') {
    process.stdout.write(table(await runLedgerOpenBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=ledger npm run bench`: the workspace ledger's open, batch save and memory, at 1k, 10k and 100k decisions.
  if (process.env.RUNG_BENCH_ONLY === 'ledger') {
    process.stdout.write(table(await runLedgerBench()));
    return;
  }
  // `RUNG_BENCH_ONLY=checks npm run bench`: reading a request's checks, and the JSON check, on large and hostile text.
  if (process.env.RUNG_BENCH_ONLY === 'checks') {
    process.stdout.write(table(await runChecksBench()));
    return;
  }
  const outcomesPath = process.argv[2] ?? process.env.RUNG_OUTCOMES ?? DEFAULT_OUTCOMES;
  const rows: BenchRow[] = [];
  if (existsSync(outcomesPath)) rows.push(...(await replayBench(outcomesPath)));
  else process.stderr.write(`bench: ${outcomesPath} not found; skipping the replay figures\n`);
  // `RUNG_BENCH_ONLY=routing npm run bench`: the replay and routing-overhead rows alone.
  if (process.env.RUNG_BENCH_ONLY === 'routing') {
    process.stdout.write(table(rows));
    return;
  }
  rows.push(...(await historyBench()));
  rows.push(...(await runLedgerBench()));
  rows.push(...(await runLedgerViewBench()));
  rows.push(...(await runStreamBench()));
  rows.push(...(await runAnswerBench()));
  rows.push(...(await runChecksBench()));
  rows.push(...(await runPanelFileBench()));
  process.stdout.write(table(rows));
}

/**
 * One whole replay (wall time), and the router's own time per routed call and per attempt inside it;
 * again with the prompts' text, when it has been rebuilt beside the outcomes (scripts/prompts.mjs), so
 * the per-prompt signal's features, reading and learning are inside the timed call.
 */
async function replayBench(path: string): Promise<BenchRow[]> {
  const promptsPath = path.replace(/\.jsonl$/, '') + '.prompts.jsonl';
  const prompts = existsSync(promptsPath) ? parsePrompts(readFileSync(promptsPath, 'utf8'), promptsPath) : undefined;
  if (!prompts) process.stderr.write(`bench: ${promptsPath} not found; skipping the routing overhead with the per-prompt signal\n`);
  return [...(await timedReplays(path, undefined)), ...(prompts ? await timedReplays(path, prompts) : [])];
}

/**
 * `RUNG_BENCH_CLOCK=cpu`: the per-call figures in the process's CPU time (user and system, every thread,
 * so the collector's helpers count) rather than the wall clock. On a machine others load, a wall-clock
 * p99 is mostly the time the scheduler gave to someone else; CPU time is what the call itself cost.
 */
const CPU_CLOCK = process.env.RUNG_BENCH_CLOCK === 'cpu';

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timedReplays(path: string, prompts: ReadonlyMap<string, PromptText> | undefined): Promise<BenchRow[]> {
  const { rows, models } = parseOutcomes(readFileSync(path, 'utf8'), path);
  const wall: number[] = [];
  const perCall: number[] = [];
  const perAttempt: number[] = [];
  // Each call's span on the wall clock, start and end, to tell which calls a pause fell in.
  const spans: number[] = [];
  const signal = prompts ? ', with the per-prompt signal' : '';
  const clock = CPU_CLOCK ? ', CPU time' : '';
  // The collector's pauses during the replays, which is where a single-threaded run's p99 goes.
  const pauses = collectorPauses();
  for (let run = 0; run < REPLAY_RUNS; run++) {
    const started = performance.now();
    // Called as a call starts and as it ends: the one before the last is the call's start.
    let previous = 0;
    let last = 0;
    await runReplay({
      rows,
      models,
      verifier: { kind: 'perfect' },
      classKey: 'family',
      seed: run + 1,
      ...(prompts ? { prompts } : {}),
      timing: {
        now: () => {
          previous = last;
          last = performance.now();
          return CPU_CLOCK ? cpuMs() : last;
        },
        record: (elapsed, attempts) => {
          spans.push(previous, performance.now());
          perCall.push(elapsed);
          if (attempts > 0) perAttempt.push(elapsed / attempts);
        },
      },
    });
    wall.push(performance.now() - started);
  }
  const seen = await pauses.stop();
  const gcTotal = seen.reduce((sum, pause) => sum + pause.duration, 0);
  const hit = callsPaused(spans, seen);
  return [
    { name: `replay of ${rows.length} prompts${signal} (whole run, ms)`, n: rows.length, ...summarise(wall) },
    { name: `routing overhead per call${signal}${clock} (µs)`, n: perCall.length, ...micro(perCall) },
    { name: `routing overhead per attempt${signal}${clock} (µs)`, n: perAttempt.length, ...micro(perAttempt) },
    {
      name: `collector pauses over the ${REPLAY_RUNS} replays${signal} (ms)`,
      n: seen.length,
      ...summarise(seen.map((pause) => pause.duration)),
      extra: {
        totalMs: round(gcTotal, 1),
        perReplayMs: round(gcTotal / REPLAY_RUNS, 1),
        per1kCalls: round((1000 * seen.length) / perCall.length, 2),
        minor: seen.filter((pause) => pause.kind === constants.NODE_PERFORMANCE_GC_MINOR).length,
        major: seen.filter((pause) => pause.kind === constants.NODE_PERFORMANCE_GC_MAJOR).length,
        callsPausedPer1k: round((1000 * hit.filter(Boolean).length) / perCall.length, 2),
      },
    },
    ...(await allocationReplays(rows, models, prompts, signal)),
  ];
}

/** One collector pause: when it started on the wall clock (performance.now), how long it took, ms, and its kind. */
interface Pause {
  startTime: number;
  duration: number;
  kind: number | undefined;
}

/** Watches the collector's pauses from now until `stop`. */
function collectorPauses(): { stop: () => Promise<Pause[]> } {
  const seen: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
      seen.push({ startTime: entry.startTime, duration: entry.duration, kind: detail?.kind });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: async () => {
      // Entries are delivered after the run's last tick; wait one so none is left out.
      await new Promise((done) => setImmediate(done));
      observer.disconnect();
      return seen;
    },
  };
}

/** For each call (its span a pair in `spans`), whether a pause began or ended inside it. */
function callsPaused(spans: readonly number[], pauses: readonly Pause[]): boolean[] {
  const sorted = [...pauses].sort((a, b) => a.startTime - b.startTime);
  const hit: boolean[] = [];
  let next = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const from = spans[i] as number;
    const to = spans[i + 1] as number;
    while (next < sorted.length && (sorted[next] as Pause).startTime + (sorted[next] as Pause).duration < from) next++;
    const pause = sorted[next];
    hit.push(pause !== undefined && pause.startTime <= to);
  }
  return hit;
}

/**
 * What each routed call allocates on the heap, in bytes: the heap in use just before the call and just
 * after, for the calls no collector pause fell in, over the same replays again (not timed: reading the
 * heap takes longer than a call).
 *
 * @remarks
 * The collector pauses once the young generation's few megabytes are filled, so what a call allocates
 * sets how often a pause lands in one, which is what sets the p99. Unlike a time, it does not move with
 * the machine's load, so it shows progress while others use the machine. Typed arrays' contents live
 * outside the heap and are not counted.
 */
async function allocationReplays(
  rows: OutcomeRows['rows'],
  models: OutcomeRows['models'],
  prompts: ReadonlyMap<string, PromptText> | undefined,
  signal: string,
): Promise<BenchRow[]> {
  const heapUsed = (): number => process.memoryUsage().heapUsed;
  // What reading the heap itself allocates between two readings (its answer object), taken off each call.
  const reading: number[] = [];
  for (let i = 0; i < 1_000; i++) {
    const before = heapUsed();
    reading.push(heapUsed() - before);
  }
  const readingBytes = summarise(reading).medianMs;
  const bytes: number[] = [];
  const spans: number[] = [];
  const pauses = collectorPauses();
  for (let run = 0; run < REPLAY_RUNS; run++) {
    let heapBefore = 0;
    let heapAfter = 0;
    // The wall clock just before each of the last two readings, and just after the last.
    let before = 0;
    let last = 0;
    let after = 0;
    await runReplay({
      rows,
      models,
      verifier: { kind: 'perfect' },
      classKey: 'family',
      seed: run + 1,
      ...(prompts ? { prompts } : {}),
      timing: {
        // Called as a call starts and as it ends: the last two readings are the call's.
        now: () => {
          heapBefore = heapAfter;
          before = last;
          last = performance.now();
          heapAfter = heapUsed();
          after = performance.now();
          return 0;
        },
        record: () => {
          spans.push(before, after);
          bytes.push(heapAfter - heapBefore - readingBytes);
        },
      },
    });
  }
  const paused = callsPaused(spans, await pauses.stop());
  const clean = bytes.filter((_, call) => !paused[call]);
  const mean = clean.reduce((sum, each) => sum + each, 0) / Math.max(1, clean.length);
  return [
    {
      name: `heap allocated per routed call${signal} (bytes)`,
      n: clean.length,
      ...summarise(clean),
      extra: { meanBytes: Math.round(mean), callsLeftOutForAPause: bytes.length - clean.length },
    },
  ];
}

/**
 * One ranking against a workspace ledger holding 1k, 10k and 100k recorded decisions: the decision
 * reads the in-memory snapshot, so the history's size should not show.
 */
async function historyBench(): Promise<BenchRow[]> {
  const panel = parsePanel(
    {
      models: [
        { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', maxConcurrent: 1 },
        { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, tools: true },
      ],
    },
    'bench panel',
  );
  const result: BenchRow[] = [];
  for (const count of DECISION_COUNTS) {
    const dir = mkdtempSync(join(tmpdir(), 'rung-bench-history-'));
    try {
      const path = join(dir, 'ledger.sqlite');
      const ledger = await WorkspaceLedger.open({ path, clock: systemClock });
      const lines: string[] = [];
      for (let i = 0; i < count; i++) lines.push(JSON.stringify(syntheticRow(i)));
      appendFileSync(decisionLogPath(path), `${lines.join('\n')}\n`);
      const random = seededRandom(count);
      for (let i = 0; i < 400; i++) {
        ledger.observe([{ model: panel.models[i % 3]?.slug ?? 'qwen2.5:3b', classKey: 'plan', success: random() < 0.7, at: i }]);
      }
      await ledger.flush();
      const router = new Router({ panel, ledger, clock: systemClock, sink: new MemoryDecisionSink(), random });
      const samples: number[] = [];
      for (let i = 0; i < RANK_RUNS; i++) {
        const started = performance.now();
        router.rank({ callId: `b${i}`, classKey: 'plan', verifiable: true });
        samples.push(performance.now() - started);
      }
      await ledger.close();
      result.push({ name: 'one ranking with N decisions recorded (µs)', n: count, ...micro(samples.slice(RANK_RUNS / 10)) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return result;
}

function syntheticRow(i: number): DecisionRow {
  return {
    v: 1, at: i, call: `c${i}`, run: null, class: 'plan', shape: null, candidates: ['qwen2.5:3b', 'qwen3:14b'], rung: 0,
    escalation: [], model: 'qwen2.5:3b', resolved: 'qwen2.5:3b', explore: false, propensity: 1, verdict: i % 3 ? 'pass' : 'fail',
    verdictReason: null, inputTokens: 100, outputTokens: 20, cost: 0, latencyMs: 300, reason: 'bench', mode: 'local', pruned: [], final: false,
  };
}

/** Median and p99 in microseconds, reported in the ms fields' place for the table. */
function micro(samples: number[]): { medianMs: number; p99Ms: number } {
  const { medianMs, p99Ms } = summarise(samples);
  return { medianMs: round(medianMs * 1000, 1), p99Ms: round(p99Ms * 1000, 1) };
}

function table(rows: BenchRow[]): string {
  const lines = ['| measurement | n | median | p99 | other |', '| --- | ---: | ---: | ---: | --- |'];
  for (const row of rows) {
    const extra = row.extra ? Object.entries(row.extra).map(([key, value]) => `${key} ${value}`).join(', ') : '';
    lines.push(`| ${row.name} | ${row.n} | ${row.medianMs} | ${row.p99Ms} | ${extra} |`);
  }
  return `${lines.join('\n')}\n`;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
