import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { seededRandom } from '../../../../src/core/random';
import { CallPageCollector } from '../../../../src/core/session/callPage';
import { decisionRow } from '../../support/decisionRow';

/** Rows newest first, one per letter: `'ABBBCCD'` is call A (1 row), B (3), C (2), D (1). */
function rowsOf(calls: string): DecisionRow[] {
  return [...calls].map((call, index) => decisionRow({ call, rung: index }));
}

function pageOf(rows: readonly DecisionRow[], offset: number, limit: number): { calls: string; offset: number } {
  const collector = new CallPageCollector(offset, limit);
  for (const row of rows) if (!collector.add(row)) break;
  const page = collector.page();
  return { calls: page.rows.map((row) => row.call).join(''), offset: page.offset };
}

/** Pages from the newest on, each "Older" starting where the last page ended, as the panel does. */
function walk(rows: readonly DecisionRow[], limit: number): string[] {
  const pages: string[] = [];
  for (let offset = 0; offset < rows.length; ) {
    const page = pageOf(rows, offset, limit);
    pages.push(page.calls);
    offset = page.offset + page.calls.length;
  }
  return pages;
}

describe('CallPageCollector', () => {
  it('ends a page before a call whose rows would straddle its boundary, and starts the next page with that call', () => {
    expect(walk(rowsOf('ABBBCCD'), 3)).toEqual(['A', 'BBB', 'CCD']);
    expect(walk(rowsOf('AABBCC'), 3)).toEqual(['AA', 'BB', 'CC']);
  });

  it('starts a page at the beginning of the call an offset falls inside', () => {
    // "Newer" steps back by the size of the page it leaves, which may land inside a call.
    expect(pageOf(rowsOf('ABBBCCD'), 2, 4)).toEqual({ calls: 'BBB', offset: 1 });
    expect(pageOf(rowsOf('ABBBCCD'), 3, 5)).toEqual({ calls: 'BBBCC', offset: 1 });
  });

  it('keeps the first rows of a call too long for one page, and still moves on to the next page', () => {
    expect(walk(rowsOf('AAAAAB'), 3)).toEqual(['AAA', 'AAB']);
  });

  it('shows every row once and never splits a call, over many random logs and page sizes', () => {
    const random = seededRandom(20261201);
    for (let trial = 0; trial < 200; trial++) {
      let calls = '';
      const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
      for (let call = 0; call < 30; call++) calls += (letters[call % 26] as string).repeat(1 + Math.floor(random() * 4));
      const limit = 4 + Math.floor(random() * 12);
      const pages = walk(rowsOf(calls), limit);
      expect(pages.join('')).toBe(calls);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
      const pageOfCall = new Map<string, number[]>();
      pages.forEach((page, index) => {
        for (const call of new Set(page)) pageOfCall.set(call, [...(pageOfCall.get(call) ?? []), index]);
      });
      // Letters repeat after 26 calls; a repeated letter is another call, in another run.
      for (const [call, where] of pageOfCall) expect(where.length, `call ${call} on pages ${where.join(', ')} of ${pages.join(' | ')}`).toBeLessThanOrEqual(2);
      for (let index = 1; index < pages.length; index++) expect((pages[index - 1] as string).at(-1)).not.toBe((pages[index] as string)[0]);
    }
  });

  it('gives an empty page for a limit of 0 and past the last row', () => {
    expect(pageOf(rowsOf('ABC'), 0, 0)).toEqual({ calls: '', offset: 0 });
    expect(pageOf(rowsOf('ABC'), 5, 3)).toEqual({ calls: '', offset: 5 });
  });
});
