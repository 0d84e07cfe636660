import { describe, expect, it } from 'vitest';
import {
  applyObservation,
  expectedSuccess,
  MAX_STEP_LOGITS,
  RATING_LIMIT_LOGITS,
  rolePrior,
  type Observation,
} from '../../../src/core/ratings';

function observation(success: boolean, extra: Partial<Observation> = {}): Observation {
  return { model: 'm', classKey: 'plan', success, at: 0, ...extra };
}

describe('applyObservation', () => {
  it('starts from the prior the observation carries and counts the observation', () => {
    const next = applyObservation(undefined, observation(true, { prior: 1.5 }));
    expect(next.graded).toBe(1);
    expect(next.ok).toBe(1);
    expect(next.rating).toBeGreaterThan(1.5);
  });

  it('moves by rate × (observed − expected − pull) when that is inside the step clamp', () => {
    const current = { rating: 1, graded: 12, ok: 6 };
    const expected = expectedSuccess(1);
    const rate = 0.6 / (1 + 12 / 12);
    const pull = 1 / (9 * 13);
    const next = applyObservation(current, observation(false));
    expect(next.rating).toBeCloseTo(1 + rate * (0 - expected - pull), 12);
  });

  it('clamps one step to ±0.5 logits', () => {
    // At n = 0 the rate is 0.6: a surprising pass against a very hard call would move 0.6 × ~1 > 0.5.
    const up = applyObservation({ rating: -3, graded: 0, ok: 0 }, observation(true, { difficulty: { mean: 5, sd: 0.1 } }));
    expect(up.rating).toBeCloseTo(-3 + MAX_STEP_LOGITS, 12);
    const down = applyObservation({ rating: 3, graded: 0, ok: 0 }, observation(false, { difficulty: { mean: -5, sd: 0.1 } }));
    expect(down.rating).toBeCloseTo(3 - MAX_STEP_LOGITS, 12);
  });

  it('keeps the rating within ±6 logits', () => {
    const top = applyObservation({ rating: 5.9, graded: 0, ok: 0 }, observation(true, { difficulty: { mean: 9, sd: 0.1 } }));
    expect(top.rating).toBe(RATING_LIMIT_LOGITS);
    const bottom = applyObservation({ rating: -5.9, graded: 0, ok: 0 }, observation(false, { difficulty: { mean: -9, sd: 0.1 } }));
    expect(bottom.rating).toBe(-RATING_LIMIT_LOGITS);
  });

  it('does not move a rating or its drift surprise on a weightless observation, yet counts it', () => {
    const still = applyObservation({ rating: 2, graded: 3, ok: 3, surprise: -0.1 }, observation(true, { weight: 0 }));
    expect(still).toEqual({ rating: 2, graded: 4, ok: 4, surprise: -0.1 });
  });

  it('pulls toward the N(0, 3²) prior with a force that falls as 1/(n+1)', () => {
    const expectedAtTwo = expectedSuccess(2);
    const fresh = applyObservation({ rating: 2, graded: 0, ok: 0 }, observation(true));
    const seasoned = applyObservation({ rating: 2, graded: 100, ok: 100 }, observation(true));
    expect(fresh.rating - 2).toBeCloseTo(0.6 * (1 - expectedAtTwo - 2 / 9), 12);
    expect(seasoned.rating - 2).toBeCloseTo((0.6 / (1 + 100 / 12)) * (1 - expectedAtTwo - 2 / (9 * 101)), 12);
  });

  it('counts a graded observation toward n whatever its weight', () => {
    const next = applyObservation({ rating: 0, graded: 7, ok: 2 }, observation(false, { weight: 0.1 }));
    expect(next.graded).toBe(8);
    expect(next.ok).toBe(2);
  });
});

