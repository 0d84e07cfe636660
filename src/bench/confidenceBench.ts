/**
 * `node scripts/confidence.mjs OUTCOMES.jsonl [--seeds K] [--svg FILE]`: the figures of BENCHMARKS.md's
 * confidence-check section in one command, and its plot.
 *
 * @remarks
 * Rung with the learned confidence check on `train` (where its tunables were chosen) and on `test`
 * (where it is reported), one fixed threshold for comparison, the data's source's own method (our
 * re-implementation of its Markov-copula tuning, markovCopula.ts, tuned on `train`), and fixed chains
 * per family: thresholds chosen on `train` and scored on `test`, chosen on one half of `test` and scored
 * on the other, and chosen on `test` itself (a hindsight bound for such chains). Then a diagnostic, in
 * sample: the learned check after a first pass over the same `test` prompts, which says how much of the
 * gap is the cost of learning from nothing. Every cost is fair: an answer call, and reading its
 * confidence where that is a second call (the data's `cost_src` beyond its `cost`) whenever a policy
 * reads it. Costs are shares of the best single model's cost on the prompts scored (gpt-4o on `test`),
 * which reads nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfidenceLearner } from '../core/confidence/confidenceLearner';
import { parseOutcomes, selectOutcomes, type ModelOutcome, type OutcomeRow } from '../core/replay/outcomes';
import { runReplay, type ReplayVerifier } from '../core/replay/replay';
import { svgPlot, type PlotSeries } from './svgPlot';
import { markovCopulaCurve } from './markovCopula';
import { accuracyAt, type CurvePoint } from './curveReading';
import { chooseChain, combinedFrontier, enumerateChains, FamilyColumns, paretoChains, scoreChain, type ChainScore, type ScoredChain } from './thresholdChains';

const MULTIPLES = [5, 7, 10, 14, 20, 28, 40, 80];
const FIXED_THRESHOLDS = [-1, -0.4, -0.2, -0.1, -0.05, -0.01, -0.001, -1e-4];
/** Where the curves are compared on `test`: shares of the best single model's cost. */
const COMPARED_AT = [0.4, 0.55];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const path = resolve(args.find((arg) => !arg.startsWith('--')) ?? '../shared/data/cascades-9-models.jsonl');
  const seeds = Number(flag(args, '--seeds') ?? 5);
  const svgPath = flag(args, '--svg');
  const { rows, models } = parseOutcomes(readFileSync(path, 'utf8'), path);
  const train = selectOutcomes(rows, { split: 'train' }, path);
  const test = selectOutcomes(rows, { split: 'test' }, path);
  const best = bestSingle(test, models);
  const trainBest = bestSingle(train, models);
  console.log(`confidence-check figures: ${path}, seeds 1–${seeds}; costs as shares of the best single model (test: ${best.model}, ${best.accuracy.toFixed(4)}, $${best.cost.toFixed(3)}; train: ${trainBest.model}, $${trainBest.cost.toFixed(3)})\n`);

  const learnedTrain = await curve(train, models, seeds, MULTIPLES.map((m) => ({ label: `×${m}`, verifier: { kind: 'learned-confidence', multiple: m } })));
  const learnedTest = await curve(test, models, seeds, MULTIPLES.map((m) => ({ label: `×${m}`, verifier: { kind: 'learned-confidence', multiple: m } })));
  const fixedTest = await curve(test, models, seeds, FIXED_THRESHOLDS.map((t) => ({ label: String(t), verifier: { kind: 'confidence', threshold: t } })));
  table('Rung, learned check, train (tunables chosen here)', learnedTrain);
  table('Rung, learned check, test', learnedTest);
  table('Rung, one fixed threshold, test', fixedTest);

  const families = [...new Set(test.map((row) => row.family))].sort();
  const paper = markovCopulaCurve(train, test, models).map((point) => ({ share: point.cost / best.cost, accuracy: point.correct / test.length, label: `λ ${point.lambda.toPrecision(2)}` }));
  table("The source's Markov-copula tuning (our re-implementation), tuned on train, scored on test", distinct(paper));
  const chainsTrain = chainCurve(train, test, models, families, best.cost);
  const halves = splitHalves(test);
  const chainsHalves = twoFoldCurve(halves, models, families, best.cost);
  const hindsight = hindsightCurve(test, models, families, best.cost);
  table('Fixed chains per family, thresholds chosen on train, scored on test', chainsTrain);
  table('Fixed chains per family, chosen on one half of test, scored on the other (two folds)', chainsHalves);
  table('Fixed chains per family, chosen on test itself (hindsight bound for such chains)', hindsight);

  const warm = await warmCurve(train, test, models, seeds, MULTIPLES.slice(0, -1));
  table('Rung, learned check, test, after one pass over train (what it learned there from the answers it paid for)', warm);

  console.log('At 40% and 55% of the best single model\'s cost on test (linear between measured points):');
  const curves: [string, CurvePoint[]][] = [
    ['Rung, learned check (test, from an empty ledger)', learnedTest],
    ['Rung, learned check (test, after one pass over train)', warm],
    ['Rung, one fixed threshold (test)', fixedTest],
    ["the source's Markov-copula tuning, our re-implementation (tuned on train)", paper],
    ['chains chosen on train', chainsTrain],
    ['chains chosen on the other half of test', chainsHalves],
    ['chains chosen on test (hindsight)', hindsight],
  ];
  for (const share of COMPARED_AT) {
    for (const [name, points] of curves) {
      const accuracy = accuracyAt(points, share);
      console.log(`  ${name}: ${accuracy === null ? '—' : accuracy.toFixed(4)} at ${(100 * share).toFixed(0)}%`);
    }
  }

  if (svgPath) {
    const series: PlotSeries[] = [
      { label: 'Rung, learned confidence check (test, from an empty ledger; mean of 5 seeds; ×M: multiple)', points: toPlot(learnedTest), marker: 'circle' },
      { label: 'Rung, one fixed threshold for every model (test; mean of 5 seeds)', points: toPlot(fixedTest, false), marker: 'square' },
      { label: "the source's Markov-copula tuning, tuned on train (our re-implementation)", points: toPlot(distinct(paper), false), marker: 'triangle', color: '#D55E00' },
      { label: 'fixed chains per family, thresholds chosen on train', points: toPlot(chainsTrain, false), marker: 'triangle' },
      { label: 'fixed chains per family, chosen on the other half of test', points: toPlot(chainsHalves, false), marker: 'diamond', dashed: true },
      { label: 'fixed chains per family, chosen on test itself (hindsight bound for chains)', points: toPlot(thin(hindsight, 0.005), false), marker: 'none', dashed: true },
      { label: 'Rung, learned check, after one pass over train (test; mean of 5 seeds)', points: toPlot(warm), marker: 'circle', color: '#56B4E9', dashed: true },
      { label: `best single model (${best.model})`, points: [{ x: 100, y: best.accuracy }], marker: 'cross' },
      { label: 'compared at', points: COMPARED_AT.map((share) => ({ x: 100 * share, y: 0.745, label: `${(100 * share).toFixed(0)}%` })), line: false, marker: 'cross', color: '#999999' },
    ];
    const svg = svgPlot({
      title: 'Confidence-checked cascades on the 9-model test split (4,048 prompts)',
      xLabel: `cost, % of the best single model's (${best.model})`,
      yLabel: 'accuracy',
      series,
      xDomain: [0, 105],
      yDomain: [0.74, 0.86],
      xFormat: (value) => `${value.toFixed(0)}%`,
      notes: [
        'node scripts/confidence.mjs ../shared/data/cascades-9-models.jsonl --svg bench/plots/confidence.svg',
        'Data: Zellinger & Thomson, "Rational Tuning of LLM Cascades" (arXiv:2501.09345), 9 models, test split; cost = answer calls, and every confidence read that is a second call.',
      ],
    });
    const out = resolve(svgPath);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, svg);
    console.log(`\nplot written to ${out}`);
  }
}

