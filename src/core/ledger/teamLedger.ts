/**
 * A team's ledger on PostgreSQL: every member's evidence in one database, each observation counted once.
 *
 * @remarks
 * What the server holds is evidence, not results: one row per graded observation, keyed by where it came
 * from (the member, the writer that made it, and that writer's sequence number). Every write is an
 * `INSERT … ON CONFLICT DO NOTHING` on that key, so a batch sent twice — a retry after the connection
 * dropped mid-commit, when nobody can know whether the commit landed — adds nothing the second time, and
 * two members writing at once cannot overwrite each other: there is nothing to overwrite. Ratings are
 * never stored; every member derives them by folding all observations in one order, the order the server
 * numbered them in, so every member that has read the same rows ranks from the same ratings.
 *
 * That order is what lets a refresh read only the rows it has not seen (`id` above the last one read)
 * instead of every observation again. It holds only if no row can become visible below an id a reader
 * has already passed, so writers take a lock on the table that serialises them (readers are not blocked):
 * a batch's numbers are drawn and committed before the next writer draws any.
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
 * everything, up to an observation id; the rows stay, so a member's outbox sending an old observation
 * again cannot bring it back) and imports (a workspace file's own evidence, one row per source ledger,
 * model and class, folded as a merge after the observations).
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../clock';
import { decisionRowSchema, LIVE_SOURCE, type DecisionRow } from '../decisions/decision';
import type { Observation } from '../ratings';
import { sortEntries, STALE_SPAWN_MS, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn } from './ledger';
import { LedgerState, matchesClass, snapshotOf, type LedgerOp, type SpawnRecord } from './ledgerState';
import { decisionKey, outboxKey, TeamOutbox, type OutboxDecision, type OutboxEntry } from './teamOutbox';
import { checkout, checkSchema, DECISIONS_SCHEMA_VERSION, migrate } from './teamSchema';
import { aliasRowSchema, describeSkipped, importRowSchema, observationRowSchema, readObservation, resetRowSchema, spawnRowSchema, validRows, type TeamTable } from './teamRows';
import { redactedUrl, teamUrlRole } from './teamUrl';

/** How often, ms, the background timer sends the queue and reads what is new on the server. */
export const TEAM_SYNC_INTERVAL_MS = 10_000;

/**
 * How long, ms, a connection to the team's server may take before the server counts as unreachable.
 *
 * @remarks
 * `pg` waits forever by default, and a server behind a dropped VPN does not refuse, it just never
 * answers: a flush would hang, the observations would never reach the outbox, and closing a window
 * would wait past the 5 s VS Code gives it. Five seconds is far beyond a healthy connect, even abroad.
 */
export const TEAM_CONNECT_TIMEOUT_MS = 5_000;

/** Connections this process keeps open to the team's server: one to flush and one to refresh is plenty. */
const POOL_SIZE = 2;

/** An observation id no row is below: where a fresh fold starts. */
const BEFORE_FIRST_ID = 0;

/** Who this member is on a team: `RUNG_MEMBER`, else `user@host`. */
export function teamMemberId(env: Record<string, string | undefined>): string {
  const named = env.RUNG_MEMBER?.trim();
  if (named) return named;
  return `${userInfo().username}@${hostname()}`;
}

// Where they were first declared; the URL's reading lives with pg's own parser now (teamUrl.ts).
export { isTeamLedgerUrl, redactedUrl } from './teamUrl';

/** Node's error codes for a server that cannot be reached: refused, reset, timed out, no route, no such host. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EADDRNOTAVAIL']);

/**
 * Whether opening the team's ledger failed because the server could not be reached or would not let this
 * role in (refused, no answer, a network that is down, a password it did not take), rather than for what
 * it holds (no Rung ledger yet, a schema too old or too new), which working elsewhere would not mend.
 */
export function isUnreachable(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every((part) => isUnreachable(part));
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Node's socket errors, and PostgreSQL's connection (08), authorisation (28), too-many-connections
    // (53300) and starting-up (57P03) states. Named one by one: Node's other codes (ERR_MODULE_NOT_FOUND
    // for a pg that is not installed) are this machine's problem, which no fallback hides.
    return UNREACHABLE_CODES.has(code) || /^(08|28)[0-9A-Z]{3}$/.test(code) || code === '53300' || code === '57P03';
  }
  // pg's own: the connect limit passed, a connection the server dropped, or a password it asks for and was not given.
  return /^(Connection terminated|timeout expired|SASL: )/.test(cause.message);
}

