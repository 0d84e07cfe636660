/**
 * The ledger panel's view of the decision log: pages of rows newest first, each starting and ending
 * between calls, how many rows a filter shows, and where a row just written lands.
 *
 * @remarks
 * The session's rows are either a decision log file beside the ledger, read backwards from its end with
 * the rows still queued for it in front, or, with no ledger file, the rows in memory. A page reads only
 * as far back as it needs (about 1 ms for a page of a 100k-row log; src/bench/ledgerBench.ts, sessionBench.ts), which is
 * why counting and locating keep their own indexes of the file (decisionTail.ts).
 */
import { shaped } from '../classKey';
import type { DecisionRow, MemoryDecisionSink } from '../decisions/decision';
import type { DecisionLog } from '../ledger/decisionLog';
import {
  CallStarts,
  callIdOf,
  hasVerdict,
  parseObject,
  parseRow,
  RowCounter,
  visitLinesBackwards,
  type RowFields,
  type RowMatcher,
} from '../ledger/decisionTail';
import { matchesClass } from '../ledger/ledgerState';
import { CallPageCollector, type CallPageOptions } from './callPage';
import type { DecisionFilter, DecisionPage, DecisionPlace } from './store';

/** Where the rows are: the decision log file, or memory when the session has no ledger file. */
export type DecisionSource = { log: DecisionLog } | { memory: MemoryDecisionSink };

export class DecisionPages {
  private readonly log: DecisionLog | undefined;
  private readonly memoryRows: MemoryDecisionSink | undefined;
  /** One counter per filter, each keeping its place in the file so a count reads only what was appended. */
  private readonly counters = new Map<string, RowCounter>();
  /** Where each call's first row is in the decision log, read as the log grows: pages count a call there. */
  private callStarts: CallStarts | undefined;

  constructor(source: DecisionSource) {
    if ('log' in source) this.log = source.log;
    else this.memoryRows = source.memory;
  }

  /** A page of matching rows, newest first, starting and ending between calls (callPage.ts); with `before`, the one ending there. */
  page(offset: number, limit: number, filter: DecisionFilter, before?: number): DecisionPage {
    const end = before === undefined ? undefined : Math.max(0, before);
    const start = end === undefined ? Math.max(0, offset) : Math.max(0, end - limit);
    const collector = new CallPageCollector(start, limit, { ...keepFor(filter), ...(end !== undefined ? { end } : {}) });
    if (limit > 0) this.readCalls(collector, filter);
    return { ...collector.page(), total: this.total(filter) };
  }

  /** Where `row`'s call now falls under `filter`: the offset of its page's start, and how many rows it added there. */
  placeOf(row: DecisionRow, filter: DecisionFilter = {}): DecisionPlace {
    // A row the class or the model leaves out changes nothing: they pick rows, and a call shows by the rows they keep.
    if (!rowMatcher(filter).matches(row)) return { offset: null, added: 0 };
    const collector = new CallPageCollector(Number.MAX_SAFE_INTEGER, 1, { locate: row.call });
    this.readCalls(collector, filter, row.call);
    const found = collector.located();
    if (!found) return { offset: null, added: 0 };
    const keep = keepFor(filter).keep;
    const shown = (rows: readonly DecisionRow[]): number => (rows.length > 0 && (!keep || keep(rows)) ? rows.length : 0);
    // `row` is its call's newest row, so the first the collector holds: without it, the call as it was.
    const now = shown(found.rows);
    return { offset: now > 0 ? found.offset : null, added: now - shown(found.rows.slice(1)) };
  }

