import { describe, expect, it } from 'vitest';
import {
  classPrior,
  condition,
  conditionOnCurve,
  DIFFICULTY_GRID,
  sharedSuccessCurve,
  successCurve,
  successOnCurve,
  successProbability,
  unanswerableShare,
} from '../../../src/core/difficulty';

describe("a model's success curve, worked out once", () => {
  it('gives the planner bit for bit the chances and posteriors it gets point by point', () => {
    let weights = classPrior();
    for (const [rating, guess] of [
      [-1.3, 0],
      [0.4, 0.25],
      [2.7, 0],
      [5.9, 0.2],
    ] as const) {
      const curve = successCurve(rating, guess);
      expect(successOnCurve(weights, curve)).toBe(successProbability(weights, rating, guess));
      const failed = conditionOnCurve(weights, curve, false);
      expect([...failed]).toEqual([...condition(weights, { rating, success: false, guess })]);
      expect([...conditionOnCurve(weights, curve, true)]).toEqual([...condition(weights, { rating, success: true, guess })]);
      weights = failed;
    }
    expect(unanswerableShare(weights)).toBeGreaterThan(classPrior()[DIFFICULTY_GRID.length] as number);
  });
});

describe('sharedSuccessCurve', () => {
  it('is successCurve, the same array for the same rating and guessing floor', () => {
    for (const rating of [-6, -1.25, 0, 0.3, 2.7, 6]) {
      const shared = sharedSuccessCurve(rating);
      expect(Array.from(shared)).toEqual(Array.from(successCurve(rating)));
      expect(sharedSuccessCurve(rating)).toBe(shared);
    }
    const floored = sharedSuccessCurve(0.5, 0.25);
    expect(Array.from(floored)).toEqual(Array.from(successCurve(0.5, 0.25)));
    expect(sharedSuccessCurve(0.5, 0.25)).toBe(floored);
    expect(sharedSuccessCurve(0.5)).not.toBe(floored);
    expect(Array.from(sharedSuccessCurve(0.5, 0.2))).toEqual(Array.from(successCurve(0.5, 0.2)));
  });
});
