import { describe, expect, it } from 'vitest';
import { spendBreakdown } from '../../../src/bench/spend';
import type { OutcomeRow } from '../../../src/core/replay/outcomes';

// One class, two models: `a` costs 1 a call, `b` 10. Prompt p0: a right. p1: a wrong, b right. p2: nobody right.
const rows: OutcomeRow[] = [
  { id: 'p0', family: 'x', m: { a: { c: 1, cost: 1 }, b: { c: 1, cost: 10 } } },
  { id: 'p1', family: 'x', m: { a: { c: 0, cost: 1 }, b: { c: 1, cost: 10 } } },
  { id: 'p2', family: 'x', m: { a: { c: 0, cost: 1 }, b: { c: 0, cost: 10 } } },
];

describe('where the money went', () => {
  it('sorts each of Rung\'s paid attempts by what it bought, and skips rows that only settle a verdict', () => {
    const decisions = [
      { call: 'p0', model: 'b', verdict: 'pass' },
      { call: 'p1', model: 'a', verdict: 'fail' },
      { call: 'p1', model: 'b', verdict: 'pass' },
      { call: 'p1', model: 'b', verdict: 'pass', final: true },
      { call: 'p2', model: 'a', verdict: 'fail' },
      { call: 'p2', model: 'b', verdict: 'fail' },
    ];
    const spend = spendBreakdown(rows, ['a', 'b'], decisions);
    expect(spend.rung).toEqual({ passed: 20, failedBeforePass: 1, nobodyAnswers: 11, gaveUp: 0 });
    expect(spend.byModel.get('x b')?.rung).toEqual({ tries: 3, passes: 2, cost: 30 });
  });

  it('counts a failure on a prompt some model answers, that the policy never passed, as given up on', () => {
    const spend = spendBreakdown(rows, ['a', 'b'], [{ call: 'p1', model: 'a', verdict: 'fail' }]);
    expect(spend.rung.gaveUp).toBe(1);
  });

  it('replays the simple learner cheapest first until one passes', () => {
    const spend = spendBreakdown(rows, ['a', 'b'], []);
    // a on all three, b on p1 and p2 (a failed both): 3 × 1 + 2 × 10.
    expect(spend.byModel.get('x a')?.learner).toEqual({ tries: 3, passes: 1, cost: 3 });
    expect(spend.byModel.get('x b')?.learner).toEqual({ tries: 2, passes: 1, cost: 20 });
    expect(spend.learner).toEqual({ passed: 11, failedBeforePass: 1, nobodyAnswers: 11, gaveUp: 0 });
  });
});
