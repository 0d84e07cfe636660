/**
 * A team's ledger on PostgreSQL: every member's evidence in one database, each observation counted once.
 *
 * @remarks
 * This class composes the parts: the connections (teamPool.ts), the schema (teamSchema.ts), the writes
 * (teamWrites.ts), the fold of the server's rows into ratings (teamFold.ts), the outbox (teamOutbox.ts)
 * and the shared decision rows (teamDecisions.ts). It holds the queue, the local state snapshots read,
 * and the order in which sends and refreshes run.
 *
 * What the server holds is evidence, not results: one row per graded observation, keyed by where it came
 * from (the member, the writer that made it, and that writer's sequence number). Every write is an
 * `INSERT … ON CONFLICT DO NOTHING` on that key, so a batch sent twice — a retry after the connection
 * dropped mid-commit, when nobody can know whether the commit landed — adds nothing the second time, and
 * two members writing at once cannot overwrite each other: there is nothing to overwrite. Ratings are
 * never stored; every member derives them by folding all observations in the order the server numbered
 * them in, reading only what is new at each refresh (teamFold.ts).
 *
 * Ranking never waits on the network. {@link TeamLedger.snapshot} reads a local state: the server's rows
 * as of the last refresh, plus what this process has not yet had acknowledged. `observe`, `alias` and the
 * spawn records queue; {@link TeamLedger.flush} sends the queue in one transaction and then reads what is
 * new on the server. A background timer does both every {@link TEAM_SYNC_INTERVAL_MS} unless the owner
 * turns it off. When a send fails and the ledger has an outbox file, the observations (and the decision
 * rows a member shares) go there, so that what was learned while the server was unreachable survives the
 * process and is sent, once, by whoever next reaches the server (see TeamOutbox).
 *
 * Calls in flight are rows too, stamped with the server's clock (`now()`), so the 30-minute stale cutoff
 * is the same for every member whatever their laptop's clock says.
 *
 * Besides observations the team holds two kinds of row that change a fold: resets (forget a class, or
 * everything, up to an observation id) and imports (a workspace file's own evidence, folded as a merge
 * after the observations).
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { Pool } from 'pg';
import type { Clock } from '../clock';
import type { DecisionRow } from '../decisions/decision';
import type { Observation } from '../ratings';
import type { TimingObservation } from '../timing';
import { sortEntries, sortTimings, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn, type TimingEntry } from './ledger';
import { LedgerState, snapshotOf, type LedgerOp } from './ledgerState';
import { readSharedDecisions, type SharedDecision } from './teamDecisions';
import { readNewRows, TeamFold } from './teamFold';
import { OutboxKeeper, TeamOutbox } from './teamOutbox';
import { openPool, openProblem, transaction, type TeamPoolOptions } from './teamPool';
import { describeSkipped, type TeamTable } from './teamRows';
import { checkSchema, migrate, type TeamIdentity } from './teamSchema';
import { redactedUrl } from './teamUrl';
import { emptyBatch, isEmptyBatch, joinBatches, opsOf, ownEvidence, writeBatch, writeImport, writeReset } from './teamWrites';

/** How often, ms, the background timer sends the queue and reads what is new on the server. */
export const TEAM_SYNC_INTERVAL_MS = 10_000;

/** Who this member is on a team: `RUNG_MEMBER`, else `user@host`. */
export function teamMemberId(env: Record<string, string | undefined>): string {
  const named = env.RUNG_MEMBER?.trim();
  if (named) return named;
  return `${userInfo().username}@${hostname()}`;
}

// Where they were first declared, for the callers that name the team ledger: the URL's reading lives
// with pg's own parser (teamUrl.ts), the connection's rules with the pool (teamPool.ts).
export { isTeamLedgerUrl, redactedUrl } from './teamUrl';
export { isUnreachable, TEAM_CONNECT_TIMEOUT_MS, withPassword } from './teamPool';
export type { SharedDecision } from './teamDecisions';