/**
 * The URL carrying `password`, when one is given apart from it (the extension's SecretStorage).
 *
 * @remarks
 * pg reads a connection string over its other options, and reads a URL without a password as the empty
 * password: given beside the URL as pg's `password` option, the password was never sent, and a server
 * that asks for one refused every member who had set it with "Rung: Set Team Ledger Password". It goes
 * in as `password=`, percent-encoded whatever it holds (`@`, `:`, `/`, `%`, `&`), which pg's parser reads
 * before the user part: set in the user part, it was dropped without a word for a URL with no host (a
 * Unix socket given as `?host=/run/postgresql`), which cannot carry one.
 */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined || password === '') return url;
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  return `${base}${base.includes('?') ? '&' : '?'}password=${encodeURIComponent(password)}${hash < 0 ? '' : url.slice(hash)}`;
}

export interface TeamLedgerOptions {
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
   * The outbox file (see {@link teamOutboxPath}): observations and shared decision rows whose send failed
   * are kept there across exits, and any found there are sent. Absent: they are kept in memory only, and
   * lost at exit.
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
   * earlier process left in the outbox are sent whatever this one's setting: they were shared when
   * they were written.
   */
  shareDecisions?: boolean;
  /** See {@link TEAM_CONNECT_TIMEOUT_MS}; tests shorten it. */
  connectTimeoutMs?: number;
  /** Told about a background sync that failed; the queue is kept for the next one. */
  onSyncError?: (error: Error) => void;
  /** Everything else the user should hear: observations kept in the outbox, an outbox that could not be written. */
  onNotice?: (message: string) => void;
}

/** One observation queued for the server: the key that makes sending it twice harmless, and the observation. */
type QueuedObservation = OutboxEntry;

/** What one flush sends, in one transaction. */
interface Batch {
  observations: QueuedObservation[];
  aliases: Map<string, string>;
  spawnStarts: Spawn[];
  spawnEnds: string[];
  /** Decision rows to share, each under its member; empty unless the member opted in. */
  decisions: OutboxDecision[];
}

function emptyBatch(): Batch {
  return { observations: [], aliases: new Map(), spawnStarts: [], spawnEnds: [], decisions: [] };
}

/** A decision row shared with the team, as `rung ledger decisions --team` lists it. */
export interface SharedDecision {
  member: string;
  row: DecisionRow;
}

/** One imported rating: a workspace file's own evidence for one model and class. */
interface ImportRow extends RatingEntry {
  sourceId: string;
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
  private readonly outbox: TeamOutbox | undefined;
  private readonly onNotice: ((message: string) => void) | undefined;
  private readonly teamId: string;
  private readonly resetRefusal: string | undefined;
  private readonly shareDecisions: boolean;
  private sequence = 0;
  /** The server's observations folded in id order, up to {@link lastId}; replaced, never changed. */
  private folded = new LedgerState('');
  /** The highest observation id folded into {@link folded}. */
  private lastId = BEFORE_FIRST_ID;
  /** The newest reset seen; a new one means folding from the start again. */
  private resetMark: string | null = null;
  /** The imports as of the last refresh. */
  private imports: ImportRow[] = [];
  /** The server's evidence as of the last refresh: the fold, the imports, aliases and calls in flight. */
  private base = new LedgerState('');
  /** {@link base} with what this process has not had acknowledged on top: what snapshots read. */
  private state = new LedgerState('');
  /** What has not reached the server; a batch whose send failed goes back in front of it. */
  private queued = emptyBatch();
  /** This process's observations that went to the outbox after a failed send, until one succeeds. */
  private offline: QueuedObservation[] = [];
  /** This process's shared decision rows that went to the outbox, until a send succeeds. */
  private offlineDecisions: OutboxDecision[] = [];
  /** Flushes and refreshes run one at a time, so a refresh never reads between a batch's send and its bookkeeping. */
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** Rows read from the server that were not the shape Rung writes, by table, as of the last refresh. */
  private skipped: Partial<Record<TeamTable, number>> = {};
  /** How many skipped rows were last said, so each new lot is said once and not at every refresh. */
  private skippedSaid = 0;

