import { describe, expect, it } from 'vitest';
import { checkProgressLine, parseVerifyTimeout } from '../../../src/cli/chatOptions';
import { UsageError } from '../../../src/cli/io';

describe('parseVerifyTimeout', () => {
  it('reads whole milliseconds and keeps the default when the flag is absent', () => {
    expect(parseVerifyTimeout('30000')).toBe(30_000);
    expect(parseVerifyTimeout(undefined)).toBeUndefined();
  });

  for (const text of ['0', '-5', '2.5', '30s', '']) {
    it(`refuses "${text}" as a usage error`, () => {
      expect(() => parseVerifyTimeout(text)).toThrow(UsageError);
      expect(() => parseVerifyTimeout(text)).toThrow(`--verify-timeout must be a whole number of milliseconds, at least 1, not "${text}"`);
    });
  }
});

describe('checkProgressLine', () => {
  it('says which command, for how long so far, and when it will be given up on, in seconds', () => {
    expect(checkProgressLine({ command: 'npm test', elapsedMs: 10_000, timeoutMs: 120_000 })).toBe('still checking `npm test` after 10 s (gives up at 120 s)');
    expect(checkProgressLine({ command: 'make', elapsedMs: 2_500, timeoutMs: 7_200 })).toBe('still checking `make` after 2.5 s (gives up at 7.2 s)');
  });
});
