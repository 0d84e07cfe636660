/**
 * The check of `rung evaluate` against the truth: replay the recorded outcomes with exploration on to
 * make a decision log, estimate several target policies from that log alone, replay each target for
 * real, and report each method's bias, error and how often its 95% interval held the true value.
 *
 * @remarks
 * Run: `node esbuild.mjs && node dist/evaluation-bench.js [OUTCOMES] [--seeds K] [--floor RATE] [--targets 'SPEC;SPEC']`. The
 * truth of a target is its own replay's cost per call and first-try success rate, on the same prompts
 * in the same order (the same seed); the estimate sees only the logging run's decision rows. It also
 * prices the exploration floor: the logging run's spend with the floor against the same run without it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemoryDecisionSink } from '../core/decisions/decision';
import { estimatePolicy, type EstimateMethod } from '../core/evaluation/estimate';
import { readLoggedCalls } from '../core/evaluation/loggedCalls';
import { parsePolicy } from '../core/evaluation/policy';
import type { Ledger } from '../core/ledger/ledger';
import { parseOutcomes, type OutcomeRow } from '../core/replay/outcomes';
import { runReplay } from '../core/replay/replay';
import { RecordingLedger } from './recordingLedger';

const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');
/** The logging run's exploration rate below the gate, as `rung replay --explore` would set it. */
const LOGGING_EXPLORE = 0.2;
const DEFAULT_FLOOR = 0.2;
const DEFAULT_SEEDS = 10;
const TARGETS = ['open=llama3.2-3b', 'open=llama3.1-8b', 'open=gpt-4o-mini', 'open=qwen2.5-72b-instruct', 'open=llama3.1-405b', 'open=gpt-4o'];
const METHODS: EstimateMethod[] = ['ips', 'snips', 'dr'];

interface Truth {
  cost: number;
  success: number;
}

