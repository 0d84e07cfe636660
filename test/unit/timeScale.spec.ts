import { describe, expect, it } from 'vitest';
import { readTimeScale } from '../timeScale';

describe('RUNG_TEST_TIME_SCALE', () => {
  it('is 1 when unset or empty, so an idle machine keeps the limits as written', () => {
    expect(readTimeScale(undefined)).toBe(1);
    expect(readTimeScale('')).toBe(1);
    expect(readTimeScale('  ')).toBe(1);
  });

  it('reads a positive factor, whole or not', () => {
    expect(readTimeScale('3')).toBe(3);
    expect(readTimeScale('1.5')).toBe(1.5);
    expect(readTimeScale('0.5')).toBe(0.5);
  });

  it('refuses anything else with the variable and the text it was given', () => {
    for (const text of ['0', '-2', 'fast', 'Infinity', '2x', 'NaN']) {
      expect(() => readTimeScale(text)).toThrow(
        `RUNG_TEST_TIME_SCALE must be a positive number (2 makes every limit of the tests twice as long), not ${JSON.stringify(text)}`,
      );
    }
  });
});
