import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { parsePanel } from '../../../../src/core/panel';
import { applyObservation, DRIFT_SURPRISE, MIN_GRADED, type Observation, type Rating } from '../../../../src/core/ratings';
import { posterior } from '../../../../src/core/difficulty';
import { INCAPABLE_ABILITY } from '../../../../src/core/routing/rank';
import { NOW, prunedReasons, rankOn, slugs } from '../../support/rankInput';

const panel = parsePanel(
  {
    routing: { explore: 0 },
    models: [
      { slug: 'cheap', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
      { slug: 'dear', provider: 'openai', price: { input: 5, output: 5 } },
    ],
  },
  'test panel',
);

describe('excluding a model with no success', () => {
  it('keeps a model whose 8 failures were all on calls every cheaper rung had failed, with its evidence as the reason', () => {
    const ledger = new MemoryLedger();
    // Each call: three cheaper rungs failed, then `dear` failed too: the difficulty posterior says hopeless.
    const hopeless = posterior([
      { rating: 0, success: false },
      { rating: 0.5, success: false },
      { rating: 1, success: false },
      { rating: 0, success: false },
    ]);
    ledger.observe(
      Array.from({ length: MIN_GRADED }, (): Observation => ({
        model: 'dear',
        classKey: 'plan',
        success: false,
        difficulty: hopeless,
        at: NOW,
      })),
    );
    const ranking = rankOn(panel, {}, { ledger });
    expect(slugs(ranking)).toContain('dear');
    const dear = ranking.candidates.find((candidate) => candidate.slug === 'dear');
    expect(dear?.ability).toBeGreaterThanOrEqual(INCAPABLE_ABILITY);
    // Failures that say nothing about it leave its rating on the prior, and the reason says so.
    expect(dear?.reason).toBe('measured 0/8 success class=plan, rated on its presumed prior 0.00 (its own outcomes say little about it)');
  });

  it('does not call a rating presumed when its own successes moved it, though they hold little information', () => {
    const ledger = new MemoryLedger();
    ledger.observe(Array.from({ length: 10 }, (): Observation => ({ model: 'dear', classKey: 'plan', success: true, prior: 0, at: NOW })));
    const dear = rankOn(panel, {}, { ledger }).candidates.find((candidate) => candidate.slug === 'dear');
    expect(dear?.reason).toBe('measured 10/10 success class=plan');
  });

  it('excludes a model that failed 8 calls it opened and the next rung passed, naming its rating', () => {
    const ledger = new MemoryLedger();
    let cheap: Rating | undefined;
    let dear: Rating | undefined;
    for (let i = 0; i < MIN_GRADED; i++) {
      const difficulty = posterior([
        { rating: cheap?.rating ?? 0, success: false },
        { rating: dear?.rating ?? 0, success: true },
      ]);
      const observations: Observation[] = [
        { model: 'cheap', classKey: 'plan', success: false, difficulty, at: NOW },
        { model: 'dear', classKey: 'plan', success: true, difficulty, at: NOW },
      ];
      ledger.observe(observations);
      cheap = applyObservation(cheap, observations[0] as Observation);
      dear = applyObservation(dear, observations[1] as Observation);
    }
    const ranking = rankOn(panel, {}, { ledger });
    expect(slugs(ranking)).toEqual(['dear']);
    expect(prunedReasons(ranking).cheap).toMatch(
      /^pruned: measured 0\/8 success class=plan, rated 0\.2\d < 0\.25 against the calls' difficulty$/,
    );
  });
});

/** Outcomes of one model at one class, each against the class prior; per outcome, the drift count after it. */
function feed(start: Rating | undefined, outcomes: boolean[]): { rating: Rating | undefined; steps: (number | undefined)[] } {
  let rating = start;
  const steps: (number | undefined)[] = [];
  for (const success of outcomes) {
    rating = applyObservation(rating, { model: 'm', classKey: 'c', success, at: NOW });
    steps.push(rating.sinceDrift);
  }
  return { rating, steps };
}

describe('the drift monitor', () => {
  it("leaves a steady model's step size alone", () => {
    // A model rated near 0 that passes half its average calls is as surprising as it ever gets: never a drift.
    const { steps } = feed(
      undefined,
      Array.from({ length: 400 }, (_, i) => i % 2 === 0),
    );
    expect(steps.every((step) => step === undefined)).toBe(true);
  });

  it('restarts the step size when a settled model starts failing what it used to pass, and the rating falls fast', () => {
    const settled = feed(
      undefined,
      Array.from({ length: 300 }, (_, i) => i % 10 !== 0),
    );
    expect(settled.steps.every((step) => step === undefined)).toBe(true);
    const before = (settled.rating as Rating).rating;
    const swapped = feed(
      settled.rating,
      Array.from({ length: 12 }, () => false),
    );
    const first = swapped.steps.findIndex((step) => step !== undefined);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(6);
    // Without the alarm the same 12 failures move a rating with 300 observations behind it by little:
    // the same rating with its surprise held at 0 never raises one.
    let plain: Rating | undefined = settled.rating;
    for (let i = 0; i < 12; i++)
      plain = { ...applyObservation(plain, { model: 'm', classKey: 'c', success: false, at: NOW }), surprise: 0 };
    expect(before - (plain as Rating).rating).toBeLessThan(1);
    expect(before - (swapped.rating as Rating).rating).toBeGreaterThan(3);
  });

  it('waits for the gate before calling anything drift', () => {
    const { steps } = feed(
      undefined,
      Array.from({ length: MIN_GRADED - 1 }, () => false),
    );
    expect(steps.every((step) => step === undefined)).toBe(true);
    expect(DRIFT_SURPRISE).toBeGreaterThan(0);
  });
});
