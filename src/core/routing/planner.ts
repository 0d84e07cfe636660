/**
 * The cascade planner: given the failures so far on this call, which rung to try next — or whether to
 * stop climbing.
 *
 * @remarks
 * A plain cheapest-first cascade reaches the oracle's accuracy on the recorded outcomes but spends 26%
 * of the best single model's cost against the oracle's 7%: the rest is paid for rungs that fail, and
 * most of it for calls no model can answer, which climb the whole ladder. The planner prices that.
 * Each rung costs its price and succeeds with the probability the paired evidence gives it *given the
 * failures already seen on this call* (a call three rungs failed is a hard call, and the next rung's
 * chance shrinks accordingly). The next rung is the one with the least expected cost of a verified
 * success, price over that probability — the order that is optimal for independent trials, re-taken
 * after every failure because the trials are not independent. Climbing stops when the expected cost of
 * going on exceeds what an unanswered call costs: {@link FAILURE_COST_MULTIPLE} times the dearest rung's
 * list price for this call.
 *
 * The user's wait is a cost too, where the panel values it (`routing.waitWorth`, waitCost.ts): each rung
 * then costs its price plus its planned wait at that value, and an unanswered call costs, besides the
 * money multiple, {@link WAIT_FAILURE_MULTIPLE} of the slowest rung's usual wait, so the same rule orders
 * the rungs and decides where to stop. At a value of 0 the plan is exactly the money-only plan (the
 * wait's term is left out, not added as zeros).
 *
 * Below the gate of graded evidence a rung is never reordered: unmeasured rungs are tried in the
 * ranking's order (measured ones may go before them when they are the better bet), so one bad streak
 * cannot reroute a class. In `quality` the call does not stop while one remains either, so every rung
 * gets measured — except where a try would measure nothing: on a call that looks unanswerable
 * ({@link HOLD_RELEASED_UNANSWERABLE}) the hold does not bind a rung that has failed every try it has had
 * at the class, and the rung is judged like a measured one. `economy` lets a call stop before them,
 * judged at the rating the router plans them at
 * (their presumed prior, router.ts): measuring the dearest rungs of a panel costs 8 calls each on calls
 * every cheaper rung failed, and that cold start alone was about 2 points of the best single model's
 * cost on the eleven-model world, a fifth of economy's spend there (BENCHMARKS.md, "Routing quality out of sample").
 */
import type { Tradeoff } from '../panel';
import { classPrior, conditionInto, sharedSuccessCurve, successOnCurve, unanswerableShare } from '../difficulty';
import { valuedWaits, WAIT_FAILURE_MULTIPLE, type PlannedWait } from './waitCost';

/**
 * What leaving a call unanswered costs, in multiples of the dearest rung's price.
 *
 * @remarks
 * `quality` keeps climbing while the expected cost of the rest of the climb is under 10 dearest-rung
 * prices; `economy` gives up sooner, at 3. `quality` was 20, read off all the recorded outcomes; it is
 * now chosen on the `train` split alone, by a rule stated before this choice (BENCHMARKS.md, "Routing quality out of sample"):
 * the largest multiple on the grid 3, 5, 8, 10, 12, 15, 20, 40 whose cost on `train` is no more than the
 * simple online learner's. With ratings that follow the presumed prior (ratings.ts), 10 costs 17.58%
 * of the best single model on `train` against the learner's 17.6%, and 12 costs 17.8%. At 20 the planner
 * kept buying a dear rung's 2–3% chance on calls six cheaper rungs had failed, which on data with more
 * calls nobody answers made Rung dearer than the learner. `economy`'s 3 was read off all the outcomes
 * before that work; since economy may stop before rungs below the gate, the rule "the least multiple on
 * the grid whose accuracy on `train` is within 2 points of quality's" (the out-of-sample targets ask economy
 * for 0.95 where they ask quality for 0.97) confirms it: 0.9530 at 11.4% against quality's 0.9693 at 17.6%.
 * Since quality releases its hold on calls that look unanswerable, every multiple up to 40 costs less
 * than the learner on `train`, so the first rule no longer binds; 10 stays because from 12 up Rung is
 * dearer than the learner on the generated worlds it is asked to beat (BENCHMARKS.md).
 *
 * The price multiplied is the dearest rung's list price for this call, not what its attempts have been
 * observed to cost at the class: what an answer is worth does not grow with how long the answers of its
 * class run. Priced from the observed price, code generation (long answers, the dearest calls) made
 * quality climb furthest exactly where each try costs most: on the eleven-model world shaped after the
 * unseen data, code took three quarters of the spend. With the list price that world costs 12.8% of
 * the best single model instead of 15.2% (0.0014 less accurate), and 10 was checked again over 8, 10,
 * 12 and 15 by one rule on `train` and every generated world at once (BENCHMARKS.md, "Defaults that
 * hold off the generated worlds").
 */
