/**
 * How sure the What if can be: estimates of "always open with X" from a logged run against the truth,
 * by logged-call count and method (the trials are made in whatIfTrials.ts).
 *
 * @remarks
 * Run: `node scripts/what-if.mjs [--source NAME|FILE]… [--calls 1000,3000,10000,30000] [--seeds K]
 * [--explore RATE] [--floor RATE] [--targets 'SPEC;SPEC'] [--warm] [--out FILE.jsonl]`. A source is a generated
 * world's name, `nine-models` (the recorded outcomes at ../shared/data) or an outcomes file; the
 * default is every world and `nine-models`. `--out` keeps one JSON line per estimate, and `--from
 * FILE.jsonl` prints the tables from such a file without running anything. `--made-up [--seeds K]` prints
 * the error of the DR that took calls every rung failed at their logged cost, on the made-up cascade.
 *
 * For each estimate: the relative error against the truth beside the log (the target run beside each
 * call from the router's ratings at that moment), whether the 95% interval held it (and the warm
 * truth: the target replayed after the run from the ratings it ended with), and the interval's
 * half-width relative to the estimate. `--warm` replays each target after the run as well (a whole replay per target). The target set for the What if: half-widths within ±30% that
 * hold the truth in at least 90% of seeds × targets, each estimate within 15% of the truth.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { estimatePolicy, type MethodEstimate, type VariantEstimate } from '../core/evaluation/estimate';
import { readLoggedCalls } from '../core/evaluation/loggedCalls';
import { parsePolicy } from '../core/evaluation/policy';
import { cascadeLog } from './madeUpCascade';
import { DEFAULT_EXPLORE, DEFAULT_FLOOR, defaultTargets, runTrials, sourceNamed, type Truth } from './whatIfTrials';
import { WORLDS } from './worlds';

/** One estimate of one target from one seed's log, as `--out` keeps it. */
interface Record {
  source: string;
  calls: number;
  seed: number;
  target: string;
  alongside: Truth;
  warm: Truth;
  ess: number;
  matching: number;
  bound: number;
  refused?: string;
  methods: { [method: string]: MethodEstimate & Partial<Pick<VariantEstimate, 'threshold' | 'bias'>> };
}

/** The half-width of an estimate's cost interval the What if can act on, relative to the estimate. */
const DECIDING_HALF_WIDTH = 0.3;
const POINT_WITHIN = 0.15;
const ORDER = ['ips', 'snips', 'dr', 'dr-class', 'dr-size', 'dr-answered', 'dr-terms', 'sndr', 'switch-dr', 'clipped-dr'];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const all = (name: string): string[] => {
    const found: string[] = [];
    for (let at = args.indexOf(name); at >= 0; at = args.indexOf(name)) found.push(...args.splice(at, 2).slice(1));
    return found;
  };
  const one = (name: string): string | undefined => all(name)[0];
  const from = one('--from');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (args.includes('--made-up')) {
    madeUpCascade(Number(one('--seeds') ?? 12), out);
    return;
  }
  if (from !== undefined) {
    report(
      readFileSync(from, 'utf8')
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as Record),
      out,
    );
    return;
  }
  const sources = all('--source');
  const counts = (one('--calls') ?? '1000,3000,10000,30000').split(',').map(Number);
  const seeds = Number(one('--seeds') ?? 10);
  const explore = Number(one('--explore') ?? DEFAULT_EXPLORE);
  const floor = Number(one('--floor') ?? DEFAULT_FLOOR);
  const targetsGiven = one('--targets')?.split(';');
  const file = one('--out');
  const warm = args.includes('--warm');
  if (file) writeFileSync(file, '');
  const records: Record[] = [];
  out(`what-if bench: logged at explore ${explore}, floor ${floor} on measured rungs; seeds 1..${seeds}; calls ${counts.join(', ')}`);
  for (const name of sources.length ? sources : [...WORLDS.map((world) => world.name), 'nine-models']) {
    const source = sourceNamed(name);
    const targets = targetsGiven ?? defaultTargets(source.stream(3000, 1), source.models);
    out(`${source.name}: targets ${targets.join(', ')}`);
    for (const calls of counts) {
      for (let seed = 1; seed <= seeds; seed++) {
        for (const trial of await runTrials(source, calls, seed, targets, { explore, floor, warm })) {
          const record: Record = {
            source: trial.source,
            calls,
            seed,
            target: trial.target,
            alongside: trial.alongside,
            warm: trial.warm,
            ess: trial.estimate.effectiveSampleSize,
            matching: trial.estimate.matching,
            bound: trial.bound,
            ...(trial.estimate.refused ? { refused: trial.estimate.refused } : {}),
            methods: { ...(trial.estimate.methods ?? {}), ...(trial.estimate.variants ?? {}) },
          };
          records.push(record);
          if (file) appendFileSync(file, `${JSON.stringify(record)}\n`);
        }
        process.stderr.write(`${source.name} ${calls} calls seed ${seed} done\n`);
      }
    }
  }
  report(records, out);
}

/**
 * Why DR came out too dear: on the made-up cascade (madeUpCascade.ts), whose climbs give up before the
 * dear rung once two rungs have failed, the DR that took calls every rung failed at their logged cost,
 * against the one that weighs every call, as more of the spend goes to calls no rung answers.
 */
