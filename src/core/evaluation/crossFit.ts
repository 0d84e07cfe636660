/**
 * The doubly robust estimate's outcome model, per call and cross-fitted: what a call would cost under
 * the target, and whether the target's first answer would pass, predicted from models fitted on the
 * other calls only.
 *
 * @remarks
 * DR stays unbiased whatever its outcome model predicts, as long as the prediction for a call does not
 * depend on that call's own outcome: the weighed residual of the calls that opened with the target then
 * corrects the model on average. How much narrower DR is than IPS depends on how well the model
 * predicts each call. A per-class mean (the first outcome model) leaves every call's climb to the
 * residual; this one also reads what the call shows of itself: its size (the prompt's input tokens,
 * which every rung's price scales with) and, as an option, whether any rung answered it.
 *
 * Each call belongs to one of {@link CROSS_FIT_FOLDS} folds, by a hash of its id; a call is predicted
 * by a model fitted on the other folds, so it is never scored by a fit that read it. The fit reads
 * every call, not only those that opened with the target: each call's cost under the target is imputed
 * from the verdicts its own climb saw (`OutcomeModel.imputedCost`), which is biased where the climb did
 * not try the target, and the DR correction takes that bias back out.
 */
import type { LoggedCall } from './loggedCalls';

/** Folds of the cross-fit: each call's prediction comes from a fit on the other four fifths of the log. */
export const CROSS_FIT_FOLDS = 5;
/**
 * Calls a stratum (class, answered or not) needs in a fold's training part before its own mean is used;
 * below it the stratum borrows from the wider one (every class, then the whole log).
 */
export const MIN_STRATUM_CALLS = 20;
/** Calls a stratum needs before the cost's slope on the prompt's size is fitted rather than taken as 0. */
export const MIN_SLOPE_CALLS = 40;

/** What the cross-fit reads of the outcome model fitted on the other folds. */
export interface FoldModel {
  imputedCost(call: LoggedCall, target: string, skip?: readonly string[], stopAfter?: number): number;
  /** P(the model passes) on a call of the class, as an opener or after a failure. */
  passRate(classKey: string, model: string, opening: boolean): number;
}

/** The fold a call belongs to: FNV-1a of its id, so the same call is always in the same fold. */
export function foldOf(call: string, folds: number = CROSS_FIT_FOLDS): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < call.length; index++) {
    hash ^= call.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % folds;
}

/** Whether some rung's answer passed on the call. */
export function answered(call: LoggedCall): boolean {
  return call.attempts.some((attempt) => attempt.passed === true);
}

/**
 * Each call's size: its opener's input tokens over the mean input tokens of that model's attempts in
 * the log (1 where the rows recorded no tokens).
 *
 * @remarks
 * A prompt's input tokens are nearly the same whichever model reads it, so the size says the same of a
 * call whoever opened; dividing by the model's own mean takes out the tokenisers' differences.
 */
export function promptSizes(calls: readonly LoggedCall[]): number[] {
  const tally = new Map<string, { sum: number; count: number }>();
  for (const call of calls) {
    for (const attempt of call.attempts) {
      if (!(attempt.inputTokens !== undefined && attempt.inputTokens > 0)) continue;
      const entry = tally.get(attempt.model) ?? { sum: 0, count: 0 };
      entry.sum += attempt.inputTokens;
      entry.count++;
      tally.set(attempt.model, entry);
    }
  }
  return calls.map((call) => {
    const opener = call.attempts[0];
    const entry = opener ? tally.get(opener.model) : undefined;
    if (!opener?.inputTokens || !entry) return 1;
    return opener.inputTokens / (entry.sum / entry.count);
  });
}

interface Stratum {
  count: number;
  size: number;
  cost: number;
  sizeSquares: number;
  sizeCost: number;
  passes: number;
}

const emptyStratum = (): Stratum => ({ count: 0, size: 0, cost: 0, sizeSquares: 0, sizeCost: 0, passes: 0 });

