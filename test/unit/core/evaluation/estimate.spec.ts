import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { estimatePolicy, MIN_EFFECTIVE_SAMPLE_SIZE, OutcomeModel } from '../../../../src/core/evaluation/estimate';
import { readLoggedCalls } from '../../../../src/core/evaluation/loggedCalls';
import { parsePolicy } from '../../../../src/core/evaluation/policy';
import { decisionRow } from '../../support/decisionRow';

const Z = 1.959963984540054;
const CANDIDATES = ['cheap', 'dear'];

/** One call's attempt rows: the opener with its propensity, then each later rung (propensity 1). */
function call(id: string, propensity: number, attempts: [string, 'pass' | 'fail', number][]): DecisionRow[] {
  return attempts.map(([model, verdict, cost], index) =>
    decisionRow({
      call: id,
      class: 'mmlu',
      candidates: CANDIDATES,
      model,
      rung: CANDIDATES.indexOf(model),
      escalation: attempts.slice(0, index).map(([m]) => m),
      verdict,
      cost,
      propensity: index === 0 ? propensity : 1,
      explore: index === 0 && model === 'dear',
    }),
  );
}

const lines = (rows: DecisionRow[]): string => rows.map((row) => JSON.stringify(row)).join('\n');

/**
 * Four calls: the router opened with `cheap` at 0.8 three times (a pass, a fail climbing to `dear`, a
 * pass) and explored `dear` at 0.2 once (a pass).
 */
const fourCalls = lines([
  ...call('c1', 0.8, [['cheap', 'pass', 1]]),
  ...call('c2', 0.8, [
    ['cheap', 'fail', 1],
    ['dear', 'pass', 10],
  ]),
  ...call('c3', 0.2, [['dear', 'pass', 10]]),
  ...call('c4', 0.8, [['cheap', 'pass', 1]]),
]);
const small = { minEffectiveSampleSize: 1 };

