/**
 * The ledger every window and the `rung` CLI share: a plain SQLite file (sql.js) in the workspace.
 *
 * @remarks
 * Its shape comes from three facts. Ranking runs once per rung of every call and may not wait on disk,
 * so `snapshot()` reads memory only and `observe()` changes memory at once. Several processes write the
 * one file, so a save takes a lock file, re-reads the file, replays this process's queued *operations*
 * (never its resulting ratings) on top of what the others landed, and renames a complete new file into
 * place: a writer killed at any instant leaves the old file or the new one, and two writers never lose
 * each other's observations. And sql.js holds its database in memory and can only save by exporting
 * the whole file, so the file stays small: the decision log, which grows by a row per call, lives beside
 * it in an append-only JSON-lines file (see DecisionLog).
 */
import { createHash, randomUUID } from 'node:crypto';
import { lstatSync, renameSync, type BigIntStats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import type { Clock } from '../clock';
import type { Observation, Rating } from '../ratings';
import type { SignalUpdate } from '../signal/promptSignal';
import type { TimingObservation } from '../timing';
import { removeLeftoverTemps, writeFileAtomic } from '../files/atomicWrite';
import { FileLock, LOCK_STALE_MS, LOCK_WAIT_ATTEMPTS, LOCK_WAIT_INTERVAL_MS, type LockHandle } from '../files/fileLock';
import { FLUSH_INTERVAL_MS, FlushTimer, timerScheduler, type Scheduler } from '../files/flushTimer';
import { sortEntries, sortTimings, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn, type TimingEntry } from './ledger';
import { describe, inspectLedgerFile, LEDGER_MAX_BYTES, readWithStat } from './ledgerFile';
import { describeSkippedRows, LedgerState, SKIPPED_ROWS_REASON, snapshotOf, type LedgerOp, type ProfileCaps } from './ledgerState';
import { lockNotices, type LedgerNotice } from './notices';
import { ensureFolder, lstatIfExists, refuseUnlessFolder } from '../files/safeFiles';
import { markAsRung, migrate, SCHEMA_VERSION } from './schema';
import { loadSqlJs, type WasmSource } from './sqlJs';

/**
 * Spawn rows land this soon after they are queued, ms, ahead of the once-a-second batching.
 *
 * @remarks
 * A busy mark is worth something only while the call runs, and another window must see it within one
 * second (SPEC section 2). 100 ms gathers a cascade's starts into one save and leaves the rest of the
 * second to the reader's {@link REFRESH_INTERVAL_MS}.
 */
export const SPAWN_FLUSH_DELAY_MS = 100;
/**
 * How often the ledger re-reads the file for other processes' work ({@link WorkspaceLedger.refresh}), ms.
 *
 * @remarks
 * With {@link SPAWN_FLUSH_DELAY_MS} plus a save of a few milliseconds, a 500 ms refresh shows another
 * process's spawn within one second. A refresh that finds the file unchanged costs one `stat`.
 */
export const REFRESH_INTERVAL_MS = 500;

/** The ledger's default place, relative to the workspace root. */
export const DEFAULT_LEDGER_PATH = join('.rung', 'ledger.sqlite');

/**
 * Whether `path` is the workspace's own ledger (`…/.rung/ledger.sqlite`), where whatever stands can only
 * be a ledger of Rung's or damage to one, and is repaired by moving it aside; anywhere else a file that is
 * not Rung's ledger was named by mistake, or is someone else's, and is refused and left as it is.
 */
export function isRungsOwnLedgerPath(path: string): boolean {
  return path === DEFAULT_LEDGER_PATH || path.endsWith(`${sep}${DEFAULT_LEDGER_PATH}`);
}

export type { LedgerNotice } from './notices';
// Where they were first declared; the flush timer owns them now that the decision log shares it.
export { FLUSH_INTERVAL_MS, timerScheduler, type Scheduler } from '../files/flushTimer';

export interface WorkspaceLedgerOptions {
  /** The SQLite file, e.g. `<workspace>/.rung/ledger.sqlite`. */
  path: string;
  clock: Clock;
  /** An initialised sql.js; {@link WorkspaceLedger.open} loads one. */
  sql: SqlJsStatic;
  /** Never write the file: for inspection (`rung ledger show`) and for files from a newer schema. */
  readOnly?: boolean;
  schedule?: Scheduler;
  /**
   * The timer that lands queued writes; one of its own (on `schedule`) unless given. Pass the same one
   * to the `DecisionLog` beside this ledger (or read {@link WorkspaceLedger.flushTimer}).
   */
  flushTimer?: FlushTimer;
  onNotice?: (notice: LedgerNotice) => void;
  lock?: { attempts?: number; intervalMs?: number; staleMs?: number };
  /** Makes the id of a new ledger; `crypto.randomUUID` unless a test pins it. */
  newId?: () => string;
  /**
   * Told the ledger's id when this process made the ledger (no file, an empty one, or a fresh start after
   * a damaged one was moved aside) and its first save landed: the evidence in it is this machine's own.
   * A file that was already a ledger is never reported, whatever this process then learns into it.
   */
  onCreated?: (ledgerId: string) => void;
}

export type OpenLedgerOptions = Omit<WorkspaceLedgerOptions, 'sql'> & WasmSource & { sql?: SqlJsStatic };

/** What a merge folded in. */
export interface MergeReport {
  sourceId: string;
  /** Ratings in the source ledger. */
  sourceRatings: number;
  /** Graded observations added by this merge (0 when the same file was merged before). */
  addedGraded: number;
  /** Rows of the source left out because Rung could not have written their values, in words; absent when none were. */
  skippedRows?: string;
}

type DiskRead =
  | { kind: 'missing' }
  | { kind: 'ok'; db: Database; state: LedgerState; migratedFrom: number | null; stat: BigIntStats }
  | { kind: 'newer'; db: Database; version: number; stat: BigIntStats }
  /** A damaged file, to be moved aside; `problem` reads after its path. */
  | { kind: 'damaged'; problem: string }
  /** Something at the path that is not ours to move or replace; `message` says what, naming the path. */
  | { kind: 'refused'; message: string };

/** Rounds of lock waiting `close()` allows: enough that a stale lock is always reached and taken over. */
const CLOSE_ROUNDS = Math.ceil(LOCK_STALE_MS / (LOCK_WAIT_ATTEMPTS * LOCK_WAIT_INTERVAL_MS)) + 2;

export class WorkspaceLedger implements Ledger {
  readonly path: string;
  /** Everything the user should hear about, oldest first. */
  readonly notices: LedgerNotice[] = [];
  private readonly clock: Clock;
  private readonly sql: SqlJsStatic;
  private readonly schedule: Scheduler;
  private readonly onNotice: ((notice: LedgerNotice) => void) | undefined;
  private readonly newId: () => string;
  private readonly onCreated: ((ledgerId: string) => void) | undefined;
  private readonly lock: FileLock;
  private writable: boolean;
  /** What the file held when this process last read or wrote it. */
  private base: LedgerState;
  /** `base` with every queued operation applied and only the spawns still in flight: what snapshots read. */
  private state: LedgerState;
  /** Operations applied to `state` but not yet landed in the file, oldest first. */
  private pending: LedgerOp[] = [];
  /**
   * Updates made while read-only, oldest first: applied in memory, never written, and re-applied over
   * every state read from the file, or a refresh would drop this window's own observations.
   */
  private unsaved: LedgerOp[] = [];
  /**
   * Calls started while read-only and not yet ended, re-applied like {@link unsaved}, or a refresh would
   * free a model this window is still calling. Kept apart so an ended call leaves no op behind: a
   * read-only window that runs for days must not replay every call it ever made on each refresh.
   */
  private unsavedSpawns = new Map<string, LedgerOp>();
  /** The file must be written even with nothing queued (new, migrated, or to be moved aside). */
  private needsWrite = false;
  private signature: string | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private readonly timer: FlushTimer;
  private cancelRefresh: (() => void) | undefined;
  private flushChain: Promise<void> = Promise.resolve();
  private tempsCleaned = false;
  /** The rows left out that were last told about, so a refresh of the same file does not say them again. */
  private skippedSaid: string | undefined;
  private closed = false;
  /** Set once close() begins: a save that fails then is close's to throw, and nothing will retry it. */
  private closing = false;

  constructor(options: WorkspaceLedgerOptions) {
    this.path = resolve(options.path);
    this.clock = options.clock;
    this.sql = options.sql;
    this.writable = !options.readOnly;
    this.schedule = options.schedule ?? timerScheduler;
    this.timer = options.flushTimer ?? new FlushTimer({ clock: this.clock, schedule: this.schedule });
    this.onNotice = options.onNotice;
    this.newId = options.newId ?? randomUUID;
    this.onCreated = options.onCreated;
    this.lock = new FileLock({
      path: `${this.path}.lock`,
      clock: this.clock,
      ...options.lock,
      ...lockNotices('ledger', (notice) => this.notify(notice)),
    });
    this.base = new LedgerState('');
    this.state = this.base.clone();
  }

  /**
   * Opens (creating, migrating or repairing as needed) the ledger at `options.path`.
   *
   * @remarks
   * The file is read once without the lock, so a window opens at once even while another saves; any
   * write it needs (a new file, a migration, moving a damaged file aside) then happens under the lock
   * before `open` returns, or on the next save if the lock stayed busy. A path that holds something
   * other than a ledger (a directory, an unreadable file, another application's database; see
   * {@link inspectLedgerFile}) makes `open` throw, naming it, with nothing touched.
   *
   * From then on the ledger re-reads the file every {@link REFRESH_INTERVAL_MS} on the scheduler's
   * (unref'd) timer until `close()`: whether another window's call makes a model busy here must not
   * depend on the owner remembering to call `refresh`.
   */
  static async open(options: OpenLedgerOptions): Promise<WorkspaceLedger> {
    const sql = options.sql ?? (await loadSqlJs(options));
    return WorkspaceLedger.started(new WorkspaceLedger({ ...options, sql }));
  }

  /** The rest of {@link open} once the ledger is built, for a subclass that builds its own. */
  protected static async started<T extends WorkspaceLedger>(ledger: T): Promise<T> {
    // The folder first: a `.rung` that is a link to another folder is refused before anything is read
    // through it (see safeFiles.ts). Only a writer makes the folder.
    if (ledger.writable) ensureFolder(dirname(ledger.path));
    else refuseUnlessFolder(dirname(ledger.path));
    ledger.loadFromDisk(true);
    if (ledger.needsWrite) await ledger.flush();
    ledger.scheduleRefresh();
    return ledger;
  }

  /** The timer that lands this ledger's writes; give it to the decision log beside it so both land together. */
  get flushTimer(): FlushTimer {
    return this.timer;
  }

  /** Whether saves happen; false for inspection and for a file from a newer schema. */
  get isWritable(): boolean {
    return this.writable;
  }

  /** This ledger's id (random, set when the file was created); merges record it. */
  get id(): string {
    return this.state.ledgerId;
  }

  /** Operations applied in memory but not yet in the file. */
  get queued(): number {
    return this.pending.length;
  }

  /** Spawn rows held in memory: the calls in flight here and in the other windows this one has read. */
  get spawnsHeld(): number {
    return this.state.spawns.size;
  }

  snapshot(now: number): LedgerSnapshot {
    // `state` is replaced, never changed: every update (observe, a spawn, a refresh, a save) builds a new
    // LedgerState sharing what it did not touch, and the first update after a snapshot copies what it
    // touches (LedgerState.advanced). So the view stays as of this call for as long as the caller keeps
    // it, across awaits too, and taking it copies nothing.
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    this.enqueue(observations.map((observation) => ({ kind: 'observe', observation })));
  }

  learnSignal(update: SignalUpdate): void {
    this.enqueue([{ kind: 'signal', update }]);
  }

  confidenceCounts(): [string, { n: number; ok: number }][] {
    return [...this.state.confidence].map(([key, count]) => [key, { ...count }]);
  }

  countConfidence(increments: readonly { key: string; n: number; ok: number }[]): void {
    if (increments.length === 0) return;
    this.enqueue([{ kind: 'confidence', increments: increments.map((increment) => ({ ...increment })) }]);
  }

  observeTiming(observations: readonly TimingObservation[]): void {
    if (observations.length === 0) return;
    this.enqueue(observations.map((observation) => ({ kind: 'timing', observation: { ...observation } })));
  }

  timings(): TimingEntry[] {
    return sortTimings([...this.state.timings.values()].map((entry) => ({ ...entry })));
  }

  alias(slug: string, resolved: string): void {
    if (slug === resolved || this.state.aliases.get(slug) === resolved) return;
    this.enqueue([{ kind: 'alias', slug, resolved }]);
  }

  spawnStarted(spawn: Spawn): void {
    this.enqueue([{ kind: 'spawn-start', spawn: { ...spawn } }], SPAWN_FLUSH_DELAY_MS);
  }

  spawnEnded(spawnId: string, at: number): void {
    this.enqueue([{ kind: 'spawn-end', spawnId, at }], SPAWN_FLUSH_DELAY_MS);
  }

  /** A profile's diversity caps, or undefined when the ledger holds none for it. */
  profileCaps(classKey: string): ProfileCaps | undefined {
    const caps = this.state.caps.get(classKey);
    return caps ? { ...caps } : undefined;
  }

  /** Sets (or, with null, removes) a profile's caps. */
  setProfileCaps(classKey: string, caps: ProfileCaps | null): void {
    this.enqueue([{ kind: 'caps', classKey, caps: caps ? { ...caps } : null }]);
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  /** The rating of one model at one class key, as of now. */
  rating(model: string, classKey: string): Rating | undefined {
    return this.snapshot(this.clock.now()).rating(model, classKey);
  }

  /** Forgets every rating, or those of one class and its shapes; lands before it returns. */
  async reset(classKey?: string): Promise<number> {
    this.requireWritable('reset');
    const before = this.state.ratings.size;
    this.enqueue([{ kind: 'reset', classKey: classKey ?? null, at: this.clock.now() }]);
    await this.flush();
    return before - this.state.ratings.size;
  }

  /**
   * Folds a teammate's ledger into this one; merging the same file again adds nothing twice.
   *
   * @remarks
   * The merge is queued as one operation carrying the source's ratings and replayed under the lock like
   * any other, so the "already folded" counts it compares against are the ones in the file at that
   * moment, not a copy another window has since moved past.
   */
  async merge(otherPath: string): Promise<MergeReport> {
    this.requireWritable('merge');
    const source = readMergeSource(otherPath, this.sql, this.clock.now());
    if (source.ledgerId === this.state.ledgerId) throw new Error(`${otherPath} is this ledger (id ${source.ledgerId}); nothing to merge`);
    const report = await this.mergeFrom({ sourceId: source.ledgerId, entries: [...source.ratings.values()], aliases: [...source.aliases] });
    const skippedRows = describeSkippedRows(source.skipped);
    return skippedRows === undefined ? report : { ...report, skippedRows };
  }

  /**
   * Folds in ratings from a source that is not a file (a team's server), by the same rule as {@link merge}:
   * the counts already folded from `sourceId` are remembered, so pulling the same evidence again adds nothing.
   */
  async mergeFrom(source: { sourceId: string; entries: RatingEntry[]; aliases: [string, string][] }): Promise<MergeReport> {
    this.requireWritable('merge');
    const before = totalGraded(this.state);
    this.enqueue([{ kind: 'merge', sourceId: source.sourceId, entries: source.entries, aliases: source.aliases, at: this.clock.now() }]);
    const added = totalGraded(this.state) - before;
    await this.flush();
    return { sourceId: source.sourceId, sourceRatings: source.entries.length, addedGraded: added };
  }

  /**
   * Re-reads the file when another process changed it since this one last looked; true when it had.
   *
   * @remarks
   * Never takes the lock: writers only ever rename a complete file into place, so whatever is read is
   * some writer's whole save. An unchanged file costs one `stat`.
   */
  refresh(): boolean {
    if (this.closed) return false;
    const current = statSignature(this.path);
    if (current === this.signature) return false;
    this.loadFromDisk(false);
    if (this.needsWrite) this.scheduleFlush(0);
    return true;
  }

  /** Lands everything queued, if the lock can be had within about a second; otherwise retries later. */
  flush(): Promise<void> {
    const run = this.flushChain.then(() => this.flushOnce());
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Saves what is queued and stops the timer.
   *
   * @remarks
   * Waits through a busy lock for as many rounds as it takes a stale lock to be taken over, because an
   * observation queued here is one the user has already paid for. Only if that fails too does it throw.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    this.cancelRefresh?.();
    this.cancelRefresh = undefined;
    this.cancelTimer();
    for (let round = 0; this.writable && this.hasWork(); round++) {
      if (round >= CLOSE_ROUNDS)
        throw new Error(`${this.pending.length} ledger updates could not be saved: ${this.lock.path} stayed locked`);
      await this.flush();
      this.cancelTimer();
    }
    this.closed = true;
  }

  private scheduleRefresh(): void {
    if (this.closed) return;
    this.cancelRefresh = this.schedule(() => {
      this.cancelRefresh = undefined;
      try {
        this.refresh();
      } catch (error) {
        // A timer's throw would end the process; the next tick tries again.
        this.notify({ kind: 'unreadable', path: this.path, message: `could not re-read the ledger ${this.path}: ${describe(error)}` });
      }
      this.scheduleRefresh();
    }, REFRESH_INTERVAL_MS);
  }

  private hasWork(): boolean {
    return this.pending.length > 0 || this.needsWrite;
  }

  private enqueue(ops: LedgerOp[], maxDelayMs?: number): void {
    this.state = this.state.advanced(ops);
    if (!this.writable) {
      this.keepUnsaved(ops);
      return;
    }
    this.pending.push(...ops);
    const now = this.clock.now();
    const batched = Math.max(0, this.lastFlushAt + FLUSH_INTERVAL_MS - now);
    this.scheduleFlush(maxDelayMs === undefined ? batched : Math.min(batched, maxDelayMs));
  }

  private keepUnsaved(ops: readonly LedgerOp[]): void {
    // An end takes its start away; the end of a call started while the ledger was still writable is
    // kept, since its start is still queued in `pending` and re-applied with it.
    for (const op of ops) {
      if (op.kind === 'spawn-start') this.unsavedSpawns.set(op.spawn.spawnId, op);
      else if (op.kind !== 'spawn-end' || !this.unsavedSpawns.delete(op.spawnId)) this.unsaved.push(op);
    }
  }

  private scheduleFlush(delayMs: number): void {
    if (this.closed || !this.writable) return;
    this.timer.request(this, delayMs);
  }

  private cancelTimer(): void {
    this.timer.withdraw(this);
  }

  private async flushOnce(): Promise<void> {
    if (!this.writable || !this.hasWork()) return;
    this.lastFlushAt = this.clock.now();
    let held: LockHandle | undefined;
    try {
      // Inside the try: a folder or lock that cannot be made (EACCES, ENOTDIR) fails a timer's save,
      // which has no caller to throw to, as surely as a failed write does. A folder that is a link to
      // another is refused, never written through (see safeFiles.ts).
      ensureFolder(dirname(this.path), { beforeWrite: true });
      held = await this.lock.acquire();
      if (!held) {
        // Another process kept the file for the whole wait: the queue stays, and the next attempt lands it.
        this.scheduleFlush(FLUSH_INTERVAL_MS);
        return;
      }
      this.land();
    } catch (error) {
      // While closing, the caller hears the failure from close() itself; a notice would say it twice,
      // and "will retry" would be untrue.
      if (this.closing) throw error;
      this.notify({
        kind: 'save-failed',
        path: this.path,
        message: `could not save the ledger ${this.path}: ${describe(error)}; will retry`,
      });
      this.scheduleFlush(FLUSH_INTERVAL_MS);
      throw error;
    } finally {
      held?.release();
    }
  }

  /** The save itself; runs only with the lock held. */
  private land(): void {
    if (!this.tempsCleaned) {
      removeLeftoverTemps(this.path);
      this.tempsCleaned = true;
    }
    const read = this.readDisk();
    let db: Database;
    let fresh: LedgerState | undefined;
    switch (read.kind) {
      case 'refused':
        throw new Error(read.message);
      case 'newer':
        read.db.close();
        this.enterReadOnly(read.version);
        return;
      case 'damaged':
        this.moveAside(read.problem);
        // Seed the new file with the last state this process read: at open that is nothing; later it is
        // everything this window knew, which beats losing it to one bad write.
        fresh = this.base.ledgerId ? this.base.clone() : undefined;
        db = this.newDatabase();
        break;
      case 'missing':
        db = this.newDatabase();
        break;
      case 'ok':
        db = read.db;
        fresh = read.state;
        break;
    }
    // A ledger this process starts: none was there, an empty file, or a damaged one moved aside with
    // nothing read from it. A file from before ledger ids (v1) is given one, but it is not made here.
    const created =
      read.kind === 'missing' || (read.kind === 'damaged' && fresh === undefined) || (read.kind === 'ok' && read.migratedFrom === 0);
    try {
      const state = fresh ?? LedgerState.read(db);
      if (!state.ledgerId) state.ledgerId = this.newId();
      const batch = this.pending.slice();
      for (const op of batch) state.apply(op);
      state.pruneSpawns(this.clock.now());
      state.write(db);
      db.run(`INSERT INTO meta (key, value) VALUES ('ledger_id', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
        state.ledgerId,
      ]);
      markAsRung(db);
      // The save drops the rows the read left out; the file as it was is kept, so nothing of it is lost.
      const skipped = read.kind === 'ok' ? describeSkippedRows(read.state.skipped) : undefined;
      const kept = skipped === undefined ? undefined : this.keepCopy('skipped');
      const stat = writeFileAtomic(this.path, db.export());
      this.pending.splice(0, batch.length);
      this.needsWrite = false;
      this.signature = signatureOf(stat);
      this.setBase(state);
      if (created) this.onCreated?.(state.ledgerId);
      if (skipped !== undefined && kept !== undefined) {
        this.skippedSaid = undefined;
        this.notify({
          kind: 'skipped-rows',
          path: this.path,
          movedTo: kept,
          message: `the ledger ${this.path} held ${skipped} that Rung cannot use (${SKIPPED_ROWS_REASON}), now left out of it; the file as it was is kept at ${kept}`,
        });
      }
      if (read.kind === 'ok' && read.migratedFrom) {
        this.notify({
          kind: 'migrated',
          path: this.path,
          message: `upgraded the ledger ${this.path} from schema v${read.migratedFrom} to v${SCHEMA_VERSION}`,
        });
      }
    } finally {
      db.close();
    }
  }

  /** Reads the file into `base` (migrating in memory); marks what needs writing rather than writing. */
  private loadFromDisk(atOpen: boolean): void {
    const read = this.readDisk();
    switch (read.kind) {
      case 'missing':
        this.signature = undefined;
        this.setBase(new LedgerState(atOpen ? this.newId() : ''));
        if (atOpen) this.needsWrite = true;
        return;
      case 'refused':
        if (atOpen) throw new Error(read.message);
        // Another process put it there while this one ran: keep what this process knew, and save nothing
        // over it (each save fails, naming it, until the path holds a ledger again).
        this.signature = statSignature(this.path);
        this.notify({ kind: 'unreadable', path: this.path, message: `${read.message}; keeping what this window knew` });
        return;
      case 'damaged':
        // Remembered so a refresh does not report the same damage again every interval.
        this.signature = statSignature(this.path);
        if (!this.writable) {
          this.notify({ kind: 'unreadable', path: this.path, message: `the ledger ${this.path} ${read.problem}; showing nothing` });
          this.setBase(new LedgerState(''));
        }
        // Moving it aside needs the lock; the save does it. Until then this process keeps what it knew.
        this.needsWrite = true;
        return;
      case 'newer': {
        let state = new LedgerState('');
        try {
          state = LedgerState.read(read.db);
        } catch {
          // A newer schema may have reshaped a table; routing then starts from the priors.
        } finally {
          read.db.close();
        }
        this.signature = signatureOf(read.stat);
        this.setBase(state);
        this.enterReadOnly(read.version);
        this.sayUnsaved(state);
        return;
      }
      case 'ok':
        read.db.close();
        this.signature = signatureOf(read.stat);
        this.setBase(read.state);
        if (read.migratedFrom !== null) this.needsWrite = true;
        // A writer saves at once, which keeps a copy of the file and says so (see land); a reader only says.
        if (describeSkippedRows(read.state.skipped) !== undefined) {
          if (this.writable) this.needsWrite = true;
          else this.sayUnsaved(read.state);
        }
        return;
    }
  }

  private setBase(state: LedgerState): void {
    this.base = state;
    this.state = state.live().applied([...this.pending, ...this.unsaved, ...this.unsavedSpawns.values()]);
  }

  /** Opens the file as a database at the current schema (migrated in memory) and reads it, or says why not. */
  private readDisk(): DiskRead {
    const file = inspectLedgerFile(this.path, this.sql);
    switch (file.kind) {
      case 'missing':
        return file;
      case 'damaged':
        return { kind: 'damaged', problem: file.problem };
      case 'not-a-file':
      case 'unreadable':
      case 'foreign':
      case 'too-large':
        return { kind: 'refused', message: `cannot use ${this.path} as the ledger: it ${file.problem}; it was left as it is` };
      case 'crafted':
        // In Rung's own place (`.rung/ledger.sqlite`) nothing but Rung's ledger belongs: it is moved aside
        // like damage, and a fresh ledger starts. A path the user named may be anything of theirs.
        if (isRungsOwnLedgerPath(this.path)) return { kind: 'damaged', problem: file.problem };
        return { kind: 'refused', message: `cannot use ${this.path} as the ledger: it ${file.problem}; it was left as it is` };
      case 'empty':
      case 'ledger':
        break;
    }
    // An empty file is a ledger that was never written: version 0, created in place.
    const db = file.kind === 'ledger' ? file.db : new this.sql.Database();
    const version = file.kind === 'ledger' ? file.version : 0;
    if (version > SCHEMA_VERSION) return { kind: 'newer', db, version, stat: file.stat };
    try {
      const steps = migrate(db, version, { now: this.clock.now(), newId: this.newId });
      const state = LedgerState.read(db);
      return { kind: 'ok', db, state, migratedFrom: steps.length > 0 ? version : null, stat: file.stat };
    } catch (error) {
      db.close();
      return { kind: 'damaged', problem: `is a Rung ledger whose tables cannot be read (${describe(error)})` };
    }
  }

  private newDatabase(): Database {
    const db = new this.sql.Database();
    migrate(db, 0, { now: this.clock.now(), newId: this.newId });
    return db;
  }

  /** Says, once for each different count, the rows a read-only ledger left out of what it shows. */
  private sayUnsaved(state: LedgerState): void {
    const skipped = describeSkippedRows(state.skipped);
    if (skipped === undefined || skipped === this.skippedSaid) return;
    this.skippedSaid = skipped;
    this.notify({
      kind: 'skipped-rows',
      path: this.path,
      message: `the ledger ${this.path} holds ${skipped} that Rung cannot use (${SKIPPED_ROWS_REASON}), left out of what is shown`,
    });
  }

  /** Copies the file as it is to a free name beside it (`….<what>-<time>`), and returns that name; runs with the lock held. */
  private keepCopy(what: string): string {
    let target = `${this.path}.${what}-${this.clock.now()}`;
    for (let n = 1; lstatIfExists(target) !== undefined; n++) target = `${this.path}.${what}-${this.clock.now()}-${n}`;
    writeFileAtomic(target, readWithStat(this.path, LEDGER_MAX_BYTES).bytes);
    return target;
  }

  /** Renames a damaged file aside, never deleting it, and says where it went; `problem` reads after its path. */
  private moveAside(problem: string): void {
    let target = `${this.path}.corrupt-${this.clock.now()}`;
    // Looked at without following links: a name taken by anything, a dangling link included, is passed over.
    for (let n = 1; lstatIfExists(target) !== undefined; n++) target = `${this.path}.corrupt-${this.clock.now()}-${n}`;
    renameSync(this.path, target);
    this.notify({
      kind: 'moved-aside',
      path: this.path,
      movedTo: target,
      message: `the ledger ${this.path} ${problem}; it was moved to ${target} and a fresh ledger started`,
    });
  }

  private enterReadOnly(version: number): void {
    if (!this.writable && this.notices.some((notice) => notice.kind === 'newer-schema')) return;
    this.writable = false;
    this.cancelTimer();
    this.notify({
      kind: 'newer-schema',
      path: this.path,
      message: `the ledger ${this.path} was written by a newer Rung (schema v${version}; this one knows up to v${SCHEMA_VERSION}); it is open read-only and nothing learned here will be saved — update Rung`,
    });
  }

  private requireWritable(action: string): void {
    if (!this.writable) throw new Error(`cannot ${action}: the ledger ${this.path} is open read-only`);
  }

  private notify(notice: LedgerNotice): void {
    this.notices.push(notice);
    this.onNotice?.(notice);
  }
}

/**
 * Reads another ledger file for merging, at the current schema, without writing it; throws, naming the
 * file and what it is, when it cannot be merged.
 *
 * @remarks
 * Exported so `rung ledger merge` can check its source with this very rule before it opens (and perhaps
 * creates) the workspace's own ledger: a merge that cannot happen leaves nothing behind.
 */
export function readMergeSource(path: string, sql: SqlJsStatic, now: number): LedgerState {
  const file = inspectLedgerFile(path, sql);
  if (file.kind === 'missing') throw new Error(`no ledger at ${path}`);
  if (file.kind !== 'ledger') {
    const problem = file.kind === 'empty' ? 'is empty: no ledger was ever written to it' : file.problem;
    throw new Error(`cannot merge ${path}: it ${problem}`);
  }
  try {
    if (file.version > SCHEMA_VERSION)
      throw new Error(`cannot merge ${path}: it was written by a newer Rung (schema v${file.version}); update Rung`);
    // A v1 file has no id; one derived from its location keeps merging that file idempotent.
    const stableId = `file:${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16)}`;
    try {
      migrate(file.db, file.version, { now, newId: () => stableId });
      return LedgerState.read(file.db);
    } catch (error) {
      throw new Error(`cannot merge ${path}: it is a Rung ledger whose tables cannot be read (${describe(error)})`, { cause: error });
    }
  } finally {
    file.db.close();
  }
}

function totalGraded(state: LedgerState): number {
  let total = 0;
  for (const entry of state.ratings.values()) total += entry.graded;
  return total;
}

function signatureOf(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

function statSignature(path: string): string | undefined {
  try {
    return signatureOf(lstatSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}