function add(into: Map<string, Stratum>, key: string, size: number, cost: number, pass: number): void {
  const stratum = into.get(key) ?? emptyStratum();
  stratum.count++;
  stratum.size += size;
  stratum.cost += cost;
  stratum.sizeSquares += size * size;
  stratum.sizeCost += size * cost;
  stratum.passes += pass;
  into.set(key, stratum);
}

/** Per call: the predicted cost under the target (USD) and the chance its first answer passes. */
export interface CrossFitted {
  cost: number[];
  success: number[];
}

export interface CrossFitOptions {
  /** Fit apart the calls some rung answered and those none did (a far dearer climb); off: class and size alone. */
  byAnswer: boolean;
  /** Pause after this many calls of each pass. */
  callsPerSlice: number;
}

/**
 * The cross-fitted predictions for `calls` under the target: `folds[k]` is the outcome model fitted on
 * every call outside fold k.
 *
 * @remarks
 * A call's imputed cost in a training fold stops after as many attempts as its own climb made when no
 * rung answered it: the planner gives up on a call that looks unanswerable, and a climb imputed through
 * every candidate made those calls, the dearest there are, dearer still.
 */
export function* crossFitted(
  calls: readonly LoggedCall[],
  sizes: readonly number[],
  target: string,
  skip: readonly string[],
  folds: readonly FoldModel[],
  options: CrossFitOptions,
): Generator<void, CrossFitted> {
  const count = folds.length;
  const foldOfCall = calls.map((call) => foldOf(call.call, count));
  const keyOf = (call: LoggedCall): string[] => {
    const state = options.byAnswer ? (answered(call) ? 'answered' : 'unanswered') : '';
    return [`${call.classKey}\u0000${state}`, `\u0000${state}`, '\u0000'];
  };
  const training = folds.map(() => new Map<string, Stratum>());
  for (const [index, call] of calls.entries()) {
    const tried = call.attempts.find((attempt) => attempt.model === target && attempt.passed !== null);
    const stopAfter = answered(call) ? undefined : call.attempts.length;
    const keys = keyOf(call);
    for (let fold = 0; fold < count; fold++) {
      if (fold === foldOfCall[index]) continue;
      const model = folds[fold] as FoldModel;
      const cost = model.imputedCost(call, target, skip, stopAfter);
      const pass = tried ? (tried.passed ? 1 : 0) : model.passRate(call.classKey, target, answered(call));
      for (const key of keys) add(training[fold] as Map<string, Stratum>, key, sizes[index] as number, cost, pass);
    }
    if ((index + 1) % options.callsPerSlice === 0) yield;
  }
  const cost: number[] = [];
  const success: number[] = [];
  for (const [index, call] of calls.entries()) {
    const strata = training[foldOfCall[index] as number] as Map<string, Stratum>;
    const keys = keyOf(call);
    const found = keys.map((key) => strata.get(key)).find((stratum) => stratum !== undefined && stratum.count >= MIN_STRATUM_CALLS);
    const stratum = found ?? strata.get(keys[keys.length - 1] as string) ?? emptyStratum();
    cost.push(predictedCost(stratum, sizes[index] as number));
    success.push(stratum.count > 0 ? stratum.passes / stratum.count : 0);
  }
  return { cost, success };
}

/** The stratum's mean cost, moved along its least-squares slope on size to this call's size; never below 0. */
function predictedCost(stratum: Stratum, size: number): number {
  if (stratum.count === 0) return 0;
  const meanSize = stratum.size / stratum.count;
  const meanCost = stratum.cost / stratum.count;
  const spread = stratum.sizeSquares / stratum.count - meanSize * meanSize;
  if (stratum.count < MIN_SLOPE_CALLS || !(spread > 1e-9)) return meanCost;
  const slope = (stratum.sizeCost / stratum.count - meanSize * meanCost) / spread;
  return Math.max(0, meanCost + slope * (size - meanSize));
}
