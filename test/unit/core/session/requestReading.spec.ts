import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../../src/core/providers/provider';
import { readRequest, type ScanMeter } from '../../../../src/core/session/requestReading';

const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

/** The characters a reading of `content` looked at. */
function work(content: string): number {
  const meter: ScanMeter = { chars: 0 };
  readRequest(user(content), meter);
  return meter.chars;
}

/**
 * Text built to make a careless pattern look through the rest of it again from every place, `length`
 * characters long: each of these took time that grew with the square of its length before.
 */
const HOSTILE: [string, (length: number) => string][] = [
  ['unclosed <userRequest> tags', (length) => '<userRequest>x '.repeat(Math.ceil(length / 15)).slice(0, length)],
  ['unclosed <file tags', (length) => '<file x '.repeat(Math.ceil(length / 8)).slice(0, length)],
  ['tags closed by no >', (length) => '<attachment id=1 <selection '.repeat(Math.ceil(length / 28)).slice(0, length)],
  ['context tags opened and never closed', (length) => '<attachment id=1>x '.repeat(Math.ceil(length / 19)).slice(0, length)],
  ['one line of backticks', (length) => '`'.repeat(length)],
  ['fences opened and never closed', (length) => '```ts\n'.repeat(Math.ceil(length / 6)).slice(0, length)],
  ['a run of spaces with one line break', (length) => `x${' '.repeat(length / 2)}\n${' '.repeat(length / 2)}x`],
  ['unclosed tags around a request', (length) => `<userRequest>Fix it</userRequest>${'</userRequest><userRequest>'.repeat(length / 27)}`],
];

describe('reading a request', () => {
  it.each(HOSTILE)('looks at each character of %s a bounded number of times, whatever their length', (_name, build) => {
    const small = build(100_000);
    const large = build(400_000);
    // A reading looks at the text a few times over (the request, the context tags, the fences, the
    // blank lines, the code tags): never at every later character again from each one.
    expect(work(small)).toBeGreaterThan(small.length);
    expect(work(small)).toBeLessThanOrEqual(12 * small.length);
    expect(work(large)).toBeLessThanOrEqual(12 * large.length);
    expect(work(large) / work(small)).toBeLessThan(4.5);
  });

  it('still reads the request out of such text', () => {
    const pasted = '<file x '.repeat(20_000);
    expect(readRequest(user(`${pasted}\n<userRequest>Fix the bug</userRequest>`)).words).toBe('Fix the bug');
    expect(readRequest(user(`<attachment id="a.ts">code</attachment>\nFix the bug ${'<userRequest>'.repeat(2_000)}`)).words).toMatch(
      /^Fix the bug <userRequest>/,
    );
  });

  it('pairs each <userRequest> with the first closing tag after it, and reads the last pair', () => {
    expect(readRequest(user('<userRequest>a</userRequest> <userRequest>b</userRequest>')).words).toBe('b');
    expect(readRequest(user('<userRequest>a<userRequest>b</userRequest></userRequest>')).words).toBe('a<userRequest>b');
    expect(readRequest(user('<userRequest>a</userRequest> <userRequest>b')).words).toBe('a');
  });

  it('strips fenced blocks closed by their own marker, at their indentation or none, and those running to the end', () => {
    expect(readRequest(user('Fix this:\n```ts\nconst a = 1;\n```\nplease')).words).toBe('Fix this:\nplease');
    expect(readRequest(user('Fix this:\r\n  ```ts\r\nconst a = 1;\r\n  ```\r\nplease')).words).toBe('Fix this:\nplease');
    expect(readRequest(user('Fix this:\n````\n```\nstill code\n````\nplease')).words).toBe('Fix this:\nplease');
    expect(readRequest(user('Fix this:\n~~~\ncode to the end')).words).toBe('Fix this:');
    expect(readRequest(user('Fix this: ```ts')).words).toBe('Fix this: ```ts');
    expect(readRequest(user('Fix this:\n```ts\na\n```\nand this\n```ts\nb\n```')).words).toBe('Fix this:\nand this');
  });

  it('says which fence tags and code context the turn carries', () => {
    expect(readRequest(user('Port this:\n```py\nprint(1)\n```\n```TS\n```'))).toMatchObject({ carriesCode: true, fenceTags: ['py', 'ts'] });
    expect(readRequest(user('<selection path="a.ts">x</selection> Fix it'))).toMatchObject({ carriesCode: true, fenceTags: [] });
    expect(readRequest(user('<selection path="a.ts" Fix it')).carriesCode).toBe(false);
    expect(readRequest(user('Use `code` inline')).carriesCode).toBe(false);
  });
});
