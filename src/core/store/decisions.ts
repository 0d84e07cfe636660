/**
 * The two kinds of {@link Decisions}: the decision log file beside a workspace ledger, and rows in memory
 * (a store with no file: tests, `rung chat` without `--ledger`).
 *
 * @remarks
 * Both page, count and tally spend with the same readers (DecisionPages, SpendTally), which take either
 * the file or the rows, so a page of memory rows and a page of the file cannot disagree.
 */
import { readFile } from 'node:fs/promises';
import { MemoryDecisionSink, type DecisionRow } from '../decisions/decision';
import type { DecisionLog } from '../ledger/decisionLog';
import { DecisionPages } from './decisionPages';
import { SpendTally } from './spendTally';
import type { DecisionFilter, DecisionPage, DecisionPlace, Decisions } from './store';

/** The decision log file: rows queued for it, then read backwards from its tail with the queued ones in front. */
export class FileDecisions implements Decisions {
  readonly spend: SpendTally;
  private readonly pages: DecisionPages;

  /** `share` also takes each row for the team, when the member opted in (a team store). */
  constructor(
    readonly log: DecisionLog,
    private readonly share: (row: DecisionRow) => void = () => {},
  ) {
    this.pages = new DecisionPages({ log });
    this.spend = new SpendTally({ path: log.path });
  }

  get path(): string {
    return this.log.path;
  }

  append(row: DecisionRow): void {
    this.log.append(row);
    this.share(row);
  }

  page(offset: number, limit: number, filter: DecisionFilter, before?: number): DecisionPage {
    return this.pages.page(offset, limit, filter, before);
  }

  placeOf(row: DecisionRow, filter: DecisionFilter): DecisionPlace {
    return this.pages.placeOf(row, filter);
  }

  forCall(callId: string): DecisionRow[] {
    return this.log.forCall(callId).rows;
  }

  all(): DecisionRow[] {
    return this.log.readAll().rows;
  }

  async text(): Promise<Buffer> {
    try {
      return await readFile(this.log.path);
    } catch (error) {
      if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    }
  }

  flush(): Promise<void> {
    return this.log.flush();
  }

  close(): Promise<void> {
    return this.log.close();
  }
}

/** Rows in memory, oldest first; nothing to flush. */
export class MemoryDecisions implements Decisions {
  readonly path = null;
  readonly spend: SpendTally;
  private readonly sink = new MemoryDecisionSink();
  private readonly pages: DecisionPages;

  constructor() {
    this.pages = new DecisionPages({ memory: this.sink });
    this.spend = new SpendTally({ rows: this.sink.rows });
  }

  append(row: DecisionRow): void {
    this.sink.append(row);
  }

  page(offset: number, limit: number, filter: DecisionFilter, before?: number): DecisionPage {
    return this.pages.page(offset, limit, filter, before);
  }

  placeOf(row: DecisionRow, filter: DecisionFilter): DecisionPlace {
    return this.pages.placeOf(row, filter);
  }

  forCall(callId: string): DecisionRow[] {
    return this.sink.rows.filter((row) => row.call === callId);
  }

  all(): DecisionRow[] {
    return [...this.sink.rows];
  }

  async text(): Promise<string> {
    return this.sink.rows.map((row) => JSON.stringify(row)).join('\n');
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
