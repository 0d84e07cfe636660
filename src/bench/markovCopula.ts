/**
 * Our own re-implementation of the cascade tuning in Zellinger & Thomson, "Rational Tuning of LLM
 * Cascades via Probabilistic Modeling" (arXiv:2501.09345), the source of the recorded 9-model outcomes:
 * the reference the confidence check is measured against in BENCHMARKS.md.
 *
 * @remarks
 * Written from the paper's description and a reading of its public code, not copied; where this differs
 * from the paper, it says so here. Per family, on the prompts it is tuned on:
 * 1. each model's confidence is put on a scale (the log-odds of its stated probability; for an answer
 *    token's own log-probability, which crowds against 1, −log(1 − p)) and calibrated by a logistic
 *    regression on the grades, so each answer carries a calibrated chance of being right;
 * 2. each model's calibrated chances are kept as their empirical distribution (binned: the paper fits a
 *    beta mixture with point masses at the ends), and each pair of models as a Gumbel copula over the two
 *    margins, its parameter from Kendall's tau (the paper fits it by likelihood on the inner parts; the
 *    Gumbel family and "no dependence" below a tau of 0 are the paper's);
 * 3. a chain (models in price order, each but the last accepting its answer when its calibrated chance
 *    exceeds a threshold) is scored by the Markov assumption the paper makes — whether a model defers
 *    depends on the chain only through whether the model before it deferred — as an expected accuracy
 *    and an expected cost, every expectation taken under the fitted model, never by replaying the prompts;
 * 4. the thresholds minimise 1 − accuracy + λ · cost (the paper: L-BFGS from the middle of the range;
 *    here coordinate descent over the bins' edges from three starts), and for each λ the chain with the
 *    least modelled loss is taken from the chains the paper ran on this data: every price-ordered subset
 *    of each of its two vendor chains ({@link PAPER_CHAINS}). On other data, every price-ordered subset of
 *    up to {@link MAX_CHAIN_MODELS} models; on this data that wider choice measured worse out of sample
 *    (the model misjudges chains that mix vendors), so the paper's own set is the fair reference.
 *
 * Cost is charged fairly: reading a model's confidence costs what the data's `cost_src` says beyond the
 * answer call (a second self-check call on gsm8k, triviaqa and truthfulqa; nothing on mmlu and medmcqa,
 * whose confidence is the answer token's own log-probability), and a chain reads every model but its last.
 * The same price goes into the tuning, so the method is tuned for the cost it is charged.
 */
import type { ModelOutcome, OutcomeRow } from '../core/replay/outcomes';

/** The paper's two chains on the 9-model data, cheapest first; its cascades are their price-ordered subsets. */
export const PAPER_CHAINS: readonly (readonly string[])[] = [
  ['llama3.2-1b', 'llama3.2-3b', 'llama3.1-8b', 'llama3.1-70b', 'llama3.1-405b'],
  ['gpt-4o-mini', 'qwen2.5-32b-coder-instruct', 'qwen2.5-72b-instruct', 'gpt-4o'],
];

/** The longest chain tried on other data: four of nine keeps the search to 255 chains a family. */
export const MAX_CHAIN_MODELS = 4;
/** Support points per model's margin: enough to place a threshold within a few percent of the mass. */
export const MARGIN_BINS = 48;

/** How a model's stated confidence becomes a number a logistic regression can weigh. */
export type ConfidenceScale = 'log-odds' | 'one-sided';

/** The data's confidence as the scale puts it; the stated probability is kept off 0 and 1. */
export function scaled(logprob: number | null | undefined, scale: ConfidenceScale): number {
  const p = Math.min(1 - 1e-9, Math.max(1e-9, Math.exp(Math.min(0, logprob ?? -30))));
  return scale === 'one-sided' ? -Math.log(1 - p) : Math.log(p / (1 - p));
}

