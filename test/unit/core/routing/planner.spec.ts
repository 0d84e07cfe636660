import { describe, expect, it } from 'vitest';
import { CascadePlan, type PlannedRung } from '../../../../src/core/routing/planner';

// A cheap rung at an average rating and a rung ten times dearer rated a little below it: after the
// cheap one fails, the dear one's chance is well under the third of a chance that economy's price of an
// unanswered call (3 dearest-rung prices) asks for, and well over the tenth that quality's (10) asks for.
const cheap: PlannedRung = { rating: 0, cost: 1, measured: true };
const dear = (measured: boolean): PlannedRung => ({ rating: -0.5, cost: 10, measured });

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
    const hopeless: PlannedRung = { rating: -6, cost: 10, measured: false };
    expect(new CascadePlan([cheap, hopeless], 'quality').step([0], [0]).next).toBe(1);
    // The same rung past the gate is given up on: the hold is the gate's, not the price's.
    expect(new CascadePlan([cheap, { ...hopeless, measured: true }], 'quality').step([0], [0]).next).toBeNull();
  });

  it('in economy still climbs to a rung below the gate that is a good bet', () => {
    const able: PlannedRung = { rating: 2, cost: 10, measured: false };
    const step = new CascadePlan([cheap, able], 'economy').step([0], [0]);
    expect(step.next).toBe(1);
    expect(step.valueIfContinued).toBeLessThan(step.valueIfStopped);
  });
});
