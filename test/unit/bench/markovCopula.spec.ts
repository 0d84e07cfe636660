import { describe, expect, it } from 'vitest';
import {
  candidateChains,
  fitFamily,
  fitLogistic,
  gumbel,
  kendallTau,
  modelled,
  PAPER_CHAINS,
  scoreCopulaChain,
} from '../../../src/bench/markovCopula';
import { seededRandom } from '../../../src/core/random';
import type { OutcomeRow } from '../../../src/core/replay/outcomes';

/** A family where both models' confidence tracks their grades, the dear one right more often; reading the cheap one's costs 2. */
function family(count: number): OutcomeRow[] {
  const random = seededRandom(7);
  return Array.from({ length: count }, (_, i) => {
    const hard = random();
    const cheapRight = random() > hard ? 1 : 0;
    const dearRight = random() > hard * 0.5 ? 1 : 0;
    const conf = (right: number) => Math.log(Math.min(0.999, Math.max(0.01, right ? 0.6 + 0.39 * random() : 0.2 + 0.5 * random())));
    return {
      id: `p${i}`,
      family: 'f',
      m: {
        cheap: { c: cheapRight as 0 | 1, cost: 1, cost_src: 3, conf: conf(cheapRight) },
        dear: { c: dearRight as 0 | 1, cost: 10, cost_src: 15, conf: conf(dearRight) },
      },
    };
  });
}

describe('the Markov-copula re-implementation', () => {
  it('fits a logistic regression that recovers a known slope', () => {
    const random = seededRandom(3);
    const x = Array.from({ length: 4000 }, () => 4 * random() - 2);
    const y = x.map((value) => (random() < 1 / (1 + Math.exp(-(0.5 + 2 * value))) ? 1 : 0));
    const { a, b } = fitLogistic(x, y);
    expect(a).toBeCloseTo(0.5, 0);
    expect(b).toBeCloseTo(2, 0);
  });

  it('has a Gumbel copula that is independence at θ = 1 and keeps its margins', () => {
    expect(gumbel(0.3, 0.6, 1)).toBeCloseTo(0.18, 12);
    expect(gumbel(0.3, 1, 3)).toBeCloseTo(0.3, 12);
    expect(gumbel(0.3, 0.6, 3)).toBeGreaterThan(0.18);
    expect(gumbel(0.3, 0.6, 3)).toBeLessThanOrEqual(0.3);
    expect(kendallTau([1, 2, 3, 4], [1, 2, 3, 4])).toBeCloseTo(1, 12);
    expect(kendallTau([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it('models a one-model chain as that model: its mean calibrated chance, its answer cost, no read', () => {
    const rows = family(400);
    const fit = fitFamily(rows, ['cheap', 'dear']);
    const alone = modelled(fit, { models: [1], cuts: [] });
    expect(alone.cost).toBeCloseTo(10, 9);
    expect(alone.accuracy).toBeCloseTo(rows.filter((row) => row.m['dear']?.c === 1).length / rows.length, 1);
    // A cheap model that accepts every answer never reaches the dear one, and pays its read.
    expect(modelled(fit, { models: [0, 1], cuts: [0] }).cost).toBeCloseTo(3, 9);
  });

  it('scores a chain on prompts, paying the answers and every read but the last model\'s', () => {
    const rows = family(50);
    const fit = fitFamily(rows, ['cheap', 'dear']);
    const never = scoreCopulaChain(fit, { models: [0, 1], cuts: [fit.margins[0]?.values.length ?? 0] }, rows, ['cheap', 'dear']);
    expect(never.cost).toBeCloseTo(50 * (1 + 2 + 10), 9);
    expect(never.correct).toBe(rows.filter((row) => row.m['dear']?.c === 1).length);
  });

  it('chooses among the paper\'s two vendor chains when the data has their models', () => {
    const models = PAPER_CHAINS.flat();
    const chains = candidateChains(models);
    expect(chains).toHaveLength(2 ** 5 - 1 + 2 ** 4 - 1);
    for (const chain of chains) {
      const vendor = PAPER_CHAINS.find((each) => each.includes(models[chain[0] as number] as string)) as readonly string[];
      for (const index of chain) expect(vendor).toContain(models[index]);
    }
  });
});