describe('a rating following its prior', () => {
  const hopeless = { mean: 0, sd: 1.5, unanswerable: 0.999 };
  const ordinary = { mean: 0, sd: 0.5, unanswerable: 0 };

  function fold(prior: number, outcomes: number, difficulty: Observation['difficulty']) {
    let rating = applyObservation(undefined, observation(false, { prior, difficulty }));
    for (let i = 1; i < outcomes; i++) rating = applyObservation(rating, observation(i % 2 === 0, { prior, difficulty }));
    return rating;
  }

  it('follows a moved prior almost wholly when its evidence was all on calls nobody could answer', () => {
    const uninformed = fold(0, 8, hopeless);
    expect(uninformed.information).toBeLessThan(0.05);
    const moved = applyObservation(uninformed, observation(false, { prior: 1.5, difficulty: hopeless }));
    expect(moved.rating - uninformed.rating).toBeGreaterThan(1.4);
    expect(moved.followedPrior).toBe(1.5);
  });

  it('hardly moves with its prior once its own evidence is informative', () => {
    const measured = fold(0, 60, ordinary);
    expect(measured.information).toBeGreaterThan(5);
    const moved = applyObservation(measured, observation(false, { prior: 1.5, difficulty: ordinary }));
    const unmoved = applyObservation(measured, observation(false, { prior: 0, difficulty: ordinary }));
    expect(Math.abs(moved.rating - unmoved.rating)).toBeLessThan(0.25);
    expect(moved.rating).toBeGreaterThan(unmoved.rating);
  });

  it('stays where its evidence put it when it holds no count of its information (a ledger from before v5)', () => {
    const old = { rating: -0.5, graded: 20, ok: 6 };
    const withPrior = applyObservation(old, observation(false, { prior: 2, difficulty: hopeless }));
    const without = applyObservation(old, observation(false, { difficulty: hopeless }));
    expect(withPrior.rating).toBe(without.rating);
    expect(withPrior.information).toBeUndefined();
  });
});

describe('expectedSuccess', () => {
  it('rises with the rating', () => {
    const ratings = [-6, -3, -1, 0, 0.5, 1, 3, 6];
    const values = ratings.map((rating) => expectedSuccess(rating));
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
  });

  it('falls as the call gets harder', () => {
    const values = [-2, 0, 2].map((mean) => expectedSuccess(1, { mean, sd: 1 }));
    expect(values[0]).toBeGreaterThan(values[1] as number);
    expect(values[1]).toBeGreaterThan(values[2] as number);
  });

  it('is one half for a rating equal to the difficulty', () => {
    expect(expectedSuccess(0.7, { mean: 0.7, sd: 2 })).toBeCloseTo(0.5, 12);
  });
});

describe('rolePrior', () => {
  it('orders base below mid below top, with no role in the middle', () => {
    expect(rolePrior('base')).toBeLessThan(rolePrior(undefined));
    expect(rolePrior(undefined)).toBeLessThan(rolePrior('mid'));
    expect(rolePrior('mid')).toBeLessThan(rolePrior('top'));
  });
});

describe('applyObservation with numbers that are not numbers', () => {
  it('never makes a rating NaN: a non-finite weight, prior or difficulty is left out and its default applies', () => {
    const base = { model: 'm', classKey: 'c', success: true, at: 1 };
    const forged = [
      { ...base, weight: Number.NaN },
      { ...base, prior: Number.NaN },
      { ...base, difficulty: { mean: Number.NaN, sd: 1 } },
      { ...base, difficulty: { mean: 0, sd: Number.POSITIVE_INFINITY, unanswerable: 2 } },
      { ...base, weight: 'x' as unknown as number },
    ];
    let rating = applyObservation(undefined, base);
    for (const observation of forged) {
      rating = applyObservation(rating, observation);
      expect(Number.isFinite(rating.rating), JSON.stringify(observation)).toBe(true);
      expect(Number.isFinite(rating.information ?? 0)).toBe(true);
    }
    expect(applyObservation(undefined, forged[0] as Observation)).toEqual(applyObservation(undefined, base));
  });
});
