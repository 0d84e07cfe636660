/**
 * How far graded outcomes stray from the one-difficulty (Rasch) model the router plans with.
 *
 * @remarks
 * The planner asks "given that these cheaper rungs failed this call, how likely is the next one to pass?"
 * and answers it with one difficulty per call that every model shares, a normal spread of difficulty
 * and a share of calls nobody answers (`src/core/difficulty.ts`). Data whose failures are tied
 * together more than one difficulty explains will make that answer too hopeful, and the router will
 * pay for climbs that fail. This file fits that model to a table of outcomes by marginal maximum
 * likelihood and sets what the planner relies on beside what the table shows: the chance that each
 * model, in price order, passes a call every cheaper model failed, and how often two models fail the
 * same call. Used by `scripts/misfit.mjs` on the recorded data and by the world tests.
 */
import type { OutcomeRow } from '../core/replay/outcomes';

/** Difficulty grid of the fit, logits: wide enough for the spreads the recorded families show. */
const GRID_LIMIT_LOGITS = 8;
const GRID_STEP_LOGITS = 0.2;
/** Rounds of expectation–maximisation; the fits settle to four decimals well before this. */
const FIT_ROUNDS = 300;

export interface RaschFit {
  /** Ability per model, logits. */
  abilities: Record<string, number>;
  /** Spread of the answerable calls' difficulty, logits (mean fixed at 0). */
  sdLogits: number;
  /** Share of calls nobody answers. */
  unanswerable: number;
  /** Mean log-likelihood per graded outcome. */
  logLikelihood: number;
}

const GRID: number[] = (() => {
  const points: number[] = [];
  for (let b = -GRID_LIMIT_LOGITS; b <= GRID_LIMIT_LOGITS + 1e-9; b += GRID_STEP_LOGITS) points.push(b);
  return points;
})();

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Prior weights on {@link GRID}, then the unanswerable mass last. */
function prior(sd: number, unanswerable: number): number[] {
  const weights = GRID.map((b) => Math.exp(-0.5 * (b / sd) ** 2));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return [...weights.map((w) => (w / total) * (1 - unanswerable)), unanswerable];
}

/** P(pass) of a model of this ability at grid point `g`; the last point is the unanswerable call. */
function passAt(ability: number, g: number): number {
  return g < GRID.length ? logistic(ability - (GRID[g] as number)) : 0;
}

/**
 * Fits one ability per model, one difficulty spread and one unanswerable share to the rows.
 *
 * @remarks
 * Each call's difficulty is integrated out on a grid (marginal likelihood), so the fit has the
 * planner's own shape: the same normal plus the same point mass nobody answers.
 */
export function fitRasch(rows: readonly OutcomeRow[], models: readonly string[], fixed: { sdLogits?: number; unanswerable?: number } = {}, rounds: number = FIT_ROUNDS): RaschFit {
  const abilities = new Map(models.map((model) => [model, 0]));
  let sd = fixed.sdLogits ?? 1.5;
  let unanswerable = fixed.unanswerable ?? 0.05;
  let logLikelihood = 0;
  const points = GRID.length + 1;
  for (let round = 0; round < rounds; round++) {
    const weights = prior(sd, unanswerable);
    // Expectation: each call's posterior over the grid.
    const posterior: number[][] = [];
    logLikelihood = 0;
    for (const row of rows) {
      const post = new Array<number>(points);
      let total = 0;
      for (let g = 0; g < points; g++) {
        let w = weights[g] as number;
        for (const model of models) {
          const p = passAt(abilities.get(model) as number, g);
          w *= row.m[model]?.c === 1 ? p : 1 - p;
        }
        post[g] = w;
        total += w;
      }
      logLikelihood += Math.log(total);
      posterior.push(post.map((w) => w / total));
    }
    // Maximisation: the unanswerable share, the spread, then one Newton step per ability.
    unanswerable = fixed.unanswerable ?? posterior.reduce((sum, post) => sum + (post[points - 1] as number), 0) / rows.length;
    let second = 0;
    let mass = 0;
    for (const post of posterior) {
      for (let g = 0; g < GRID.length; g++) {
        second += (post[g] as number) * (GRID[g] as number) ** 2;
        mass += post[g] as number;
      }
    }
    sd = fixed.sdLogits ?? Math.sqrt(second / mass);
    for (const model of models) {
      const ability = abilities.get(model) as number;
      let gradient = 0;
      let curvature = 0;
      rows.forEach((row, i) => {
        const post = posterior[i] as number[];
        const c = row.m[model]?.c === 1 ? 1 : 0;
        for (let g = 0; g < GRID.length; g++) {
          const p = passAt(ability, g);
          gradient += (post[g] as number) * (c - p);
          curvature += (post[g] as number) * p * (1 - p);
        }
      });
      abilities.set(model, ability + gradient / Math.max(curvature, 1e-9));
    }
  }
  return { abilities: Object.fromEntries(abilities), sdLogits: sd, unanswerable, logLikelihood: logLikelihood / (rows.length * models.length) };
}

/** What a cascade in price order sees at one model: calls every cheaper model failed, and how many it passed. */
export interface ClimbRow {
  model: string;
  /** Calls every cheaper model failed (all calls for the cheapest). */
  reached: number;
  /** Of those, the share this model passed. */
  observed: number;
  /** The same share as the fitted one-difficulty model predicts it. */
  predicted: number;
}

/**
 * Observed against predicted P(model passes | every cheaper model failed), for each model in `order`.
 *
 * @remarks
 * The prediction integrates the fitted prior: the share of calls that reach the model and that it
 * passes, over the share that reach it. This is what the planner relies on when it decides to climb.
 */