/** A logistic regression of right answers on one feature, by Newton's method with a small ridge so a separable class stays finite. */
export function fitLogistic(x: readonly number[], y: readonly number[]): { a: number; b: number } {
  let a = 0;
  let b = 0;
  const ridge = 1e-3;
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = -ridge * a;
    let gb = -ridge * b;
    let haa = ridge;
    let hab = 0;
    let hbb = ridge;
    for (let i = 0; i < x.length; i++) {
      const xi = x[i] as number;
      const p = 1 / (1 + Math.exp(-(a + b * xi)));
      const r = (y[i] as number) - p;
      const w = p * (1 - p);
      ga += r;
      gb += r * xi;
      haa += w;
      hab += w * xi;
      hbb += w * xi * xi;
    }
    const det = haa * hbb - hab * hab;
    if (!(Math.abs(det) > 1e-12)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

/** A model's calibrated chances as a binned distribution: each bin's mean value, its mass, and its lowest value (an accepting threshold's edge). */
export interface Margin {
  values: number[];
  masses: number[];
  /** Cumulative mass up to and including each bin. */
  cdf: number[];
  lowest: number[];
}

/** Bins sorted values into up to {@link MARGIN_BINS} groups of about equal count, ties kept together. */
export function margin(values: readonly number[]): Margin {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const out: Margin = { values: [], masses: [], cdf: [], lowest: [] };
  let start = 0;
  let cumulative = 0;
  while (start < n) {
    let end = Math.min(n, start + Math.max(1, Math.ceil(n / MARGIN_BINS)));
    while (end < n && sorted[end] === sorted[end - 1]) end++;
    let sum = 0;
    for (let i = start; i < end; i++) sum += sorted[i] as number;
    const mass = (end - start) / n;
    cumulative += mass;
    out.values.push(sum / (end - start));
    out.masses.push(mass);
    out.cdf.push(Math.min(1, cumulative));
    out.lowest.push(sorted[start] as number);
    start = end;
  }
  return out;
}

/** Kendall's tau-b of two paired columns. */
export function kendallTau(x: readonly number[], y: readonly number[]): number {
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign((x[i] as number) - (x[j] as number));
      const dy = Math.sign((y[i] as number) - (y[j] as number));
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tiesX++;
      else if (dy === 0) tiesY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  }
  const denominator = Math.sqrt((concordant + discordant + tiesX) * (concordant + discordant + tiesY));
  return denominator > 0 ? (concordant - discordant) / denominator : 0;
}

/** The Gumbel copula at (u, v) with parameter θ ≥ 1 (θ = 1: independence). */
export function gumbel(u: number, v: number, theta: number): number {
  if (u <= 0 || v <= 0) return 0;
  if (u >= 1) return v;
  if (v >= 1) return u;
  if (theta <= 1) return u * v;
  const s = (-Math.log(u)) ** theta + (-Math.log(v)) ** theta;
  return Math.exp(-(s ** (1 / theta)));
}

/**
 * One family's fitted model: per model its calibration, margin and prices, and per pair (i before j) the
 * copula's θ with, for every cut of i, j's bins given i deferred, as prefix sums (see {@link Stage}).
 */
export interface FamilyModel {
  family: string;
  scale: ConfidenceScale;
  calibration: { a: number; b: number }[];
  margins: Margin[];
  /** Per model, USD per prompt: the answer call, and reading its confidence beyond it. */
  answerCost: number[];
  readCost: number[];
  /** θ[i][j] for i before j. */
  theta: number[][];
  /** Per model, its own bins as an opener ({@link Stage}). */
  opening: Stage[];
  /** conditional[i][j][cut of i − 1]: j's bins given i's chance fell below its cut. */
  conditional: Stage[][][];
}

/**
 * A model's bins under some condition, as prefix sums over its bins, so a chain is scored in a few
 * lookups: `below[c]` the mass under bin c (deferred at cut c), `above[c]` the expected chance of being
 * right over bins c and up (accepted at cut c).
 */
export interface Stage {
  below: Float64Array;
  above: Float64Array;
}

function stage(masses: readonly number[], values: readonly number[]): Stage {
  const bins = masses.length;
  const below = new Float64Array(bins + 1);
  const above = new Float64Array(bins + 1);
  for (let bin = 0; bin < bins; bin++) below[bin + 1] = (below[bin] as number) + (masses[bin] as number);
  for (let bin = bins - 1; bin >= 0; bin--) above[bin] = (above[bin + 1] as number) + (masses[bin] as number) * (values[bin] as number);
  return { below, above };
}

/** What a read of `outcome`'s confidence costs beyond its answer call: the source's recorded cost less the answer's. */
export function readCostOf(outcome: ModelOutcome): number {
  const recorded = (outcome as { cost_src?: unknown }).cost_src;
  return typeof recorded === 'number' && recorded > outcome.cost ? recorded - outcome.cost : 0;
}

/** The calibrated chance of `outcome` being right under model `index`'s calibration. */
export function calibrated(model: Pick<FamilyModel, 'calibration' | 'scale'>, index: number, outcome: ModelOutcome): number {
  const { a, b } = model.calibration[index] as { a: number; b: number };
  return 1 / (1 + Math.exp(-(a + b * scaled(outcome.conf, model.scale))));
}

/** Fits one family on its tuning prompts; `models` in price order (cheapest first). */
export function fitFamily(rows: readonly OutcomeRow[], models: readonly string[]): FamilyModel {
  const family = rows[0]?.family ?? '';
  const outcome = (row: OutcomeRow, model: string) => row.m[model] as ModelOutcome;
  // A family whose reads cost nothing reads the answer token's own log-probability, which crowds against 1.
  const freeReads = rows.every((row) => models.every((model) => readCostOf(outcome(row, model)) === 0));
  const scale: ConfidenceScale = freeReads ? 'one-sided' : 'log-odds';
  const calibration = models.map((model) =>
    fitLogistic(
      rows.map((row) => scaled(outcome(row, model).conf, scale)),
      rows.map((row) => outcome(row, model).c),
    ),
  );
  const partial = { family, scale, calibration };
  const chances = models.map((model, index) => rows.map((row) => calibrated(partial, index, outcome(row, model))));
  const mean = (xs: readonly number[]) => xs.reduce((sum, x) => sum + x, 0) / Math.max(1, xs.length);
  const margins = chances.map((values) => margin(values));
  const theta = models.map((_, i) =>
    models.map((__, j) => {
      if (j <= i) return 1;
      const tau = kendallTau(chances[i] as number[], chances[j] as number[]);
      return tau > 0 ? 1 / (1 - tau) : 1;
    }),
  );
  // j's bins given i deferred at each cut: P(X_j in bin | X_i below the cut) by the copula over the margins.
  const conditional = margins.map((from, i) =>
    margins.map((to, j) => {
      if (j <= i) return [];
      return from.cdf.map((u) => {
        const masses = to.cdf.map((upper, bin) => {
          const lower = bin === 0 ? 0 : (to.cdf[bin - 1] as number);
          return (gumbel(u, upper, (theta[i] as number[])[j] as number) - gumbel(u, lower, (theta[i] as number[])[j] as number)) / u;
        });
        return stage(masses, to.values);
      });
    }),
  );
  return {
    ...partial,
    margins,
    answerCost: models.map((model) => mean(rows.map((row) => outcome(row, model).cost))),
    readCost: models.map((model) => mean(rows.map((row) => readCostOf(outcome(row, model))))),
    theta,
    opening: margins.map((each) => stage(each.masses, each.values)),
    conditional,
  };
}

/** A chain over a family's models (indices, price order) and, for each but the last, the bin from which it accepts. */
export interface CopulaChain {
  models: number[];
  cuts: number[];
}

/** The chain's modelled accuracy and cost (USD per prompt) under the Markov-copula model. */
export function modelled(model: FamilyModel, chain: CopulaChain): { accuracy: number; cost: number } {
  let reach = 1;
  let accuracy = 0;
  let cost = 0;
  const last = chain.models.length - 1;
  for (let stage = 0; stage <= last && reach > 1e-12; stage++) {
    const index = chain.models[stage] as number;
    const cut = stage === last ? 0 : (chain.cuts[stage] as number);
    cost += reach * ((model.answerCost[index] as number) + (stage === last ? 0 : (model.readCost[index] as number)));
    // Markov: this model's bins depend on the chain only through the model before it having deferred.
    const previous = stage === 0 ? undefined : (chain.models[stage - 1] as number);
    const previousCut = stage === 0 ? 0 : (chain.cuts[stage - 1] as number);
    const bins = previous === undefined ? (model.opening[index] as Stage) : ((model.conditional[previous] as Stage[][])[index] as Stage[])[previousCut - 1];
    if (!bins) break;
    accuracy += reach * (bins.above[cut] as number);
    reach *= bins.below[cut] as number;
  }
  return { accuracy, cost };
}

/** The cuts that minimise 1 − accuracy + λ · cost for these models, by coordinate descent from three starts. */
export function tune(model: FamilyModel, models: number[], lambda: number): { chain: CopulaChain; loss: number } {
  const loss = (chain: CopulaChain) => {
    const { accuracy, cost } = modelled(model, chain);
    return 1 - accuracy + lambda * cost;
  };
  if (models.length === 1) {
    const chain = { models, cuts: [] };
    return { chain, loss: loss(chain) };
  }
  const sizes = models.slice(0, -1).map((index) => (model.margins[index] as Margin).values.length);
  let best: { chain: CopulaChain; loss: number } | null = null;
  for (const start of [0.25, 0.5, 0.75]) {
    const cuts = sizes.map((size) => Math.round(start * size));
    let current = loss({ models, cuts });
    for (let sweep = 0; sweep < 8; sweep++) {
      let moved = false;
      for (let stage = 0; stage < cuts.length; stage++) {
        const keep = cuts[stage] as number;
        let bestCut = keep;
        for (let cut = 0; cut <= (sizes[stage] as number); cut++) {
          if (cut === keep) continue;
          cuts[stage] = cut;
          const value = loss({ models, cuts });
          if (value < current - 1e-12) {
            current = value;
            bestCut = cut;
          }
        }
        cuts[stage] = bestCut;
        if (bestCut !== keep) moved = true;
      }
      if (!moved) break;
    }
    if (!best || current < best.loss) best = { chain: { models, cuts: [...cuts] }, loss: current };
  }
  return best as { chain: CopulaChain; loss: number };
}

/** Every price-ordered subset of the family's models, up to {@link MAX_CHAIN_MODELS} long. */
export function chainsOf(count: number): number[][] {
  const out: number[][] = [];
  const grow = (chain: number[], from: number) => {
    if (chain.length) out.push([...chain]);
    if (chain.length === MAX_CHAIN_MODELS) return;
    for (let next = from; next < count; next++) grow([...chain, next], next + 1);
  };
  grow([], 0);
  return out;
}

/**
 * The chains to choose from, as indices into `models` (price order): the price-ordered subsets of each
 * of the paper's chains when every model they name is there, else every price-ordered subset up to
 * {@link MAX_CHAIN_MODELS} long.
 */
export function candidateChains(models: readonly string[]): number[][] {
  if (!PAPER_CHAINS.every((chain) => chain.every((model) => models.includes(model)))) return chainsOf(models.length);
  const out: number[][] = [];
  for (const chain of PAPER_CHAINS) {
    const indices = chain.map((model) => models.indexOf(model)).sort((a, b) => a - b);
    for (let mask = 1; mask < 1 << indices.length; mask++) out.push(indices.filter((_, i) => mask & (1 << i)));
  }
  return out;
}

/** For one λ, the chain with the least modelled loss, tuned. */
export function choose(model: FamilyModel, lambda: number, chains: readonly number[][]): CopulaChain {
  let best: { chain: CopulaChain; loss: number } | null = null;
  for (const models of chains) {
    const tuned = tune(model, models, lambda);
    if (!best || tuned.loss < best.loss) best = tuned;
  }
  return (best as { chain: CopulaChain; loss: number }).chain;
}

/** A chain run on prompts: right answers and USD spent (answer calls, and every read but the last model's). */
export function scoreCopulaChain(model: FamilyModel, chain: CopulaChain, rows: readonly OutcomeRow[], models: readonly string[]): { correct: number; cost: number } {
  let correct = 0;
  let cost = 0;
  const last = chain.models.length - 1;
  for (const row of rows) {
    for (let stage = 0; stage <= last; stage++) {
      const index = chain.models[stage] as number;
      const outcome = row.m[models[index] as string] as ModelOutcome;
      cost += outcome.cost;
      if (stage === last) {
        correct += outcome.c;
        break;
      }
      cost += readCostOf(outcome);
      const margin = model.margins[index] as Margin;
      const cut = chain.cuts[stage] as number;
      const accepts = cut < margin.lowest.length && calibrated(model, index, outcome) >= (margin.lowest[cut] as number);
      if (accepts) {
        correct += outcome.c;
        break;
      }
    }
  }
  return { correct, cost };
}

/** Exchange rates tried, right answers per USD given up: 0, then 1 to 10⁴ in twelfths of a decade. */
export const COPULA_LAMBDAS: readonly number[] = [0, ...Array.from({ length: 49 }, (_, i) => 10 ** (i / 12))];

/**
 * The method's curve: for each λ, each family's chain chosen and tuned on `tune`, all run on `score`;
 * points are right answers and USD over every family, one per λ.
 */
export function markovCopulaCurve(tune: readonly OutcomeRow[], score: readonly OutcomeRow[], models: readonly string[]): { lambda: number; correct: number; cost: number }[] {
  const price = (model: string) => tune.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0);
  const ordered = [...models].sort((a, b) => price(a) - price(b));
  const chains = candidateChains(ordered);
  const families = [...new Set(score.map((row) => row.family))].sort();
  const fits = families.map((family) => fitFamily(tune.filter((row) => row.family === family), ordered));
  return COPULA_LAMBDAS.map((lambda) => {
    let correct = 0;
    let cost = 0;
    fits.forEach((fit, i) => {
      const result = scoreCopulaChain(fit, choose(fit, lambda, chains), score.filter((row) => row.family === families[i]), ordered);
      correct += result.correct;
      cost += result.cost;
    });
    return { lambda, correct, cost };
  });
}
