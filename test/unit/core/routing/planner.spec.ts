import { describe, expect, it } from 'vitest';
import { classPrior, condition, unanswerableShare } from '../../../../src/core/difficulty';
import { CascadePlan, HOLD_RELEASED_UNANSWERABLE, type PlannedRung } from '../../../../src/core/routing/planner';

// A cheap rung at an average rating and a rung ten times dearer rated a little below it: after the
// cheap one fails, the dear one's chance is well under the third of a chance that economy's price of an
// unanswered call (3 dearest-rung prices) asks for, and well over the tenth that quality's (10) asks for.
const cheap: PlannedRung = { rating: 0, cost: 1, measured: true, graded: 20, ok: 12 };
const dear = (measured: boolean): PlannedRung => ({ rating: -0.5, cost: 10, measured, graded: measured ? 8 : 3, ok: 1 });

describe('CascadePlan: rungs below the gate', () => {
  it('in economy gives up a rung below the gate that is a poor bet, as it would a measured one', () => {
    const measured = new CascadePlan([cheap, dear(true)], 'economy').step([0], [0]);
    const unmeasured = new CascadePlan([cheap, dear(false)], 'economy').step([0], [0]);
    expect(measured.next).toBeNull();
    expect(unmeasured).toEqual(measured);
    expect(unmeasured.valueIfContinued).toBeGreaterThan(unmeasured.valueIfStopped);
    expect(unmeasured.success).toBeLessThan(1 / 3);
  });

  it('in quality never stops while a rung below the gate remains, however poor a bet it is planned to be', () => {
    const hopeless: PlannedRung = { rating: -6, cost: 10, measured: false, graded: 0, ok: 0 };
    expect(new CascadePlan([cheap, hopeless], 'quality').step([0], [0]).next).toBe(1);
    // The same rung past the gate is given up on: the hold is the gate's, not the price's.
    expect(new CascadePlan([cheap, { ...hopeless, measured: true }], 'quality').step([0], [0]).next).toBeNull();
  });

  it('in economy still climbs to a rung below the gate that is a good bet', () => {
    const able: PlannedRung = { rating: 2, cost: 10, measured: false, graded: 0, ok: 0 };
    const step = new CascadePlan([cheap, able], 'economy').step([0], [0]);
    expect(step.next).toBe(1);
    expect(step.valueIfContinued).toBeLessThan(step.valueIfStopped);
  });
});

describe('CascadePlan: the hold released on calls that look unanswerable', () => {
  // A cheap rung that answers nearly everything answerable: when it fails, the call most likely has no answer.
  const sure: PlannedRung = { rating: 5, cost: 1, measured: true, graded: 40, ok: 39 };
  // A cheap rung that fails often: its failure says little about the call.
  const weak: PlannedRung = { rating: -1, cost: 1, measured: true, graded: 40, ok: 12 };
  const dearBelowGate = (graded: number, ok: number): PlannedRung => ({ rating: -1, cost: 10, measured: false, graded, ok });

  it('the two cheap rungs put the call on either side of the threshold', () => {
    expect(unanswerableShare(condition(classPrior(), { rating: sure.rating, success: false }))).toBeGreaterThan(HOLD_RELEASED_UNANSWERABLE);
    expect(unanswerableShare(condition(classPrior(), { rating: weak.rating, success: false }))).toBeLessThan(HOLD_RELEASED_UNANSWERABLE);
  });

  it('stops before a rung below the gate that has failed every try it had, and says what released it', () => {
    const step = new CascadePlan([sure, dearBelowGate(1, 0)], 'quality').step([0], [0]);
    expect(step.next).toBeNull();
    expect(step.valueIfContinued).toBeGreaterThan(step.valueIfStopped);
    expect(step.released?.unanswerable).toBeGreaterThan(HOLD_RELEASED_UNANSWERABLE);
  });

  it('keeps the hold for a rung that has passed once, or has had no try yet', () => {
    expect(new CascadePlan([sure, dearBelowGate(3, 1)], 'quality').step([0], [0]).next).toBe(1);
    expect(new CascadePlan([sure, dearBelowGate(0, 0)], 'quality').step([0], [0]).next).toBe(1);
  });

  it('keeps the hold on a call that does not look unanswerable, however the rung has done', () => {
    expect(new CascadePlan([weak, dearBelowGate(6, 0)], 'quality').step([0], [0]).next).toBe(1);
  });

  it('releases the hold from a posterior of 0.4 "unanswerable", not only from 0.5', () => {
    // A cheap rung whose failure leaves the call at about 0.44 "unanswerable": between the old threshold and the new.
    const fairlySure: PlannedRung = { rating: 3.5, cost: 1, measured: true, graded: 40, ok: 36 };
    const after = unanswerableShare(condition(classPrior(), { rating: fairlySure.rating, success: false }));
    expect(after).toBeGreaterThan(0.4);
    expect(after).toBeLessThan(0.5);
    const step = new CascadePlan([fairlySure, dearBelowGate(1, 0)], 'quality').step([0], [0]);
    expect(step.next).toBeNull();
    expect(step.released?.unanswerable).toBeCloseTo(after, 6);
    // Below 0.4 the same rung is still held for and measured.
    const lessSure: PlannedRung = { ...fairlySure, rating: 3 };
    expect(unanswerableShare(condition(classPrior(), { rating: lessSure.rating, success: false }))).toBeLessThan(0.4);
    expect(new CascadePlan([lessSure, dearBelowGate(1, 0)], 'quality').step([0], [0]).next).toBe(1);
  });

  it('in economy a stop before such a rung is plain price and chance, not a released hold', () => {
    const step = new CascadePlan([sure, dearBelowGate(1, 0)], 'economy').step([0], [0]);
    expect(step.next).toBeNull();
    expect(step.released).toBeUndefined();
  });
});

describe('CascadePlan: the price of an unanswered call', () => {
  it("is the dearest rung's list price times the multiple, whatever its attempts have been observed to cost at the class", () => {
    // The dear rung's answers at this class run long: observed at 10, listed at 2. After the cheap rung
    // fails, quality goes on when an unanswered call is priced at 10 × 10 and stops at 10 × 2.
    const longAnswers: PlannedRung = { rating: -0.5, cost: 10, listed: 2, measured: true, graded: 8, ok: 1 };
    const fromList = new CascadePlan([cheap, longAnswers], 'quality').step([0], [0]);
    expect(fromList.next).toBeNull();
    expect(fromList.valueIfStopped).toBeCloseTo(20, 9);
    const fromObserved = new CascadePlan([cheap, { ...longAnswers, listed: 10 }], 'quality').step([0], [0]);
    expect(fromObserved.next).toBe(1);
    expect(fromObserved.valueIfStopped).toBeCloseTo(100, 9);
  });

  it('falls back on the planned cost where no list price is known', () => {
    const unlisted: PlannedRung = { rating: -0.5, cost: 10, listed: null, measured: true, graded: 8, ok: 1 };
    expect(new CascadePlan([{ ...cheap, listed: null }, unlisted], 'quality').step([0], [0]).valueIfStopped).toBeCloseTo(100, 9);
  });
});