async function replayLog(rows: OutcomeRow[], models: string[], seed: number, options: { exploreMeasured?: number; policy?: string; ledger?: Ledger }) {
  const sink = new MemoryDecisionSink();
  const summary = await runReplay({
    rows,
    models,
    verifier: { kind: 'perfect' },
    classKey: 'family',
    seed,
    sink,
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.policy ? { policy: parsePolicy(options.policy) } : { explore: LOGGING_EXPLORE, exploreMeasured: options.exploreMeasured }),
  });
  const text = sink.rows.map((row) => JSON.stringify(row)).join('\n');
  return { summary, log: readLoggedCalls(text), rows: sink.rows };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const seeds = Number(flag('--seeds') ?? DEFAULT_SEEDS);
  // Semicolons, since a policy's own parts are joined with commas: --targets 'open=gpt-4o-mini,skip=llama3.2-1b;open=gpt-4o'.
  const targets = flag('--targets')?.split(';') ?? TARGETS;
  const floor = Number(flag('--floor') ?? DEFAULT_FLOOR);
  const path = args[0] ?? DEFAULT_OUTCOMES;
  const { rows, models } = parseOutcomes(readFileSync(path, 'utf8'), path);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`evaluation bench: ${rows.length} prompts, logging at explore ${LOGGING_EXPLORE} with floor ${floor} on measured rungs, seeds 1..${seeds}`);

  type Cell = { errors: number[]; covered: number; refused: number; width: number[] };
  const cells = new Map<string, Cell>();
  const cell = (key: string): Cell => cells.get(key) ?? (cells.set(key, { errors: [], covered: 0, refused: 0, width: [] }), cells.get(key) as Cell);
  const truths = new Map<string, { cold: Truth[]; warm: Truth[] }>();
  const ess = new Map<string, number[]>();
  const floorPrice: number[] = [];
  const certainWithoutFloor: number[] = [];
  const refusedWithoutFloor = new Map<string, number>();
  const refusedWithFloor = new Map<string, number>();

  for (let seed = 1; seed <= seeds; seed++) {
    const ledger = new RecordingLedger();
    const logged = await replayLog(rows, models, seed, { exploreMeasured: floor, ledger });
    const plain = await replayLog(rows, models, seed, {});
    floorPrice.push((logged.summary.policy.cost - plain.summary.policy.cost) / plain.summary.policy.cost);
    certainWithoutFloor.push(plain.log.calls.filter((call) => call.propensity === 1).length);
    for (const spec of targets) {
      const truth = {
        cold: truthOf((await replayLog(rows, models, seed, { policy: spec })).log.calls),
        warm: truthOf((await replayLog(rows, models, seed, { policy: spec, ledger: ledger.copy() })).log.calls),
      };
      const kept = truths.get(spec) ?? { cold: [], warm: [] };
      kept.cold.push(truth.cold);
      kept.warm.push(truth.warm);
      truths.set(spec, kept);
      const estimate = estimatePolicy(logged.log, parsePolicy(spec));
      ess.set(spec, [...(ess.get(spec) ?? []), estimate.effectiveSampleSize]);
      if (estimate.refused) refusedWithFloor.set(spec, (refusedWithFloor.get(spec) ?? 0) + 1);
      if (estimatePolicy(plain.log, parsePolicy(spec)).refused) refusedWithoutFloor.set(spec, (refusedWithoutFloor.get(spec) ?? 0) + 1);
      for (const method of METHODS) {
        for (const quantity of ['cost', 'success'] as const) {
          for (const against of ['cold', 'warm'] as const) {
            const entry = cell(`${spec}\u0000${method}\u0000${quantity}\u0000${against}`);
            const m = estimate.methods?.[method];
            if (!m) {
              entry.refused++;
              continue;
            }
            const [value, low, high] = quantity === 'cost' ? [m.cost, m.costLow, m.costHigh] : [m.success, m.successLow, m.successHigh];
            const real = truth[against][quantity];
            entry.errors.push(value - real);
            entry.width.push(high - low);
            if (low <= real && real <= high) entry.covered++;
          }
        }
      }
    }
    process.stderr.write(`seed ${seed} done\n`);
  }

  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const fmt = (x: number, quantity: 'cost' | 'success') => (quantity === 'cost' ? `${(x * 1e6).toFixed(2)}µ$` : `${(100 * x).toFixed(2)}pt`);
  out('');
  out(`floor price: the logging run spent ${(100 * mean(floorPrice)).toFixed(1)}% more with the floor than without (per seed: ${floorPrice.map((p) => `${(100 * p).toFixed(1)}%`).join(', ')})`);
  out(`without the floor: ${mean(certainWithoutFloor).toFixed(0)} of ${rows.length} openers had propensity 1 (mean over seeds)`);
  out('');
  out('target                        cold truth cost  first-try   warm truth cost  first-try   ESS    refused (floor / none)');
  for (const spec of targets) {
    const t = truths.get(spec) as { cold: Truth[]; warm: Truth[] };
    const usd = (xs: Truth[]) => `${(mean(xs.map((x) => x.cost)) * 1e6).toFixed(2)}µ$`.padEnd(17);
    const rate = (xs: Truth[]) => `${(100 * mean(xs.map((x) => x.success))).toFixed(2)}%`.padEnd(12);
    out(`${spec.padEnd(30)}${usd(t.cold)}${rate(t.cold)}${usd(t.warm)}${rate(t.warm)}${mean(ess.get(spec) ?? []).toFixed(0).padEnd(7)}${refusedWithFloor.get(spec) ?? 0}/${seeds} / ${refusedWithoutFloor.get(spec) ?? 0}/${seeds}`);
  }
  for (const against of ['warm', 'cold'] as const) {
    out('');
    out(`against the ${against} truth${against === 'warm' ? ' (the target starts from the ratings the logging run ended with)' : ' (the target replayed from an empty ledger)'}:`);
    out('target                        method quantity  bias        rmse        mean 95% width  coverage');
    const overall = new Map<string, { covered: number; total: number }>();
    for (const spec of targets) {
      for (const method of METHODS) {
        for (const quantity of ['cost', 'success'] as const) {
          const entry = cells.get(`${spec}\u0000${method}\u0000${quantity}\u0000${against}`) as Cell;
          const n = entry.errors.length;
          const sum = overall.get(`${method} ${quantity}`) ?? { covered: 0, total: 0 };
          overall.set(`${method} ${quantity}`, { covered: sum.covered + entry.covered, total: sum.total + n });
          if (n === 0) {
            out(`${spec.padEnd(30)}${method.padEnd(7)}${quantity.padEnd(10)}refused on every seed`);
            continue;
          }
          const bias = mean(entry.errors);
          const rmse = Math.sqrt(mean(entry.errors.map((e) => e * e)));
          out(`${spec.padEnd(30)}${method.padEnd(7)}${quantity.padEnd(10)}${fmt(bias, quantity).padEnd(12)}${fmt(rmse, quantity).padEnd(12)}${fmt(mean(entry.width), quantity).padEnd(16)}${entry.covered}/${n}`);
        }
      }
    }
    out(`coverage over every estimate given (${against} truth):`);
    for (const [key, value] of overall) out(`  ${key.padEnd(14)} ${value.covered}/${value.total} = ${((100 * value.covered) / Math.max(1, value.total)).toFixed(1)}%`);
  }
}

function truthOf(calls: readonly { cost: number; firstSuccess: boolean }[]): Truth {
  return { cost: calls.reduce((s, c) => s + c.cost, 0) / calls.length, success: calls.filter((c) => c.firstSuccess).length / calls.length };
}

main().catch((error: unknown) => {
  process.stderr.write(`evaluation bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
