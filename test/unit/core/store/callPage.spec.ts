import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { seededRandom } from '../../../../src/core/random';
import { CallPageCollector, type CallPageOptions } from '../../../../src/core/store/callPage';
import { decisionRow } from '../../support/decisionRow';

/**
 * Rows newest first, one per letter: `'ABBBCCD'` is call A (1 row), B (3), C (2), D (1). A lower-case
 * letter is a verdict settled later for the call of its capital: `'aBBAA'` is call A's thumbs down,
 * written after call B, above A's two attempts.
 */
function rowsOf(calls: string): DecisionRow[] {
  return [...calls].map((letter, index) =>
    decisionRow({ call: letter.toUpperCase(), rung: index, final: letter !== letter.toUpperCase() }),
  );
}

function lettersOf(rows: readonly DecisionRow[]): string {
  return rows.map((row) => (row.final ? row.call.toLowerCase() : row.call)).join('');
}

/** For rows newest first, whether each is its call's first row in the log: no older row of the call follows. */
function firstRows(rows: readonly DecisionRow[]): boolean[] {
  const seen = new Set<string>();
  const first: boolean[] = [];
  for (let index = rows.length - 1; index >= 0; index--) {
    const call = (rows[index] as DecisionRow).call;
    first[index] = !seen.has(call);
    seen.add(call);
  }
  return first;
}

/** One page as the session reads it: rows newest first until the collector has its page, then the log's end. */
function pageOf(
  rows: readonly DecisionRow[],
  offset: number,
  limit: number,
  options: CallPageOptions = {},
): { calls: string; offset: number } {
  const collector = new CallPageCollector(offset, limit, options);
  const first = firstRows(rows);
  let wanted = true;
  for (const [index, row] of rows.entries()) if (!(wanted = collector.add(row, first[index] === true))) break;
  if (wanted) collector.end();
  const page = collector.page();
  return { calls: lettersOf(page.rows), offset: page.offset };
}

/** Pages from the newest on, each "Older" starting where the last page ended, as the panel does. */
function walk(rows: readonly DecisionRow[], limit: number, options: CallPageOptions = {}): string[] {
  const pages: string[] = [];
  for (let offset = 0; offset < rows.length;) {
    const page = pageOf(rows, offset, limit, options);
    if (page.calls === '') break;
    pages.push(page.calls);
    offset = page.offset + page.calls.length;
  }
  return pages;
}

/**
 * A random log of 20 calls (A–T) of 1–3 attempts, newest first, with up to `atOnce` under way at once,
 * each attempt written when it ends; some calls get a verdict later (their lower-case letter).
 */