export const FAILURE_COST_MULTIPLE: Record<Tradeoff, number> = { quality: 10, economy: 3 };

/**
 * The posterior share of "nobody can answer this" at which `quality`'s hold on rungs below the gate no
 * longer binds a rung that has failed every try it has had at the class.
 *
 * @remarks
 * Where the cheap rungs answer nearly every answerable call, the only calls that reach the dear rungs
 * are ones nobody answers, and the hold paid for 8 of them per dear rung and class: about 1.4 points of
 * the best single model's cost on the eleven-model world, for failures that say nothing about the rung.
 * Releasing the hold on every call that looks unanswerable saved that but dropped `test` accuracy from
 * 0.9531 to 0.9498: in triviaqa gpt-4o answers a third of the calls gpt-4o-mini fails, yet each looks
 * unanswerable, so it was never tried. A rung that has passed once keeps the hold; one that has failed
 * its every try (at least one) on such calls is given up on them by price and chance like a measured rung,
 * and on calls that do not look unanswerable the hold still measures it. "At least one try" and 0.5
 * were chosen on `train` by a rule stated first (the least `train` cost with accuracy within 0.001 of
 * the hold's; grids 0.5/0.7/0.9/0.97 and 1/2/3/4/6 tries); BENCHMARKS.md, "Routing quality out of sample".
 *
 * 0.4 since: 0.5 was the lowest point of that grid, so the rule had picked its edge. Where a class has
 * many calls nobody answers and cheap rungs that fail often (code on the eleven-model world with letter
 * habits: a tenth unanswerable, cheap rungs right 10–40% of the time), the calls that reach the dear
 * rungs after six or seven failures mostly sit between 0.4 and 0.5, and the hold bought tries of the
 * two dearest rungs there that passed about as rarely as on the calls past 0.5. Grid 0.2/0.3/0.4/0.5,
 * chosen by a rule stated first on `train`, every generated world and that world's seeds 21–60 at once
 * (BENCHMARKS.md, "Defaults that hold off the generated worlds"): 0.2 and 0.3 did the same as 0.4 on
 * `train` and every world but that one, where they won one seed fewer against the simple learner.
 */
export const HOLD_RELEASED_UNANSWERABLE = 0.4;

export interface PlannedRung {
  /** Rating (logits) the planner believes: measured, or the prior below the gate. */
  rating: number;
  /** USD for this call, as planned (what its attempts at the class have cost, or its list price); null when unknown. */
  cost: number | null;
  /**
   * USD for this call at its list price, when that differs from {@link PlannedRung.cost}: what an
   * unanswered call is priced from. Absent: the cost is the list price.
   */
  listed?: number | null;
  /** Whether it has passed the gate of graded evidence: in `quality` a call may stop only before such rungs. */
  measured: boolean;
  /** Graded tries at the class so far, and passes among them: a rung below the gate that has only failed is not held for on a call that looks unanswerable. */
  graded: number;
  ok: number;
}

export interface PlanStep {
  /** The rung to try next, or null to stop climbing. */
  next: number | null;
  /** P(success) of that rung given the failures so far. */
  success: number;
  /** Expected cost of going on (USD plus the failure penalty), and of stopping now. */
  valueIfContinued: number;
  valueIfStopped: number;
  /**
   * On a stop in `quality` before rungs below the gate: the call's posterior share of "unanswerable",
   * which released the hold (every such rung left had failed each try it had at the class).
   */
  released?: { unanswerable: number };
}

/** Plans one call's cascade over its rungs (indices into the ranking's candidates). */
export class CascadePlan {
  private readonly costs: number[];
  /** Each rung's chance at every difficulty, worked out once per call (see {@link successCurve}). */
  private readonly curves: Float64Array[];
  private readonly penalty: number;
  /** Whether a rung below the gate keeps the climb going (`quality`) or may be given up on like a measured one (`economy`). */
  private readonly holdsBelowGate: boolean;
  /** Whether the user's wait is priced in this plan; and the same call planned on money alone, once asked for. */
  private readonly weighsWait: boolean;
  private moneyOnly: CascadePlan | undefined;

