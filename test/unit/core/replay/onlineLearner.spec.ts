import { describe, expect, it } from 'vitest';
import type { ModelOutcome, OutcomeRow } from '../../../../src/core/replay/outcomes';
import { onlineLearnerOrder, runOnlineLearner, type OnlineLearnerInput } from '../../../../src/core/replay/onlineLearner';
import { runReplay } from '../../../../src/core/replay/replay';
import { makeOutcomes } from '../../support/outcomesFixture';

/** Rows of one class where `right(model, index)` says whether the model answers prompt `index`. */
function handRows(count: number, models: string[], right: (model: string, index: number) => boolean): OutcomeRow[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `p${index}`,
    family: 'x',
    m: Object.fromEntries(models.map((model): [string, ModelOutcome] => [model, { c: right(model, index) ? 1 : 0, cost: 0 }])),
  }));
}

function learnerInput(rows: OutcomeRow[], prices: Record<string, number>): OnlineLearnerInput {
  return {
    rows,
    models: Object.entries(prices).map(([slug, price]) => ({ slug, price })),
    classOf: (row) => row.family,
    verdict: (outcome) => outcome.c === 1,
    costOf: (slug) => prices[slug] as number,
  };
}

describe('the simple online learner', () => {
  it('skips a model at a class once it has failed its first 8 tries there', () => {
    // cheap fails everything, dear answers everything. Prompts 0–7: cheap (unmeasured, cheaper) opens
    // and fails, dear passes: 8 × (1 + 10). After 8 tries cheap's rate is 0.5 / 9 < 0.1, so prompts 8
    // and 9 go straight to dear: 2 × 10. 108 in all, 18 attempts, every prompt answered.
    const rows = handRows(10, ['cheap', 'dear'], (model) => model === 'dear');
    expect(runOnlineLearner(learnerInput(rows, { cheap: 1, dear: 10 }))).toEqual({ accuracy: 1, cost: 108, attempts: 18 });
  });

  it('orders models past 8 tries by price over their smoothed pass rate, the others by price', () => {
    // cheap (price 1) answers every fourth prompt, mid (price 3) every prompt. Prompts 0–7: cheap opens
    // (1 < 3); it passes 0 and 4, mid answers the other six: 8 + 18 = 26. Then cheap has 8 tries and 2
    // passes: key 1 / (2.5 / 9) = 3.6 > mid's price 3, so mid opens prompt 8, and again at prompt 9 (7
    // tries, still keyed by price). From then on mid's key is 3 / (8.5 / 9) ≈ 3.18 < 3.6 and mid keeps
    // opening: prompts 8–19 cost 12 × 3 = 36. 62 in all, 8 + 6 + 12 = 26 attempts.
    const rows = handRows(20, ['cheap', 'mid'], (model, index) => model === 'mid' || index % 4 === 0);
    expect(runOnlineLearner(learnerInput(rows, { cheap: 1, mid: 3 }))).toEqual({ accuracy: 1, cost: 62, attempts: 26 });
  });

  it('counts a prompt wrong when the check passed a wrong answer, and stops there', () => {
    const rows = handRows(1, ['cheap', 'dear'], (model) => model === 'dear');
    const input = { ...learnerInput(rows, { cheap: 1, dear: 10 }), verdict: () => true };
    expect(runOnlineLearner(input)).toEqual({ accuracy: 0, cost: 1, attempts: 1 });
  });

  it('keeps panel order between models with the same key', () => {
    const none = () => ({ passes: 0, tries: 0 });
    expect(
      onlineLearnerOrder(
        [
          { slug: 'b', price: 2 },
          { slug: 'a', price: 2 },
          { slug: 'c', price: 1 },
        ],
        none,
      ),
    ).toEqual(['c', 'b', 'a']);
  });

  it('is scored in every replay beside the policy, under the same check', async () => {
    const rows = makeOutcomes();
    const models = ['tiny', 'small', 'mid', 'large'];
    const summary = await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1 });
    // Under a perfect check the learner stops only at a right answer, so it is right exactly where some
    // model it had not skipped was right: no more often than the oracle, and at least once per attempt chain.
    expect(summary.onlineLearner.attempts).toBeGreaterThanOrEqual(rows.length);
    expect(summary.onlineLearner.accuracy).toBeLessThanOrEqual(summary.oracle.accuracy);
    expect(summary.onlineLearner.accuracy).toBeGreaterThan(0.5);
    expect(summary.onlineLearner.cost).toBeGreaterThan(summary.oracle.cost);
  });
});