export interface TeamLedgerOptions extends TeamPoolOptions {
  /** `postgres://user@host:port/database`; the password comes from `password`, else `PGPASSWORD`, when not in the URL. */
  url: string;
  /** The password, when it is kept apart from the URL (the extension's SecretStorage). */
  password?: string;
  /** Who this member is on the team; every row they write names them. */
  memberId: string;
  clock: Clock;
  /** Background flush and refresh, ms; 0 turns the timer off (the owner calls {@link TeamLedger.flush}). */
  syncIntervalMs?: number;
  /**
   * Names this writer's sequence of observations; a fresh id per process unless given.
   *
   * @remarks
   * Each observation's origin is this id and a sequence number, so a writer that sends a batch again
   * under the same id, from the same sequence, adds nothing the second time.
   */
  writerId?: string;
  /**
   * The outbox file (see {@link teamOutboxPath}), in the user's storage: observations and shared decision
   * rows whose send failed are kept there across exits, and this member's found there are sent. Absent:
   * they are kept in memory only, and lost at exit.
   */
  outboxPath?: string;
  /**
   * Read the team's evidence and never write: no migration, no sends (`rung rank`, `rung ledger show`).
   * The schema must be current; an older or missing one is an error saying so.
   */
  readOnly?: boolean;
  /**
   * Refuse {@link TeamLedger.reset} with a message saying where to do it instead: a palette command in
   * one member's window must not forget the whole team's evidence.
   */
  resetRefusal?: string;
  /**
   * Also send this member's decision rows to the team (the team's opt-in; off by default).
   *
   * @remarks
   * Off, decision rows stay in the member's workspace only: a row says what a member was working on, so
   * sharing it is the member's choice, never the default. On, every row given to {@link TeamLedger.shareDecision} is queued and sent with the next
   * flush, in the same transaction as the observations, stored once however often it is sent. Rows an
   * earlier process left in the outbox are sent only while this setting is on: whether the team sees
   * what the member was working on is the member's choice now, not when the row was written.
   */
  shareDecisions?: boolean;
  /** Told about a background sync that failed; the queue is kept for the next one. */
  onSyncError?: (error: Error) => void;
  /** Everything else the user should hear: observations kept in the outbox, an outbox that could not be written. */
  onNotice?: (message: string) => void;
}

/** What importing a workspace file into the team added. */
export interface TeamImportReport {
  /** Ratings in the file. */
  sourceRatings: number;
  /** Graded observations the team did not already hold (0 when the file adds nothing new). */
  addedGraded: number;
}

export class TeamLedger implements Ledger {
  private readonly pool: Pool;
  private readonly memberId: string;
  private readonly clock: Clock;
  private readonly readOnly: boolean;
  /** Names this writer; with the sequence number it makes each observation's origin unique. */
  private readonly writerId: string;
  /** The outbox's side of each send; does nothing without an outbox file. */
  private readonly keeper: OutboxKeeper;
  private readonly onNotice: ((message: string) => void) | undefined;
  private readonly teamId: string;
  private readonly resetRefusal: string | undefined;
  private readonly shareDecisions: boolean;
  private sequence = 0;
  /** The server's rows folded so far. */
  private readonly fold: TeamFold;
  /** The server's evidence as of the last refresh: the fold, the imports, aliases and calls in flight. */
  private base = new LedgerState('');
  /** {@link base} with what this process has not had acknowledged on top: what snapshots read. */
  private state = new LedgerState('');
  /** What has not reached the server; a batch whose send failed goes back in front of it. */
  private queued = emptyBatch();
  /** Flushes and refreshes run one at a time, so a refresh never reads between a batch's send and its bookkeeping. */
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** How many skipped rows were last said, so each new lot is said once and not at every refresh. */
  private skippedSaid = 0;