function flag(args: readonly string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

function bestSingle(rows: readonly OutcomeRow[], models: readonly string[]): { model: string; accuracy: number; cost: number } {
  let best = { model: '', accuracy: -1, cost: 0 };
  for (const model of models) {
    const accuracy = rows.reduce((sum, row) => sum + (row.m[model] as ModelOutcome).c, 0) / rows.length;
    const cost = rows.reduce((sum, row) => sum + (row.m[model] as ModelOutcome).cost, 0);
    if (accuracy > best.accuracy || (accuracy === best.accuracy && cost < best.cost)) best = { model, accuracy, cost };
  }
  return best;
}

/** Rung's replay at each setting, mean over seeds 1..seeds. */
async function curve(rows: readonly OutcomeRow[], models: readonly string[], seeds: number, settings: { label: string; verifier: ReplayVerifier }[]): Promise<CurvePoint[]> {
  const points: CurvePoint[] = [];
  for (const setting of settings) {
    let accuracy = 0;
    let share = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const summary = await runReplay({ rows, models, verifier: setting.verifier, classKey: 'family', seed });
      accuracy += summary.policy.accuracy / seeds;
      share += summary.policy.cost / summary.bestSingle.cost / seeds;
    }
    points.push({ share, accuracy, label: setting.label });
  }
  return points;
}

