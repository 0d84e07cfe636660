import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TAIL_READ_CHUNK_BYTES, visitLinesBackwards, visitLinesForward } from '../../../../src/core/ledger/decisionTail';
import { seededRandom } from '../../../../src/core/random';
import { makeTempDir } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
let path: string;

beforeEach(() => {
  dir = makeTempDir('rung-tail-');
  path = join(dir.path, 'decisions.jsonl');
});
afterEach(() => dir.remove());

/** What the backward reader must find: every non-empty line that a newline ends, newest first, with its start. */
function expectedLines(text: string): [string, number][] {
  const found: [string, number][] = [];
  let start = 0;
  for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
    if (newline > start) found.push([text.slice(start, newline), start]);
    start = newline + 1;
  }
  return found.reverse();
}

/**
 * Writes up to six lines of up to 3.5 reads each (empty ones too) and, in half the calls, a torn tail
 * up to two reads long: neither an empty line nor a torn tail is a line.
 */
function writeRandomLog(random: () => number): { text: string; torn: string } {
  const lengths = Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * 3.5 * TAIL_READ_CHUNK_BYTES));
  const torn = random() < 0.5 ? `{"torn":"${'t'.repeat(Math.floor(random() * 2 * TAIL_READ_CHUNK_BYTES))}` : '';
  const text = `${lengths.map((length, index) => (length === 0 ? '' : `${index}${'x'.repeat(length)}`)).join('\n')}\n${torn}`;
  writeFileSync(path, text);
  return { text, torn };
}

function visited(until?: number): { lines: [string, number][]; end: number } {
  const lines: [string, number][] = [];
  const end = visitLinesBackwards(path, (line, start) => (lines.push([line, start]), true), until);
  return { lines, end };
}

describe('visitLinesBackwards', () => {
  it('finds every line, newest first, when lines are many times longer than a read and end on any byte', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 20; round++) {
      const { text, torn } = writeRandomLog(random);
      const { lines, end } = visited();
      expect(lines).toEqual(expectedLines(text));
      expect(end).toBe(text.length - torn.length);
    }
  });

  it('reads only the bytes before `until`, and stops where the visitor says', () => {
    const text = ['a', 'b'.repeat(3 * TAIL_READ_CHUNK_BYTES), 'c', 'd'.repeat(TAIL_READ_CHUNK_BYTES + 5)]
      .map((line) => `${line}\n`)
      .join('');
    writeFileSync(path, text);
    const untilC = text.indexOf('d');
    expect(visited(untilC).lines.map(([line, start]) => [line.slice(0, 1), line.length, start])).toEqual([
      ['c', 1, untilC - 2],
      ['b', 3 * TAIL_READ_CHUNK_BYTES, 2],
      ['a', 1, 0],
    ]);
    const seen: string[] = [];
    visitLinesBackwards(path, (line) => (seen.push(line.slice(0, 1)), line[0] !== 'b'));
    expect(seen).toEqual(['d', 'c', 'b']);
  });

  it('has no lines in a missing file or in one that holds only a torn row', () => {
    expect(visited()).toEqual({ lines: [], end: 0 });
    writeFileSync(path, `{"torn":"${'t'.repeat(2 * TAIL_READ_CHUNK_BYTES)}`);
    expect(visited()).toEqual({ lines: [], end: 0 });
  });
});

describe('visitLinesForward', () => {
  function forward(from: number): { lines: [string, number][]; end: number } {
    const lines: [string, number][] = [];
    const end = visitLinesForward(path, from, (line, start) => lines.push([line, start]));
    return { lines, end };
  }

  it('finds every line from an offset on, oldest first, when lines are many times longer than a read', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 20; round++) {
      const { text, torn } = writeRandomLog(random);
      const all = expectedLines(text).reverse();
      expect(forward(0)).toEqual({ lines: all, end: text.length - torn.length });
      // From the start of a later line, as a reader that has read up to there asks.
      const from = all.at(-1)?.[1] ?? 0;
      expect(forward(from).lines).toEqual(all.filter(([, start]) => start >= from));
    }
  });

  it('reads a torn row whole once it is finished, and starts again on a file shorter than it was', () => {
    writeFileSync(path, `{"a":1}\n{"b":"${'b'.repeat(2 * TAIL_READ_CHUNK_BYTES)}`);
    const first = forward(0);
    expect(first.lines).toEqual([['{"a":1}', 0]]);
    writeFileSync(path, `{"a":1}\n{"b":"${'b'.repeat(2 * TAIL_READ_CHUNK_BYTES)}"}\n`);
    expect(forward(first.end).lines.map(([line, start]) => [line.length, start])).toEqual([[2 * TAIL_READ_CHUNK_BYTES + 8, 8]]);
    writeFileSync(path, '');
    expect(forward(first.end).end).toBe(-1);
  });
});