  private constructor(pool: Pool, teamId: string, options: TeamLedgerOptions) {
    this.pool = pool;
    this.teamId = teamId;
    this.memberId = options.memberId;
    this.clock = options.clock;
    this.readOnly = options.readOnly ?? false;
    this.writerId = options.writerId ?? randomUUID();
    this.onNotice = options.onNotice;
    this.resetRefusal = options.resetRefusal;
    this.shareDecisions = (options.shareDecisions ?? false) && !this.readOnly;
    this.outbox = options.outboxPath && !this.readOnly ? new TeamOutbox({ path: options.outboxPath, clock: options.clock, onMalformed: options.onNotice }) : undefined;
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
   *
   * @remarks
   * `pg` is loaded here rather than at the top of the module, so the extension and the CLI load it only
   * when someone names a team server.
   */
  static async open(options: TeamLedgerOptions): Promise<TeamLedger> {
    const pg = await import('pg');
    // Shipped beside the extension's bundle, pg is one CommonJS file whose exports Node's import() cannot
    // name (esbuild's output defeats its export detection): they are all on `default` there.
    const named: typeof pg.Pool | undefined = pg.Pool;
    const PoolClass = named ?? pg.default.Pool;
    const pool = new PoolClass({
      connectionString: withPassword(options.url, options.password),
      max: POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? TEAM_CONNECT_TIMEOUT_MS,
      application_name: 'rung',
    });
    // An idle connection the server drops (a restart, a terminated backend) is an event, not a crash;
    // the next query takes a fresh connection.
    pool.on('error', () => {});
    let ledger: TeamLedger;
    try {
      const team = options.readOnly ? await checkSchema(pool) : await migrate(pool);
      ledger = new TeamLedger(pool, team.id, options);
      if (!team.usable) ledger.skipped.meta = 1;
      await ledger.refresh();
    } catch (error) {
      await pool.end();
      throw new Error(`cannot use the team ledger ${redactedUrl(options.url)}: ${openProblem(error, options.url)}`, { cause: error });
    }
    if (ledger.outbox && !ledger.outbox.isEmpty) {
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
    return { ...this.skipped };
  }

  /** Observations this process has not had acknowledged, in memory or in the outbox. */
  get unsent(): number {
    return this.queued.observations.length + this.offline.length;
  }

  snapshot(now: number): LedgerSnapshot {
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    for (const observation of observations) {
      this.queued.observations.push({ member: this.memberId, origin: `${this.writerId}:${String(this.sequence++).padStart(12, '0')}`, observation });
    }
    this.push(observations.map((observation) => ({ kind: 'observe', observation })));
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
    return this.queued.decisions.length + this.offlineDecisions.length;
  }

  /**
   * The team's shared decision rows, oldest first, at most `limit` of the newest (of those from
   * `source`, when given); none on a server without the table.
   *
   * @remarks
   * A row without a `source` reads as {@link LIVE_SOURCE}, and here that is exact: rows were first
   * shared after `rung replay` had begun marking its own, so no unmarked replay row is on a server.
   */
  async sharedDecisions(limit: number, source?: string): Promise<SharedDecision[]> {
    const client = await checkout(this.pool);
    try {
      const version = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rung_schema');
      if ((version.rows[0]?.version ?? 0) < DECISIONS_SCHEMA_VERSION) {
        client.release();
        return [];
      }
      const rows = await client.query<{ member_id: unknown; decision: unknown }>(
        "SELECT member_id, decision FROM (SELECT member_id, decision, at, call_id, attempt, final FROM rung_decisions WHERE $2::text IS NULL OR coalesce(decision->>'source', $3) = $2 ORDER BY at DESC, member_id DESC, call_id DESC, attempt DESC, final DESC LIMIT $1) newest ORDER BY at, member_id, call_id, attempt, final",
        [limit, source ?? null, LIVE_SOURCE],
      );
      client.release();
      const shared = rows.rows.flatMap((row) => {
        const parsed = decisionRowSchema.safeParse(row.decision);
        return parsed.success && typeof row.member_id === 'string' ? [{ member: row.member_id, row: parsed.data }] : [];
      });
      const skipped = rows.rows.length - shared.length;
      if (skipped > 0) this.onNotice?.(`the team ledger holds ${describeSkipped({ decisions: skipped })} among the newest ${limit} that this Rung cannot read; they were left out`);
      return shared;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  /**
   * The team's ratings as a workspace file that pulls them should record them: everything but what the
   * file itself contributed by import (so pulling after importing does not count the file's own evidence twice).
   */
  entriesExcept(sourceId: string): RatingEntry[] {
    const state = this.folded.applied(importOps(this.imports.filter((row) => row.sourceId !== sourceId)));
    return sortEntries([...state.ratings.values()].map((entry) => ({ ...entry })));
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
    await this.keepOffline();
    try {
      await this.flush();
    } catch (error) {
      if (this.queued.decisions.length > 0) {
        // No outbox, or it could not be written: the rows are in this workspace's decision log already;
        // only the team's copy is missing.
        this.onNotice?.(`the team server did not answer; ${this.queued.decisions.length} decision row${this.queued.decisions.length === 1 ? ' was' : 's were'} not shared (still in this workspace's decision log)`);
      }
      if (this.queued.observations.length > 0 || !this.outbox) throw error;
      const kept = [
        ...(this.offline.length > 0 ? [`${this.offline.length} observation${this.offline.length === 1 ? '' : 's'}`] : []),
        ...(this.offlineDecisions.length > 0 ? [`${this.offlineDecisions.length} shared decision row${this.offlineDecisions.length === 1 ? '' : 's'}`] : []),
      ];
      if (kept.length > 0) {
        this.onNotice?.(`the team server did not answer (${error instanceof Error ? error.message : String(error)}); ${kept.join(' and ')} kept in ${this.outbox.path}, sent once it answers`);
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
    await this.transaction(async (client) => {
      await client.query('LOCK TABLE rung_observations IN SHARE ROW EXCLUSIVE MODE');
      await client.query('INSERT INTO rung_resets (class_key, up_to, member_id) SELECT $1, coalesce(max(id), 0), $2 FROM rung_observations', [classKey ?? null, this.memberId]);
      await client.query(`DELETE FROM rung_imports WHERE $1::text IS NULL OR ${CLASS_MATCHES_PARAMETER}`, [classKey ?? null]);
    });
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
   * difference. A file's rating is one number over all it saw; the import keeps it as the rating of the
   * file's own part, the same approximation a merge of two files makes.
   */
  async importLedger(source: LedgerState): Promise<TeamImportReport> {
    if (this.readOnly) throw new Error('cannot import: the team ledger is open read-only');
    if (!source.ledgerId) throw new Error('the ledger to import has no id');
    if (source.ledgerId === this.sourceId) throw new Error('that ledger is this team ledger; nothing to import');
    await this.flush();
    const known = new Set([this.sourceId, ...this.imports.map((row) => row.sourceId)]);
    known.delete(source.ledgerId);
    const own: RatingEntry[] = [];
    for (const entry of source.ratings.values()) {
      let graded = entry.graded;
      let ok = entry.ok;
      for (const count of source.merged.values()) {
        if (count.model !== entry.model || count.classKey !== entry.classKey || !known.has(count.sourceId)) continue;
        graded -= count.graded;
        ok -= count.ok;
      }
      if (graded > 0) own.push({ ...entry, graded, ok: Math.min(graded, Math.max(0, ok)) });
    }
    let added = 0;
    await this.transaction(async (client) => {
      const previous = await client.query<{ model: string; class_key: string; graded: number }>('SELECT model, class_key, graded FROM rung_imports WHERE source_id = $1 FOR UPDATE', [source.ledgerId]);
      const had = new Map(previous.rows.map((row) => [`${row.model}\u0000${row.class_key}`, row.graded]));
      for (const entry of own) added += Math.max(0, entry.graded - (had.get(`${entry.model}\u0000${entry.classKey}`) ?? 0));
      if (own.length === 0) return;
      // A file reset since its last import has fewer counts: it adds nothing until it passes them, as a merge does.
      await client.query(
        `INSERT INTO rung_imports (source_id, model, class_key, graded, ok, rating, updated_at, member_id)
         SELECT $1, model, class_key, graded, ok, rating, updated_at, $2
         FROM unnest($3::text[], $4::text[], $5::integer[], $6::integer[], $7::double precision[], $8::bigint[]) AS t(model, class_key, graded, ok, rating, updated_at)
         ON CONFLICT (source_id, model, class_key) DO UPDATE
           SET graded = EXCLUDED.graded, ok = EXCLUDED.ok, rating = EXCLUDED.rating, updated_at = EXCLUDED.updated_at, member_id = EXCLUDED.member_id, imported_at = now()
           WHERE EXCLUDED.graded > rung_imports.graded`,
        [
          source.ledgerId,
          this.memberId,
          own.map((entry) => entry.model),
          own.map((entry) => entry.classKey),
          own.map((entry) => entry.graded),
          own.map((entry) => entry.ok),
          own.map((entry) => entry.rating),
          own.map((entry) => Math.round(entry.updatedAt)),
        ],
      );
      const aliases = [...source.aliases];
      if (aliases.length > 0) {
        // The team's own aliases are newer news than a file's: an import only fills gaps.
        await client.query(
          `INSERT INTO rung_aliases (slug, resolved, member_id) SELECT slug, resolved, $1 FROM unnest($2::text[], $3::text[]) AS t(slug, resolved) ON CONFLICT (slug) DO NOTHING`,
          [this.memberId, aliases.map(([slug]) => slug), aliases.map(([, resolved]) => resolved)],
        );
      }
    });
    await this.flush();
    return { sourceRatings: source.ratings.size, addedGraded: added };
  }

  /** Says, once per new lot, that rows were skipped and why that is no one's fault here. */
  private sayUnusable(): void {
    const total = Object.values(this.skipped).reduce((sum, count) => sum + count, 0);
    if (total <= this.skippedSaid) return;
    this.skippedSaid = total;
    this.onNotice?.(
      `the team ledger holds ${describeSkipped(this.skipped)} that this Rung cannot use (not the shape Rung writes: another member's Rung, or someone writing to the tables by hand); they were skipped, and the rest of the team's evidence is used`,
    );
  }

  private push(ops: LedgerOp[]): void {
    this.state = this.state.applied(ops);
  }

  private async transaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await checkout(this.pool);
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      // A connection that failed mid-transaction is not given to the next query.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
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
    const inMemory = new Set(batch.observations.map(outboxKey));
    const fromOutbox = (this.outbox?.read() ?? []).filter((entry) => !inMemory.has(outboxKey(entry)));
    const decisionsInMemory = new Set(batch.decisions.map(decisionKey));
    const decisionsFromOutbox = (this.outbox?.readDecisions() ?? []).filter((entry) => !decisionsInMemory.has(decisionKey(entry)));
    if (
      fromOutbox.length === 0 &&
      decisionsFromOutbox.length === 0 &&
      batch.observations.length === 0 &&
      batch.aliases.size === 0 &&
      batch.spawnStarts.length === 0 &&
      batch.spawnEnds.length === 0 &&
      batch.decisions.length === 0
    ) {
      return;
    }
    this.queued = emptyBatch();
    try {
      await this.transaction((client) =>
        writeBatch(client, this.memberId, { ...batch, observations: [...fromOutbox, ...batch.observations], decisions: [...decisionsFromOutbox, ...batch.decisions] }),
      );
    } catch (error) {
      this.queued = joinBatches(batch, this.queued);
      await this.keepOffline();
      throw error;
    }
    // Everything this process had put in the outbox was in the file just sent, or was sent by whoever
    // removed it from the file: either way it is on the server now.
    this.offline = [];
    this.offlineDecisions = [];
    if ((fromOutbox.length > 0 || decisionsFromOutbox.length > 0) && this.outbox) {
      try {
        await this.outbox.remove(new Set([...fromOutbox.map(outboxKey), ...decisionsFromOutbox.map(decisionKey)]));
      } catch (error) {
        this.onNotice?.(`could not clear the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); its entries will be sent again, and counted once`);
      }
    }
  }

  /**
   * Moves the queued observations and shared decision rows into the outbox, where they outlive this
   * process; what cannot be written there stays queued.
   */
  private async keepOffline(): Promise<void> {
    if (!this.outbox) return;
    if (this.queued.observations.length > 0) {
      const moving = this.queued.observations.slice();
      try {
        await this.outbox.add(moving);
        const moved = new Set(moving.map(outboxKey));
        this.queued.observations = this.queued.observations.filter((entry) => !moved.has(outboxKey(entry)));
        this.offline.push(...moving);
      } catch (error) {
        this.onNotice?.(`could not write the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); ${moving.length} observations stay in memory only`);
      }
    }
    if (this.queued.decisions.length > 0) {
      const moving = this.queued.decisions.slice();
      try {
        await this.outbox.addDecisions(moving);
        const moved = new Set(moving.map(decisionKey));
        this.queued.decisions = this.queued.decisions.filter((entry) => !moved.has(decisionKey(entry)));
        this.offlineDecisions.push(...moving);
      } catch (error) {
        this.onNotice?.(`could not write the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); ${moving.length} decision rows stay in memory only`);
      }
    }
  }

  /**
   * Reads what is new on the server and rebuilds the local state: the server's, then what is not yet
   * acknowledged on top.
   *
   * @remarks
   * Only observations numbered above the last one read are fetched and folded on top of the earlier fold;
   * a reset nobody here has seen yet means folding from the start. Imports, aliases and calls in flight
   * are few and read whole. All in one snapshot of the database, so they agree with each other.
   */
  private async refresh(): Promise<void> {
    const client = await checkout(this.pool);
    let read: TeamRead;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // These reads are index scans over a few rows, but on a table not yet analysed (a team that just
      // imported its history) the planner guessed thousands, and JIT-compiling the plan took 330 ms of
      // a 340 ms refresh at 100,000 observations. Interpreting them is always fast enough.
      await client.query('SET LOCAL jit = off');
      read = await readTeam(client, this.clock.now(), this.resetMark, this.lastId);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    const refolding = read.resetMark !== this.resetMark;
    const start = refolding ? new LedgerState('') : this.folded;
    this.folded = start.applied(read.observations.map((observation): LedgerOp => ({ kind: 'observe', observation })));
    // Observations are read once each, so their count adds up, unless this read started over; the
    // other tables are read whole each time.
    this.skipped = { ...this.skipped, ...read.skipped, observations: (refolding || this.lastId === BEFORE_FIRST_ID ? 0 : (this.skipped.observations ?? 0)) + (read.skipped.observations ?? 0) };
    this.sayUnusable();
    // Past every row read, those a reset forgot included: they are never folded, so never read again.
    this.lastId = read.lastId;
    this.resetMark = read.resetMark;
    this.imports = read.imports;
    const base = this.folded.applied(importOps(read.imports));
    base.aliases = read.aliases;
    base.spawns = read.spawns;
    this.base = base;
    // Only what has not reached the server stays on top; what was sent is in `base` now.
    this.state = base.applied([...this.offline.map((item): LedgerOp => ({ kind: 'observe', observation: item.observation })), ...opsOf(this.queued)]);
  }
}

/**
 * What went wrong opening the team's ledger, for a person.
 *
 * @remarks
 * pg's words are kept (they name the role: `password authentication failed for user "ana"`), except when
 * the server asks for a password and none was given, which pg reports as a SASL message about a string.
 */
function openProblem(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!/client password must be a string/.test(message)) return message;
  const role = teamUrlRole(url);
  const who = role ? `role "${role}"` : 'the role (PGUSER, else your user name)';
  return `the server asks for the password of ${who} and none was given (put it in PGPASSWORD or ~/.pgpass; ${message})`;
}

/** SQL true when `class_key` is the class in `$1` or one of its shapes (`edit` matches `edit/typescript`). */
const CLASS_MATCHES_PARAMETER = `(class_key = $1 OR left(class_key, length($1) + 1) = $1 || '/')`;

async function writeBatch(client: PoolClient, memberId: string, batch: Batch): Promise<void> {
  if (batch.observations.length > 0) {
    // Serialises writers (readers go on): a batch's ids are drawn and committed before the next writer
    // draws any, so no row ever appears below an id a reader has passed. See the module's remarks.
    await client.query('LOCK TABLE rung_observations IN SHARE ROW EXCLUSIVE MODE');
    await client.query(
      `INSERT INTO rung_observations (member_id, origin, model, class_key, graded_at, observation)
       SELECT member_id, origin, model, class_key, graded_at, observation
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[]) WITH ORDINALITY AS t(member_id, origin, model, class_key, graded_at, observation, position)
       ORDER BY position
       ON CONFLICT (member_id, origin) DO NOTHING`,
      [
        batch.observations.map((item) => item.member),
        batch.observations.map((item) => item.origin),
        batch.observations.map((item) => item.observation.model),
        batch.observations.map((item) => item.observation.classKey),
        batch.observations.map((item) => Math.round(item.observation.at)),
        batch.observations.map((item) => JSON.stringify(item.observation)),
      ],
    );
  }
  if (batch.aliases.size > 0) {
    await client.query(
      `INSERT INTO rung_aliases (slug, resolved, member_id)
       SELECT slug, resolved, $1 FROM unnest($2::text[], $3::text[]) AS t(slug, resolved)
       ON CONFLICT (slug) DO UPDATE SET resolved = EXCLUDED.resolved, member_id = EXCLUDED.member_id, updated_at = now()`,
      [memberId, [...batch.aliases.keys()], [...batch.aliases.values()]],
    );
  }
  if (batch.spawnStarts.length > 0) {
    await client.query(
      `INSERT INTO rung_spawns (spawn_id, trace_id, model, member_id)
       SELECT spawn_id, trace_id, model, $1 FROM unnest($2::text[], $3::text[], $4::text[]) AS t(spawn_id, trace_id, model)
       ON CONFLICT (spawn_id) DO NOTHING`,
      [memberId, batch.spawnStarts.map((spawn) => spawn.spawnId), batch.spawnStarts.map((spawn) => spawn.traceId), batch.spawnStarts.map((spawn) => spawn.model)],
    );
  }
  if (batch.spawnEnds.length > 0) {
    await client.query('UPDATE rung_spawns SET ended_at = now() WHERE spawn_id = ANY($1::text[]) AND ended_at IS NULL', [batch.spawnEnds]);
  }
  if (batch.decisions.length > 0) {
    // A row's attempt is how many models the call had tried before it; with the call, whether it is the
    // settling `final` row, and its time, that names the row, so a resent batch adds nothing.
    // Each row under the member who shared it: a row from the outbox may predate a change of RUNG_MEMBER.
    await client.query(
      `INSERT INTO rung_decisions (member_id, call_id, attempt, final, at, decision)
       SELECT member_id, call_id, attempt, final, at, decision
       FROM unnest($1::text[], $2::text[], $3::integer[], $4::boolean[], $5::bigint[], $6::jsonb[]) AS t(member_id, call_id, attempt, final, at, decision)
       ON CONFLICT DO NOTHING`,
      [
        batch.decisions.map((entry) => entry.member),
        batch.decisions.map((entry) => entry.decision.call),
        batch.decisions.map((entry) => entry.decision.escalation.length),
        batch.decisions.map((entry) => entry.decision.final),
        batch.decisions.map((entry) => Math.round(entry.decision.at)),
        batch.decisions.map((entry) => JSON.stringify(entry.decision)),
      ],
    );
  }
}

/** What one refresh read, in one snapshot of the database. */
interface TeamRead {
  /** Observations above the last id read (all of them after a new reset), in id order, less those a reset forgot. */
  observations: Observation[];
  /** The highest id read, forgotten and unusable rows included; where the read started when there was none. */
  lastId: number;
  resetMark: string | null;
  imports: ImportRow[];
  aliases: Map<string, string>;
  spawns: Map<string, SpawnRecord>;
  /** Rows of each table that were not the shape Rung writes (teamRows.ts), skipped. */
  skipped: Partial<Record<TeamTable, number>>;
}

/**
 * Reads what is new on the server since `afterId`, or everything when a reset newer than `knownReset` landed.
 *
 * @remarks
 * A spawn's start is kept as its age on the server's clock, moved onto this machine's clock (`now`), so
 * that the snapshot's stale cutoff measures the same age whatever this laptop's clock says.
 *
 * Every row is checked against the shape Rung writes before it is used (teamRows.ts); a row that does
 * not fit is skipped and counted, and the read goes on: one member's bad row must not stop everyone's
 * open, nor make a rating NaN.
 */
async function readTeam(client: PoolClient, now: number, knownReset: string | null, afterId: number): Promise<TeamRead> {
  // Resets are few: they are read whole and applied here, which keeps the read of observations a plain
  // range of ids; a join against them cost every read, on a team that never reset anything too. The
  // class key is fetched only when a reset needs it. (pg gives bigint columns as strings.)
  const resetRows = await client.query<Record<string, unknown>>('SELECT id, class_key, up_to FROM rung_resets ORDER BY id');
  const resets = validRows(resetRowSchema, resetRows.rows);
  const resetMark = resets.valid[resets.valid.length - 1]?.id ?? null;
  const from = resetMark === knownReset ? afterId : BEFORE_FIRST_ID;
  const forgotten = resets.valid.map((row) => ({ classKey: row.class_key, upTo: Number(row.up_to) }));
  const columns = forgotten.length === 0 ? 'id, observation' : 'id, class_key, observation';
  const rows = await client.query<Record<string, unknown>>(`SELECT ${columns} FROM rung_observations WHERE id > $1 ORDER BY id`, [from]);
  const numbered = validRows(observationRowSchema, rows.rows);
  const kept =
    forgotten.length === 0
      ? numbered.valid
      : numbered.valid.filter((row) => !forgotten.some((reset) => Number(row.id) <= reset.upTo && (reset.classKey === null || matchesClass(row.class_key ?? '', reset.classKey))));
  const observations: Observation[] = [];
  let unusableObservations = numbered.skipped;
  for (const row of kept) {
    const observation = readObservation(row.observation);
    if (observation) observations.push(observation);
    else unusableObservations++;
  }
  // Past every row read, those skipped included: the server's ids are its own, whatever a row holds.
  const lastRead = rows.rows[rows.rows.length - 1]?.id;
  const imports = validRows(
    importRowSchema,
    (await client.query<Record<string, unknown>>('SELECT source_id, model, class_key, graded, ok, rating, updated_at::text AS updated_at FROM rung_imports ORDER BY source_id, class_key, model')).rows,
  );
  const aliases = validRows(aliasRowSchema, (await client.query<Record<string, unknown>>('SELECT slug, resolved FROM rung_aliases')).rows);
  const spawnRows = await client.query<Record<string, unknown>>(
    `SELECT spawn_id, trace_id, model, (extract(epoch FROM now() - started_at) * 1000)::bigint::text AS age_ms
     FROM rung_spawns WHERE ended_at IS NULL AND started_at > now() - make_interval(secs => $1::double precision / 1000)`,
    [STALE_SPAWN_MS],
  );
  // A start in the server's future (a member's own started_at) would keep its model busy until then.
  const spawns = validRows(spawnRowSchema.refine((row) => Number(row.age_ms) >= 0), spawnRows.rows);
  return {
    observations,
    lastId: lastRead !== undefined && /^\d+$/.test(String(lastRead)) ? Number(lastRead) : from,
    resetMark,
    imports: imports.valid.map((row) => ({ sourceId: row.source_id, model: row.model, classKey: row.class_key, graded: row.graded, ok: row.ok, rating: row.rating, updatedAt: Number(row.updated_at) })),
    aliases: new Map(aliases.valid.filter((row) => row.slug !== row.resolved).map((row) => [row.slug, row.resolved])),
    spawns: new Map(
      spawns.valid.map((row): [string, SpawnRecord] => [row.spawn_id, { spawnId: row.spawn_id, traceId: row.trace_id, model: row.model, startedAt: now - Number(row.age_ms), endedAt: null }]),
    ),
    skipped: {
      observations: unusableObservations,
      resets: resets.skipped,
      imports: imports.skipped,
      aliases: aliases.skipped,
      spawns: spawns.skipped,
    },
  };
}

/** The imports as merge operations, one per source ledger, in a fixed order so every member folds them alike. */
function importOps(rows: readonly ImportRow[]): LedgerOp[] {
  const bySource = new Map<string, RatingEntry[]>();
  for (const { sourceId, ...entry } of rows) {
    const entries = bySource.get(sourceId) ?? [];
    entries.push(entry);
    bySource.set(sourceId, entries);
  }
  return [...bySource].map(([sourceId, entries]): LedgerOp => ({ kind: 'merge', sourceId, entries, aliases: [], at: 0 }));
}

/** `first` then `second`, as one batch; for a failed batch going back in front of what was queued since. */
function joinBatches(first: Batch, second: Batch): Batch {
  return {
    observations: [...first.observations, ...second.observations],
    aliases: new Map([...first.aliases, ...second.aliases]),
    spawnStarts: [...first.spawnStarts, ...second.spawnStarts],
    spawnEnds: [...first.spawnEnds, ...second.spawnEnds],
    decisions: [...first.decisions, ...second.decisions],
  };
}

/** The local operations a queued batch stands for, to show on top of the server's state until it lands. */
function opsOf(batch: Batch): LedgerOp[] {
  return [
    ...batch.observations.map((item): LedgerOp => ({ kind: 'observe', observation: item.observation })),
    ...[...batch.aliases].map(([slug, resolved]): LedgerOp => ({ kind: 'alias', slug, resolved })),
    ...batch.spawnStarts.map((spawn): LedgerOp => ({ kind: 'spawn-start', spawn })),
    ...batch.spawnEnds.map((spawnId): LedgerOp => ({ kind: 'spawn-end', spawnId, at: 0 })),
  ];
}
