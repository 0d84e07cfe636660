import { describe, expect, it } from 'vitest';
import { cascades, shaped, splitClassKey } from '../../../src/core/classKey';

describe('shaped', () => {
  it('joins a class and a shape with a slash', () => {
    expect(shaped('edit', 'typescript')).toBe('edit/typescript');
  });

  it('is the bare class when the shape is absent, null or blank', () => {
    expect(shaped('plan')).toBe('plan');
    expect(shaped('plan', null)).toBe('plan');
    expect(shaped('plan', '  ')).toBe('plan');
  });

  it('trims both parts so one population never gets two keys', () => {
    expect(shaped(' leaf ', ' oversized ')).toBe('leaf/oversized');
  });

  it('refuses an empty class', () => {
    expect(() => shaped('  ', 'x')).toThrow(/must not be empty/);
  });
});

describe('splitClassKey', () => {
  it('inverts shaped', () => {
    expect(splitClassKey(shaped('edit', 'typescript'))).toEqual({ cls: 'edit', shape: 'typescript' });
    expect(splitClassKey(shaped('chat'))).toEqual({ cls: 'chat', shape: undefined });
  });

  it('keeps later slashes in the shape', () => {
    expect(splitClassKey('gsm8k/a/b')).toEqual({ cls: 'gsm8k', shape: 'a/b' });
  });
});

describe('cascades', () => {
  it('is true for every class but leaf, shaped or not', () => {
    expect(cascades('plan')).toBe(true);
    expect(cascades('chat')).toBe(true);
    expect(cascades('edit/typescript')).toBe(true);
    expect(cascades('leaf')).toBe(false);
    expect(cascades('leaf/oversized')).toBe(false);
  });
});
