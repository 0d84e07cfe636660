import { describe, expect, it } from 'vitest';
import { callsToStopOpening, hindsightChainCost } from '../../../src/bench/qualityMeasures';
import { abilityForAccuracy, generateWorld, worldNamed, worldPrompts, WORLD_PROMPTS_PER_CLASS, WORLDS } from '../../../src/bench/worlds';
import type { OutcomeRow } from '../../../src/core/replay/outcomes';

function accuracy(rows: readonly OutcomeRow[], model: string, cls: string): number {
  const members = rows.filter((row) => row.family === cls);
  return members.filter((row) => row.m[model]?.c === 1).length / members.length;
}

describe('generated worlds', () => {
  it('gives the same rows for the same seed and other rows for another', () => {
    const world = worldNamed('spread-100x');
    expect(JSON.stringify(generateWorld(world, 3))).toBe(JSON.stringify(generateWorld(world, 3)));
    expect(JSON.stringify(generateWorld(world, 4))).not.toBe(JSON.stringify(generateWorld(world, 3)));
  });

  it('grades every model on every prompt, 1,000 prompts per class unless the world says otherwise', () => {
    for (const world of WORLDS) {
      const rows = generateWorld(world, 1);
      const perClass = world.promptsPerClass ?? WORLD_PROMPTS_PER_CLASS;
      const expected = typeof perClass === 'number' ? 3 * perClass : Object.values(perClass).reduce((sum, count) => sum + count, 0);
      expect(rows).toHaveLength(expected);
      for (const row of rows) expect(Object.keys(row.m)).toEqual(world.models.map((model) => model.slug));
    }
  });

  it('meets each model\'s stated accuracy at each class to within sampling error', () => {
    const world = worldNamed('cheap-specialist');
    const rows = generateWorld(world, 1);
    for (const model of world.models) {
      for (const [cls, target] of Object.entries(model.accuracy)) expect(Math.abs(accuracy(rows, model.slug, cls) - target)).toBeLessThan(0.05);
    }
  });

  it('prices models 100 times apart in the spread world', () => {
    const prices = worldNamed('spread-100x').models.map((model) => model.price);
    expect(Math.max(...prices) / Math.min(...prices)).toBeCloseTo(100, 6);
  });

  it('swaps the drifting model halfway through: accurate before, near zero after, at its class only', () => {
    const rows = generateWorld(worldNamed('drift'), 2);
    const half = rows.length / 2;
    expect(accuracy(rows.slice(0, half), 'swapped', 'alpha')).toBeGreaterThan(0.85);
    expect(accuracy(rows.slice(half), 'swapped', 'alpha')).toBeLessThan(0.05);
    expect(accuracy(rows.slice(half), 'swapped', 'beta')).toBeGreaterThan(0.5);
  });

  it('builds the eleven-model world like the unseen 11-model data the out-of-sample targets were set on: $0.20 to $10 in, output dearer for the dear models, 1,050 prompts a family', () => {
    const world = worldNamed('eleven-models');
    const rows = generateWorld(world, 1);
    expect(world.models).toHaveLength(11);
    const prices = world.models.map((model) => model.price);
    expect([Math.min(...prices), Math.max(...prices)]).toEqual([0.2, 10]);
    const dearest = world.models.find((model) => model.price === 10);
    expect(dearest?.outputPrice).toBeGreaterThan(dearest?.price ?? Infinity);
    for (const family of ['science', 'commonsense', 'code']) expect(rows.filter((row) => row.family === family)).toHaveLength(1_050);
    // An answer costs its input at the input price and its output at the output price.
    const row = rows[0] as OutcomeRow;
    const outcome = row.m['in10.0'];
    expect(outcome?.cost).toBeCloseTo(((outcome?.ti ?? 0) * 10 + (outcome?.to ?? 0) * 30) / 1e6, 12);
    for (const model of world.models) {
      for (const [cls, target] of Object.entries(model.accuracy)) expect(Math.abs(accuracy(rows, model.slug, cls) - target)).toBeLessThan(0.05);
    }
    // Code generation is the hard family: every model answers less of it than of science.
    for (const model of world.models) expect(model.accuracy['code']).toBeLessThan(model.accuracy['science'] ?? 0);
  });

  it('builds the guessers world: the unseen data\'s family sizes, each model\'s stated accuracy, a code call dearer than a science one', () => {
    const world = worldNamed('eleven-models-guessers');
    const rows = generateWorld(world, 1);
    expect(['science', 'commonsense', 'code'].map((family) => rows.filter((row) => row.family === family).length)).toEqual([1_455, 1_267, 428]);
    for (const model of world.models) {
      for (const [cls, target] of Object.entries(model.accuracy)) expect(Math.abs(accuracy(rows, model.slug, cls) - target), `${model.slug} ${cls}`).toBeLessThan(0.05);
    }
    const cost = (family: string) => rows.filter((row) => row.family === family).reduce((sum, row) => sum + (row.m['in10.0']?.cost ?? 0), 0);
    expect(cost('code') / rows.filter((row) => row.family === 'code').length).toBeGreaterThan(1.5 * (cost('science') / rows.filter((row) => row.family === 'science').length));
  });

  it('makes the rungs above a letter guesser that failed meet the other letter: the one that always says "B" is right far more often there', () => {
    const rows = generateWorld(worldNamed('eleven-models-guessers'), 2).filter((row) => row.family === 'commonsense');
    // in0.25 answers "A" whatever it is asked, in0.80 "B": overall each is right about half the time.
    expect(Math.abs(accuracy(rows, 'in0.25', 'commonsense') - 0.5)).toBeLessThan(0.04);
    expect(Math.abs(accuracy(rows, 'in0.80', 'commonsense') - 0.5)).toBeLessThan(0.04);
    const afterFailure = rows.filter((row) => row.m['in0.20']?.c === 0);
    expect(accuracy(afterFailure, 'in0.25', 'commonsense')).toBeLessThan(0.4);
    expect(accuracy(afterFailure, 'in0.80', 'commonsense')).toBeGreaterThan(0.6);
  });

  it('gives the guessers world text that differs from prompt to prompt, shows the choices, and is the same for the same prompt', () => {
    const world = worldNamed('eleven-models-guessers');
    const rows = generateWorld(world, 1);
    const text = worldPrompts(world, rows) ?? [];
    expect(text).toHaveLength(rows.length);
    expect(new Set(text.map((row) => row.prompt)).size).toBe(rows.length);
    const commonsense = text.find((row) => rows.find((each) => each.id === row.id)?.family === 'commonsense');
    expect(commonsense?.prompt).toMatch(/\nA: .+\nB: .+/);
    expect(worldPrompts(world, rows)).toEqual(text);
  });

  it('solves for an ability whose accuracy rises with the accuracy asked for', () => {
    expect(abilityForAccuracy(0.9)).toBeGreaterThan(abilityForAccuracy(0.5));
    expect(abilityForAccuracy(0.5)).toBeGreaterThan(abilityForAccuracy(0.02));
  });
});