/**
 * The learned check on `rows` with what a first pass over `first` taught it (seed + 100): as the source's
 * method is tuned on `train` and scored on `test`, but learning only from the answers it paid for.
 */
async function warmCurve(first: readonly OutcomeRow[], rows: readonly OutcomeRow[], models: readonly string[], seeds: number, multiples: readonly number[]): Promise<CurvePoint[]> {
  const points: CurvePoint[] = [];
  for (const multiple of multiples) {
    let accuracy = 0;
    let share = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const verifier: ReplayVerifier = { kind: 'learned-confidence', multiple };
      const confidenceLearner = new ConfidenceLearner();
      await runReplay({ rows: first, models, verifier, classKey: 'family', seed: seed + 100, confidenceLearner });
      const summary = await runReplay({ rows, models, verifier, classKey: 'family', seed, confidenceLearner });
      accuracy += summary.policy.accuracy / seeds;
      share += summary.policy.cost / summary.bestSingle.cost / seeds;
    }
    points.push({ share, accuracy, label: `×${multiple}, after train` });
  }
  return points;
}

const LAMBDAS = Array.from({ length: 61 }, (_, i) => 10 ** (i / 12));

/** Chains chosen on `choose` per family for each exchange rate, scored on `score`: one point per distinct result. */
function chainCurve(choose: readonly OutcomeRow[], score: readonly OutcomeRow[], models: readonly string[], families: readonly string[], bestCost: number): CurvePoint[] {
  const totals = LAMBDAS.map(() => ({ correct: 0, cost: 0 }));
  for (const family of families) {
    const chooseColumns = new FamilyColumns(choose.filter((row) => row.family === family), models);
    const scoreColumns = new FamilyColumns(score.filter((row) => row.family === family), models);
    const scored = scoreAll(chooseColumns, models.length);
    LAMBDAS.forEach((lambda, i) => {
      const result = scoreChain(scoreColumns, chooseChain(scored, lambda));
      (totals[i] as ChainScore).correct += result.correct;
      (totals[i] as ChainScore).cost += result.cost;
    });
  }
  return distinct(totals.map((total, i) => ({ share: total.cost / bestCost, accuracy: total.correct / score.length, label: `λ ${LAMBDAS[i]?.toPrecision(2)}` })));
}

