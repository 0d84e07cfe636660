/**
 * Builds one page of the decision list from the matching rows, newest first, so that a page starts
 * and ends between calls: the rows of one call are never split across two pages.
 *
 * @remarks
 * Pages are still counted in rows (the protocol caps a page at 500 of them, and the page summary says
 * "Rows 51–98 of 100,000"), but a boundary that would fall inside a run of one call's rows moves: the
 * start back to where that call's run begins, the end back to where the last whole call ends. So a
 * call that climbed three rungs shows its whole ladder on one page instead of its first rung on the
 * next page and the rest here. A page that one call fills on its own keeps its first `limit` rows
 * rather than showing nothing.
 *
 * A verdict settled later (a thumbs down, an accepted edit: a `final` row) is written when the user
 * gives it, often many calls after its call's attempts. Paged where it fell in the log, it showed on a
 * newer page on its own, and its call on an older page without it. So the rows are paged in the order
 * their calls were routed: a `final` row is held until the reader reaches its call's attempts and is
 * counted there, just above them, in the same run. Offsets and the total still count every matching
 * row once; only a late verdict's place in that count moves. A verdict whose attempts the filter
 * leaves out is placed where those attempts are (the reader says so with {@link passOver}); one whose
 * call is not in the log at all (written before it was trimmed) is counted after the oldest row.
 */
import type { DecisionRow } from '../decisions/decision';

export class CallPageCollector {
  private readonly rows: DecisionRow[] = [];
  /** The skipped rows of the newest-skipped call's run, newest first, kept in case the page starts inside it. */
  private run: DecisionRow[] = [];
  /** Verdicts settled later, by call, newest first, waiting for their call's attempts. */
  private readonly held = new Map<string, DecisionRow[]>();
  private skipped = 0;
  private start: number;
  private done = false;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
  ) {
    this.start = offset;
  }

  /** Takes the next matching row, newest first; returns false once the page is decided and no more rows are wanted. */
  add(row: DecisionRow): boolean {
    if (this.done || this.limit <= 0) return false;
    if (row.final) {
      const waiting = this.held.get(row.call);
      if (waiting) waiting.push(row);
      else this.held.set(row.call, [row]);
      return true;
    }
    return this.release(row.call) && this.place(row);
  }

  /**
   * Notes a row the filter left out, newest first like {@link add}: a verdict held for its call is
   * counted here, where the call's attempts are. Returns false once no more rows are wanted.
   */
  passOver(row: Pick<DecisionRow, 'call' | 'final'>): boolean {
    if (this.done || this.limit <= 0) return false;
    return row.final || this.release(row.call);
  }

  /** Whether a verdict is held for `call`: a reader may skip parsing a left-out row of any other call. */
  holds(call: string): boolean {
    return this.held.has(call);
  }

  /** Whether a verdict is held for any call: while none is, a left-out row need not be looked at. */
  holding(): boolean {
    return this.held.size > 0;
  }

  /** The reader reached the log's oldest row: verdicts whose call never came are counted there. */
  end(): void {
    for (const call of [...this.held.keys()]) if (!this.release(call)) return;
  }

  /** The page: its rows, newest first, and the row offset it really starts at. */
  page(): { rows: DecisionRow[]; offset: number } {
    return { rows: this.rows, offset: this.start };
  }

  /** Counts the verdicts held for `call` at this place; false once the page is decided. */
  private release(call: string): boolean {
    const waiting = this.held.get(call);
    if (!waiting) return true;
    this.held.delete(call);
    for (const row of waiting) if (!this.place(row)) return false;
    return true;
  }

  /** Counts one row at the next place of the page's order. */
  private place(row: DecisionRow): boolean {
    if (this.done) return false;
    if (this.skipped < this.offset) {
      if (this.run.length > 0 && (this.run[0] as DecisionRow).call !== row.call) this.run = [];
      this.run.push(row);
      this.skipped++;
      return true;
    }
    if (this.rows.length === 0 && this.run.length > 0 && this.run.length < this.limit && (this.run[0] as DecisionRow).call === row.call) {
      // The requested offset falls inside this call's run: the page starts where the run does. (A run
      // as long as a page is left split: moving back to it would show the same page again and again.)
      this.rows.push(...this.run);
      this.start = this.offset - this.run.length;
    }
    this.run = [];
    if (this.rows.length < this.limit) {
      this.rows.push(row);
      return true;
    }
    // The page is full and `row` is the first one past it: if it continues the last call, that call
    // moves whole to the next page, unless it is the only call here.
    this.finish(row);
    return false;
  }

  private finish(next: DecisionRow): void {
    this.done = true;
    const last = this.rows.at(-1);
    if (!last || last.call !== next.call) return;
    let cut = this.rows.length;
    while (cut > 0 && (this.rows[cut - 1] as DecisionRow).call === last.call) cut--;
    if (cut > 0) this.rows.length = cut;
  }
}
