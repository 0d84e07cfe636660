/**
 * The store: where a session's ratings and decision rows are kept, opened from one
 * {@link StoreLocation} by `openStore`.
 *
 * @remarks
 * The session used to hold a ledger and, beside it, either a decision log file or rows in memory, and
 * branched between them in every method that read them (casts to the memory sink, `instanceof
 * WorkspaceLedger` for the flush timer, a duck-typed `reset`, an optional `shareDecision`). A store
 * answers the same questions whatever it is kept in, so the session reads it without asking which.
 */
import type { DecisionRow, DecisionSink } from '../decisions/decision';
import type { Ledger } from '../ledger/ledger';
import type { Verdict } from '../verdict';
import type { SpendTally } from './spendTally';
import type { StoreLocation } from './storeLocation';

export interface DecisionPage {
  /** Newest first. */
  rows: DecisionRow[];
  /** Rows in the whole log (after filters). */
  total: number;
  offset: number;
}

/**
 * Which decisions a page shows. The class and the model pick rows; the verdict picks calls: a call is
 * shown whole (every row the class and model keep) when one of those rows has the verdict.
 */
export interface DecisionFilter {
  classKey?: string;
  model?: string;
  verdict?: Verdict;
}

/** Where a newly written row goes in the decision list a filter shows (`Session.placeOf`). */
export interface DecisionPlace {
  /** The row offset its call's rows start at, where the row is now counted (newest first); null when the call is not shown. */
  offset: number | null;
  /** How many rows the list gained: 1 for a row shown, 0 for one left out, more when the row brought its whole call in. */
  added: number;
}

/**
 * The decision rows of a store: appended as calls are routed, read as pages, per call, whole, and as
 * spend. One interface over the decision log file (read backwards from its tail) and rows in memory.
 */
export interface Decisions extends DecisionSink {
  /** The log file; null when the rows are in memory. */
  readonly path: string | null;
  /** Spend by day and model, kept up to date from the rows without reading them again. */
  readonly spend: SpendTally;
  /** Queues one row (and, where the member opted in, a copy for the team); visible to the reads at once. */
  append(row: DecisionRow): void;
  /** A page of matching rows, newest first, starting and ending between calls; with `before`, the page ending there. */
  page(offset: number, limit: number, filter: DecisionFilter, before?: number): DecisionPage;
  /** Where `row`, its call's newest row, now falls under `filter`, and how much the list grew. */
  placeOf(row: DecisionRow, filter: DecisionFilter): DecisionPlace;
  /** Every row of one call, oldest first. */
  forCall(callId: string): DecisionRow[];
  /** Every readable row, oldest first. */
  all(): DecisionRow[];
  /** The rows as JSON lines, read without holding the thread for the whole file: the estimates parse them in slices. */
  text(): Promise<string | Buffer>;
  /** Writes the queued rows; throws when they could not be written (they stay queued). */
  flush(): Promise<void>;
  /** Writes the queued rows and lets the file go. */
  close(): Promise<void>;
}

/** A store's ratings and decision rows, and what is done to both together. */
export interface Store {
  readonly location: StoreLocation;
  /** What the router ranks from and learns into. */
  readonly ratings: Ledger;
  readonly decisions: Decisions;
  /** Lands the ratings, then the rows. */
  flush(): Promise<void>;
  /** Saves and lets go of the ratings, then the rows (the ratings' save is the slow one: a lock, a whole-file export). */
  close(): Promise<void>;
  /** Forgets every rating, or those of one class and its shapes; the decision rows are kept. Returns how many went. */
  reset(classKey?: string): Promise<number>;
  /** The ratings and every decision row as `rung ledger export` writes them (JSON lines); the rows still queued are not flushed first. */
  export(): Promise<string>;
}
