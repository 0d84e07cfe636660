import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { seededRandom } from '../../../../src/core/random';
import { CallPageCollector } from '../../../../src/core/session/callPage';
import { decisionRow } from '../../support/decisionRow';

/**
 * Rows newest first, one per letter: `'ABBBCCD'` is call A (1 row), B (3), C (2), D (1). A lower-case
 * letter is a verdict settled later for the call of its capital: `'aBBAA'` is call A's thumbs down,
 * written after call B, above A's two attempts.
 */
function rowsOf(calls: string): DecisionRow[] {
  return [...calls].map((letter, index) => decisionRow({ call: letter.toUpperCase(), rung: index, final: letter !== letter.toUpperCase() }));
}

function lettersOf(rows: readonly DecisionRow[]): string {
  return rows.map((row) => (row.final ? row.call.toLowerCase() : row.call)).join('');
}

/** One page as the session reads it: rows newest first until the collector has its page, then the log's end. */
function pageOf(rows: readonly DecisionRow[], offset: number, limit: number): { calls: string; offset: number } {
  const collector = new CallPageCollector(offset, limit);
  for (const row of rows) if (!collector.add(row)) break;
  collector.end();
  const page = collector.page();
  return { calls: lettersOf(page.rows), offset: page.offset };
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

  it('shows a verdict settled a page of calls later with its call, on the page where that call was routed', () => {
    // Before, the thumbs down for A opened the first page on its own and A's page lacked it: ['aBB', 'CCDD', 'AA'].
    expect(walk(rowsOf('aBBCCDDAA'), 4)).toEqual(['BBCC', 'DD', 'aAA']);
    expect(walk(rowsOf('bcCCBBB'), 4)).toEqual(['cCC', 'bBBB']);
  });

  it('counts a settled verdict at its call\'s place, so "Newer" and "Older" offsets land on the same pages', () => {
    expect(pageOf(rowsOf('aBBCCDDAA'), 4, 4)).toEqual({ calls: 'DD', offset: 4 });
    expect(pageOf(rowsOf('aBBCCDDAA'), 6, 4)).toEqual({ calls: 'aAA', offset: 6 });
    // An offset inside A's run (its verdict and attempts) starts where the run does.
    expect(pageOf(rowsOf('aBBCCDDAA'), 7, 4)).toEqual({ calls: 'aAA', offset: 6 });
  });

  it('places a settled verdict whose attempts the filter leaves out where those attempts are in the log', () => {
    // A verdict filter of "fail": A's attempts passed, its thumbs down failed; B and C failed.
    const collector = new CallPageCollector(1, 1);
    const log = [decisionRow({ call: 'A', final: true, verdict: 'fail' }), decisionRow({ call: 'B', verdict: 'fail' }), decisionRow({ call: 'A' }), decisionRow({ call: 'C', verdict: 'fail' })];
    for (const row of log) {
      const more = row.verdict === 'fail' ? collector.add(row) : collector.passOver(row);
      if (!more) break;
    }
    collector.end();
    expect(lettersOf(collector.page().rows)).toBe('a');
  });

  it('shows a settled verdict whose call is not in the log at all on the last page rather than losing it', () => {
    expect(walk(rowsOf('xBBCC'), 2)).toEqual(['BB', 'CC', 'x']);
  });

  it('keeps every call with its late verdicts, in the order calls were routed, over many random logs and page sizes', () => {
    const random = seededRandom(20261202);
    for (let trial = 0; trial < 200; trial++) {
      // 20 calls, oldest last, each of 1–3 attempts; some get a verdict written 0–12 rows later.
      const letters = 'ABCDEFGHIJKLMNOPQRST';
      const oldestFirst: string[] = [];
      const late: { letter: string; after: number }[] = [];
      for (const letter of [...letters].reverse()) {
        oldestFirst.push(...letter.repeat(1 + Math.floor(random() * 3)));
        if (random() < 0.3) late.push({ letter: letter.toLowerCase(), after: oldestFirst.length + Math.floor(random() * 12) });
      }
      for (const verdict of late.sort((x, y) => y.after - x.after)) oldestFirst.splice(Math.min(verdict.after, oldestFirst.length), 0, verdict.letter);
      const log = oldestFirst.reverse().join('');
      const limit = 5 + Math.floor(random() * 8);
      const pages = walk(rowsOf(log), limit);
      const attempts = (text: string) => text.replace(/[a-z]/g, '');
      expect(attempts(pages.join(''))).toBe(attempts(log));
      expect([...pages.join('')].sort().join('')).toBe([...log].sort().join(''));
      for (const [index, page] of pages.entries()) {
        expect(page.length).toBeLessThanOrEqual(limit);
        for (const verdict of page.replace(/[A-Z]/g, '')) {
          expect(page, `pages ${pages.join(' | ')} of ${log}`).toContain(verdict.toUpperCase());
          for (const other of pages.filter((_, at) => at !== index)) expect(other).not.toContain(verdict.toUpperCase());
        }
      }
    }
  });

  it('gives an empty page for a limit of 0 and past the last row', () => {
    expect(pageOf(rowsOf('ABC'), 0, 0)).toEqual({ calls: '', offset: 0 });
    expect(pageOf(rowsOf('ABC'), 5, 3)).toEqual({ calls: '', offset: 5 });
  });
});