describe('calls to stop opening with a swapped model', () => {
  const rows = ['a', 'b', 'a', 'a', 'a', 'a'].map((family, index) => ({ id: `c${index}`, family, m: {} }));

  it('counts calls at the class from the swap to the last one the model opened', () => {
    const decisions = [
      { call: 'c2', model: 'swapped' },
      { call: 'c2', model: 'large' },
      { call: 'c3', model: 'swapped' },
      { call: 'c4', model: 'mid' },
      { call: 'c5', model: 'mid' },
    ];
    // From index 2 on the class-a calls are c2, c3, c4, c5; the last one opened by the model is c3, the 2nd.
    expect(callsToStopOpening(rows, decisions, 'swapped', 'a', 2)).toBe(2);
  });

  it('is 0 when the model never opened after the swap', () => {
    expect(callsToStopOpening(rows, [{ call: 'c0', model: 'swapped' }], 'swapped', 'a', 2)).toBe(0);
  });
});

describe('the cheapest fixed chains in hindsight', () => {
  // One class, four prompts: `a` (1 per call) is right on the first two, `b` (10 per call) on all four.
  const rows: OutcomeRow[] = [0, 1, 2, 3].map((index) => ({
    id: `p${index}`,
    family: 'x',
    m: { a: { c: index < 2 ? 1 : 0, cost: 1 }, b: { c: 1, cost: 10 } },
  }));
  const cost = (accuracy: number) => hindsightChainCost(rows, ['a', 'b'], (row) => row.family, accuracy);

  it('finds the cheapest order of the cheapest subset for the accuracy asked', () => {
    // All four: a then b costs 4 × 1 + 2 × 10 = 24, less than b alone (40) or b then a (40).
    expect(cost(1)).toBe(24);
    // Half: a alone, 4.
    expect(cost(0.5)).toBe(4);
    expect(cost(0)).toBe(0);
  });

  it('is infinite when no chain reaches the accuracy', () => {
    const none = rows.map((row) => ({ ...row, m: { a: { c: 0 as const, cost: 1 }, b: { c: 0 as const, cost: 10 } } }));
    expect(hindsightChainCost(none, ['a', 'b'], (row) => row.family, 0.5)).toBe(Number.POSITIVE_INFINITY);
  });
});