function madeUpCascade(seeds: number, out: (line: string) => void): void {
  out(`the made-up cascade, 1,500 calls a log, floor 0.3, seeds 1..${seeds}: mean error of the DR cost against the truth`);
  out('no rung answers  spend on them  target      DR, calls every rung failed at logged cost  DR, every call weighed');
  for (const unanswerable of [0.05, 0.15, 0.25, 0.35]) {
    for (const target of ['cheap', 'mid'] as const) {
      const before: number[] = [];
      const after: number[] = [];
      const share: number[] = [];
      for (let seed = 1; seed <= seeds; seed++) {
        const { rows, truth } = cascadeLog({ calls: 1_500, seed, unanswerable });
        const log = readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n'));
        const estimate = estimatePolicy(log, parsePolicy(`open=${target}`), { variants: true });
        const error = (value: number | undefined) => ((value ?? Number.NaN) - truth[target].cost) / truth[target].cost;
        before.push(error(estimate.variants?.['dr-class']?.cost));
        after.push(error(estimate.methods?.dr.cost));
        const unanswered = log.calls.filter((call) => !call.attempts.some((attempt) => attempt.passed === true));
        share.push(unanswered.reduce((sum, call) => sum + call.cost, 0) / log.calls.reduce((sum, call) => sum + call.cost, 0));
      }
      const mean = (xs: number[]) => `${((100 * xs.reduce((a, b) => a + b, 0)) / xs.length).toFixed(1)}%`;
      out(
        `${`${(100 * unanswerable).toFixed(0)}%`.padEnd(17)}${mean(share).padEnd(15)}${`open=${target}`.padEnd(12)}${(mean(before).startsWith('-') ? '' : '+') + mean(before)}`.padEnd(
          88,
        ) + (mean(after).startsWith('-') ? '' : '+') + mean(after),
      );
    }
  }
}

/** The tables: per source and logged-call count, each method's coverage, width and error, and the bound. */
function report(records: readonly Record[], out: (line: string) => void): void {
  const groups = new Map<string, Record[]>();
  for (const record of records) {
    const key = `${record.source}\u0000${record.calls}`;
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted.length ? (sorted[Math.floor((sorted.length - 1) / 2)] as number) : Number.NaN;
  };
  out('');
  out(
    'source                calls  method        given  covered  covered(warm)  median ±  ±≤30%  |err| median  max  within 15%  all three  bound ± (median, max)',
  );
  for (const [key, group] of groups) {
    const [source, calls] = key.split('\u0000') as [string, string];
    const given = group.filter((record) => !record.refused);
    const bounds = given.map((record) => record.bound);
    for (const method of ORDER) {
      const rows = given.flatMap((record) => {
        const estimate = record.methods[method];
        return estimate ? [{ record, estimate }] : [];
      });
      if (rows.length === 0) continue;
      const truth = (row: (typeof rows)[0]) => row.record.alongside.cost;
      const covered = rows.filter((row) => row.estimate.costLow <= truth(row) && truth(row) <= row.estimate.costHigh);
      const withWarm = rows.filter((row) => Number.isFinite(row.record.warm.cost));
      const warm = withWarm.filter((row) => row.estimate.costLow <= row.record.warm.cost && row.record.warm.cost <= row.estimate.costHigh);
      const half = rows.map((row) => (row.estimate.costHigh - row.estimate.costLow) / 2 / row.estimate.cost);
      const error = rows.map((row) => Math.abs(row.estimate.cost - truth(row)) / truth(row));
      const decides = rows.filter((_, i) => (half[i] as number) <= DECIDING_HALF_WIDTH);
      const three = rows.filter(
        (row, i) =>
          (half[i] as number) <= DECIDING_HALF_WIDTH &&
          (error[i] as number) <= POINT_WITHIN &&
          row.estimate.costLow <= truth(row) &&
          truth(row) <= row.estimate.costHigh,
      );
      out(
        `${source.slice(-20).padEnd(22)}${calls.padStart(5)}  ${method.padEnd(12)}  ${`${rows.length}/${group.length}`.padEnd(7)}` +
          `${pct(covered.length / rows.length).padStart(7)}  ${(withWarm.length ? pct(warm.length / withWarm.length) : '-').padStart(13)}  ${pct(median(half)).padStart(8)}` +
          `  ${pct(decides.length / rows.length).padStart(5)}  ${pct(median(error)).padStart(12)}  ${pct(Math.max(...error)).padStart(4)}` +
          `  ${pct(error.filter((e) => e <= POINT_WITHIN).length / rows.length).padStart(10)}  ${pct(three.length / rows.length).padStart(9)}` +
          (method === 'dr' ? `  ${pct(median(bounds))}, ${pct(Math.max(...bounds))}` : ''),
      );
    }
  }
  out('');
  out('per target (dr): source, calls, target, truth µ$, median estimate error, coverage, median ±, bound ±');
  const byTarget = new Map<string, Record[]>();
  for (const record of records) {
    const key = `${record.source}\u0000${record.calls}\u0000${record.target}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), record]);
  }
  for (const [key, group] of byTarget) {
    const [source, calls, target] = key.split('\u0000') as [string, string, string];
    const given = group.filter((record) => record.methods.dr);
    const dr = (record: Record) => record.methods.dr as MethodEstimate;
    const truthMean = group.reduce((s, r) => s + r.alongside.cost, 0) / group.length;
    const covered = given.filter((r) => dr(r).costLow <= r.alongside.cost && r.alongside.cost <= dr(r).costHigh).length;
    out(
      `  ${source.slice(-20).padEnd(22)}${calls.padStart(5)}  ${target.padEnd(30)} ${(truthMean * 1e6).toFixed(1).padStart(9)}` +
        `  ${pct(median(given.map((r) => (dr(r).cost - r.alongside.cost) / r.alongside.cost))).padStart(5)}  ${`${covered}/${given.length}`.padStart(6)}` +
        `  ${pct(median(given.map((r) => (dr(r).costHigh - dr(r).costLow) / 2 / dr(r).cost))).padStart(5)}  ${pct(median(group.map((r) => r.bound))).padStart(5)}` +
        (given.length < group.length ? `  refused ${group.length - given.length}` : ''),
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`what-if bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
