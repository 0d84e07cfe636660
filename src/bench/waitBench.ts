/**
 * `node scripts/wait.mjs [OUTCOMES.jsonl] [--worlds] [--bound | --bound-only] [--plot DIR] [--seeds N]`: the user's wait
 * in BENCHMARKS.md — Rung at several values of a minute's wait beside the cheapest-first cascade and the
 * best single model, on the recorded outcomes' `train` and `test` splits and, with `--worlds`, on the
 * generated worlds.
 *
 * @remarks
 * Each figure is the mean over seeds 1–5, perfect check, quality, one pass from an empty ledger, as
 * `rung replay --split S --seeds 5 --wait-worth W` gives it. The wait is every try's recorded time
 * (`lat_ms`), the failed ones included; "to an accepted answer" reads it over the calls that ended with
 * an answer the check passed. `--bound` adds what no policy that routes on the class and pass or fail
 * can beat: the least mean wait of fixed chains per family chosen in hindsight, at a given accuracy.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_WAIT_WORTH_PER_MINUTE } from '../core/panel';
import { seededRandom } from '../core/random';
import { parseOutcomes, selectOutcomes, type OutcomeRow } from '../core/replay/outcomes';
import { runReplay, type PolicyScore, type ReplaySummary } from '../core/replay/replay';
import { valuedCost } from '../core/replay/waitTally';
import { svgPlot, type PlotSeries } from './svgPlot';
import { generateWorld, WORLDS } from './worlds';

/** The values of a minute's wait Rung is measured at, USD: 0 is Rung before it weighed the wait. */
export const WAIT_WORTHS = [0, 0.01, 0.03, 0.1, 0.3, 1];
const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');

interface Point {
  accuracy: number;
  accuracySd: number;
  /** Cost as a share of the best single model's. */
  share: number;
  meanMs: number;
  p90Ms: number;
  /** Every call's wait, ms (mean over seeds). */
  totalMs: number;
  cost: number;
}

