/**
 * What the ledger panel's "What if" costs on a long decision log: `RungSession.estimateOpeners` over
 * 100k rows, its wall time and the longest stretch it kept the thread from serving anything else.
 *
 * @remarks
 * It runs on the extension host's thread, where every other extension waits while it computes, so
 * the figure that matters is the longest block: the longest gap between ticks of a timer that asks
 * to run every {@link RESOLUTION_MS} ms. (Node's event-loop delay histogram reported 0–36 ms for runs
 * that blocked for seconds, so it is not used.) On the team's 2-core machine, shared by eight agents,
 * that gap is often the operating system running someone else: gaps of 100–280 ms were seen in which
 * this process used 1–10 ms of CPU. So the CPU time the main thread ran in each gap is read too
 * ({@link mainThreadCpuMs}), and the most any one gap held is printed beside the longest gap: the
 * block the code itself causes, whatever else the machine runs. The log's calls
 * climb through four panel models, a fifth of them opening with one drawn uniformly, so every model's
 * estimate is given (the whole computation, not an early refusal). Run alone with
 * `npm run -s build && npx esbuild src/bench/estimateBench.ts --bundle --platform=node --outfile=dist/estimate-bench.js --log-level=warning && node dist/estimate-bench.js`
 * (in `dist/`, where the build puts the sql.js WebAssembly the ledger loads).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock';
import { CALLS_PER_SLICE, estimatePolicy, estimatePolicyInSlices, OutcomeModel, SharedOutcomeModel } from '../core/evaluation/estimate';
import { readLoggedCalls, readRecentLoggedCalls } from '../core/evaluation/loggedCalls';
import { parsePanel } from '../core/panel';
import type { ProviderAdapter, StreamPart } from '../core/providers/provider';
import { MAX_ESTIMATED_CALLS, RungSession } from '../core/session/session';
import type { DecisionRow } from '../core/decisions/decision';
import { seededRandom } from '../core/random';
import { SEED_CLASSES, SEED_MODELS, seedDecisionRows, writeDecisionLog } from './decisionSeed';

/** Rows in the benchmark's log: the decision log's retention ceiling. */
const LOG_ROWS = 100_000;
/** Runs of estimateOpeners measured. */
const SAMPLES = 3;
/** How often the block-measuring timer asks to run, ms. */
const RESOLUTION_MS = 5;
/** Turns of the estimates with and without a shared outcome model. */
const SHARING_ROUNDS = 5;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rung-estimate-bench-'));
  const now = Date.UTC(2026, 3, 1);
  const clock: Clock = { now: () => now };
  try {
    mkdirSync(join(dir, '.rung'));
    const rows = loggedRows(LOG_ROWS, now);
    writeDecisionLog(join(dir, '.rung', 'decisions.jsonl'), rows);
    const panel = parsePanel(
      { models: SEED_MODELS.map((model) => ({ slug: model.slug, provider: 'editor', ...(model.price ? { price: model.price } : {}) })), providers: { editor: { kind: 'vscode-lm' } } },
      'bench panel',
    );
    const session = await RungSession.open({ panel, clock, keys: async () => undefined, store: { kind: 'file', path: join(dir, '.rung', 'ledger.sqlite') }, providerFactories: { 'vscode-lm': () => new SilentModels() } });
    try {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      out(`estimateOpeners on ${rows.length} rows (${new Set(rows.map((row) => row.call)).size} calls), ${panel.models.length} panel models, ${SAMPLES} runs`);
      for (let sample = 0; sample < SAMPLES; sample++) {
        let last = performance.now();
        let lastCpu = mainThreadCpuMs();
        let longestGapMs = 0;
        let mostCpuMs = 0;
        const tick = () => {
          const at = performance.now();
          const cpu = mainThreadCpuMs();
          longestGapMs = Math.max(longestGapMs, at - last);
          mostCpuMs = Math.max(mostCpuMs, cpu - lastCpu);
          last = at;
          lastCpu = cpu;
        };
        const ticker = setInterval(tick, RESOLUTION_MS);
        const started = performance.now();
        const startedCpu = mainThreadCpuMs();
        const estimates = await session.estimateOpeners();
        const wallMs = performance.now() - started;
        const cpuMs = mainThreadCpuMs() - startedCpu;
        clearInterval(ticker);
        tick();
        const said = estimates.map((estimate) => `${estimate.model}: ${estimate.versusLog ? `cost ${(100 * estimate.versusLog.costChange).toFixed(0)}%` : estimate.refused}`).join('; ');
        out(`run ${sample + 1}: wall ${wallMs.toFixed(0)} ms, main-thread CPU ${cpuMs.toFixed(0)} ms, longest block ${longestGapMs.toFixed(0)} ms, most CPU in one block ${mostCpuMs.toFixed(0)} ms (${said})`);
      }
      // Where the time goes: the same work called directly, one part at a time.
      const text = readFileSync(join(dir, '.rung', 'decisions.jsonl'), 'utf8');
      let started = performance.now();
      const log = readLoggedCalls(text);
      out(`readLoggedCalls: ${(performance.now() - started).toFixed(0)} ms`);
      const bytes = readFileSync(join(dir, '.rung', 'decisions.jsonl'));
      started = performance.now();
      await readRecentLoggedCalls(bytes, MAX_ESTIMATED_CALLS, async () => undefined);
      out(`readRecentLoggedCalls, the newest ${MAX_ESTIMATED_CALLS} calls: ${(performance.now() - started).toFixed(0)} ms`);
      started = performance.now();
      OutcomeModel.fit(log.calls);
      out(`OutcomeModel.fit: ${(performance.now() - started).toFixed(0)} ms`);
      const recent = { ...log, calls: log.calls.slice(-MAX_ESTIMATED_CALLS) };
      for (const model of panel.models) {
        started = performance.now();
        estimatePolicy(log, { open: model.slug, skip: [] });
        const whole = performance.now() - started;
        started = performance.now();
        estimatePolicy(recent, { open: model.slug, skip: [] });
        const recentMs = performance.now() - started;
        // The same estimate in slices, as the session runs it: how long the longest piece between pauses took.
        const slices: number[] = [];
        let resumed = performance.now();
        await estimatePolicyInSlices(recent, { open: model.slug, skip: [] }, async () => {
          slices.push(performance.now() - resumed);
          await new Promise((resolve) => setImmediate(resolve));
          resumed = performance.now();
        });
        slices.push(performance.now() - resumed);
        out(
          `estimatePolicy open=${model.slug}: ${whole.toFixed(0)} ms on every call, ${recentMs.toFixed(0)} ms on the ${MAX_ESTIMATED_CALLS} most recent; ` +
            `in ${slices.length} slices of ${CALLS_PER_SLICE} calls, the longest ${Math.max(...slices).toFixed(1)} ms`,
        );
      }
      // The What if's estimates without the parse: every panel model fitting its own outcome model (as
      // before the fit was shared) against one fit for all, taken in turns so the machine's load falls on both.
      for (let round = 1; round <= SHARING_ROUNDS; round++) {
        const times = [false, true].map((share) => {
          const outcomeModel = share ? new SharedOutcomeModel(recent.calls) : undefined;
          const at = performance.now();
          for (const model of panel.models) estimatePolicy(recent, { open: model.slug, skip: [] }, outcomeModel ? { outcomeModel } : {});
          return (performance.now() - at).toFixed(0);
        });
        out(`every model's estimate of the ${MAX_ESTIMATED_CALLS} most recent calls, round ${round}: ${times[0]} ms each fitting its own outcome model, ${times[1]} ms sharing one`);
      }
    } finally {
      await session.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU time the process's main thread has run, ms: the scheduler's own count from
 * `/proc/self/task/PID/schedstat` (nanoseconds on a CPU), or where there is none (not Linux) the whole
 * process's `process.cpuUsage()`, which also counts the garbage collector's helper threads.
 *
 * @remarks
 * Node 20 has no per-thread CPU clock; the process-wide one read up to 68 ms in a gap where the main
 * thread's own count was far lower, the collector marking in parallel. The scheduler brings a running
 * thread's count up to date at its ticks (every 4 ms here), so a figure is good to about 4 ms.
 */
function mainThreadCpuMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1_000;
  }
}

