import { describe, expect, it } from 'vitest';
import { classPrior, conditionOnCurve, successCurve, successOnCurve, unanswerableShare } from '../../../../src/core/difficulty';
import { seededRandom, type Random } from '../../../../src/core/random';
import {
  CascadePlan,
  FAILURE_COST_MULTIPLE,
  HOLD_RELEASED_UNANSWERABLE,
  type PlanStep,
  type PlannedRung,
} from '../../../../src/core/routing/planner';
import type { Tradeoff } from '../../../../src/core/panel';

/**
 * The planner's step as it was written before it priced its climbs in a working space it reuses: an
 * array of the rungs left and a new difficulty at every level. Kept here, money only, as the reference
 * the planner must still agree with to the last bit.
 */
function referenceStep(rungs: readonly PlannedRung[], tradeoff: Tradeoff, guess: number, tried: number[], failed: number[]): PlanStep {
  const curves = rungs.map((rung) => successCurve(rung.rating, guess));
  const known = rungs.map((rung) => rung.cost).filter((cost): cost is number => cost !== null);
  const dearest = known.length ? Math.max(...known) : 0;
  const costs = rungs.map((rung) => rung.cost ?? dearest);
  const listed = rungs.map((rung) => (rung.listed === undefined ? rung.cost : rung.listed)).filter((cost): cost is number => cost !== null);
  const penalty = FAILURE_COST_MULTIPLE[tradeoff] * (listed.length ? Math.max(...listed) : dearest);
  const holds = tradeoff === 'quality';
  const mustGoOn = (remaining: number[], weights: Float64Array): boolean => {
    if (!holds) return false;
    const looksUnanswerable = unanswerableShare(weights) >= HOLD_RELEASED_UNANSWERABLE;
    return remaining.some((index) => {
      const rung = rungs[index] as PlannedRung;
      return !rung.measured && !(looksUnanswerable && rung.graded > 0 && rung.ok === 0);
    });
  };
  const climb = (remaining: number[], weights: Float64Array): { next: number | null; success: number; value: number } => {
    if (remaining.length === 0) return { next: null, success: 0, value: penalty };
    let best = -1;
    let bestRatio = Number.POSITIVE_INFINITY;
    let bestSuccess = 0;
    const firstUnmeasured = remaining.find((index) => !(rungs[index] as PlannedRung).measured);
    for (const index of remaining) {
      if (index !== firstUnmeasured && !(rungs[index] as PlannedRung).measured) continue;
      const p = successOnCurve(weights, curves[index] as Float64Array);
      const ratio = (costs[index] as number) / Math.max(p, 1e-12);
      if (ratio < bestRatio) {
        best = index;
        bestRatio = ratio;
        bestSuccess = p;
      }
    }
    const rest = remaining.filter((index) => index !== best);
    const afterFailure = conditionOnCurve(weights, curves[best] as Float64Array, false);
    const after = climb(rest, afterFailure);
    const continuation = mustGoOn(rest, afterFailure) ? after.value : Math.min(after.value, penalty);
    return { next: best, success: bestSuccess, value: (costs[best] as number) + (1 - bestSuccess) * continuation };
  };
  let weights = classPrior();
  for (const index of failed) weights = conditionOnCurve(weights, curves[index] as Float64Array, false);
  const remaining = rungs.map((_, index) => index).filter((index) => !tried.includes(index));
  const { next, success, value } = climb(remaining, weights);
  if (next === null) return { next: null, success: 0, valueIfContinued: penalty, valueIfStopped: penalty };
  if (!mustGoOn(remaining, weights) && value > penalty) {
    const stop: PlanStep = { next: null, success, valueIfContinued: value, valueIfStopped: penalty };
    return holds && remaining.some((index) => !(rungs[index] as PlannedRung).measured)
      ? { ...stop, released: { unanswerable: unanswerableShare(weights) } }
      : stop;
  }
  return { next, success, valueIfContinued: value, valueIfStopped: penalty };
}

function randomRungs(random: Random): PlannedRung[] {
  const count = 1 + Math.floor(random() * 9);
  return Array.from({ length: count }, () => {
    const graded = Math.floor(random() * 20);
    return {
      rating: random() * 8 - 4,
      cost: random() < 0.1 ? null : 10 ** (random() * 4 - 6),
      ...(random() < 0.3 ? { listed: 10 ** (random() * 4 - 6) } : {}),
      measured: random() < 0.6,
      graded,
      ok: random() < 0.3 ? 0 : Math.floor(random() * (graded + 1)),
    };
  });
}

describe('CascadePlan: its working space', () => {
  it('plans every step as the plain recursive climb did, to the last bit', () => {
    const random = seededRandom(38);
    let checked = 0;
    for (let plan = 0; plan < 400; plan++) {
      const rungs = randomRungs(random);
      const tradeoff: Tradeoff = random() < 0.5 ? 'quality' : 'economy';
      const guess = random() < 0.3 ? 0.25 : 0;
      const planner = new CascadePlan(rungs, tradeoff, undefined, guess);
      // Walk the call as the router would: try the step's rung, let it fail, ask again.
      const tried: number[] = [];
      const failed: number[] = [];
      for (;;) {
        const step = planner.step(tried, failed);
        expect(step).toStrictEqual(referenceStep(rungs, tradeoff, guess, tried, failed));
        checked++;
        if (step.next === null) break;
        tried.push(step.next);
        if (random() < 0.8) failed.push(step.next);
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });

  it('gives the same answers when other plans use the space between its steps', () => {
    const random = seededRandom(7);
    const rungs = randomRungs(random).concat(randomRungs(random));
    const alone = new CascadePlan(rungs, 'quality');
    const expected = [alone.step([], []), alone.step([0], [0]), alone.chance(1, [0])];
    const interleaved = new CascadePlan(rungs, 'quality');
    const other = new CascadePlan(randomRungs(random), 'economy');
    const first = interleaved.step([], []);
    other.step([0], [0]);
    const second = interleaved.step([0], [0]);
    other.chance(0, []);
    expect([first, second, interleaved.chance(1, [0])]).toStrictEqual(expected);
  });
});
