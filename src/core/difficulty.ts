/**
 * Paired evidence: what the rungs that tried one call say about how hard that call is.
 *
 * @remarks
 * A cascade hands the dear rungs only the calls the cheap rungs failed. Scored against an average call,
 * a strong model that sees nothing but hard calls looks weak: on the recorded outcomes a naive success
 * rate orders models almost at random against their true accuracy (rank correlation about 0.05). Under
 * the Rasch model every rung's outcome on one call is evidence about that call's difficulty, so each
 * rating is updated against the difficulty all the rungs on the call implied, and
 * the cascade asks "how likely is the next rung to succeed, given that these rungs just failed?".
 * Which rungs try a call depends only on outcomes already seen, so this likelihood stays unbiased.
 *
 * The difficulty prior is a normal spread plus a small mass of *unanswerable* calls, which every model
 * fails (3.8% of the recorded prompts were answered by none of nine models; a broken question, a wrong
 * key). Without that mass the only way the model can explain a call that eight rungs failed is a very
 * hard call a strong model should still sometimes solve, so the dear rungs — which see little else —
 * were rated down for failing calls nobody could answer. With it, a long run of failures shifts belief
 * towards "unanswerable", which is also what lets the planner stop climbing.
 */
import { DIFFICULTY_SD_LOGITS, logistic, UNANSWERABLE_SHARE, type Difficulty } from './ratings';

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
  /**
   * The chance a model that cannot answer the call is right anyway (a guess among the choices of a
   * multiple-choice call; see signal/answerFormat.ts); 0 when absent.
   */
  guess?: number;
}

/**
 * The class prior over difficulty: normalised weights on {@link DIFFICULTY_GRID}, then one more weight
 * for the unanswerable calls.
 */
export function priorWeights(sd: number = DIFFICULTY_SD_LOGITS, unanswerable: number = UNANSWERABLE_SHARE, mean = 0): Float64Array {
  const points = DIFFICULTY_GRID.length;
  const weights = new Float64Array(points + 1);
  let total = 0;
  for (let i = 0; i < points; i++) {
    const z = ((DIFFICULTY_GRID[i] as number) - mean) / sd;
    weights[i] = Math.exp(-0.5 * z * z);
    total += weights[i] as number;
  }
  for (let i = 0; i < points; i++) weights[i] = ((weights[i] as number) / total) * (1 - unanswerable);
  weights[points] = unanswerable;
  return weights;
}

/**
 * P(success) at grid point `i`; the last point is the unanswerable call, which nobody answers.
 *
 * @remarks
 * With a guessing floor the model answers with the rating's chance and otherwise guesses right with
 * `guess` (the three-parameter model's lower asymptote). The unanswerable call stays at 0, so a long run
 * of failures can still say "nobody can answer this" and let the climb stop: with the floor there too,
 * every rung kept a 25% chance on a four-way choice nobody knew, and on the 9-model `train` split the
 * planner climbed on (0.9681 at 16.7% of the best single model's cost, against 0.9671 at 15.9%).
 */
function successAt(rating: number, i: number, guess = 0): number {
  if (i >= DIFFICULTY_GRID.length) return 0;
  const knows = logistic(rating - (DIFFICULTY_GRID[i] as number));
  return guess === 0 ? knows : guess + (1 - guess) * knows;
}

const PRIOR = priorWeights();

/**
 * P(success) of a model rated `rating` at every point of the grid, the unanswerable point last: what
 * {@link condition} and {@link successProbability} read, worked out once.
 *
 * @remarks
 * The planner's greedy climb asks the same few rungs again and again on one call (about n²/2 chances and
 * n conditionings for n rungs, 49 exponentials each); a profile of the 9-model replay put a fifth of its
 * time in `logistic`. A rung's curve is fixed for the call, so the planner keeps one per rung: the same
 * numbers in the same order, so every figure is bit for bit what it was.
 */
export function successCurve(rating: number, guess = 0): Float64Array {
  const curve = new Float64Array(DIFFICULTY_GRID.length + 1);
  for (let i = 0; i < curve.length; i++) curve[i] = successAt(rating, i, guess);
  return curve;
}

/**
 * {@link successCurve}, shared: the same array for the same rating and floor while it is kept. Never
 * change what it returns.
 *
 * @remarks
 * Each call plans its rungs afresh, and most rungs' ratings have not moved since the last call of the
 * class (a call rates only the rungs it tried), so the planner asked for the same few dozen curves call
 * after call, an array and 49 exponentials each. Bounded: the kept curves are dropped all at once when
 * they pass a few thousand.
 */
