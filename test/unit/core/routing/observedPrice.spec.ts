import { describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import { MIN_PRICED_ATTEMPTS, observedPrice, type Observation } from '../../../../src/core/ratings';
import { RouterHarness, request } from '../../support/routerHarness';
import { PASS, ScriptedAttempts } from '../../support/ScriptedAttempts';

/** Two models equally able at `plan`, alpha listed at half beta's price. */
const panel = parsePanel(
  {
    models: [
      { slug: 'alpha', provider: 'openrouter', price: { input: 1, output: 1 } },
      { slug: 'beta', provider: 'openai', price: { input: 2, output: 2 } },
    ],
    routing: { explore: 0 },
  },
  'equal panel',
);

/** Twelve graded answers for a model at `plan`, 9 passes, each attempt costing `times` its list price. */
function history(model: string, listed: number, times: number, withCost = true): Observation[] {
  return Array.from({ length: 12 }, (_, i) => ({
    model,
    classKey: 'plan',
    success: i % 4 !== 0,
    at: i,
    ...(withCost ? { cost: { observed: listed * times, listed } } : {}),
  }));
}

describe('prices learned from what attempts cost', () => {
  it('open with the model whose attempts really cost less at the class, once it has enough of them', async () => {
    const harness = new RouterHarness(panel);
    const list = (model: string): number => harness.router.rank(request()).candidates.find((c) => c.slug === model)?.cost as number;
    const [alpha, beta] = [list('alpha'), list('beta')];
    // alpha's answers at this class run three times as long as its list price assumed; beta's as listed.
    harness.ledger.observe([...history('alpha', alpha, 3), ...history('beta', beta, 1)]);
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
    await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['beta']);
  });

  it('go by the list price before the attempts say otherwise', async () => {
    const harness = new RouterHarness(panel);
    const list = (model: string): number => harness.router.rank(request()).candidates.find((c) => c.slug === model)?.cost as number;
    harness.ledger.observe([...history('alpha', list('alpha'), 3, false), ...history('beta', list('beta'), 1, false)]);
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
    await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['alpha']);
  });

  it('is learned from the attempts the router grades, and only past a few of them', async () => {
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('alpha', { ...PASS, cost: 0.5 }).on('beta', PASS);
    for (let i = 0; i < MIN_PRICED_ATTEMPTS - 1; i++) await harness.router.route(request(), attempts.fn);
    const rating = () => harness.ledger.snapshot(0).rating('alpha', 'plan');
    expect(observedPrice(rating())).toBeUndefined();
    await harness.router.route(request(), attempts.fn);
    expect(observedPrice(rating())).toBeCloseTo(0.5, 12);
  });
});
