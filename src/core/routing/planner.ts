/**
 * The cascade planner: given the rungs in order and the failures so far on this call, is the next rung
 * worth trying?
 *
 * @remarks
 * A plain cheapest-first cascade reaches the oracle's accuracy on the recorded outcomes but spends 26%
 * of the best single model's cost against the oracle's 7%: the rest is paid for rungs that fail. The
 * planner prices that: each rung costs its price and succeeds with the probability the paired evidence
 * gives it *given the failures already seen on this call*, and an unanswered call costs
 * {@link FAILURE_COST_MULTIPLE} times the dearest rung. A short dynamic programme over the remaining
 * rungs (at most 2^n states for n rungs, each a 49-point sum) says whether trying beats skipping.
 *
 * Only measured rungs (at least MIN_GRADED graded observations in the class) may be skipped: below the
 * gate the plain cascade runs, because nothing is known yet and one bad streak must not reroute a class.
 */
import type { Tradeoff } from '../panel';
import { classPrior, condition, successProbability } from './difficulty';

/**
 * What leaving a call unanswered costs, in multiples of the dearest rung's price.
 *
 * @remarks
 * `quality` keeps climbing while a rung's chance of success, given the failures so far, is above
 * roughly one in {@link FAILURE_COST_MULTIPLE.quality} per unit of its relative price; `economy` gives
 * up sooner. Both were read off the recorded outcomes (BENCHMARKS.md), not derived.
 */
export const FAILURE_COST_MULTIPLE: Record<Tradeoff, number> = { quality: 40, economy: 4 };

/** The most rungs the planner looks ahead over; beyond this the remaining rungs are always tried. */
export const MAX_PLANNED_RUNGS = 12;

export interface PlannedRung {
  /** Rating (logits) the planner believes: measured, or the prior below the gate. */
  rating: number;
  /** USD for this call; null when unknown. */
  cost: number | null;
  /** Whether the rung may be skipped (it has passed the gate of graded evidence). */
  skippable: boolean;
}

export interface PlanStep {
  try: boolean;
  /** P(success) of this rung given the failures so far. */
  success: number;
  /** Expected cost from here on if tried, and if skipped (USD plus the failure penalty). */
  valueIfTried: number;
  valueIfSkipped: number;
}

/**
 * Plans one call's cascade. Create one per call; ask {@link CascadePlan.step} rung by rung, telling it
 * which earlier rungs failed.
 */
export class CascadePlan {
  private readonly memo = new Map<number, number>();
  private readonly costs: number[];
  private readonly penalty: number;

  constructor(
    private readonly rungs: readonly PlannedRung[],
    tradeoff: Tradeoff,
  ) {
    const known = rungs.map((rung) => rung.cost).filter((cost): cost is number => cost !== null);
    const dearest = known.length ? Math.max(...known) : 0;
    // An unknown price is planned as the dearest known one: the rung is not free, but nothing says it is dearer.
    this.costs = rungs.map((rung) => rung.cost ?? dearest);
    this.penalty = FAILURE_COST_MULTIPLE[tradeoff] * dearest;
  }

  /** Whether to try rung `index`, given the indices of the earlier rungs that were tried and failed. */
  step(index: number, failed: readonly number[]): PlanStep {
    let weights = classPrior();
    let mask = 0;
    for (const f of failed) {
      const rung = this.rungs[f];
      if (!rung || f >= MAX_PLANNED_RUNGS) continue;
      weights = condition(weights, { rating: rung.rating, success: false });
      mask |= 1 << f;
    }
    const rung = this.rungs[index];
    if (!rung) return { try: false, success: 0, valueIfTried: Infinity, valueIfSkipped: this.penalty };
    const success = successProbability(weights, rung.rating);
    if (!rung.skippable || index >= MAX_PLANNED_RUNGS || this.penalty === 0) {
      return { try: true, success, valueIfTried: NaN, valueIfSkipped: NaN };
    }
    const afterFail = condition(weights, { rating: rung.rating, success: false });
    const valueIfTried = (this.costs[index] as number) + (1 - success) * this.value(index + 1, mask | (1 << index), afterFail);
    const valueIfSkipped = this.value(index + 1, mask, weights);
    return { try: valueIfTried <= valueIfSkipped, success, valueIfTried, valueIfSkipped };
  }

  /** Least expected cost from rung `index` on, with difficulty weights after the failures in `mask`. */
  private value(index: number, mask: number, weights: Float64Array): number {
    if (index >= this.rungs.length || index >= MAX_PLANNED_RUNGS) return this.penalty;
    const key = mask * 16 + index;
    const cached = this.memo.get(key);
    if (cached !== undefined) return cached;
    const rung = this.rungs[index] as PlannedRung;
    const success = successProbability(weights, rung.rating);
    const tried = (this.costs[index] as number) + (1 - success) * this.value(index + 1, mask | (1 << index), condition(weights, { rating: rung.rating, success: false }));
    const result = rung.skippable ? Math.min(tried, this.value(index + 1, mask, weights)) : tried;
    this.memo.set(key, result);
    return result;
  }
}