export function sharedSuccessCurve(rating: number, guess = 0): Float64Array {
  let kept = CURVES.get(guess);
  if (!kept) {
    if (CURVES.size >= MAX_KEPT_FLOORS) CURVES.clear();
    CURVES.set(guess, (kept = new Map()));
  }
  let curve = kept.get(rating);
  if (!curve) {
    curve = successCurve(rating, guess);
    if (kept.size >= MAX_KEPT_CURVES) kept.clear();
    kept.set(rating, curve);
  }
  return curve;
}

/** The kept curves by guessing floor (a call's format gives one of a few: 1/2, 1/4, 1/5…), then by rating. */
const CURVES = new Map<number, Map<number, Float64Array>>();
const MAX_KEPT_FLOORS = 64;
const MAX_KEPT_CURVES = 4_096;

/** Multiplies in one outcome and renormalises; returns a new array. */
export function condition(weights: Float64Array, outcome: PairedOutcome): Float64Array {
  return conditionOnCurve(weights, successCurve(outcome.rating, outcome.guess), outcome.success);
}

/** {@link condition} with the model's {@link successCurve} already worked out. */
export function conditionOnCurve(weights: Float64Array, curve: Float64Array, success: boolean): Float64Array {
  return conditionInto(new Float64Array(weights.length), weights, curve, success);
}

/**
 * {@link conditionOnCurve} written into `into` (as long as `weights`, and not `weights` itself), which it
 * returns: for the planner, which conditions on every rung of every climb it prices and keeps none of them.
 */
export function conditionInto(into: Float64Array, weights: Float64Array, curve: Float64Array, success: boolean): Float64Array {
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const p = curve[i] as number;
    into[i] = (weights[i] as number) * (success ? p : 1 - p);
    total += into[i] as number;
  }
  if (total <= 0) {
    into.set(weights);
    return into;
  }
  for (let i = 0; i < weights.length; i++) into[i] = (into[i] as number) / total;
  return into;
}

/**
 * Conditions `weights` on every outcome in turn, and says how likely the outcomes were under them: the
 * log of the product of the normalisers (the marginal likelihood, in nats).
 */
export function evidence(weights: Float64Array, outcomes: readonly PairedOutcome[]): { weights: Float64Array; logLikelihood: number } {
  let current = weights;
  let logLikelihood = 0;
  for (const outcome of outcomes) {
    const next = new Float64Array(current.length);
    let total = 0;
    for (let i = 0; i < current.length; i++) {
      const p = successAt(outcome.rating, i, outcome.guess);
      next[i] = (current[i] as number) * (outcome.success ? p : 1 - p);
      total += next[i] as number;
    }
    if (total <= 0) continue;
    for (let i = 0; i < next.length; i++) next[i] = (next[i] as number) / total;
    logLikelihood += Math.log(total);
    current = next;
  }
  return { weights: current, logLikelihood };
}

/** P(success) of a model rated `rating` on a call whose difficulty has these weights, guessing right with `guess` when it cannot answer. */
export function successProbability(weights: Float64Array, rating: number, guess = 0): number {
  let p = 0;
  for (let i = 0; i < weights.length; i++) p += (weights[i] as number) * successAt(rating, i, guess);
  return p;
}

/** {@link successProbability} with the model's {@link successCurve} already worked out. */
export function successOnCurve(weights: Float64Array, curve: Float64Array): number {
  let p = 0;
  for (let i = 0; i < weights.length; i++) p += (weights[i] as number) * (curve[i] as number);
  return p;
}

/** Compresses weights to what an observation carries: the answerable part as a normal, and the unanswerable share. */
export function summarise(weights: Float64Array): Difficulty {
  const points = DIFFICULTY_GRID.length;
  const unanswerable = weights[points] ?? 0;
  const answerable = 1 - unanswerable;
  if (answerable <= 1e-12) return { mean: 0, sd: DIFFICULTY_SD_LOGITS, unanswerable: 1 };
  let mean = 0;
  for (let i = 0; i < points; i++) mean += (weights[i] as number) * (DIFFICULTY_GRID[i] as number);
  mean /= answerable;
  let variance = 0;
  for (let i = 0; i < points; i++) variance += (weights[i] as number) * ((DIFFICULTY_GRID[i] as number) - mean) ** 2;
  return { mean, sd: Math.sqrt(variance / answerable), unanswerable };
}

/** The call's difficulty as all of its graded outcomes imply it (with the call's guessing floor, when it has one). */
export function posterior(outcomes: readonly PairedOutcome[]): Difficulty {
  let weights = PRIOR;
  for (const outcome of outcomes) weights = condition(weights, outcome);
  const guess = outcomes[0]?.guess;
  return guess ? { ...summarise(weights), guess } : summarise(weights);
}

/** The weights' share on the call nobody answers. */
export function unanswerableShare(weights: Float64Array): number {
  return weights[DIFFICULTY_GRID.length] ?? 0;
}

export function classPrior(): Float64Array {
  return PRIOR;
}
