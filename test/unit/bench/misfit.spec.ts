import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fitRasch, lineageOf, priceOrder } from '../../../src/bench/misfit';
import { generateWorld, worldNamed, WORLDS } from '../../../src/bench/worlds';
import { makeOutcomes } from '../support/outcomesFixture';

/** Seed 1 of each world as it was generated before worlds could correlate failures (computed on main at 8f523bf). */
const SEED_1_SHA256: Record<string, string> = {
  'spread-100x': '790faf7b69109f62d3cd229c8f779a1296f8f864b342b52ffa71789b2d6cfbac',
  'cheap-specialist': 'da0e133a08bf984f9378e81edc64f52f54b8d535b68a519cf674ef6f97f51e92',
  'dominant-mid': '086b2726a8a82e17a69a81891cd675492dc3d0bb9e420baeb8251797e24c31da',
  drift: '5708c4d7a959f192904662f664ea26877d9ca35ae91c0614771c0722bd41d47a',
  'no-drift': '6536bd013357eb8b3b09aa86405139b3715ded1397e149fc4deb2c4a6cd021c7',
  'eleven-models': '0904af59f0b7d24c9c048c1ecf5d6db0b033d625979058fe77113e6110ef7126',
};

const CORRELATED = worldNamed('eleven-models-correlated');
describe('correlated worlds', () => {
  it('leaves the worlds that existed before them byte for byte as they were, but for the answers\' times added since', () => {
    for (const [name, hash] of Object.entries(SEED_1_SHA256)) {
      const untimed = generateWorld(worldNamed(name), 1).map((row) => ({
        ...row,
        m: Object.fromEntries(Object.entries(row.m).map(([model, { lat_ms: _time, ...outcome }]) => [model, outcome])),
      }));
      expect(createHash('sha256').update(JSON.stringify(untimed)).digest('hex'), name).toBe(hash);
    }
    expect(WORLDS.slice(0, 6).map((world) => world.name)).toEqual(Object.keys(SEED_1_SHA256));
  });

  it('generates the correlated eleven-model world the same for a seed and differently for another', () => {
    expect(JSON.stringify(generateWorld(CORRELATED, 2))).toBe(JSON.stringify(generateWorld(CORRELATED, 2)));
    expect(JSON.stringify(generateWorld(CORRELATED, 3))).not.toBe(JSON.stringify(generateWorld(CORRELATED, 2)));
  });

  it('keeps each model at its stated accuracy though its failures are shared with its lineage', () => {
    const rows = generateWorld(CORRELATED, 1);
    for (const model of CORRELATED.models) {
      for (const [cls, target] of Object.entries(model.accuracy)) {
        const members = rows.filter((row) => row.family === cls);
        expect(Math.abs(members.filter((row) => row.m[model.slug]?.c === 1).length / members.length - target), `${model.slug} ${cls}`).toBeLessThan(0.05);
      }
    }
  });
});

describe('the one-difficulty fit', () => {
  it('orders the abilities it fits as the models\' accuracies are ordered, and the prices cheapest first', () => {
    // How closely it recovers a world's spread is a measurement: `node scripts/misfit.mjs --calibration`.
    const rows = makeOutcomes(60).filter((row) => row.family === 'arith');
    const models = ['large', 'tiny', 'mid', 'small'];
    const fit = fitRasch(rows, models, {}, 20);
    const byAbility = [...models].sort((a, b) => (fit.abilities[a] as number) - (fit.abilities[b] as number));
    expect(byAbility).toEqual(['tiny', 'small', 'mid', 'large']);
    expect(priceOrder(rows, models)).toEqual(['tiny', 'small', 'mid', 'large']);
  });

  it('names a recorded model\'s lineage by the letters its slug starts with', () => {
    expect(['llama3.1-8b', 'gpt-4o-mini', 'qwen2.5-72b-instruct'].map(lineageOf)).toEqual(['llama', 'gpt', 'qwen']);
  });
});
