/**
 * `node scripts/quality.mjs [OUTCOMES.jsonl] [--economy] [--noisy] [--worlds | --recorded] [--world NAME]… [--spend] [--json]`:
 * every routing-quality figure BENCHMARKS.md reports, from one command (`--json`: the same figures as one
 * JSON object, which `npm run bench:report` reads).
 *
 * @remarks
 * The recorded outcomes' `train` and `test` splits (tunables are chosen on `train`; `test` is the
 * out-of-sample figure), each family left out of `train` in turn, and the generated worlds of
 * `worlds.ts`, written as JSON lines to a temporary directory and read back the way `rung replay` reads
 * any outcomes file. Each figure is the mean over seeds 1–5, perfect check (`--noisy`: 5% false passes
 * and 5% false fails), quality mode (`--economy`), one pass from an empty ledger, beside the simple
 * online learner on the same prompts in the same order. `--spend` adds, for each generated world, where
 * Rung's money went against the learner's (`spend.ts`), by class and model and by verdict. The recorded
 * half ends with what classes finer than the family could buy at best on `test` ({@link finerClassTable}).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MemoryDecisionSink } from '../core/decisions/decision';
import type { Tradeoff } from '../core/panel';
import { parseOutcomes, selectOutcomes, type OutcomeRow, type OutcomeSelection } from '../core/replay/outcomes';
import { parsePrompts } from '../core/replay/prompts';
import type { PromptText } from '../core/signal/promptFeatures';
import { runReplay, type ReplaySummary, type ReplayVerifier } from '../core/replay/replay';
import { callsToStopOpening, hindsightChainCost, hindsightFront } from './qualityMeasures';
import { BOUND_SERIES, qualityPlotSvg, type QualityFigures } from './qualityPlot';
import { spendBreakdown, type SpendBreakdown, type VerdictSpend } from './spend';
import { QUALITY_USAGE, QualityUsageError, readQualityArgs, type QualityPlan } from './qualityArgs';
import { generateWorld, WORLDS, worldPrompts, type World } from './worlds';

/** Seeds 1–5, or 1–N with `--seeds N`. */
let SEEDS = [1, 2, 3, 4, 5];
/** `--wait-worth USD`: what a minute of waiting is worth to the router; the panel's default when undefined. */
let WAIT_WORTH: number | undefined;
const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');

interface Line {
  name: string;
  items: number;
  rung: { accuracy: number[]; share: number[] };
  learner: { accuracy: number[]; share: number[] };
  /**
   * Per run, the mean over classes of Spearman's rho between the learned ratings and true accuracy,
   * over the models past the gate of graded evidence (the out-of-sample target is 0.5 or more).
   */
  rho: number[];
  cascade: { accuracy: number; share: number };
  oracle: { accuracy: number; share: number };
  /** The cheapest fixed chains per class, in hindsight, that answer as many prompts as Rung did (mean over seeds). */
  hindsight: number;
  /** Drift worlds: per seed, calls at the drifted class after the swap until Rung last opened with the swapped model. */
  detection?: number[];
  /** The class-level bound's whole front (accuracy, cost share), for `--plot`: on a generated world, seed 1's. */
  front?: { accuracy: number; share: number }[];
  /** Per seed: whether Rung was at least as accurate as the learner and no dearer. */
  ahead?: boolean[];
  /** Generated worlds under `--spend`: per seed, where the money went, with that seed's best single model's cost. */
  spend?: { breakdown: SpendBreakdown; bestCost: number; order: string[] }[];
}

