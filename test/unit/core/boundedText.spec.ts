import { describe, expect, it } from 'vitest';
import { boundName, boundReason, boundText, MAX_NAME_CHARS, MAX_REASON_CHARS } from '../../../src/core/boundedText';

describe('boundText', () => {
  it('leaves text that fits as it is', () => {
    expect(boundText('HTTP 503 from upstream', 100)).toBe('HTTP 503 from upstream');
    expect(boundReason('x'.repeat(MAX_REASON_CHARS))).toBe('x'.repeat(MAX_REASON_CHARS));
  });

  it('keeps the head of a 3 MiB error and says how long it was, within the bound', () => {
    const error = `upstream said: ${'e'.repeat(3 * 1024 * 1024 - 15)}`;
    const bounded = boundReason(error);
    expect(bounded.length).toBeLessThanOrEqual(MAX_REASON_CHARS);
    expect(bounded.startsWith('upstream said: eee')).toBe(true);
    expect(bounded.endsWith('… [truncated, 3,145,728 characters]')).toBe(true);
  });

  it('never ends the head inside a surrogate pair', () => {
    const text = '😀'.repeat(100);
    for (let max = 40; max < 50; max++) {
      const bounded = boundText(text, max);
      expect(bounded.length).toBeLessThanOrEqual(max);
      expect(bounded).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });

  it('keeps two long model names that share their head apart', () => {
    const head = `vendor/${'m'.repeat(400)}`;
    const one = boundName(`${head}-a`);
    const two = boundName(`${head}-b`);
    expect(one.length).toBeLessThanOrEqual(MAX_NAME_CHARS);
    expect(one).not.toBe(two);
    expect(one).toMatch(/… \[truncated, 409 characters, #[0-9a-f]{8}\]$/);
    expect(boundName(`${head}-a`)).toBe(one);
  });
});