function interleavedLog(random: () => number, atOnce: number): string {
  const letters = [...'ABCDEFGHIJKLMNOPQRST'];
  const oldestFirst: string[] = [];
  const open: { letter: string; left: number }[] = [];
  while (letters.length > 0 || open.length > 0) {
    if (letters.length > 0 && (open.length === 0 || (open.length < atOnce && random() < 0.5))) {
      open.push({ letter: letters.shift() as string, left: 1 + Math.floor(random() * 3) });
      continue;
    }
    const at = Math.floor(random() * open.length);
    const call = open[at] as { letter: string; left: number };
    oldestFirst.push(call.letter);
    if (--call.left > 0) continue;
    open.splice(at, 1);
    if (random() < 0.3) oldestFirst.push(call.letter.toLowerCase());
  }
  return oldestFirst.reverse().join('');
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
      // One letter a call: a call id names one call, wherever its rows are.
      for (let call = 0; call < 26; call++) calls += (letters[call] as string).repeat(1 + Math.floor(random() * 4));
      const limit = 4 + Math.floor(random() * 12);
      const pages = walk(rowsOf(calls), limit);
      expect(pages.join('')).toBe(calls);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
      const pageOfCall = new Map<string, number[]>();
      pages.forEach((page, index) => {
        for (const call of new Set(page)) pageOfCall.set(call, [...(pageOfCall.get(call) ?? []), index]);
      });
      for (const [call, where] of pageOfCall)
        expect(where.length, `call ${call} on pages ${where.join(', ')} of ${pages.join(' | ')}`).toBe(1);
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
    const log = [
      decisionRow({ call: 'A', final: true, verdict: 'fail' }),
      decisionRow({ call: 'B', verdict: 'fail' }),
      decisionRow({ call: 'A' }),
      decisionRow({ call: 'C', verdict: 'fail' }),
    ];
    for (const row of log) {
      const more = row.verdict === 'fail' ? collector.add(row, !row.final) : collector.passOver(row, !row.final);
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
      for (const verdict of late.sort((x, y) => y.after - x.after))
        oldestFirst.splice(Math.min(verdict.after, oldestFirst.length), 0, verdict.letter);
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

  it('pages two calls routed at once, whose attempts the log holds in turns, each as one call with all its rows', () => {
    // Newest first: B's second rung, A's second rung, B's first, A's first. Paged as runs: ['BA', 'BA'].
    expect(walk(rowsOf('BABA'), 2)).toEqual(['BB', 'AA']);
    // Three at once: each call counted where it was routed (its oldest row), B the newest, A the oldest.
    expect(walk(rowsOf('CBABCA'), 3)).toEqual(['BB', 'CC', 'AA']);
    // A verdict settled later goes with its call's attempts, wherever they are.
    expect(walk(rowsOf('aBABA'), 3)).toEqual(['BB', 'aAA']);
    expect(pageOf(rowsOf('CBABCA'), 3, 3)).toEqual({ calls: 'CC', offset: 2 });
  });

  it('keeps every call of an interleaved log whole on one page, over many random logs and page sizes', () => {
    const random = seededRandom(20261203);
    for (let trial = 0; trial < 200; trial++) {
      const log = interleavedLog(random, 3);
      const limit = 4 + Math.floor(random() * 8);
      const pages = walk(rowsOf(log), limit);
      expect([...pages.join('')].sort().join(''), `pages ${pages.join(' | ')} of ${log}`).toBe([...log].sort().join(''));
      for (const page of pages) {
        expect(page.length).toBeLessThanOrEqual(limit);
        for (const letter of new Set(page.toUpperCase())) {
          const rows = (text: string) => [...text.toUpperCase()].filter((shown) => shown === letter).length;
          expect(rows(page), `call ${letter} whole on one page: ${pages.join(' | ')} of ${log}`).toBe(rows(log));
        }
      }
    }
  });

  it('with a verdict, shows a call whole when any of its rows has that verdict, and not at all otherwise', () => {
    // Newest first: A's thumbs down over its passed attempt; B failed its first rung and passed its second; C passed.
    const rows = [
      decisionRow({ call: 'A', final: true, verdict: 'fail' }),
      decisionRow({ call: 'B', rung: 1, verdict: 'pass' }),
      decisionRow({ call: 'B', rung: 0, verdict: 'fail' }),
      decisionRow({ call: 'C', verdict: 'pass' }),
      decisionRow({ call: 'A', verdict: 'pass' }),
    ];
    const having = (verdict: string): CallPageOptions => ({ keep: (call) => call.some((row) => row.verdict === verdict) });
    // Filtering rows, "fail" showed B's failed rung without the answer it climbed to, and A's thumbs down alone.
    expect(pageOf(rows, 0, 10, having('fail')).calls).toBe('BBaA');
    expect(pageOf(rows, 0, 10, having('pass')).calls).toBe('BBCaA');
    expect(walk(rows, 2, having('fail'))).toEqual(['BB', 'aA']);
    expect(pageOf(rows, 0, 10, having('stopped')).calls).toBe('');
  });

  it('says where a call is counted and which of its rows match, without making a page', () => {
    const collector = new CallPageCollector(Number.MAX_SAFE_INTEGER, 1, { locate: 'A', keep: () => false });
    const rows = rowsOf('aCBABCA');
    const first = firstRows(rows);
    for (const [index, row] of rows.entries()) if (!collector.add(row, first[index] === true)) break;
    // B then C come first in the order (their first rows are newer); the keep test is not asked of A.
    expect(collector.located()?.offset).toBe(0);
    const counted = new CallPageCollector(Number.MAX_SAFE_INTEGER, 1, { locate: 'A' });
    for (const [index, row] of rows.entries()) if (!counted.add(row, first[index] === true)) break;
    expect(counted.located()?.offset).toBe(4);
    expect(lettersOf(counted.located()?.rows ?? [])).toBe('aAA');
  });

  it('pages back to the newer rows that end where the page on screen starts, skipping none', () => {
    // Newest first: A (3 rows), B (2), C (3); four to a page.
    const rows = rowsOf('AAABBCCC');
    expect(walk(rows, 4)).toEqual(['AAA', 'BB', 'CCC']);
    // "Newer" from CCC (row 5): a page of four back started inside A, moved back to A's start and ended early: AAA, and BB never showed.
    expect(pageOf(rows, 1, 4, { end: 5 })).toEqual({ calls: 'BB', offset: 3 });
    expect(pageOf(rows, 0, 4, { end: 3 })).toEqual({ calls: 'AAA', offset: 0 });
    // A call alone longer than the room before the page on screen shows its rows there, split, rather than nothing.
    expect(pageOf(rowsOf('AAAAAB'), 2, 3, { end: 5 })).toEqual({ calls: 'AAA', offset: 2 });
  });

  it('pages back over every row once from the oldest page, over many random interleaved logs and page sizes', () => {
    const random = seededRandom(20261204);
    for (let trial = 0; trial < 200; trial++) {
      const rows = rowsOf(interleavedLog(random, 2));
      const limit = 4 + Math.floor(random() * 8);
      const forward = walk(rows, limit);
      // From the oldest page, "Newer" until the newest: each page ends where the one on screen starts.
      const starts: number[] = [];
      for (let offset = 0, index = 0; index < forward.length; index++) {
        starts.push(offset);
        offset = pageOf(rows, offset, limit).offset + (forward[index] as string).length;
      }
      const back: string[] = [];
      for (let before = starts.at(-1) as number; before > 0;) {
        const page = pageOf(rows, Math.max(0, before - limit), limit, { end: before });
        expect(page.offset + page.calls.length, `the page before row ${before}`).toBe(before);
        expect(page.calls.length).toBeGreaterThan(0);
        back.unshift(page.calls);
        before = page.offset;
      }
      expect([...back, forward.at(-1)].join('')).toBe(forward.join(''));
    }
  });

  it('gives an empty page for a limit of 0 and past the last row', () => {
    expect(pageOf(rowsOf('ABC'), 0, 0)).toEqual({ calls: '', offset: 0 });
    expect(pageOf(rowsOf('ABC'), 5, 3)).toEqual({ calls: '', offset: 5 });
  });
});