export function climbTable(rows: readonly OutcomeRow[], order: readonly string[], fit: RaschFit): ClimbRow[] {
  const weights = prior(fit.sdLogits, fit.unanswerable);
  let reachWeights = weights.slice();
  let reaching = [...rows];
  return order.map((model) => {
    const ability = fit.abilities[model] as number;
    let reachMass = 0;
    let passMass = 0;
    reachWeights.forEach((w, g) => {
      reachMass += w;
      passMass += w * passAt(ability, g);
    });
    const passed = reaching.filter((row) => row.m[model]?.c === 1).length;
    const result: ClimbRow = { model, reached: reaching.length, observed: reaching.length ? passed / reaching.length : Number.NaN, predicted: passMass / reachMass };
    reachWeights = reachWeights.map((w, g) => w * (1 - passAt(ability, g)));
    reaching = reaching.filter((row) => row.m[model]?.c !== 1);
    return result;
  });
}

/** Two models' joint failure: how often both fail a call, observed and as the fit predicts. */
export interface PairRow {
  a: string;
  b: string;
  observed: number;
  predicted: number;
}

/** For every pair of models, the share of calls both fail, observed and as the fit's prior predicts. */
export function jointFailures(rows: readonly OutcomeRow[], models: readonly string[], fit: RaschFit): PairRow[] {
  const weights = prior(fit.sdLogits, fit.unanswerable);
  const pairs: PairRow[] = [];
  for (let i = 0; i < models.length; i++) {
    for (let j = i + 1; j < models.length; j++) {
      const a = models[i] as string;
      const b = models[j] as string;
      const observed = rows.filter((row) => row.m[a]?.c !== 1 && row.m[b]?.c !== 1).length / rows.length;
      const predicted = weights.reduce((sum, w, g) => sum + w * (1 - passAt(fit.abilities[a] as number, g)) * (1 - passAt(fit.abilities[b] as number, g)), 0);
      pairs.push({ a, b, observed, predicted });
    }
  }
  return pairs;
}

/** The summary the world generator is tuned to. */
export interface MisfitSummary {
  fit: RaschFit;
  climb: ClimbRow[];
  pairs: PairRow[];
  /** Mean over pairs of observed − predicted P(both fail), probability points (near 0: the fitted spread absorbs the average). */
  jointFailureExcess: number;
  /** The same mean over pairs of models in one group (lineage), and over pairs across groups; NaN when there are none. */
  withinGroupExcess: number;
  acrossGroupExcess: number;
  /**
   * Mean over models past the cheapest (weighted by calls reached) of observed − predicted
   * P(pass | every cheaper model failed): negative when climbing pays off less than the fit expects.
   */
  climbShortfall: number;
  /** Calls no model answers, observed and predicted shares of all calls. */
  nobodyAnswers: { observed: number; predicted: number };
}

export interface MisfitOptions {
  /** The group (lineage) a model belongs to; each model its own group when absent. */
  groupOf?: (model: string) => string;
  /** Holds the spread or the unanswerable share at these values instead of fitting them (the router's prior). */
  fixed?: { sdLogits?: number; unanswerable?: number };
  /** Rounds of the fit; fewer settle to about two decimals, enough for a test. */
  rounds?: number;
}

/**
 * Fits the one-difficulty model to the rows and sets its predictions beside what the rows show.
 *
 * @remarks
 * `order` is the price order the cascade climbs (see {@link priceOrder}); the fit uses the same models.
 */
export function misfit(rows: readonly OutcomeRow[], order: readonly string[], options: MisfitOptions = {}): MisfitSummary {
  const fit = fitRasch(rows, order, options.fixed, options.rounds);
  const climb = climbTable(rows, order, fit);
  const pairs = jointFailures(rows, order, fit);
  const past = climb.slice(1).filter((row) => row.reached > 0);
  const reachedTotal = past.reduce((sum, row) => sum + row.reached, 0);
  const weights = prior(fit.sdLogits, fit.unanswerable);
  const predictedNobody = weights.reduce((sum, w, g) => sum + w * order.reduce((product, model) => product * (1 - passAt(fit.abilities[model] as number, g)), 1), 0);
  const groupOf = options.groupOf ?? ((model: string) => model);
  const meanExcess = (list: PairRow[]) => (list.length ? list.reduce((sum, pair) => sum + pair.observed - pair.predicted, 0) / list.length : Number.NaN);
  return {
    fit,
    climb,
    pairs,
    jointFailureExcess: meanExcess(pairs),
    withinGroupExcess: meanExcess(pairs.filter((pair) => groupOf(pair.a) === groupOf(pair.b))),
    acrossGroupExcess: meanExcess(pairs.filter((pair) => groupOf(pair.a) !== groupOf(pair.b))),
    climbShortfall: reachedTotal ? past.reduce((sum, row) => sum + row.reached * (row.observed - row.predicted), 0) / reachedTotal : 0,
    nobodyAnswers: { observed: rows.filter((row) => order.every((model) => row.m[model]?.c !== 1)).length / rows.length, predicted: predictedNobody },
  };
}

/** A recorded model's lineage: the letters its slug starts with (`llama3.1-8b` → `llama`, `gpt-4o` → `gpt`). */
export function lineageOf(model: string): string {
  return /^[a-z]+/i.exec(model)?.[0] ?? model;
}

/** Models cheapest first by their mean cost per call over the rows (the replay's price list when no $/M price is given). */
export function priceOrder(rows: readonly OutcomeRow[], models: readonly string[]): string[] {
  const mean = (model: string) => rows.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0) / rows.length;
  return models
    .map((model, index) => ({ model, index, cost: mean(model) }))
    .sort((a, b) => a.cost - b.cost || a.index - b.index)
    .map((entry) => entry.model);
}
