import { describe, expect, it } from 'vitest';
import { printable, printableJson } from '../../../src/core/terminalText';

describe('printable', () => {
  it('writes every control character a terminal would obey as a visible escape, and leaves the rest', () => {
    expect(printable('clear\u001b[2J osc\u001b]52;c;cHduZWQ=\u0007 csi\u009b31m')).toBe(
      'clear\\x1b[2J osc\\x1b]52;c;cHduZWQ=\\x07 csi\\x9b31m',
    );
    expect(printable('two\nlines\tand\r\u007f')).toBe('two\\nlines\\tand\\r\\x7f');
    expect(printable('right\u202eto left \u2066isolate\u2028')).toBe('right\\u202eto left \\u2066isolate\\u2028');
    expect(printable('qwen3:14b — prix 0,60 € ✓')).toBe('qwen3:14b — prix 0,60 € ✓');
  });
});

describe('printableJson', () => {
  it('is the same value to a JSON reader, with nothing raw a terminal would act on', () => {
    const value = { member: 'm\u001b[2J\u009b\u202e', lines: ['a\nb'] };
    const text = printableJson(value, 2);
    expect(JSON.parse(text)).toEqual(value);
    expect(
      [...text].filter((char) => char !== '\n' && (char < ' ' || (char >= '\u007f' && char <= '\u009f') || char === '\u202e')),
    ).toEqual([]);
    expect(text).toContain('\\u009b');
  });
});