  constructor(
    private readonly rungs: readonly PlannedRung[],
    private readonly tradeoff: Tradeoff,
    private readonly prior: Float64Array = classPrior(),
    /** The call's guessing floor (signal/answerFormat.ts): every rung's chance is at least this on an answerable call. */
    private readonly guess = 0,
    /** The rungs' planned waits and what the user's wait is worth; absent (or worth 0), money alone is planned. */
    private readonly wait?: PlannedWait,
    curves?: Float64Array[],
  ) {
    this.holdsBelowGate = tradeoff === 'quality';
    const known = rungs.map((rung) => rung.cost).filter((cost): cost is number => cost !== null);
    const dearest = known.length ? Math.max(...known) : 0;
    // An unknown price is planned as the dearest known one: the rung is not free, but nothing says it is dearer.
    const money = rungs.map((rung) => rung.cost ?? dearest);
    // What an unanswered call costs is priced from the list prices: an answer is worth no more where a class's answers run long.
    const listed = rungs
      .map((rung) => (rung.listed === undefined ? rung.cost : rung.listed))
      .filter((cost): cost is number => cost !== null);
    const dearestListed = listed.length ? Math.max(...listed) : dearest;
    this.curves = curves ?? rungs.map((rung) => sharedSuccessCurve(rung.rating, guess));
    const waits = valuedWaits(wait, rungs.length);
    this.weighsWait = waits !== undefined;
    if (waits === undefined) {
      this.costs = money;
      this.penalty = FAILURE_COST_MULTIPLE[tradeoff] * dearestListed;
    } else {
      this.costs = money.map((usd, index) => usd + (waits.each[index] as number));
      this.penalty = FAILURE_COST_MULTIPLE[tradeoff] * dearestListed + WAIT_FAILURE_MULTIPLE[tradeoff] * Math.max(0, ...waits.usual);
    }
  }

  /** The same call planned on money alone, sharing this plan's curves: where it would open if the wait were worth nothing. */
  withoutWait(): CascadePlan {
    // Built once: the router asks for it whenever it picks an opener.
    this.moneyOnly ??= this.weighsWait ? new CascadePlan(this.rungs, this.tradeoff, this.prior, this.guess, undefined, this.curves) : this;
    return this.moneyOnly;
  }

  /** The next rung to try, given the rungs already tried (`tried`) and which of them failed (`failed`). */
  step(tried: readonly number[], failed: readonly number[]): PlanStep {
    const weights = this.afterFailures(failed);
    const left = SCRATCH.rungsLeft(this.rungs.length);
    let remaining = 0;
    for (let index = 0; index < this.rungs.length; index++) {
      left[index] = tried.includes(index) ? 0 : 1;
      remaining += left[index] as number;
    }
    if (remaining === 0) return { next: null, success: 0, valueIfContinued: this.penalty, valueIfStopped: this.penalty };
    const value = this.climb(weights, 0);
    const { next, success } = SCRATCH;
    const mustGoOn = this.mustGoOn(weights);
    if (!mustGoOn && value > this.penalty) {
      const stop: PlanStep = { next: null, success, valueIfContinued: value, valueIfStopped: this.penalty };
      return this.holdsBelowGate && this.anyLeftUnmeasured() ? { ...stop, released: { unanswerable: unanswerableShare(weights) } } : stop;
    }
    return { next, success, valueIfContinued: value, valueIfStopped: this.penalty };
  }

  /** The call's difficulty once the rungs in `failed` have failed it (in the scratch space: read it before the next one). */
  private afterFailures(failed: readonly number[]): Float64Array {
    let weights = this.prior;
    for (const index of failed) {
      const curve = this.curves[index];
      if (curve) weights = conditionInto(SCRATCH.failure(weights), weights, curve, false);
    }
    return weights;
  }

  /** P(success) of rung `index` given the rungs in `failed` have failed this call. */
  chance(index: number, failed: readonly number[]): number {
    const curve = this.curves[index];
    return curve ? successOnCurve(this.afterFailures(failed), curve) : 0;
  }

  /**
   * Whether the call may not stop before the rungs left: the tradeoff holds rungs below the gate and one
   * of them is still held on this call (see {@link HOLD_RELEASED_UNANSWERABLE}).
   */
  private mustGoOn(weights: Float64Array): boolean {
    if (!this.holdsBelowGate) return false;
    const looksUnanswerable = unanswerableShare(weights) >= HOLD_RELEASED_UNANSWERABLE;
    const left = SCRATCH.left;
    for (let index = 0; index < this.rungs.length; index++) {
      const rung = this.rungs[index] as PlannedRung;
      if (!left[index] || rung.measured) continue;
      const onlyFailed = rung.graded > 0 && rung.ok === 0;
      if (!(looksUnanswerable && onlyFailed)) return true;
    }
    return false;
  }