interface Measured {
  name: string;
  items: number;
  rung: Map<number, Point>;
  cascade: Point;
  best: Point & { model: string };
  oracle: Point;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const valueOf = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const seeds = Array.from({ length: Number(valueOf('--seeds') ?? 5) }, (_, i) => i + 1);
  const outcomes = args.find((arg, index) => !arg.startsWith('--') && !['--plot', '--seeds'].includes(args[index - 1] ?? '')) ?? DEFAULT_OUTCOMES;
  const plotDir = valueOf('--plot');
  const recorded = parseOutcomes(readFileSync(outcomes, 'utf8'), outcomes);
  if (args.includes('--bound-only')) {
    process.stdout.write(`${boundTable(selectOutcomes(recorded.rows, { split: 'test' }, outcomes), recorded.models)}\n`);
    return;
  }
  const measured: Measured[] = [];
  for (const split of ['train', 'test']) {
    const rows = selectOutcomes(recorded.rows, { split }, outcomes);
    measured.push(await measure(`9-model ${split}`, rows, recorded.models, seeds, false));
  }
  for (const line of measured) process.stdout.write(`${table(line)}\n\n`);
  const test = measured.find((line) => line.name === '9-model test');
  if (test) process.stdout.write(`${targets(test)}\n\n`);
  if (args.includes('--bound')) {
    const rows = selectOutcomes(recorded.rows, { split: 'test' }, outcomes);
    process.stdout.write(`${boundTable(rows, recorded.models)}\n\n`);
  }
  if (args.includes('--worlds')) {
    const lines: string[] = [
      'generated worlds (answers timed by model size, worlds.ts), seeds 1–5, in time order: wait not weighed → at the default',
      `${'world'.padEnd(28)} ${'accuracy'.padStart(17)} ${'cost / best single'.padStart(19)} ${'mean wait to answer'.padStart(21)} ${'p90'.padStart(19)} ${'$ + wait at the default'.padStart(23)}`,
    ];
    for (const world of WORLDS) {
      const zero = await worldPoint(world, seeds, 0);
      const shipped = await worldPoint(world, seeds, DEFAULT_WAIT_WORTH_PER_MINUTE);
      lines.push(
        `${world.name.padEnd(28)} ${`${zero.accuracy.toFixed(4)} → ${shipped.accuracy.toFixed(4)}`.padStart(17)} ${`${pct(zero.share)} → ${pct(shipped.share)}`.padStart(19)} ${`${sec(zero.meanMs)} → ${sec(shipped.meanMs)}`.padStart(21)} ${`${sec(zero.p90Ms)} → ${sec(shipped.p90Ms)}`.padStart(19)} ${`$${valuedAtDefault(zero).toFixed(2)} → $${valuedAtDefault(shipped).toFixed(2)}`.padStart(23)}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (plotDir) {
    mkdirSync(plotDir, { recursive: true });
    for (const line of measured) {
      const file = join(plotDir, `wait-${line.name.replace(/\W+/g, '-')}.svg`);
      writeFileSync(file, plot(line, seeds.length));
      process.stdout.write(`wrote ${file}\n`);
    }
  }
}

async function measure(name: string, rows: OutcomeRow[], models: string[], seeds: number[], inOrder: boolean): Promise<Measured> {
  const rung = new Map<number, Point>();
  let first: ReplaySummary | undefined;
  let cascades: ReplaySummary[] = [];
  for (const worth of WAIT_WORTHS) {
    const runs: ReplaySummary[] = [];
    for (const seed of seeds) runs.push(await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed, inOrder, waitWorth: worth }));
    rung.set(worth, pointOf(runs, (run) => run.policy));
    first ??= runs[0];
    cascades = runs;
  }
  const summary = first as ReplaySummary;
  return {
    name,
    items: rows.length,
    rung,
    cascade: pointOf(cascades, (run) => run.priceOrderCascade),
    best: { ...pointOf([summary], (run) => run.bestSingle), model: summary.bestSingle.model },
    oracle: pointOf([summary], (run) => run.oracle),
  };
}

async function worldPoint(world: (typeof WORLDS)[number], seeds: number[], worth: number): Promise<Point> {
  const runs: ReplaySummary[] = [];
  for (const seed of seeds) {
    const rows = generateWorld(world, seed);
    runs.push(await runReplay({ rows, models: world.models.map((model) => model.slug), verifier: { kind: 'perfect' }, classKey: 'family', seed, inOrder: true, waitWorth: worth }));
  }
  return pointOf(runs, (run) => run.policy);
}

function pointOf(runs: readonly ReplaySummary[], score: (run: ReplaySummary) => PolicyScore): Point {
  const mean = (pick: (run: ReplaySummary) => number): number => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  const accuracy = mean((run) => score(run).accuracy);
  const sd = Math.sqrt(runs.reduce((sum, run) => sum + (score(run).accuracy - accuracy) ** 2, 0) / Math.max(1, runs.length - 1));
  return {
    accuracy,
    accuracySd: sd,
    share: mean((run) => score(run).cost / run.bestSingle.cost),
    meanMs: mean((run) => score(run).wait?.meanMs ?? Number.NaN),
    p90Ms: mean((run) => score(run).wait?.p90Ms ?? Number.NaN),
    totalMs: mean((run) => score(run).wait?.totalMs ?? Number.NaN),
    cost: mean((run) => score(run).cost),
  };
}

/** Money plus every call's wait valued at the shipped default, USD. */
function valuedAtDefault(point: Point): number {
  return valuedCost(point.cost, { accepted: 0, meanMs: point.meanMs, p90Ms: point.p90Ms, totalMs: point.totalMs }, DEFAULT_WAIT_WORTH_PER_MINUTE);
}

function table(line: Measured): string {
  const head = `${line.name} (${line.items} prompts), seeds 1–5, perfect check; cost as a share of ${line.best.model}'s; "$ + wait" values every call's wait at the default $${DEFAULT_WAIT_WORTH_PER_MINUTE}/min`;
  const rows = [
    ['policy', 'accuracy', 'cost', 'mean wait', 'p90 wait', '$ + wait'],
    ...[...line.rung].map(([worth, point]) => [
      `Rung, wait worth $${worth}/min${worth === DEFAULT_WAIT_WORTH_PER_MINUTE ? ' (default)' : ''}`,
      `${point.accuracy.toFixed(4)} ± ${point.accuracySd.toFixed(4)}`,
      pct(point.share),
      sec(point.meanMs),
      sec(point.p90Ms),
      `$${valuedAtDefault(point).toFixed(3)}`,
    ]),
    ['cheapest-first cascade', line.cascade.accuracy.toFixed(4), pct(line.cascade.share), sec(line.cascade.meanMs), sec(line.cascade.p90Ms), `$${valuedAtDefault(line.cascade).toFixed(3)}`],
    [`best single (${line.best.model})`, line.best.accuracy.toFixed(4), pct(line.best.share), sec(line.best.meanMs), sec(line.best.p90Ms), `$${valuedAtDefault(line.best).toFixed(3)}`],
    ['oracle', line.oracle.accuracy.toFixed(4), pct(line.oracle.share), sec(line.oracle.meanMs), sec(line.oracle.p90Ms), `$${valuedAtDefault(line.oracle).toFixed(3)}`],
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return [head, ...rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '))].join('\n');
}

/** The issue's three targets on `test`, each said met or not, with the figures. */
function targets(line: Measured): string {
  const zero = line.rung.get(0) as Point;
  const shipped = line.rung.get(DEFAULT_WAIT_WORTH_PER_MINUTE) as Point;
  const cut = 1 - shipped.meanMs / zero.meanMs;
  const valued = valuedAtDefault(shipped);
  return [
    `targets on ${line.name}, at the default $${DEFAULT_WAIT_WORTH_PER_MINUTE}/min against the wait not weighed:`,
    `  mean wait to an accepted answer ${sec(zero.meanMs)} → ${sec(shipped.meanMs)}: ${(100 * cut).toFixed(1)}% less (target ≥ 30%: ${cut >= 0.3 ? 'met' : 'not met'}), at accuracy ${shipped.accuracy.toFixed(4)} (target ≥ 0.950: ${shipped.accuracy >= 0.95 ? 'met' : 'not met'})`,
    `  money + valued wait $${valued.toFixed(3)} against Rung not weighing it $${valuedAtDefault(zero).toFixed(3)} and ${line.best.model} $${valuedAtDefault(line.best).toFixed(3)} (target below both: ${valued < valuedAtDefault(zero) && valued < valuedAtDefault(line.best) ? 'met' : 'not met'})`,
  ].join('\n');
}

/**
 * The least mean wait to an accepted answer that fixed chains per family, chosen knowing every answer,
 * reach at each accuracy: a bound no policy that sees only a call's class and each rung's pass or fail
 * can beat (such a policy plays one chain per class once it has learned, and must learn it too).
 *
 * @remarks
 * A search, not an enumeration (9 models give a million ordered chains per family): for each of several
 * prices of a missed answer, chains are improved from seeded random starts by moving, dropping and adding
 * one model at a time, and every prefix of what that finds is kept; the families' chains are then
 * combined for the least mean wait at each accuracy. What it finds is a chain that exists, so the true
 * bound is at most this figure.
 */
function boundTable(rows: readonly OutcomeRow[], models: readonly string[]): string {
  const random = seededRandom(11);
  const families = [...new Set(rows.map((row) => row.family))].sort();
  const fronts = new Map<string, { ok: number; waitMs: number }[]>();
  const score = (members: readonly OutcomeRow[], chain: readonly string[]): { ok: number; waitMs: number } => {
    let ok = 0;
    let waitMs = 0;
    for (const row of members) {
      let spent = 0;
      for (const model of chain) {
        const outcome = row.m[model];
        spent += outcome?.lat_ms ?? 0;
        if (outcome?.c === 1) {
          ok++;
          waitMs += spent;
          break;
        }
      }
    }
    return { ok, waitMs };
  };
  for (const family of families) {
    const members = rows.filter((row) => row.family === family);
    const found: { ok: number; waitMs: number }[] = [];
    for (const missMs of [0, 200, 400, 700, 1000, 1500, 2000, 3000, 5000, 10_000, 30_000]) {
      for (let start = 0; start < 8; start++) {
        // Half the starts take every model (the oracle's accuracy needs them all), half a random few.
        const shuffled = [...models].sort(() => random() - 0.5);
        let chain = start % 2 === 0 ? shuffled : shuffled.slice(0, 1 + Math.floor(random() * models.length));
        let best = score(members, chain);
        const objective = (s: { ok: number; waitMs: number }): number => s.waitMs - missMs * s.ok;
        for (let improved = true; improved; ) {
          improved = false;
          for (const next of neighbours(chain, models)) {
            const s = score(members, next);
            if (objective(s) < objective(best) - 1e-9) {
              chain = next;
              best = s;
              improved = true;
            }
          }
        }
        for (let length = 1; length <= chain.length; length++) found.push(score(members, chain.slice(0, length)));
      }
    }
    fronts.set(family, found);
  }
  let combined = new Map<number, number>([[0, 0]]);
  for (const family of families) {
    const next = new Map<number, number>();
    for (const [ok, waitMs] of combined)
      for (const option of fronts.get(family) ?? []) {
        const key = ok + option.ok;
        const total = waitMs + option.waitMs;
        if ((next.get(key) ?? Number.POSITIVE_INFINITY) > total) next.set(key, total);
      }
    combined = next;
  }
  const lines = ['hindsight bound: least mean wait to an accepted answer of fixed chains per family, on test (a search: the true bound is at most this)'];
  const most = Math.max(...combined.keys());
  for (const accuracy of [0.95, 0.952, 0.9531, 0.954, 0.955, 0.957, most / rows.length]) {
    const need = Math.min(most, Math.ceil(accuracy * rows.length - 1e-9));
    let bestMean = Number.POSITIVE_INFINITY;
    for (const [ok, waitMs] of combined) if (ok >= need) bestMean = Math.min(bestMean, waitMs / ok);
    lines.push(`  accuracy ≥ ${accuracy.toFixed(4)}${need === most ? ' (every prompt some model answers)' : ''}: ${sec(bestMean)}`);
  }
  return lines.join('\n');
}

/** Every chain one move away: a model moved, dropped or added. */
function neighbours(chain: readonly string[], models: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let from = 0; from < chain.length; from++) {
    for (let to = 0; to < chain.length; to++) {
      if (from === to) continue;
      const moved = [...chain];
      const [model] = moved.splice(from, 1);
      moved.splice(to, 0, model as string);
      out.push(moved);
    }
    if (chain.length > 1) out.push(chain.filter((_, index) => index !== from));
  }
  for (const model of models) if (!chain.includes(model)) for (let at = 0; at <= chain.length; at++) out.push([...chain.slice(0, at), model, ...chain.slice(at)]);
  return out;
}

/** Cost against wait for Rung at each value of the wait, the cheapest-first cascade, the best single model and the oracle. */
function plot(line: Measured, seedCount: number): string {
  const series: PlotSeries[] = [
    {
      label: 'Rung, by what a minute of waiting is worth',
      points: [...line.rung].map(([worth, point]) => ({ x: point.meanMs / 1000, y: 100 * point.share, label: `$${worth}/min, ${point.accuracy.toFixed(3)}` })),
      color: '#0072B2',
      marker: 'circle',
      line: true,
    },
    { label: 'cheapest-first cascade', points: [{ x: line.cascade.meanMs / 1000, y: 100 * line.cascade.share, label: line.cascade.accuracy.toFixed(3) }], color: '#D55E00', marker: 'square', line: false },
    { label: `best single model (${line.best.model})`, points: [{ x: line.best.meanMs / 1000, y: 100, label: line.best.accuracy.toFixed(3) }], color: '#000000', marker: 'diamond', line: false },
    { label: 'oracle (hindsight)', points: [{ x: line.oracle.meanMs / 1000, y: 100 * line.oracle.share, label: line.oracle.accuracy.toFixed(3) }], color: '#009E73', marker: 'triangle', line: false },
  ];
  return svgPlot({
    title: `${line.name}: cost against wait, seeds 1–${seedCount}`,
    xLabel: 'mean wait to an accepted answer, s',
    yLabel: 'cost, % of the best single model',
    series,
    xFormat: (x) => x.toFixed(2),
    yFormat: (y) => `${y.toFixed(0)}%`,
    yDomain: [0, 110],
    notes: [
      `${line.items} prompts, perfect check; each point is labelled with its accuracy`,
      'node scripts/wait.mjs ../shared/data/cascades-9-models.jsonl --bound --worlds --plot bench/plots',
    ],
  });
}

function pct(share: number): string {
  return `${(100 * share).toFixed(1)}%`;
}

function sec(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

void main().catch((error: unknown) => {
  process.stderr.write(`wait: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
