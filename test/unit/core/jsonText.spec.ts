import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/core/jsonText';

describe('parseJsonText', () => {
  it('parses JSON as JSON.parse does', () => {
    expect(parseJsonText('{ "models": [1, 2] }')).toEqual({ models: [1, 2] });
  });

  it('skips a leading byte-order mark, which an editor writes and a user cannot see', () => {
    expect(parseJsonText('\ufeff{ "a": 1 }')).toEqual({ a: 1 });
  });

  it('names the line and column of a mistake, counting from 1', () => {
    // The trailing comma: the `}` on line 3 is where the parser gives up.
    const text = '{\n  "a": 1,\n}';
    expect(() => parseJsonText(text)).toThrow(/line 3 column 1\b/);
  });

  it('counts the column from the start of the line the mistake is on', () => {
    expect(() => parseJsonText('{"a": 1}\n  {"b": x}')).toThrow(/line 2 column 3\b/);
  });

  it('throws a SyntaxError, so callers can tell it from their own errors', () => {
    expect(() => parseJsonText('{ "models": [')).toThrow(SyntaxError);
  });
});