  /**
   * Gives `collector` the log's rows newest first, the rows still queued for the file before the rest,
   * each marked with whether it is its call's first row, until the collector wants no more.
   *
   * @remarks
   * Rows the class and model filters leave out are passed over, parsed only when the collector holds
   * rows of their call. With a verdict, a row that would be its call's only one on the page and lacks
   * the verdict is not parsed either, unless it is the call being located.
   */
  private readCalls(collector: CallPageCollector, filter: DecisionFilter, locate?: string): void {
    const matcher = rowMatcher(filter);
    const verdict = filter.verdict;
    const handle = (line: string, firstOf: (call: string) => boolean): boolean => {
      if (!matcher.mayMatch(line)) return passOver(collector, line, firstOf);
      let fields: Record<string, unknown> | undefined;
      if (!matcher.everything) {
        fields = parseObject(line);
        if (!fields) return true;
        if (!matcher.matches(fields)) return passOver(collector, line, firstOf, fields);
      }
      if (verdict !== undefined) {
        const call = fields ? fields.call : callIdOf(line);
        if (typeof call === 'string' && call !== locate && !collector.holds(call) && !hasVerdict(line, verdict) && firstOf(call))
          return true;
      }
      const row = parseRow(line);
      return row ? collector.add(row, firstOf(row.call)) : true;
    };
    if (this.log) {
      const starts = (this.callStarts ??= new CallStarts(this.log.path));
      const known = starts.refresh();
      const queued = this.log.queuedLines();
      const seen = new Set<string>();
      const queuedFirst = queued.map((line) => {
        const call = callIdOf(line);
        if (typeof call !== 'string' || seen.has(call) || starts.startOf(call) !== undefined) return false;
        seen.add(call);
        return true;
      });
      for (let index = queued.length - 1; index >= 0; index--) {
        if (!handle(queued[index] as string, () => queuedFirst[index] === true)) return;
      }
      let wanted = true;
      // Up to where the index of first rows has read: a row appended since (by another window) shows next time.
      visitLinesBackwards(this.log.path, (line, at) => (wanted = handle(line, (call) => starts.startOf(call) === at)), known);
      if (wanted) collector.end();
      return;
    }
    const all = (this.memoryRows as MemoryDecisionSink).rows;
    const seen = new Set<string>();
    const first = all.map((row) => !seen.has(row.call) && seen.add(row.call) !== undefined);
    for (let index = all.length - 1; index >= 0; index--) {
      const row = all[index] as DecisionRow;
      const wanted = matcher.matches(row) ? collector.add(row, first[index] === true) : collector.passOver(row, first[index] === true);
      if (!wanted) return;
    }
    collector.end();
  }

  /** How many rows the decision list shows under `filter`: the rows queued for the file among them. */
  total(filter: DecisionFilter): number {
    const matcher = rowMatcher(filter);
    if (this.log) {
      const key = JSON.stringify([filter.classKey ?? null, filter.model ?? null, filter.verdict ?? null]);
      let counter = this.counters.get(key);
      if (!counter) {
        counter = new RowCounter(this.log.path, matcher);
        this.counters.set(key, counter);
      }
      return counter.total(this.log.queuedLines());
    }
    let total = 0;
    const waiting = new Map<string, number>();
    const shown = new Set<string>();
    for (const row of (this.memoryRows as MemoryDecisionSink).rows) {
      if (!matcher.matches(row)) continue;
      if (filter.verdict === undefined || shown.has(row.call)) total++;
      else if (row.verdict !== filter.verdict) waiting.set(row.call, (waiting.get(row.call) ?? 0) + 1);
      else {
        total += (waiting.get(row.call) ?? 0) + 1;
        shown.add(row.call);
      }
    }
    return total;
  }
}

/**
 * Tells the page collector about a log line the filter left out, in case rows of that line's call are
 * held for its first row (callPage.ts); returns whether more lines are wanted.
 *
 * @remarks
 * Read only while rows are held, and then only the call id is picked out of the text: a filtered
 * page of a 100k-row log passes over nearly every line, and parsing each would cost what the filter's
 * text test saves. A line of a held call is parsed, to know whether it is an attempt or a verdict.
 */
function passOver(
  collector: CallPageCollector,
  line: string,
  firstOf: (call: string) => boolean,
  fields?: Record<string, unknown>,
): boolean {
  if (!collector.holding()) return true;
  const call = fields ? fields.call : callIdOf(line);
  if (typeof call !== 'string' || !collector.holds(call)) return true;
  const parsed = fields ?? parseObject(line);
  return parsed ? collector.passOver({ call, final: parsed.final === true }, firstOf(call)) : true;
}

/** The verdict filter as a test of whole calls: a call is shown when one of its matching rows has the verdict. */
function keepFor(filter: DecisionFilter): CallPageOptions {
  const verdict = filter.verdict;
  return verdict === undefined ? {} : { keep: (rows) => rows.some((row) => row.verdict === verdict) };
}

function rowMatcher(filter: DecisionFilter): RowMatcher {
  const needles: string[] = [];
  const wanted = filter.classKey === undefined ? undefined : shaped(filter.classKey);
  if (wanted !== undefined) needles.push(JSON.stringify(wanted.split('/')[0]));
  if (filter.model !== undefined) needles.push(JSON.stringify(filter.model));
  return {
    everything: needles.length === 0,
    mayMatch: (line) => needles.every((needle) => line.includes(needle)),
    // The verdict is not a test of the row: it picks whole calls (keepFor, and the counter's `verdict`).
    matches: (row: RowFields) =>
      (wanted === undefined ||
        (typeof row.class === 'string' &&
          matchesClass(typeof row.shape === 'string' && row.shape ? `${row.class}/${row.shape}` : row.class, wanted))) &&
      (filter.model === undefined || row.model === filter.model || row.resolved === filter.model),
    ...(filter.verdict !== undefined ? { verdict: filter.verdict } : {}),
  };
}
