/**
 * A team's ledger on PostgreSQL: every member's evidence in one database, each observation counted once.
 *
 * @remarks
 * What the server holds is evidence, not results: one row per graded observation, keyed by where it came
 * from (the member, the writer that made it, and that writer's sequence number). Every write is an
 * `INSERT … ON CONFLICT DO NOTHING` on that key, so a batch sent twice — a retry after the connection
 * dropped mid-commit, when nobody can know whether the commit landed — adds nothing the second time, and
 * two members writing at once cannot overwrite each other: there is nothing to overwrite. Ratings are
 * never stored; every member derives them by folding all observations in one order (when graded, then
 * member, then origin), so every member that has read the same rows ranks from the same ratings.
 *
 * Ranking never waits on the network. {@link TeamLedger.snapshot} reads a local state: the server's rows
 * as of the last refresh, plus what this process queued since. `observe`, `alias` and the spawn records
 * queue; {@link TeamLedger.flush} sends the queue in one transaction and then reads the server back.
 * A background timer does both every {@link TEAM_SYNC_INTERVAL_MS} unless the owner turns it off.
 *
 * Calls in flight are rows too, stamped with the server's clock (`now()`), so the 30-minute stale cutoff
 * is the same for every member whatever their laptop's clock says.
 *
 * Limits of this first version: the queue lives in memory, so what was learned while the server was
 * unreachable is sent at the next flush that reaches it, but is lost if the process exits first; opening
 * needs the server; a refresh reads every observation again (fine for thousands, not for millions); and
 * `rung ledger merge` of a workspace file into a team ledger does not exist yet.
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../clock';
import type { Observation } from '../ratings';
import { sortEntries, STALE_SPAWN_MS, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn } from './ledger';
import { LedgerState, snapshotOf, type LedgerOp } from './ledgerState';

/** How often, ms, the background timer sends the queue and reads the team's evidence back. */
export const TEAM_SYNC_INTERVAL_MS = 10_000;

/** Connections this process keeps open to the team's server: one to flush and one to refresh is plenty. */
const POOL_SIZE = 2;

/** Any number unique to Rung: the advisory lock two members migrating at once serialise on. */
const MIGRATION_LOCK = 0x52554e47;

/**
 * The schema, one step per version, applied in order and never edited once released.
 *
 * @remarks
 * A server that is ahead of this list was migrated by a newer Rung, and this one refuses to write to it
 * rather than guess at columns it does not know.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE rung_observations (
     member_id text NOT NULL,
     origin text NOT NULL,
     model text NOT NULL,
     class_key text NOT NULL,
     graded_at bigint NOT NULL,
     observation jsonb NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (member_id, origin)
   );
   CREATE TABLE rung_aliases (
     slug text PRIMARY KEY,
     resolved text NOT NULL,
     member_id text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE rung_spawns (
     spawn_id text PRIMARY KEY,
     trace_id text NOT NULL,
     model text NOT NULL,
     member_id text NOT NULL,
     started_at timestamptz NOT NULL DEFAULT now(),
     ended_at timestamptz
   );
   CREATE INDEX rung_spawns_open ON rung_spawns (started_at) WHERE ended_at IS NULL;`,
];

/** Whether `--ledger` names a team's server rather than a workspace file. */
export function isTeamLedgerUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The URL with any password in it replaced, for messages. */
export function redactedUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}

export interface TeamLedgerOptions {
  /** `postgres://user@host:port/database`; the password comes from `PGPASSWORD` when not in the URL. */
  url: string;
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
  /** Told about a background sync that failed; the queue is kept for the next one. */
  onSyncError?: (error: Error) => void;
}

/** One observation as queued for the server: the key that makes sending it twice harmless, and the observation. */
interface QueuedObservation {
  origin: string;
  observation: Observation;
}

/** What one flush sends, in one transaction. */
interface Batch {
  observations: QueuedObservation[];
  aliases: Map<string, string>;
  spawnStarts: Spawn[];
  spawnEnds: string[];
}

function emptyBatch(): Batch {
  return { observations: [], aliases: new Map(), spawnStarts: [], spawnEnds: [] };
}

