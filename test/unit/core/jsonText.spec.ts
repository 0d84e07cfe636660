import { describe, expect, it } from 'vitest';
import { LineIndex, mistakeOffset, parseJsonText } from '../../../src/core/jsonText';

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

  it('names the line and column of a trailing comma in a list, where JSON.parse names no position', () => {
    // What a user gets by deleting the last model of a panel: JSON.parse says "Unexpected token ']', ..."
    // with the text around it, on Node 20 as on later Nodes, and no place at all.
    const text = '{\n  "models": [\n    { "slug": "a" },\n  ],\n  "routing": {}\n}';
    expect(() => parseJsonText(text)).toThrow("Unexpected token ']' (line 4 column 3)");
  });

  it('says where the text ended when it ended too early', () => {
    expect(() => parseJsonText('{\n  "models": [')).toThrow('Unexpected end of JSON input (line 2 column 14)');
  });

  it('throws a SyntaxError, so callers can tell it from their own errors', () => {
    expect(() => parseJsonText('{ "models": [')).toThrow(SyntaxError);
  });
});

describe('mistakeOffset', () => {
  it('finds no mistake in valid JSON of every kind', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, 0, true, false, null, "x\\"\\u00e9\\n"], "b": {}} ', '"text"', '0'])
      expect(mistakeOffset(text), text).toBeUndefined();
  });

  it('points at the first character that cannot continue the JSON', () => {
    expect(mistakeOffset('[1, 2,]')).toBe(6);
    expect(mistakeOffset('{"a": 1,}')).toBe(8);
    expect(mistakeOffset('{"a" 1}')).toBe(5);
    expect(mistakeOffset('{a: 1}')).toBe(1);
    expect(mistakeOffset('[01]')).toBe(2);
    // A bad escape or an unterminated string is placed where the string starts.
    expect(mistakeOffset('["a\\x"]')).toBe(1);
    expect(mistakeOffset('{} {}')).toBe(3);
    expect(mistakeOffset("['a']")).toBe(1);
  });

  it('points past the end of text that ends too early', () => {
    expect(mistakeOffset('{"a": [1, 2')).toBe(11);
    expect(mistakeOffset('')).toBe(0);
  });

  it('agrees with JSON.parse where JSON.parse gives a position', () => {
    for (const text of ['{"a": 1,}', '{"a" 1}', '[1 2]', '{"a": 1}}']) {
      const position = /position (\d+)/.exec(catchMessage(() => JSON.parse(text)))?.[1];
      expect(mistakeOffset(text), text).toBe(Number(position));
    }
  });

  it('places a string that never ends where it starts', () => {
    expect(mistakeOffset('{"a": "open')).toBe(6);
  });

  it('gives up rather than overflow the stack on nesting no one writes by hand', () => {
    expect(mistakeOffset('['.repeat(100_000))).toBeUndefined();
  });
});

function catchMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('LineIndex', () => {
  it('places every offset where counting the lines up to it does', () => {
    const random = (() => {
      let seed = 7;
      return () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    })();
    for (let round = 0; round < 50; round++) {
      const text = Array.from({ length: Math.floor(random() * 200) }, () => (random() < 0.2 ? '\n' : random() < 0.1 ? '\r' : 'x')).join('');
      const index = new LineIndex(text);
      for (let offset = 0; offset <= text.length; offset++) {
        const before = text.slice(0, offset);
        expect(index.lineAndColumn(offset)).toBe(`(line ${before.split('\n').length} column ${offset - before.lastIndexOf('\n')})`);
      }
    }
  });
});
