import { describe, expect, it } from 'vitest';
import { chooseChain, combinedFrontier, FamilyColumns, paretoChains, quantiles, scoreChain } from '../../../src/bench/thresholdChains';
import type { OutcomeRow } from '../../../src/core/replay/outcomes';

/** Three prompts, two models: the cheap one sure and right on the first, unsure on the rest; the dear one right on the last two. */
const rows: OutcomeRow[] = [
  { id: 'p1', family: 'f', m: { cheap: { c: 1, cost: 1, conf: -0.01 }, dear: { c: 0, cost: 10, conf: -0.5 } } },
  { id: 'p2', family: 'f', m: { cheap: { c: 0, cost: 1, conf: -0.9 }, dear: { c: 1, cost: 10, conf: -0.01 } } },
  { id: 'p3', family: 'f', m: { cheap: { c: 0, cost: 1, conf: -0.8 }, dear: { c: 1, cost: 10, conf: -0.02 } } },
];
const columns = new FamilyColumns(rows, ['cheap', 'dear']);

describe('scoreChain', () => {
  it('pays every model tried and counts the answer that stood', () => {
    expect(scoreChain(columns, { models: [0, 1], thresholds: [-0.1] })).toEqual({ correct: 3, cost: 3 + 20 });
    expect(scoreChain(columns, { models: [0, 1], thresholds: [-1] })).toEqual({ correct: 1, cost: 3 });
    expect(scoreChain(columns, { models: [1], thresholds: [] })).toEqual({ correct: 2, cost: 30 });
  });
});

describe('scoreChain: the confidence read charged where it is a second call', () => {
  it('pays for reading every model but the last, at the source\'s cost less the answer\'s', () => {
    // The cheap model's confidence is a second call costing 2 more; the dear one's read would cost 5, but it is last.
    const asked = rows.map((row) => ({
      ...row,
      m: { cheap: { ...(row.m['cheap'] as OutcomeRow['m'][string]), cost_src: 3 }, dear: { ...(row.m['dear'] as OutcomeRow['m'][string]), cost_src: 15 } },
    }));
    const paid = new FamilyColumns(asked, ['cheap', 'dear']);
    expect(scoreChain(paid, { models: [0, 1], thresholds: [-0.1] })).toEqual({ correct: 3, cost: 3 * 3 + 20 });
    expect(scoreChain(paid, { models: [1], thresholds: [] })).toEqual({ correct: 2, cost: 30 });
  });
});

describe('chain frontiers', () => {
  it('keeps only chains no other beats on both counts, and chooses by the exchange rate', () => {
    const scored = [
      { chain: { models: [0], thresholds: [] }, correct: 1, cost: 3 },
      { chain: { models: [1], thresholds: [] }, correct: 2, cost: 30 },
      { chain: { models: [0, 1], thresholds: [-0.1] }, correct: 3, cost: 23 },
    ];
    expect(paretoChains(scored).map((entry) => entry.cost)).toEqual([3, 23]);
    expect(chooseChain(scored, 0).models).toEqual([0, 1]);
    expect(chooseChain(scored, 0.05).models).toEqual([0, 1]);
    expect(chooseChain(scored, 1).models).toEqual([0]);
  });

  it('adds the families up exactly, keeping every total no other beats', () => {
    const frontier = combinedFrontier([
      [{ correct: 1, cost: 1 }, { correct: 3, cost: 5 }],
      [{ correct: 2, cost: 2 }, { correct: 4, cost: 10 }],
    ]);
    expect(frontier).toEqual([
      { correct: 3, cost: 3 },
      { correct: 5, cost: 7 },
      { correct: 7, cost: 15 },
    ]);
  });

  it('draws thresholds from the finite confidences only', () => {
    expect(quantiles(Float64Array.from([Number.NEGATIVE_INFINITY, -3, -2, -1, 0]), 4)).toEqual([-2, -1, 0]);
  });
});