  private constructor(pool: Pool, team: TeamIdentity, options: TeamLedgerOptions) {
    this.pool = pool;
    this.teamId = team.id;
    this.fold = new TeamFold(team.usable ? {} : { meta: 1 });
    this.memberId = options.memberId;
    this.clock = options.clock;
    this.readOnly = options.readOnly ?? false;
    this.writerId = options.writerId ?? randomUUID();
    this.onNotice = options.onNotice;
    this.resetRefusal = options.resetRefusal;
    this.shareDecisions = (options.shareDecisions ?? false) && !this.readOnly;
    const outbox =
      options.outboxPath && !this.readOnly
        ? new TeamOutbox({ path: options.outboxPath, clock: options.clock, onMalformed: options.onNotice })
        : undefined;
    this.keeper = new OutboxKeeper(outbox, options.onNotice, { memberId: this.memberId, shareDecisions: this.shareDecisions });
    const interval = options.syncIntervalMs ?? TEAM_SYNC_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => {
        this.flush().catch((error: unknown) => options.onSyncError?.(error instanceof Error ? error : new Error(String(error))));
      }, interval);
      // A CLI run ends when its work does, not when the next sync would have been.
      this.timer.unref();
    }
  }

  /**
   * Connects, brings the schema forward (or, read-only, checks it is current), reads the team's evidence,
   * and sends whatever an earlier process left in the outbox.
   */
  static async open(options: TeamLedgerOptions): Promise<TeamLedger> {
    const pool = await openPool(options);
    let ledger: TeamLedger;
    try {
      const team = options.readOnly ? await checkSchema(pool) : await migrate(pool);
      ledger = new TeamLedger(pool, team, options);
      await ledger.refresh();
    } catch (error) {
      await pool.end();
      throw new Error(`cannot use the team ledger ${redactedUrl(options.url)}: ${openProblem(error, options.url)}`, { cause: error });
    }
    if (ledger.keeper.outbox && !ledger.keeper.outbox.isEmpty) {
      // What an earlier process learned offline goes now that the server answers; if it fails, the timer retries.
      await ledger.flush().catch((error: unknown) => options.onSyncError?.(error instanceof Error ? error : new Error(String(error))));
    }
    return ledger;
  }

  /** The id a workspace file records as its source when it pulls this team's evidence (`team:<uuid>`). */
  get sourceId(): string {
    return `team:${this.teamId}`;
  }

  /**
   * Rows read from the server that were not the shape Rung writes, by table (see teamRows.ts): skipped,
   * never folded; the user hears of them through `onNotice`, once per new lot.
   */
  get skippedRows(): Readonly<Partial<Record<TeamTable, number>>> {
    return this.fold.skippedRows;
  }

  /** Observations this process has not had acknowledged, in memory or in the outbox. */
  get unsent(): number {
    return this.queued.observations.length + this.keeper.observations.length;
  }

  snapshot(now: number): LedgerSnapshot {
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    for (const observation of observations) {
      this.queued.observations.push({
        member: this.memberId,
        origin: `${this.writerId}:${String(this.sequence++).padStart(12, '0')}`,
        observation,
      });
    }
    this.push(observations.map((observation) => ({ kind: 'observe', observation })));
  }

  /**
   * Folds attempts' times into this process's state only: speed is this machine's, so it is never sent,
   * and it lasts as long as the process (a workspace file keeps its own; see timing.ts).
   */
  observeTiming(observations: readonly TimingObservation[]): void {
    if (observations.length === 0) return;
    this.push(observations.map((observation) => ({ kind: 'timing', observation })));
  }

  timings(): TimingEntry[] {
    return sortTimings([...this.state.timings.values()].map((entry) => ({ ...entry })));
  }

  alias(slug: string, resolved: string): void {
    if (slug === resolved) return;
    this.queued.aliases.set(slug, resolved);
    this.push([{ kind: 'alias', slug, resolved }]);
  }

  spawnStarted(spawn: Spawn): void {
    this.queued.spawnStarts.push(spawn);
    this.push([{ kind: 'spawn-start', spawn }]);
  }

  spawnEnded(spawnId: string, at: number): void {
    this.queued.spawnEnds.push(spawnId);
    this.push([{ kind: 'spawn-end', spawnId, at }]);
  }

  /**
   * Queues one decision row for the team when this member opted in (`shareDecisions`); does nothing otherwise.
   *
   * @remarks
   * Never waits on the network: the row goes with the next flush. A failed send keeps it for the one
   * after, in the outbox when there is one, so an exit while the server is away loses none; it is keyed
   * by member, call, attempt and time, so a row sent twice is stored once.
   */
  shareDecision(row: DecisionRow): void {
    if (!this.shareDecisions) return;
    this.queued.decisions.push({ member: this.memberId, decision: row });
  }

  /** Decision rows this process shared that the server has not acknowledged, in memory or in the outbox. */
  get unsentDecisions(): number {
    return this.queued.decisions.length + this.keeper.decisionCount;
  }

  /**
   * The team's shared decision rows, oldest first, at most `limit` of the newest (of those from
   * `source`, when given); none on a server without the table. Rows this Rung cannot read are left out
   * and said through `onNotice`.
   */
  async sharedDecisions(limit: number, source?: string): Promise<SharedDecision[]> {
    const { shared, skipped } = await readSharedDecisions(this.pool, limit, source);
    if (skipped > 0)
      this.onNotice?.(
        `the team ledger holds ${describeSkipped({ decisions: skipped })} among the newest ${limit} that this Rung cannot read; they were left out`,
      );
    return shared;
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  /**
   * The team's ratings as a workspace file that pulls them should record them: everything but what the
   * file itself contributed by import (so pulling after importing does not count the file's own evidence twice).
   */
  entriesExcept(sourceId: string): RatingEntry[] {
    return this.fold.entriesExcept(sourceId);
  }

  /** The aliases the team knows. */
  aliases(): [string, string][] {
    return [...this.base.aliases];
  }

  /** Sends everything queued (and anything in the outbox) in one transaction, then reads what is new on the server. */
  flush(): Promise<void> {
    const run = this.chain.then(async () => {
      if (!this.readOnly) await this.send();
      await this.refresh();
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * Sends what is queued and disconnects.
   *
   * @remarks
   * When the server cannot be reached, close still succeeds if every observation is safe in the outbox
   * (and says so): the next process that reaches the server sends them. It throws only when an
   * observation would be lost. The queue goes to the outbox before the last send, so an exit that
   * cannot wait for the server (VS Code ends an extension host 5 s after asking) loses nothing either.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.chain;
    await this.keeper.keep(this.queued);
    try {
      await this.flush();
    } catch (error) {
      if (this.queued.decisions.length > 0) {
        // No outbox, or it could not be written: the rows are in this workspace's decision log already;
        // only the team's copy is missing.
        this.onNotice?.(
          `the team server did not answer; ${this.queued.decisions.length} decision row${this.queued.decisions.length === 1 ? ' was' : 's were'} not shared (still in this workspace's decision log)`,
        );
      }
      const outbox = this.keeper.outbox;
      if (this.queued.observations.length > 0 || !outbox) throw error;
      const observations = this.keeper.observations.length;
      const decisions = this.keeper.decisionCount;
      const kept = [
        ...(observations > 0 ? [`${observations} observation${observations === 1 ? '' : 's'}`] : []),
        ...(decisions > 0 ? [`${decisions} shared decision row${decisions === 1 ? '' : 's'}`] : []),
      ];
      if (kept.length > 0) {
        this.onNotice?.(
          `the team server did not answer (${error instanceof Error ? error.message : String(error)}); ${kept.join(' and ')} kept in ${outbox.path}, sent once it answers`,
        );
      }
    } finally {
      await this.pool.end();
    }
  }

  /**
   * Forgets every rating of the team, or those of one class and its shapes; returns how many ratings went.
   *
   * @remarks
   * The observations stay on the server (a reset row marks everything up to now as forgotten), so an
   * outbox sending one of them again cannot bring it back. Imports of the class go, so importing the
   * same file again brings its evidence back, as merging it into a reset workspace file would.
   */
  async reset(classKey?: string): Promise<number> {
    if (this.readOnly) throw new Error('cannot reset: the team ledger is open read-only');
    if (this.resetRefusal) throw new Error(this.resetRefusal);
    await this.flush();
    const before = this.state.ratings.size;
    await transaction(this.pool, (client) => writeReset(client, this.memberId, classKey));
    await this.flush();
    return before - this.state.ratings.size;
  }

  /**
   * Adds a workspace file's own evidence to the team: what it learned, less what it holds from the team.
   *
   * @remarks
   * Transitive by construction, as far as a file's counts allow: from each rating the file holds, the
   * counts it merged from this team (a pull records them under {@link sourceId}) and from any ledger the
   * team has already imported are taken off, and what is left is recorded under the file's ledger id,
   * keeping the larger count when the same file comes again. So a file that holds only team evidence
   * adds nothing, importing a file twice adds it once, and a file that learned more since adds the
   * difference.
   */
  async importLedger(source: LedgerState): Promise<TeamImportReport> {
    if (this.readOnly) throw new Error('cannot import: the team ledger is open read-only');
    if (!source.ledgerId) throw new Error('the ledger to import has no id');
    if (source.ledgerId === this.sourceId) throw new Error('that ledger is this team ledger; nothing to import');
    await this.flush();
    const known = new Set([this.sourceId, ...this.fold.importSources()]);
    known.delete(source.ledgerId);
    const own = ownEvidence(source, known);
    let added = 0;
    await transaction(this.pool, async (client) => {
      added = await writeImport(client, this.memberId, source, own);
    });
    await this.flush();
    return { sourceRatings: source.ratings.size, addedGraded: added };
  }

  /** Says, once per new lot, that rows were skipped and why that is no one's fault here. */
  private sayUnusable(): void {
    const skipped = this.fold.skippedRows;
    const total = Object.values(skipped).reduce((sum, count) => sum + count, 0);
    if (total <= this.skippedSaid) return;
    this.skippedSaid = total;
    this.onNotice?.(
      `the team ledger holds ${describeSkipped(skipped)} that this Rung cannot use (not the shape Rung writes: another member's Rung, or someone writing to the tables by hand); they were skipped, and the rest of the team's evidence is used`,
    );
  }

  private push(ops: LedgerOp[]): void {
    this.state = this.state.applied(ops);
  }

  /**
   * Sends the queue, and whatever the outbox holds, as one transaction.
   *
   * @remarks
   * If the connection drops before the commit is acknowledged, the batch may or may not have landed; it
   * goes back in front of the queue as it was, same origins, so sending it again lands it at most once.
   * With an outbox, its observations and decision rows are written there too, so an exit before the next
   * send loses nothing.
   */
  private async send(): Promise<void> {
    const batch = this.queued;
    const fromOutbox = this.keeper.waiting(batch);
    if (fromOutbox.observations.length === 0 && fromOutbox.decisions.length === 0 && isEmptyBatch(batch)) return;
    this.queued = emptyBatch();
    try {
      await transaction(this.pool, (client) =>
        writeBatch(client, this.memberId, {
          ...batch,
          observations: [...fromOutbox.observations, ...batch.observations],
          decisions: [...fromOutbox.decisions, ...batch.decisions],
        }),
      );
    } catch (error) {
      this.queued = joinBatches(batch, this.queued);
      await this.keeper.keep(this.queued);
      throw error;
    }
    await this.keeper.sent(fromOutbox);
  }

  /**
   * Reads what is new on the server and rebuilds the local state: the server's, then what is not yet
   * acknowledged on top (see teamFold.ts).
   */
  private async refresh(): Promise<void> {
    const read = await readNewRows(this.pool, this.clock.now(), this.fold.position);
    const base = this.fold.apply(read);
    this.sayUnusable();
    this.base = base;
    // The timings were never the server's: they carry over from the state they were folded into.
    base.timings = this.state.timings;
    // Only what has not reached the server stays on top; what was sent is in `base` now.
    this.state = base.applied([
      ...this.keeper.observations.map((item): LedgerOp => ({ kind: 'observe', observation: item.observation })),
      ...opsOf(this.queued),
    ]);
  }
}