export class TeamLedger implements Ledger {
  private readonly pool: Pool;
  private readonly memberId: string;
  private readonly clock: Clock;
  /** Names this writer; with the sequence number it makes each observation's origin unique. */
  private readonly writerId: string;
  private sequence = 0;
  /** The server's evidence as of the last refresh, with what is queued here on top. */
  private state = new LedgerState('');
  /** What has not reached the server; a batch whose send failed goes back in front of it. */
  private queued = emptyBatch();
  /** Flushes and refreshes run one at a time, so a refresh never reads between a batch's send and its bookkeeping. */
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  private constructor(pool: Pool, options: TeamLedgerOptions) {
    this.pool = pool;
    this.memberId = options.memberId;
    this.clock = options.clock;
    this.writerId = options.writerId ?? randomUUID();
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
   * Connects, brings the schema forward and reads the team's evidence.
   *
   * @remarks
   * `pg` is loaded here rather than at the top of the module, so the extension and the CLI load it only
   * when someone names a team server.
   */
  static async open(options: TeamLedgerOptions): Promise<TeamLedger> {
    const { Pool: PoolClass } = await import('pg');
    const pool = new PoolClass({ connectionString: options.url, max: POOL_SIZE, application_name: 'rung' });
    // An idle connection the server drops (a restart, a terminated backend) is an event, not a crash;
    // the next query takes a fresh connection.
    pool.on('error', () => {});
    try {
      await migrate(pool);
      const ledger = new TeamLedger(pool, options);
      await ledger.refresh();
      return ledger;
    } catch (error) {
      await pool.end();
      throw new Error(`cannot use the team ledger ${redactedUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  snapshot(now: number): LedgerSnapshot {
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    for (const observation of observations) {
      this.queued.observations.push({ origin: `${this.writerId}:${String(this.sequence++).padStart(12, '0')}`, observation });
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

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  /** Sends everything queued in one transaction, then reads the team's evidence back. */
  flush(): Promise<void> {
    const run = this.chain.then(async () => {
      await this.send();
      await this.refresh();
    });
    this.chain = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      await this.flush();
    } finally {
      await this.pool.end();
    }
  }

  private push(ops: LedgerOp[]): void {
    this.state = this.state.applied(ops);
  }

  /**
   * Sends the queue as one transaction.
   *
   * @remarks
   * If the connection drops before the commit is acknowledged, the batch may or may not have landed; it
   * goes back in front of the queue as it was, same origins, so sending it again lands it at most once.
   */
  private async send(): Promise<void> {
    const batch = this.queued;
    if (batch.observations.length === 0 && batch.aliases.size === 0 && batch.spawnStarts.length === 0 && batch.spawnEnds.length === 0) return;
    this.queued = emptyBatch();
    let client: PoolClient | undefined;
    try {
      client = await checkout(this.pool);
      await client.query('BEGIN');
      await writeBatch(client, this.memberId, batch);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      // A connection that failed mid-transaction is not given to the next query.
      client?.release(error instanceof Error ? error : true);
      this.queued = joinBatches(batch, this.queued);
      throw error;
    }
  }

  /** Reads the team's evidence and rebuilds the local state: the server's, then what is still queued on top. */
  private async refresh(): Promise<void> {
    const client = await checkout(this.pool);
    let base: LedgerState;
    try {
      base = await readTeam(client, this.clock.now());
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    // Only what has not reached the server stays on top; what was sent is in `base` now.
    this.state = base.applied(opsOf(this.queued));
  }
}

/** Brings the server's schema to the newest version, each step in the same transaction as its version row. */
async function migrate(pool: Pool): Promise<void> {
  const client = await checkout(pool);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS rung_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rung_schema');
    const current = result.rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) throw new Error(`the server's schema is version ${current}, newer than this Rung knows (${MIGRATIONS.length}): update Rung`);
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1] as string);
      await client.query('INSERT INTO rung_schema (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

const listening = new WeakSet<PoolClient>();

/**
 * A connection from the pool that a server dropping it cannot crash the process through.
 *
 * @remarks
 * `pg` reports a connection the server ended (a restart, `pg_terminate_backend`) as an `error` event
 * when no query is waiting on it, and an `error` event nobody listens to throws. The query in flight,
 * if any, fails with the same error, which is where it is handled.
 */
async function checkout(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  if (!listening.has(client)) {
    listening.add(client);
    client.on('error', () => {});
  }
  return client;
}

async function writeBatch(client: PoolClient, memberId: string, batch: Batch): Promise<void> {
  if (batch.observations.length > 0) {
    await client.query(
      `INSERT INTO rung_observations (member_id, origin, model, class_key, graded_at, observation)
       SELECT $1, origin, model, class_key, graded_at, observation
       FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[]) AS t(origin, model, class_key, graded_at, observation)
       ON CONFLICT (member_id, origin) DO NOTHING`,
      [
        memberId,
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
}

/**
 * The team's evidence as a local state: every observation folded in one order, the aliases, and the calls
 * in flight by the server's clock.
 *
 * @remarks
 * A spawn's start is kept as its age on the server's clock, moved onto this machine's clock (`now`), so
 * that the snapshot's stale cutoff measures the same age whatever this laptop's clock says.
 */
async function readTeam(client: PoolClient, now: number): Promise<LedgerState> {
  const state = new LedgerState('');
  const observations = await client.query<{ observation: Observation }>('SELECT observation FROM rung_observations ORDER BY graded_at, member_id, origin');
  for (const row of observations.rows) state.apply({ kind: 'observe', observation: row.observation });
  const aliases = await client.query<{ slug: string; resolved: string }>('SELECT slug, resolved FROM rung_aliases');
  for (const row of aliases.rows) state.apply({ kind: 'alias', slug: row.slug, resolved: row.resolved });
  const spawns = await client.query<{ spawn_id: string; trace_id: string; model: string; age_ms: string }>(
    `SELECT spawn_id, trace_id, model, (extract(epoch FROM now() - started_at) * 1000)::bigint AS age_ms
     FROM rung_spawns WHERE ended_at IS NULL AND started_at > now() - make_interval(secs => $1::double precision / 1000)`,
    [STALE_SPAWN_MS],
  );
  for (const row of spawns.rows) {
    state.apply({ kind: 'spawn-start', spawn: { spawnId: row.spawn_id, traceId: row.trace_id, model: row.model, startedAt: now - Number(row.age_ms) } });
  }
  return state;
}

/** `first` then `second`, as one batch; for a failed batch going back in front of what was queued since. */
function joinBatches(first: Batch, second: Batch): Batch {
  return {
    observations: [...first.observations, ...second.observations],
    aliases: new Map([...first.aliases, ...second.aliases]),
    spawnStarts: [...first.spawnStarts, ...second.spawnStarts],
    spawnEnds: [...first.spawnEnds, ...second.spawnEnds],
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
