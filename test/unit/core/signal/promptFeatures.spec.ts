import { describe, expect, it } from 'vitest';
import { promptFeatures, SIGNAL_SLOTS, SIGNAL_WINDOW_CHARS } from '../../../../src/core/signal/promptFeatures';

const norm = (values: number[]): number => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
const asMap = (features: { slots: number[]; values: number[] }): Map<number, number> =>
  new Map(features.slots.map((slot, i) => [slot, features.values[i] as number]));

describe('promptFeatures', () => {
  it('gives a vector of length 1 in slots of the table, the same for the same prompt', () => {
    const one = promptFeatures({ text: 'Which organ makes insulin?\nA: liver\nB: pancreas' }, 'medmcqa');
    expect(norm(one.values)).toBeCloseTo(1, 9);
    expect(one.slots.every((slot) => Number.isInteger(slot) && slot >= 0 && slot < SIGNAL_SLOTS)).toBe(true);
    expect(new Set(one.slots).size).toBe(one.slots.length);
    expect(promptFeatures({ text: 'Which organ makes insulin?\nA: liver\nB: pancreas' }, 'medmcqa')).toEqual(one);
  });

  it('hashes the same words to other slots at another class, so classes do not share weights', () => {
    const text = 'What is the capital of Australia?';
    const here = new Set(promptFeatures({ text }, 'triviaqa').slots);
    const there = promptFeatures({ text }, 'mmlu').slots;
    expect(there.filter((slot) => here.has(slot)).length).toBeLessThan(3);
  });

  it('reads only the ends of a long prompt, so a pasted file costs no more than its window', () => {
    const middle = (word: string): string => `${'question text '.repeat(200)}${word.repeat(2_000)}${' the end'.repeat(300)}`;
    const a = promptFeatures({ text: middle('alpha ') }, 'chat');
    const b = promptFeatures({ text: middle('omega ') }, 'chat');
    expect(middle('alpha ').length).toBeGreaterThan(4 * SIGNAL_WINDOW_CHARS);
    expect(b).toEqual(a);
  });

  it('tells code from prose, and reads the tools and attachments a request carries', () => {
    const prose = asMap(promptFeatures({ text: 'Explain why the sky is blue.' }, 'chat'));
    const code = asMap(promptFeatures({ text: '```ts\nconst x = f(a[0]);\n```' }, 'chat'));
    const withTools = asMap(promptFeatures({ text: 'Explain why the sky is blue.', tools: ['search'], attachments: 2 }, 'chat'));
    expect([...code.keys()].filter((slot) => prose.has(slot))).not.toEqual([...prose.keys()]);
    expect([...withTools.keys()].some((slot) => !prose.has(slot))).toBe(true);
  });
});