  /** Whether a rung below the gate is among the rungs left. */
  private anyLeftUnmeasured(): boolean {
    const left = SCRATCH.left;
    for (let index = 0; index < this.rungs.length; index++) if (left[index] && !(this.rungs[index] as PlannedRung).measured) return true;
    return false;
  }

  /**
   * The expected cost of climbing on from here over the rungs left, by the greedy rule (the rung with the
   * least cost per chance of success next, stopping wherever stopping is cheaper and allowed). At depth 0
   * the rung it would try and its chance are left in {@link SCRATCH} (`next`, `success`).
   *
   * @remarks
   * The rungs left are {@link Scratch.left}, in the ranking's order: each level takes its rung out for the
   * levels below it and puts it back, and conditions into its own level's array.
   */
  private climb(weights: Float64Array, depth: number): number {
    const left = SCRATCH.left;
    let any = false;
    // Unmeasured rungs keep the ranking's order (the ladder at cold start): only the first of them is
    // a choice, so a prior can never reorder what the gate says is not yet known.
    let firstUnmeasured = -1;
    for (let index = 0; index < this.rungs.length; index++) {
      if (!left[index]) continue;
      any = true;
      if (!(this.rungs[index] as PlannedRung).measured) {
        firstUnmeasured = index;
        break;
      }
    }
    if (!any) return this.penalty;
    let best = -1;
    let bestRatio = Number.POSITIVE_INFINITY;
    let bestSuccess = 0;
    for (let index = 0; index < this.rungs.length; index++) {
      if (!left[index] || (index !== firstUnmeasured && !(this.rungs[index] as PlannedRung).measured)) continue;
      const p = successOnCurve(weights, this.curves[index] as Float64Array);
      const ratio = (this.costs[index] as number) / Math.max(p, 1e-12);
      // The first rung left stands until a cheaper ratio beats it: with every ratio Infinity (a ledger's
      // cost per attempt near the largest number, over a chance of success below 1) none was taken, and
      // the climb read the curve of rung -1.
      if (best === -1 || ratio < bestRatio) {
        best = index;
        bestRatio = ratio;
        bestSuccess = p;
      }
    }
    left[best] = 0;
    const afterFailure = conditionInto(SCRATCH.level(depth, weights.length), weights, this.curves[best] as Float64Array, false);
    const after = this.climb(afterFailure, depth + 1);
    const mustGoOn = this.mustGoOn(afterFailure);
    left[best] = 1;
    const continuation = mustGoOn ? after : Math.min(after, this.penalty);
    if (depth === 0) {
      SCRATCH.next = best;
      SCRATCH.success = bestSuccess;
    }
    return (this.costs[best] as number) + (1 - bestSuccess) * continuation;
  }
}

/**
 * The planner's working space: which rungs a step has left, a difficulty for each level of the climb it
 * prices, and the difficulty after a call's failures.
 *
 * @remarks
 * A call's planner prices a climb several times (the opener, the opener on money alone, the rung after
 * each failure), each conditioning on every rung it passes: an array of the rungs left and a new
 * difficulty at every level made about a tenth of what a routed call allocated. A step runs to its end
 * without yielding, so one space serves every plan in the process; it grows to the largest panel seen.
 */
class Scratch {
  /** 1 for each rung (by its index in the ranking) still left to the step being priced. */
  left = new Uint8Array(0);
  /** The rung a climb at depth 0 would try next, and its chance. */
  next = -1;
  success = 0;
  private readonly levels: Float64Array[] = [];
  private readonly failures: Float64Array[] = [];
  private lastFailure = 0;

  rungsLeft(count: number): Uint8Array {
    if (this.left.length < count) this.left = new Uint8Array(count);
    return this.left;
  }

  level(depth: number, length: number): Float64Array {
    let level = this.levels[depth];
    if (!level || level.length !== length) this.levels[depth] = level = new Float64Array(length);
    return level;
  }

  /** One of two arrays in turn, so a call's failures condition from one into the other: never `weights` itself. */
  failure(weights: Float64Array): Float64Array {
    this.lastFailure = 1 - this.lastFailure;
    let into = this.failures[this.lastFailure];
    if (!into || into.length !== weights.length) this.failures[this.lastFailure] = into = new Float64Array(weights.length);
    return into === weights ? this.failure(weights) : into;
  }
}

const SCRATCH = new Scratch();
