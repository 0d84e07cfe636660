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
 * rather than showing nothing. A verdict settled later (thumbs, Accept) is a row written after other
 * calls' rows; it is a separate run, shown where it falls in time, as it was before.
 */
import type { DecisionRow } from '../decisions/decision';

export class CallPageCollector {
  private readonly rows: DecisionRow[] = [];
  /** The skipped rows of the newest-skipped call's run, newest first, kept in case the page starts inside it. */
  private run: DecisionRow[] = [];
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

  /** The page: its rows, newest first, and the row offset it really starts at. */
  page(): { rows: DecisionRow[]; offset: number } {
    return { rows: this.rows, offset: this.start };
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
