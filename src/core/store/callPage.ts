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
 * A call's rows are not always together in the log. A verdict settled later (a thumbs down, an
 * accepted edit: a `final` row) is written when the user gives it, often many calls after its call's
 * attempts; and two calls routed at once (two chat requests, an inline chat beside the Chat view)
 * write their attempts in turns. Paged where they fell in the log, a late verdict showed on a newer
 * page on its own, and two interleaved calls each showed as two runs, split across a page boundary.
 * So the rows are paged in the order their calls were routed: every row of a call is held until the
 * reader reaches the call's first row in the log (the reader says which row that is), and the call is
 * counted there, all its rows together, newest first. Offsets and the total still count every shown
 * row once; only the place of a call's later rows in that count moves. A call whose first row the
 * filter leaves out is placed where that row is (the reader says so with {@link passOver}); one whose
 * first row is not in the log at all (trimmed away) is counted after the oldest row.
 *
 * A filter on the verdict picks calls, not rows (`keep`): a call is shown whole when any of its rows
 * has that verdict, and not at all otherwise. Picking rows, it showed a call that passed and was then
 * given a thumbs down as its verdict row alone, and one that failed on its first rung as that rung
 * alone, without the answer it climbed to.
 */
import type { DecisionRow } from '../decisions/decision';

export interface CallPageOptions {
  /** Whether a call is shown, given all of its matching rows (newest first); every call is without it. */
  keep?: (rows: readonly DecisionRow[]) => boolean;
  /**
   * Makes the page of newer rows that ends just before this row offset (the page the user is on starts
   * there): it starts at the first call that begins at or after `offset`, not at the start of a call
   * `offset` falls inside, which would end it early and skip the rows in between.
   */
  end?: number;
  /** Stops at this call instead of making a page, to say where it is counted (see {@link CallPageCollector.located}); give it an offset past every row. */
  locate?: string;
}

export class CallPageCollector {
  private readonly rows: DecisionRow[] = [];
  /** The skipped rows of the newest-skipped call's run, newest first, kept in case the page starts inside it. */
  private run: DecisionRow[] = [];
  /** Rows of calls whose first row the reader has not reached yet, by call, newest first. */
  private readonly held = new Map<string, DecisionRow[]>();
  private skipped = 0;
  /** Rows counted so far, skipped or on the page: the place the next call starts at. */
  private counted = 0;
  private start: number;
  private done = false;
  private found: { offset: number; rows: DecisionRow[] } | undefined;
  /** With `end`: the rows of the call `offset` fell inside, passed over in case no other call fits before `end`. */
  private passed: DecisionRow[] = [];

  constructor(
    private readonly offset: number,
    private readonly limit: number,
    private readonly options: CallPageOptions = {},
  ) {
    this.start = offset;
  }

  /**
   * Takes the next matching row, newest first; `first` says that it is its call's first row in the log
   * (no older row of the call follows). Returns false once the page is decided and no more rows are wanted.
   */
  add(row: DecisionRow, first: boolean): boolean {
    if (this.done || this.limit <= 0) return false;
    // A verdict is never its call's opening; one whose attempts were trimmed away waits for the log's end.
    if (!first || row.final) {
      const waiting = this.held.get(row.call);
      if (waiting) waiting.push(row);
      else this.held.set(row.call, [row]);
      return true;
    }
    const rows = this.held.get(row.call) ?? [];
    this.held.delete(row.call);
    rows.push(row);
    return this.placeCall(row.call, rows);
  }

  /**
   * Notes a row the filter left out, newest first like {@link add}: when it is the first row of a call
   * whose rows are held, the call is counted here. Returns false once no more rows are wanted.
   */
  passOver(row: Pick<DecisionRow, 'call' | 'final'>, first: boolean): boolean {
    if (this.done || this.limit <= 0) return false;
    if (!first || row.final) return true;
    return this.release(row.call);
  }

  /** Whether rows of `call` are held: a reader may skip looking at a left-out row of any other call. */
  holds(call: string): boolean {
    return this.held.has(call);
  }

  /** Whether rows of any call are held: while none are, a left-out row need not be looked at. */
  holding(): boolean {
    return this.held.size > 0;
  }

  /** The reader reached the log's oldest row: calls whose first row never came are counted there. */
  end(): void {
    for (const call of [...this.held.keys()]) if (!this.release(call)) return;
    if (this.options.end !== undefined && !this.done) this.closeBefore();
  }

  /** The page: its rows, newest first, and the row offset it really starts at. */
  page(): { rows: DecisionRow[]; offset: number } {
    return { rows: this.rows, offset: this.start };
  }

  /** With `locate`: the offset the call's rows start at and its matching rows, newest first (`keep` not asked); undefined when it never came. */
  located(): { offset: number; rows: DecisionRow[] } | undefined {
    return this.found;
  }

  /** Counts the rows held for `call` at this place; false once the page is decided. */
  private release(call: string): boolean {
    const waiting = this.held.get(call);
    if (!waiting) return true;
    this.held.delete(call);
    return this.placeCall(call, waiting);
  }

  /** Counts one whole call, newest row first, unless the filter leaves the call out. */
  private placeCall(call: string, rows: DecisionRow[]): boolean {
    if (call === this.options.locate) {
      // Before `keep`: the one asking wants the call's rows whether they are shown or not.
      this.found = { offset: this.counted, rows };
      this.done = true;
      return false;
    }
    if (this.options.keep && !this.options.keep(rows)) return true;
    for (const row of rows) if (!this.place(row)) return false;
    return true;
  }

  /** Counts one row at the next place of the page's order. */
  private place(row: DecisionRow): boolean {
    if (this.done) return false;
    this.counted++;
    const end = this.options.end;
    if (end !== undefined && this.counted > end) {
      // The row the page after this one starts with: this page is whole.
      this.closeBefore();
      return false;
    }
    if (
      end !== undefined &&
      this.skipped >= this.offset &&
      this.rows.length === 0 &&
      this.run.length > 0 &&
      (this.run[0] as DecisionRow).call === row.call
    ) {
      // `offset` fell inside this call: it is shown on the page before this one, which ends where it does.
      this.passed.push(row);
      this.start++;
      return true;
    }
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

  /** Ends a page of newer rows at `end`; one call alone longer than the room before `end` shows its rows there, split. */
  private closeBefore(): void {
    this.done = true;
    if (this.rows.length > 0 || this.passed.length === 0) return;
    this.rows.push(...this.passed);
    this.start = this.offset;
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