async function main(): Promise<void> {
  let plan: QualityPlan;
  try {
    plan = readQualityArgs(process.argv.slice(2), process.env, DEFAULT_OUTCOMES);
  } catch (error) {
    if (!(error instanceof QualityUsageError)) throw error;
    process.stderr.write(`quality: ${error.message}\n${QUALITY_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  for (const note of plan.notes) process.stderr.write(`quality: ${note}\n`);
  const { tradeoff, verifier, named, recorded } = plan;
  SEEDS = plan.seeds;
  WAIT_WORTH = plan.waitWorth;
  if (plan.boundAt !== undefined) {
    process.stdout.write(`${boundTable(WORLDS.filter((entry) => named.length === 0 || named.includes(entry.name)), plan.boundAt)}\n`);
    return;
  }
  const lines: Line[] = [];
  if (recorded !== undefined) lines.push(...(await measureRecorded(recorded, tradeoff, verifier)));
  if (plan.worlds) {
    const dir = mkdtempSync(join(tmpdir(), 'rung-worlds-'));
    try {
      for (const world of WORLDS.filter((entry) => named.length === 0 || named.includes(entry.name))) {
        lines.push(await measureWorld(world, dir, tradeoff, verifier, plan.spend, false));
        // A world whose prompts have text is measured again reading it, as a panel with routing.promptSignal does.
        if (world.choices || world.text) lines.push(await measureWorld(world, dir, tradeoff, verifier, plan.spend, true));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (plan.plotDir) writePlots(lines, plan.plotDir);
  if (plan.json) {
    process.stdout.write(`${JSON.stringify({ seeds: SEEDS, tradeoff, verifier: verifier.kind, lines: lines.map(lineFigures) })}\n`);
    return;
  }
  process.stdout.write(`${table(lines, tradeoff, verifier)}\n`);
  process.stdout.write(`\nSeeds on which Rung was at least as accurate as the simple learner and no dearer: ${lines.map((line) => `${line.name} ${line.ahead?.filter(Boolean).length ?? 0} of ${SEEDS.length}`).join('; ')}\n`);
  for (const line of lines) if (line.spend) process.stdout.write(`\n${spendTables(line.name, line.spend)}\n`);
  if (recorded !== undefined) process.stdout.write(`\n${finerClassTable(parseOutcomes(readFileSync(recorded, 'utf8'), recorded))}\n`);
}

/**
 * What the cheapest fixed chains per class, chosen in hindsight on each seed's own world, spend to reach
 * `accuracy`, as a share of the best single model's cost. A policy that climbs one fixed chain per class
 * cannot spend less on that world, so where the figure is above a cost target the target is out of
 * reach there for any such policy, learning or not.
 */
function boundTable(worlds: readonly World[], accuracy: number): string {
  const out = [
    `The cheapest fixed chains per class in hindsight reaching ${accuracy} on each seed's world, as a share of the best single model's cost ("—": no chain reaches it, as too few prompts have any right answer).`,
    '',
    '| world | seed | prompts some model answers | hindsight chains |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const world of worlds) {
    const shares: number[] = [];
    for (const seed of SEEDS) {
      const rows = generateWorld(world, seed);
      const models = world.models.map((model) => model.slug);
      const best = Math.min(...models.filter((model) => bestAccuracy(rows, models) === accuracyOf(rows, model)).map((model) => spentBy(rows, model)));
      const answered = rows.filter((row) => models.some((model) => row.m[model]?.c === 1)).length / rows.length;
      const share = hindsightChainCost(rows, models, (row) => row.family, accuracy) / best;
      shares.push(share);
      out.push(`| ${world.name} | ${seed} | ${answered.toFixed(4)} | ${Number.isFinite(share) ? pct(share) : '—'} |`);
    }
    const finite = shares.filter(Number.isFinite);
    out.push(
      `| ${world.name}, over the seeds | | | mean ${finite.length ? pct(mean(finite)) : '—'} of the ${finite.length} reachable; out of reach on ${shares.length - finite.length} |`,
    );
  }
  return out.join('\n');
}

function accuracyOf(rows: readonly OutcomeRow[], model: string): number {
  return rows.reduce((sum, row) => sum + (row.m[model]?.c ?? 0), 0) / rows.length;
}

function bestAccuracy(rows: readonly OutcomeRow[], models: readonly string[]): number {
  return Math.max(...models.map((model) => accuracyOf(rows, model)));
}

function waitWorthOption(): { waitWorth?: number } {
  return WAIT_WORTH === undefined ? {} : { waitWorth: WAIT_WORTH };
}

/** One line's figures as `--json` prints them: means and standard deviations over the seeds, cost as a share of the best single model's. */
function lineFigures(line: Line): Record<string, unknown> {
  return {
    name: line.name,
    items: line.items,
    rung: { accuracy: mean(line.rung.accuracy), accuracySd: sd(line.rung.accuracy), share: mean(line.rung.share), shareSd: sd(line.rung.share) },
    learner: { accuracy: mean(line.learner.accuracy), share: mean(line.learner.share) },
    // The table's "Rung beats the learner": at least as accurate and no dearer, on the means.
    beatsLearner: mean(line.rung.accuracy) - mean(line.learner.accuracy) >= -1e-12 && mean(line.rung.share) <= mean(line.learner.share),
    seedsAhead: line.ahead?.filter(Boolean).length ?? 0,
  };
}

/** What `model` cost over `rows`, USD. */
function spentBy(rows: readonly OutcomeRow[], model: string): number {
  return rows.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0);
}

/** The out-of-sample accuracy target on the `test` split (BENCHMARKS.md), where the finer-class bounds are read. */
const TEST_TARGET_ACCURACY = 0.953;

/**
 * What routing on finer classes than the family could buy at best: the cheapest fixed chains per class
 * in hindsight that reach {@link TEST_TARGET_ACCURACY} on `test`, for four ways of cutting it.
 *
 * @remarks
 * A bound, not a policy: each chain is chosen knowing every answer of its class, so the fewer prompts a
 * class holds, the more of the bound is hindsight a learner cannot have (half the subjects hold 16 `test`
 * prompts or fewer, and the gate alone asks 8 graded answers per model). The prompt's length is known before any call; its cut points are the `train` split's terciles
 * per family, so the classes are not fitted to `test`. The last cutting asks whether the answers' own
 * confidence (the data's `conf`, from a second self-check call) would be a way: it classes each prompt
 * by the cheapest model's verdict and confidence there, a looser bound still, since its chains need not
 * begin with the model whose answer named the class.
 */
function finerClassTable(recorded: { rows: OutcomeRow[]; models: string[] }): string {
  const test = recorded.rows.filter((row) => row['split_src'] === 'test');
  const train = recorded.rows.filter((row) => row['split_src'] === 'train');
  const length = (row: OutcomeRow): number => mean(recorded.models.map((model) => row.m[model]?.ti ?? 0));
  const cuts = new Map<string, [number, number]>();
  for (const family of new Set(train.map((row) => row.family))) {
    const lengths = train.filter((row) => row.family === family).map(length).sort((a, b) => a - b);
    cuts.set(family, [lengths[Math.floor(lengths.length / 3)] ?? 0, lengths[Math.floor((2 * lengths.length) / 3)] ?? 0]);
  }
  const tercile = (row: OutcomeRow): string => {
    const [low, high] = cuts.get(row.family) ?? [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    const at = length(row);
    return at <= low ? 'short' : at <= high ? 'middle' : 'long';
  };
  // The cheapest model's own answer, once asked: pass or fail and its confidence, cut at `train` quintiles per family.
  const cheapest = [...recorded.models].sort((a, b) => spentBy(train, a) - spentBy(train, b))[0] ?? '';
  const confidence = (row: OutcomeRow): number => {
    const conf = row.m[cheapest]?.conf ?? Number.NEGATIVE_INFINITY;
    return Number.isFinite(conf) ? conf : Number.NEGATIVE_INFINITY;
  };
  const confidenceCuts = new Map<string, number[]>();
  for (const family of new Set(train.map((row) => row.family))) {
    const sorted = train.filter((row) => row.family === family).map(confidence).sort((a, b) => a - b);
    confidenceCuts.set(family, [1, 2, 3, 4].map((fifth) => sorted[Math.floor((fifth * sorted.length) / 5)] ?? 0));
  }
  const quintile = (row: OutcomeRow): number => (confidenceCuts.get(row.family) ?? []).filter((cut) => confidence(row) > cut).length;
  const best = recorded.models
    .map((model) => ({ correct: test.filter((row) => row.m[model]?.c === 1).length, cost: spentBy(test, model) }))
    .sort((a, b) => b.correct - a.correct || a.cost - b.cost)[0];
  const cuttings: [string, (row: OutcomeRow) => string][] = [
    ['family (what Rung learns per)', (row) => row.family],
    ['family and prompt length (train terciles)', (row) => `${row.family}/${tercile(row)}`],
    ['subject (subfamily; triviaqa and gsm8k have none)', (row) => `${row.family}/${String(row['subfamily'] ?? '')}`],
    [`family and ${cheapest}'s answer: pass or fail, and its own confidence (train quintiles)`, (row) => `${row.family}/${row.m[cheapest]?.c}/${quintile(row)}`],
  ];
  const out = [
    `What finer classes could buy at best: the cheapest fixed chains per class in hindsight reaching ${TEST_TARGET_ACCURACY} on the 9-model test split (${test.length} prompts), as a share of the best single model's cost.`,
    '',
    '| classes | how many | prompts per class (median) | hindsight chains at the target |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const [name, classOf] of cuttings) {
    const sizes = new Map<string, number>();
    for (const row of test) sizes.set(classOf(row), (sizes.get(classOf(row)) ?? 0) + 1);
    const sorted = [...sizes.values()].sort((a, b) => a - b);
    const cost = hindsightChainCost(test, recorded.models, classOf, TEST_TARGET_ACCURACY);
    out.push(`| ${name} | ${sizes.size} | ${sorted[Math.floor(sorted.length / 2)] ?? 0} | ${best ? pct(cost / best.cost) : 'n/a'} |`);
  }
  return out.join('\n');
}

async function measureRecorded(path: string, tradeoff: Tradeoff, verifier: ReplayVerifier): Promise<Line[]> {
  const lines: Line[] = [];
  const recorded = parseOutcomes(readFileSync(path, 'utf8'), path);
  const familiesIn = (split: string) => [...new Set(recorded.rows.filter((row) => row['split_src'] === split).map((row) => row.family))].sort();
  const selections: [string, OutcomeSelection][] = [
    ['9-model train', { split: 'train' }],
    ['9-model test', { split: 'test' }],
    ...familiesIn('train').map((family): [string, OutcomeSelection] => [`9-model train without ${family}`, { split: 'train', excludeFamilies: [family] }]),
    ...familiesIn('test').map((family): [string, OutcomeSelection] => [`9-model test, ${family} only`, { split: 'test', families: [family] }]),
  ];
  for (const [name, selection] of selections) {
    const rows = selectOutcomes(recorded.rows, selection, path);
    lines.push(await measure(name, rows, recorded.models, tradeoff, verifier));
  }
  // The prompts' text, rebuilt beside the outcomes by scripts/prompts.mjs: the per-prompt signal and the
  // guessing floor read it; without the file these rows are left out.
  const promptsPath = path.replace(/\.jsonl$/, '') + '.prompts.jsonl';
  if (existsSync(promptsPath)) {
    const prompts = parsePrompts(readFileSync(promptsPath, 'utf8'), promptsPath);
    for (const split of ['train', 'test']) {
      const rows = selectOutcomes(recorded.rows, { split }, path);
      lines.push(await measure(`9-model ${split}, with prompt text`, rows, recorded.models, tradeoff, verifier, prompts));
    }
  }
  return lines;
}

async function measureWorld(world: World, dir: string, tradeoff: Tradeoff, verifier: ReplayVerifier, spend: boolean, withText: boolean): Promise<Line> {
  const runs: ReplaySummary[] = [];
  const spends: NonNullable<Line['spend']> = [];
  const hindsight: number[] = [];
  const detection: number[] = [];
  let front: Line['front'];
  for (const seed of SEEDS) {
    // Written and read back as any outcomes file is, so the world is replayed like the recorded data.
    const file = join(dir, `${world.name}-${seed}.jsonl`);
    writeFileSync(file, generateWorld(world, seed).map((row) => JSON.stringify(row)).join('\n') + '\n');
    const { rows, models } = parseOutcomes(readFileSync(file, 'utf8'), file);
    // A world whose classes are choices says so in its prompts' text, written and read back like the outcomes.
    const text = withText ? worldPrompts(world, rows) : undefined;
    let prompts: ReadonlyMap<string, PromptText> | undefined;
    if (text) {
      const promptsFile = join(dir, `${world.name}-${seed}.prompts.jsonl`);
      writeFileSync(promptsFile, text.map((row) => JSON.stringify(row)).join('\n') + '\n');
      prompts = parsePrompts(readFileSync(promptsFile, 'utf8'), promptsFile);
    }
    const sink = new MemoryDecisionSink();
    const run = await runReplay({ rows, models, verifier, classKey: 'family', tradeoff, seed, inOrder: true, sink, ...(prompts ? { prompts } : {}), ...waitWorthOption() });
    runs.push(run);
    hindsight.push(hindsightChainCost(rows, models, (row) => row.family, run.policy.accuracy) / run.bestSingle.cost);
    if (spend) spends.push({ breakdown: spendBreakdown(rows, models, sink.rows), bestCost: run.bestSingle.cost, order: world.models.map((model) => model.slug) });
    if (seed === SEEDS[0]) front = frontOf(rows, models, run.bestSingle.cost);
    const drifting = world.models.find((model) => model.drift);
    if (drifting?.drift) {
      const cls = Object.keys(drifting.drift.accuracy)[0] as string;
      detection.push(callsToStopOpening(rows, sink.rows, drifting.slug, cls, Math.ceil(drifting.drift.from * rows.length)));
    }
  }
  return { ...summarise(withText ? `${world.name}, with prompt text` : world.name, runs), hindsight: mean(hindsight), ...(front ? { front } : {}), ...(detection.length ? { detection } : {}), ...(spend ? { spend: spends } : {}) };
}

async function measure(name: string, rows: OutcomeRow[], models: string[], tradeoff: Tradeoff, verifier: ReplayVerifier, prompts?: ReadonlyMap<string, PromptText>): Promise<Line> {
  const runs: ReplaySummary[] = [];
  for (const seed of SEEDS) runs.push(await runReplay({ rows, models, verifier, classKey: 'family', tradeoff, seed, ...(prompts ? { prompts } : {}), ...waitWorthOption() }));
  const accuracy = mean(runs.map((run) => run.policy.accuracy));
  const best = (runs[0] as ReplaySummary).bestSingle.cost;
  return { ...summarise(name, runs), hindsight: hindsightChainCost(rows, models, (row) => row.family, accuracy) / best, front: frontOf(rows, models, best) };
}

function summarise(name: string, runs: ReplaySummary[]): Omit<Line, 'hindsight'> {
  const first = runs[0] as ReplaySummary;
  return {
    name,
    items: first.items,
    rung: { accuracy: runs.map((run) => run.policy.accuracy), share: runs.map((run) => run.policy.cost / run.bestSingle.cost) },
    learner: { accuracy: runs.map((run) => run.onlineLearner.accuracy), share: runs.map((run) => run.onlineLearner.cost / run.bestSingle.cost) },
    rho: runs.map((run) => meanRhoPastGate(run)),
    ahead: runs.map((run) => run.policy.accuracy >= run.onlineLearner.accuracy - 1e-12 && run.policy.cost <= run.onlineLearner.cost),
    // Means over the runs: on a generated world each seed is another world (on recorded data they agree).
    cascade: { accuracy: mean(runs.map((run) => run.priceOrderCascade.accuracy)), share: mean(runs.map((run) => run.priceOrderCascade.cost / run.bestSingle.cost)) },
    oracle: { accuracy: mean(runs.map((run) => run.oracle.accuracy)), share: mean(runs.map((run) => run.oracle.cost / run.bestSingle.cost)) },
  };
}

/** The class-level bound's front as (accuracy, share of the best single model's cost) points. */
function frontOf(rows: readonly OutcomeRow[], models: readonly string[], bestCost: number): { accuracy: number; share: number }[] {
  return hindsightFront(rows, models, (row) => row.family).map((point) => ({ accuracy: point.correct / rows.length, share: point.cost / bestCost }));
}

/**
 * `--plot DIR`: accuracy against cost for Rung, the simple learner, the class-level bound and the
 * oracle, one SVG per data set (the recorded `test` split with and without the prompts' text on one
 * plot), and the figures behind them as JSON.
 */
function writePlots(lines: readonly Line[], dir: string): void {
  const sets: { file: string; title: string; lines: string[] }[] = [
    { file: 'quality-9-model-test', title: '9-model test split (4,048 prompts), seeds 1–5, perfect check', lines: ['9-model test', '9-model test, with prompt text'] },
    { file: 'quality-9-model-train', title: '9-model train split (1,485 prompts), seeds 1–5, perfect check', lines: ['9-model train', '9-model train, with prompt text'] },
    { file: 'quality-eleven-models', title: 'eleven-models world, seeds 1–5, perfect check', lines: ['eleven-models'] },
    { file: 'quality-eleven-models-two-way', title: 'eleven-models-two-way world, seeds 1–5, perfect check', lines: ['eleven-models-two-way', 'eleven-models-two-way, with prompt text'] },
    { file: 'quality-eleven-models-guessers', title: 'eleven-models-guessers world, seeds 1–5, perfect check', lines: ['eleven-models-guessers', 'eleven-models-guessers, with prompt text'] },
  ];
  const data: Record<string, QualityFigures> = {};
  for (const set of sets) {
    const chosen = set.lines.map((name) => lines.find((line) => line.name === name)).filter((line): line is Line => line !== undefined);
    const first = chosen[0];
    if (!first) continue;
    const point = (accuracy: number, costShare: number) => ({ costShare, accuracy });
    const low = Math.min(...chosen.flatMap((line) => [mean(line.rung.accuracy), mean(line.learner.accuracy)])) - 0.02;
    const figures: QualityFigures = {
      title: set.title,
      series: [
        { name: BOUND_SERIES, points: (first.front ?? []).filter((entry) => entry.accuracy >= low).map((entry) => point(entry.accuracy, entry.share)) },
        { name: 'oracle', points: [point(first.oracle.accuracy, first.oracle.share)] },
        { name: 'simple learner', points: [point(mean(first.learner.accuracy), mean(first.learner.share))] },
        ...chosen.map((line) => ({ name: line.name.includes('with prompt text') ? 'Rung, reading the prompt text' : 'Rung', points: [point(mean(line.rung.accuracy), mean(line.rung.share))] })),
      ],
    };
    writeFileSync(join(dir, `${set.file}.svg`), qualityPlotSvg(figures));
    data[set.file] = figures;
  }
  writeFileSync(join(dir, 'quality-plots.json'), `${JSON.stringify(data, null, 1)}\n`);
}

/** The mean over classes of the rank correlation between ratings past the gate and true accuracy; NaN when no class has 3 such models. */
function meanRhoPastGate(run: ReplaySummary): number {
  const rhos = run.rankCorrelation.flatMap((entry) => (entry.pastGateRho === undefined ? [] : [entry.pastGateRho]));
  return rhos.length ? mean(rhos) : Number.NaN;
}

function mean(xs: number[]): number {
  return xs.reduce((sum, x) => sum + x, 0) / xs.length;
}

function sd(xs: number[]): number {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((sum, x) => sum + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

function table(lines: Line[], tradeoff: Tradeoff, verifier: ReplayVerifier): string {
  const out = [
    `Mean over seeds ${SEEDS.join(', ')} (± sd), ${verifier.kind === 'noisy' ? 'noisy check (5% false passes, 5% false fails)' : 'perfect check'}, ${tradeoff}; cost as a share of the best single model on the same prompts.`,
    '',
    '| data | prompts | Rung accuracy | Rung cost | simple learner accuracy | simple learner cost | Rung beats the learner | price-order cascade | oracle | best fixed chains per class in hindsight, at the accuracy Rung reached | rank correlation of ratings past the gate with true accuracy, mean over classes | drift: calls to stop opening with the swapped model |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const line of lines) {
    const accuracy = mean(line.rung.accuracy) - mean(line.learner.accuracy);
    const beats = accuracy >= -1e-12 && mean(line.rung.share) <= mean(line.learner.share);
    out.push(
      `| ${line.name} | ${line.items} | ${mean(line.rung.accuracy).toFixed(4)} ± ${sd(line.rung.accuracy).toFixed(4)} | ${pct(mean(line.rung.share))} ± ${pct(sd(line.rung.share))} | ` +
        `${mean(line.learner.accuracy).toFixed(4)} | ${pct(mean(line.learner.share))} | ${beats ? 'yes' : 'no'} | ` +
        `${line.cascade.accuracy.toFixed(4)} at ${pct(line.cascade.share)} | ${line.oracle.accuracy.toFixed(4)} at ${pct(line.oracle.share)} | ${pct(line.hindsight)} | ${mean(line.rho).toFixed(2)} | ` +
        `${line.detection ? `${line.detection.join(', ')} (max ${Math.max(...line.detection)})` : ''} |`,
    );
  }
  return out.join('\n');
}

/**
 * Two tables, means over the seeds with each seed's cost as a share of its best single model: per class
 * and model, Rung's and the learner's tries, passes and cost; then cost by verdict. The learner here is
 * rerun under a perfect check (`spend.ts`), so under `--noisy` its column is not the table's.
 */
function spendTables(name: string, spends: NonNullable<Line['spend']>): string {
  const runs = spends.length;
  const out = [
    `Where the money went on ${name}, mean over ${runs} seeds (cost in points of the best single model's cost):`,
    '',
    '| class | model | Rung tries | passes | cost | learner tries | passes | cost | Rung − learner |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const keys = new Set(spends.flatMap((entry) => [...entry.breakdown.byModel.keys()]));
  const order = spends[0]?.order ?? [];
  const sorted = [...keys].sort((a, b) => {
    const [classA = '', modelA = ''] = a.split(' ');
    const [classB = '', modelB = ''] = b.split(' ');
    return classA.localeCompare(classB) || order.indexOf(modelA) - order.indexOf(modelB);
  });
  const avg = (pick: (entry: NonNullable<Line['spend']>[number]) => number) => spends.reduce((sum, entry) => sum + pick(entry), 0) / runs;
  for (const key of sorted) {
    const [cls, model] = key.split(' ');
    const rung = (field: 'tries' | 'passes' | 'cost') => avg((entry) => (entry.breakdown.byModel.get(key)?.rung[field] ?? 0) / (field === 'cost' ? entry.bestCost / 100 : 1));
    const learner = (field: 'tries' | 'passes' | 'cost') => avg((entry) => (entry.breakdown.byModel.get(key)?.learner[field] ?? 0) / (field === 'cost' ? entry.bestCost / 100 : 1));
    out.push(
      `| ${cls} | ${model} | ${rung('tries').toFixed(0)} | ${rung('passes').toFixed(0)} | ${rung('cost').toFixed(2)} | ${learner('tries').toFixed(0)} | ${learner('passes').toFixed(0)} | ${learner('cost').toFixed(2)} | ${(rung('cost') - learner('cost')).toFixed(2)} |`,
    );
  }
  const verdicts: [keyof VerdictSpend, string][] = [
    ['passed', 'answers that passed'],
    ['failedBeforePass', 'failures before a pass'],
    ['nobodyAnswers', 'prompts no model answers'],
    ['gaveUp', 'answerable prompts given up on'],
  ];
  out.push('', '| verdict | Rung | learner | Rung − learner |', '| --- | ---: | ---: | ---: |');
  for (const [field, label] of verdicts) {
    const rung = avg((entry) => entry.breakdown.rung[field] / (entry.bestCost / 100));
    const learner = avg((entry) => entry.breakdown.learner[field] / (entry.bestCost / 100));
    out.push(`| ${label} | ${rung.toFixed(2)} | ${learner.toFixed(2)} | ${(rung - learner).toFixed(2)} |`);
  }
  return out.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
