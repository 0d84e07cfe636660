import { describe, expect, it } from 'vitest';
import { generateWorld, worldNamed, worldPrompts } from '../../../../src/bench/worlds';
import { runReplay } from '../../../../src/core/replay/replay';
import { guessingFloor } from '../../../../src/core/signal/answerFormat';

describe('guessingFloor', () => {
  it('reads one in k for k lettered or numbered choices, each opening a line', () => {
    expect(guessingFloor('Question: which?\n\nChoices:\nA: one\nB: two\nC: three\nD: four\n\nAnswer: ')).toBe(0.25);
    expect(guessingFloor('Pick one.\n(A) yes please\n(B) no thanks')).toBe(0.5);
    expect(guessingFloor('1. red\n2. green\n3. blue')).toBeCloseTo(1 / 3, 12);
  });

  it('reads one in two for a question that asks for yes or no', () => {
    expect(guessingFloor('Is the sky green? Answer yes or no.')).toBe(0.5);
    expect(guessingFloor('Respond with true or false: water boils at 50 °C.')).toBe(0.5);
  });

  it('reads no floor from free text, or from a list that does not run in order', () => {
    expect(guessingFloor('In which Dickens novel does Newman Noggs appear?')).toBe(0);
    expect(guessingFloor('Steps:\nB: second\nD: fourth')).toBe(0);
    expect(guessingFloor('Write a poem about yes or no.')).toBe(0);
  });
});

describe('the guessing floor in the ratings', () => {
  it('orders the models of a two-way family by what they know, not by their lucky guesses', async () => {
    // Every model is right at least half the time at commonsense; the weak ones mostly by a coin.
    const world = worldNamed('eleven-models-two-way');
    const models = world.models.map((model) => model.slug);
    const rows = generateWorld(world, 1);
    const prompts = new Map((worldPrompts(world, rows) ?? []).map((row) => [row.id, { text: row.prompt }]));
    const rho = async (withText: boolean): Promise<number | undefined> => {
      const run = await runReplay({
        rows,
        models,
        verifier: { kind: 'perfect' },
        classKey: 'family',
        seed: 1,
        inOrder: true,
        // On money alone, as this was measured: weighing the world's times changes which rungs see which
        // calls, and so what the ratings without the floor get wrong.
        waitWorth: 0,
        ...(withText ? { prompts } : {}),
      });
      return run.rankCorrelation.find((entry) => entry.class === 'commonsense')?.pastGateRho;
    };
    // Without the format read, the weakest models stood near the top (in0.50 rated 0.95): 0.31 on this seed.
    expect(await rho(false)).toBeLessThan(0.5);
    expect(await rho(true)).toBeGreaterThan(0.7);
  });
});