describe('estimatePolicy on a log small enough to work out by hand', () => {
  it('weighs the one call that opened with dear by 1/0.2 for IPS and SNIPS', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=dear'), small);
    expect(estimate.calls).toBe(4);
    expect(estimate.matching).toBe(1);
    // Weights 0, 0, 5, 0: (Σw)²/Σw² = 25/25.
    expect(estimate.effectiveSampleSize).toBeCloseTo(1, 12);
    const { ips, snips } = estimate.methods ?? expect.unreachable();
    // IPS: (5 × $10) / 4 calls; success 5 × 1 / 4.
    expect(ips.cost).toBeCloseTo(12.5, 12);
    expect(ips.success).toBeCloseTo(1.25, 12);
    // Terms 0, 0, 50, 0: sample variance 625, standard error √(625/4) = 12.5.
    expect(ips.costHigh).toBeCloseTo(12.5 + Z * 12.5, 9);
    expect(ips.costLow).toBe(0);
    // SNIPS divides by Σw = 5: exactly the one call's $10 and its pass, with nothing left to vary.
    expect(snips.cost).toBeCloseTo(10, 12);
    expect(snips.success).toBeCloseTo(1, 12);
    expect(snips.costHigh - snips.costLow).toBeCloseTo(0, 12);
  });

  it('weighs the three calls that opened with cheap by 1/0.8, counting the climb in their cost', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=cheap'), small);
    // Weights 1.25 three times: ESS 3.75² / (3 × 1.5625) = 3.
    expect(estimate.effectiveSampleSize).toBeCloseTo(3, 12);
    const { ips, snips } = estimate.methods ?? expect.unreachable();
    expect(ips.success).toBeCloseTo((1.25 * 2) / 4, 12);
    expect(ips.cost).toBeCloseTo((1.25 * (1 + 11 + 1)) / 4, 12);
    expect(snips.success).toBeCloseTo(2 / 3, 12);
    expect(snips.cost).toBeCloseTo(13 / 3, 12);
  });

  it('gives the doubly robust estimate from the outcome model, corrected by the weighed residual', () => {
    const log = readLoggedCalls(fourCalls);
    const model = OutcomeModel.fit(log.calls);
    // dear was graded twice in mmlu, both passes (once as an opener, once climbed to): pulled towards
    // its overall rate (2 + 1)/(2 + 2) = 0.75 by two calls: (2 + 2 × 0.75)/(2 + 2).
    expect(model.success('mmlu', 'dear')).toBeCloseTo(0.875, 12);
    // One call opened with dear and cost $10; each attempt of dear cost $10 and none failed, so $10.
    expect(model.cost('mmlu', 'dear')).toBeCloseTo(10, 12);
    const { dr } = estimatePolicy(log, parsePolicy('open=dear'), small).methods ?? expect.unreachable();
    // Three calls contribute 0.875; c3 contributes 0.875 + 5 × (1 − 0.875) = 1.5.
    expect(dr.success).toBeCloseTo((3 * 0.875 + 1.5) / 4, 12);
    // The cost model is exact here, so every term is $10 and the interval has no width.
    expect(dr.cost).toBeCloseTo(10, 12);
    expect(dr.costHigh - dr.costLow).toBeCloseTo(0, 12);
  });

  it('compares the doubly robust estimate with the calls as they were routed, paired call by call', () => {
    const { versusLog } = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=dear'), small);
    // As routed: $1, $11, $10, $1 (mean $5.75) and first answers pass, fail, pass, pass (0.75).
    expect(versusLog?.loggedCost).toBeCloseTo(5.75, 12);
    expect(versusLog?.loggedSuccess).toBeCloseTo(0.75, 12);
    // DR says $10 a call: 10 / 5.75 − 1 more; and 1.03125 − 0.75 on first-try success.
    expect(versusLog?.costChange).toBeCloseTo(10 / 5.75 - 1, 12);
    expect(versusLog?.successChange).toBeCloseTo(1.03125 - 0.75, 12);
    // Cost: terms t − R·y with R = 10/5.75 are 10 − R·(1, 11, 10, 1); their spread sets the bounds.
    const ratio = 10 / 5.75;
    const linear = [1, 11, 10, 1].map((y) => 10 - ratio * y);
    const mean = linear.reduce((a, b) => a + b, 0) / 4;
    const variance = linear.reduce((a, b) => a + (b - mean) ** 2, 0) / 3;
    expect(versusLog?.costChangeHigh).toBeCloseTo(ratio - 1 + (Z * Math.sqrt(variance / 4)) / 5.75, 12);
  });

  it('refuses a policy opening with a model the log never opened with, and prints no number', () => {
    const estimate = estimatePolicy(readLoggedCalls(lines(call('c1', 1, [['cheap', 'pass', 1]]))), parsePolicy('open=dear'), small);
    expect(estimate.methods).toBeUndefined();
    expect(estimate.refused).toMatch(/never opened a call with dear/);
  });

  it('refuses when the calls that opened as the policy would are worth too few once weighed', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=dear'));
    expect(estimate.effectiveSampleSize).toBeLessThan(MIN_EFFECTIVE_SAMPLE_SIZE);
    expect(estimate.methods).toBeUndefined();
    expect(estimate.refused).toMatch(/worth 1\.0 calls once weighed, fewer than 30/);
  });

  it('refuses when the target was not even a candidate on many calls, since the log gave it no chance there', () => {
    const pruned = lines([
      ...call('c1', 0.5, [['dear', 'pass', 10]]),
      decisionRow({ call: 'c2', class: 'mmlu', candidates: ['cheap'], model: 'cheap', propensity: 1, cost: 1 }),
    ]);
    const estimate = estimatePolicy(readLoggedCalls(pruned), parsePolicy('open=dear'), small);
    expect(estimate.unsupported).toBe(1);
    expect(estimate.refused).toMatch(/not among the candidates on 1 of 2 calls/);
  });

  it('refuses skip= and explore= policies, saying rung replay can check them', () => {
    const log = readLoggedCalls(fourCalls);
    expect(estimatePolicy(log, parsePolicy('skip=dear'), small).refused).toMatch(/rung replay --policy/);
    expect(estimatePolicy(log, parsePolicy('explore=0.1'), small).refused).toMatch(/rung replay --policy/);
  });
});

describe('readLoggedCalls', () => {
  it('leaves out and counts calls whose opener row carries no propensity, reading rows of every version', () => {
    const { propensity: _dropped, ...withoutPropensity } = decisionRow({ call: 'old', model: 'cheap' });
    const minimal = { call: 'v0', model: 'dear', verdict: 'pass', propensity: 0.5 };
    const text = [JSON.stringify(withoutPropensity), JSON.stringify(minimal), 'not json', ''].join('\n');
    const log = readLoggedCalls(text);
    expect(log.withoutPropensity).toBe(1);
    expect(log.unreadable).toBe(1);
    expect(log.calls.map((c) => [c.call, c.opener, c.propensity, c.firstSuccess, c.cost])).toEqual([['v0', 'dear', 0.5, true, 0]]);
  });

  it('lets a later final row settle a one-attempt call, and sums the cost of every attempt', () => {
    const settled = decisionRow({ call: 'c1', model: 'cheap', verdict: 'fail', final: true, propensity: 0.8 });
    const log = readLoggedCalls(lines([...call('c1', 0.8, [['cheap', 'pass', 1]]), settled, ...call('c2', 0.8, [['cheap', 'fail', 1], ['dear', 'pass', 10]])]));
    expect(log.calls.map((c) => [c.call, c.firstSuccess, c.cost])).toEqual([
      ['c1', false, 1],
      ['c2', false, 11],
    ]);
  });
});
