/**
 * Paired evidence: what the rungs that tried one call say about how hard that call is.
 *
 * @remarks
 * A cascade hands the dear rungs only the calls the cheap rungs failed. Scored against an average call,
 * a strong model that sees nothing but hard calls looks weak: on the recorded outcomes a naive success
 * rate orders models almost at random against their true accuracy (rank correlation about 0.05). Under
 * the Rasch model every rung's outcome on one call is evidence about that call's difficulty, so each
 * rating is updated against the difficulty the *other* rungs implied (a leave-one-out posterior), and
 * the cascade asks "how likely is the next rung to succeed, given that these rungs just failed?".
 * Which rungs try a call depends only on outcomes already seen, so this likelihood stays unbiased.
 */
import { DIFFICULTY_SD_LOGITS, logistic } from '../ratings';

/** Difficulty grid, logits: ±6 covers the ±4 sd of the class prior, and ratings are clamped to ±6. */
const GRID_LIMIT_LOGITS = 6;
const GRID_STEP_LOGITS = 0.25;
export const DIFFICULTY_GRID: Float64Array = (() => {
  const points = Math.round((2 * GRID_LIMIT_LOGITS) / GRID_STEP_LOGITS) + 1;
  const grid = new Float64Array(points);
  for (let i = 0; i < points; i++) grid[i] = -GRID_LIMIT_LOGITS + i * GRID_STEP_LOGITS;
  return grid;
})();

/** One graded outcome on a call: the rating of the model that tried it, and whether it succeeded. */
export interface PairedOutcome {
  rating: number;
  success: boolean;
}

/** The class prior over difficulty, as normalised weights on {@link DIFFICULTY_GRID}. */
export function priorWeights(sd: number = DIFFICULTY_SD_LOGITS): Float64Array {
  const weights = new Float64Array(DIFFICULTY_GRID.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const z = (DIFFICULTY_GRID[i] as number) / sd;
    weights[i] = Math.exp(-0.5 * z * z);
    total += weights[i] as number;
  }
  for (let i = 0; i < weights.length; i++) weights[i] = (weights[i] as number) / total;
  return weights;
}

const PRIOR = priorWeights();

/** Multiplies in one outcome and renormalises; returns a new array. */
export function condition(weights: Float64Array, outcome: PairedOutcome): Float64Array {
  const next = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const p = logistic(outcome.rating - (DIFFICULTY_GRID[i] as number));
    next[i] = (weights[i] as number) * (outcome.success ? p : 1 - p);
    total += next[i] as number;
  }
  if (total <= 0) return weights.slice();
  for (let i = 0; i < next.length; i++) next[i] = (next[i] as number) / total;
  return next;
}

/** P(success) of a model rated `rating` on a call whose difficulty has these weights. */
export function successProbability(weights: Float64Array, rating: number): number {
  let p = 0;
  for (let i = 0; i < weights.length; i++) p += (weights[i] as number) * logistic(rating - (DIFFICULTY_GRID[i] as number));
  return p;
}

export function summarise(weights: Float64Array): { mean: number; sd: number } {
  let mean = 0;
  for (let i = 0; i < weights.length; i++) mean += (weights[i] as number) * (DIFFICULTY_GRID[i] as number);
  let variance = 0;
  for (let i = 0; i < weights.length; i++) variance += (weights[i] as number) * ((DIFFICULTY_GRID[i] as number) - mean) ** 2;
  return { mean, sd: Math.sqrt(variance) };
}

/** For each outcome, the call's difficulty as every *other* outcome on the call implies it. */
export function leaveOneOut(outcomes: readonly PairedOutcome[]): { mean: number; sd: number }[] {
  return outcomes.map((_, index) => {
    let weights = PRIOR;
    outcomes.forEach((other, j) => {
      if (j !== index) weights = condition(weights, other);
    });
    return summarise(weights);
  });
}

export function classPrior(): Float64Array {
  return PRIOR;
}