/** The share of calls that open with a rung drawn uniformly (an exploration floor), so every model's estimate is given. */
const FLOOR = 0.2;
/** How often an attempt passes. */
const PASS_RATE = 0.6;

/**
 * About `count` rows of calls over every seeded model: most open with the first, a fifth with one
 * drawn uniformly (the floor, recorded in the propensity), each climbing in panel order until a pass.
 */
function loggedRows(count: number, now: number): DecisionRow[] {
  const random = seededRandom(3);
  const models = SEED_MODELS.map((model) => model.slug);
  const template = seedDecisionRows(1, now, 3)[0] as DecisionRow;
  const rows: DecisionRow[] = [];
  for (let call = 0; rows.length < count; call++) {
    const drawn = random() < FLOOR;
    const opener = drawn ? Math.floor(random() * models.length) : 0;
    const propensity = FLOOR / models.length + (opener === 0 ? 1 - FLOOR : 0);
    const climb = [opener, ...models.map((_, index) => index).filter((index) => index !== opener)];
    const classKey = SEED_CLASSES[call % SEED_CLASSES.length] as string;
    for (const [position, index] of climb.entries()) {
      const model = SEED_MODELS[index] as (typeof SEED_MODELS)[number];
      const passed = random() < PASS_RATE;
      const tokens = 400 + Math.floor(random() * 4_000);
      rows.push({
        ...template,
        at: now - (count - rows.length) * 1_000,
        call: `call-${call}`,
        class: classKey.split('/')[0] as string,
        shape: classKey.split('/')[1] ?? null,
        candidates: models,
        rung: index,
        escalation: climb.slice(0, position).map((earlier) => models[earlier] as string),
        model: model.slug,
        resolved: model.slug,
        explore: position === 0 && drawn && opener !== 0,
        propensity: position === 0 ? propensity : 1,
        verdict: passed ? 'pass' : 'fail',
        cost: model.price ? (model.price.input * tokens) / 1_000_000 : 0,
      });
      if (passed) break;
    }
  }
  return rows;
}

/** A provider that is never asked: the bench calls no model. */
class SilentModels implements ProviderAdapter {
  readonly name = 'editor';
  async available(): Promise<boolean> {
    return true;
  }
  // eslint-disable-next-line require-yield
  async *chat(): AsyncIterable<StreamPart> {
    throw new Error('the estimate bench calls no model');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`estimate bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
