import { describe, expect, it } from 'vitest';
import { formatPolicy, parsePolicy, PolicySpecError } from '../../../../src/core/evaluation/policy';

describe('parsePolicy', () => {
  it('reads open, skip and explore joined with commas, and writes them back the same way', () => {
    expect(parsePolicy('open=gpt-4o')).toEqual({ open: 'gpt-4o', skip: [] });
    expect(parsePolicy('skip=a, skip=b,explore=0.1')).toEqual({ skip: ['a', 'b'], explore: 0.1 });
    expect(formatPolicy(parsePolicy('skip=a,open=b'))).toBe('open=b,skip=a');
    expect(formatPolicy(parsePolicy('explore=0.1,skip=a'))).toBe('skip=a,explore=0.1');
  });

  it.each([
    ['', /empty/],
    ['open', /is not open=MODEL/],
    ['pin=a', /is not open=MODEL/],
    ['open=a,open=b', /given twice/],
    ['explore=1.5', /from 0 to 1/],
    ['explore=lots', /from 0 to 1/],
    ['open=a,skip=a', /both opened with and skipped/],
    ['open=a,explore=0.2', /do not combine/],
  ])('refuses %j, saying what is wrong', (spec, message) => {
    expect(() => parsePolicy(spec)).toThrow(PolicySpecError);
    expect(() => parsePolicy(spec)).toThrow(message);
  });
});