/** Two folds: chains chosen on each half, scored on the other, the two halves' scores added. */
function twoFoldCurve(halves: [OutcomeRow[], OutcomeRow[]], models: readonly string[], families: readonly string[], bestCost: number): CurvePoint[] {
  const [a, b] = halves;
  const ab = chainCurveTotals(a, b, models, families);
  const ba = chainCurveTotals(b, a, models, families);
  const count = a.length + b.length;
  return distinct(ab.map((total, i) => ({ share: (total.cost + (ba[i] as ChainScore).cost) / bestCost, accuracy: (total.correct + (ba[i] as ChainScore).correct) / count, label: '' })));
}

function chainCurveTotals(choose: readonly OutcomeRow[], score: readonly OutcomeRow[], models: readonly string[], families: readonly string[]): ChainScore[] {
  const totals = LAMBDAS.map(() => ({ correct: 0, cost: 0 }));
  for (const family of families) {
    const scored = scoreAll(new FamilyColumns(choose.filter((row) => row.family === family), models), models.length);
    const scoreColumns = new FamilyColumns(score.filter((row) => row.family === family), models);
    LAMBDAS.forEach((lambda, i) => {
      const result = scoreChain(scoreColumns, chooseChain(scored, lambda));
      (totals[i] as ChainScore).correct += result.correct;
      (totals[i] as ChainScore).cost += result.cost;
    });
  }
  return totals;
}

/** The exact frontier of chains chosen on the prompts they are scored on. */
function hindsightCurve(rows: readonly OutcomeRow[], models: readonly string[], families: readonly string[], bestCost: number): CurvePoint[] {
  const perFamily = families.map((family) => paretoChains(scoreAll(new FamilyColumns(rows.filter((row) => row.family === family), models), models.length)));
  const frontier = combinedFrontier(perFamily);
  return frontier.map((total) => ({ share: total.cost / bestCost, accuracy: total.correct / rows.length, label: '' })).filter((point) => point.share <= 1.05);
}

function scoreAll(columns: FamilyColumns, modelCount: number): ScoredChain[] {
  return enumerateChains(columns, modelCount).map((chain) => ({ chain, ...scoreChain(columns, chain) }));
}

/** Halves of the prompts by a hash of their ids, so the split is the same on every run and every machine. */
function splitHalves(rows: readonly OutcomeRow[]): [OutcomeRow[], OutcomeRow[]] {
  const a: OutcomeRow[] = [];
  const b: OutcomeRow[] = [];
  for (const row of rows) (fnv1a(row.id) % 2 === 0 ? a : b).push(row);
  return [a, b];
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Points with the same figures once, cheapest first. */
function distinct(points: CurvePoint[]): CurvePoint[] {
  const seen = new Set<string>();
  return points
    .sort((a, b) => a.share - b.share || a.accuracy - b.accuracy)
    .filter((point) => {
      const key = `${point.share.toFixed(5)}/${point.accuracy.toFixed(5)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function toPlot(points: readonly CurvePoint[], labels = true): { x: number; y: number; label?: string }[] {
  return [...points].sort((a, b) => a.share - b.share).map((point) => ({ x: 100 * point.share, y: point.accuracy, ...(labels && point.label ? { label: point.label } : {}) }));
}

/** The points at least `step` of cost apart, cheapest first, keeping the last: a long frontier drawn or printed at a readable density. */
function thin(points: readonly CurvePoint[], step: number): CurvePoint[] {
  const sorted = [...points].sort((a, b) => a.share - b.share);
  const kept: CurvePoint[] = [];
  sorted.forEach((point, i) => {
    const last = kept[kept.length - 1];
    if (!last || point.share - last.share >= step || i === sorted.length - 1) kept.push(point);
  });
  return kept;
}

function table(title: string, points: readonly CurvePoint[]): void {
  console.log(title);
  for (const point of thin(points, 0.02)) console.log(`  ${point.label.padEnd(22)} ${point.accuracy.toFixed(4)} at ${(100 * point.share).toFixed(1)}%`);
  console.log('');
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
