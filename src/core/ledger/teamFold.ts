/**
 * The team's rows folded into ratings: the read of what is new on the server, and the fold that every
 * member makes of it in the same order.
 *
 * @remarks
 * Ratings are never stored on the server; every member derives them by folding all observations in the
 * order the server numbered them, so every member that has read the same rows ranks from the same
 * ratings. That order lets a refresh read only the rows above the last id it folded, and fold them on
 * top of the earlier fold (the writers' lock in teamWrites.ts keeps a row from appearing below an id a
 * reader has passed). A reset nobody here has seen yet means folding from the start: its rows stay on
 * the server and are left out of the fold. Imports, aliases and calls in flight are few and read whole;
 * the imports are folded as merges after the observations, one per source ledger.
 */
import type { Pool, PoolClient } from 'pg';
import type { Observation } from '../ratings';
import { sortEntries, STALE_SPAWN_MS, type RatingEntry } from './ledger';
import { LedgerState, matchesClass, type LedgerOp, type SpawnRecord } from './ledgerState';
import { checkout } from './teamPool';
import {
  aliasRowSchema,
  importRowSchema,
  observationRowSchema,
  readObservation,
  resetRowSchema,
  spawnRowSchema,
  validRows,
  type TeamTable,
} from './teamRows';

/** An observation id no row is below: where a fresh fold starts. */
const BEFORE_FIRST_ID = 0;

/** One imported rating: a workspace file's own evidence for one model and class. */
export interface ImportRow extends RatingEntry {
  sourceId: string;
}

/** What one refresh read, in one snapshot of the database. */
export interface TeamRead {
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

/** Where a fold stands: the newest reset it has seen and the highest observation id it has read. */
export interface FoldPosition {
  resetMark: string | null;
  lastId: number;
}

/**
 * The server's rows folded so far, and where the next read starts.
 *
 * @remarks
 * Every state it hands out is new ({@link LedgerState.applied}), so a snapshot taken before a refresh
 * keeps reading what it read.
 */
export class TeamFold {
  /** The server's observations folded in id order, up to {@link position}'s `lastId`; replaced, never changed. */
  private folded = new LedgerState('');
  private lastId = BEFORE_FIRST_ID;
  /** The newest reset seen; a new one means folding from the start again. */
  private resetMark: string | null = null;
  /** The imports as of the last read. */
  private imports: ImportRow[] = [];
  private skipped: Partial<Record<TeamTable, number>>;

  /** `skipped`: rows already found unusable before the first read (a team id that had to be derived). */
  constructor(skipped: Partial<Record<TeamTable, number>> = {}) {
    this.skipped = { ...skipped };
  }

  get position(): FoldPosition {
    return { resetMark: this.resetMark, lastId: this.lastId };
  }

  /** Rows read from the server that were not the shape Rung writes, by table, as of the last read. */
  get skippedRows(): Readonly<Partial<Record<TeamTable, number>>> {
    return { ...this.skipped };
  }

  /** The source ledgers the team holds imports of. */
  importSources(): string[] {
    return this.imports.map((row) => row.sourceId);
  }

  /**
   * Folds a read made from {@link position} and returns the server's evidence: the fold, the imports
   * merged on top, the aliases and the calls in flight.
   */
  apply(read: TeamRead): LedgerState {
    const refolding = read.resetMark !== this.resetMark;
    const start = refolding ? new LedgerState('') : this.folded;
    this.folded = start.applied(read.observations.map((observation): LedgerOp => ({ kind: 'observe', observation })));
    // Observations are read once each, so their count adds up, unless this read started over; the
    // other tables are read whole each time.
    this.skipped = {
      ...this.skipped,
      ...read.skipped,
      observations:
        (refolding || this.lastId === BEFORE_FIRST_ID ? 0 : (this.skipped.observations ?? 0)) + (read.skipped.observations ?? 0),
    };
    // Past every row read, those a reset forgot included: they are never folded, so never read again.
    this.lastId = read.lastId;
    this.resetMark = read.resetMark;
    this.imports = read.imports;
    const base = this.folded.applied(importOps(read.imports));
    base.aliases = read.aliases;
    base.spawns = read.spawns;
    return base;
  }

  /**
   * The team's ratings as a workspace file that pulls them should record them: everything but what the
   * file itself contributed by import (so pulling after importing does not count the file's own evidence twice).
   */
  entriesExcept(sourceId: string): RatingEntry[] {
    const state = this.folded.applied(importOps(this.imports.filter((row) => row.sourceId !== sourceId)));
    return sortEntries([...state.ratings.values()].map((entry) => ({ ...entry })));
  }
}

/**
 * Reads what is new on the server since `position`, in one snapshot of the database so the tables agree
 * with each other.
 */
export async function readNewRows(pool: Pool, now: number, position: FoldPosition): Promise<TeamRead> {
  const client = await checkout(pool);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // These reads are index scans over a few rows, but on a table not yet analysed (a team that just
    // imported its history) the planner guessed thousands, and JIT-compiling the plan took 330 ms of
    // a 340 ms refresh at 100,000 observations. Interpreting them is always fast enough.
    await client.query('SET LOCAL jit = off');
    const read = await readTeam(client, now, position.resetMark, position.lastId);
    await client.query('COMMIT');
    client.release();
    return read;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
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
      : numbered.valid.filter(
          (row) =>
            !forgotten.some(
              (reset) => Number(row.id) <= reset.upTo && (reset.classKey === null || matchesClass(row.class_key ?? '', reset.classKey)),
            ),
        );
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
    (
      await client.query<Record<string, unknown>>(
        'SELECT source_id, model, class_key, graded, ok, rating, updated_at::text AS updated_at FROM rung_imports ORDER BY source_id, class_key, model',
      )
    ).rows,
  );
  const aliases = validRows(aliasRowSchema, (await client.query<Record<string, unknown>>('SELECT slug, resolved FROM rung_aliases')).rows);
  const spawnRows = await client.query<Record<string, unknown>>(
    `SELECT spawn_id, trace_id, model, (extract(epoch FROM now() - started_at) * 1000)::bigint::text AS age_ms
     FROM rung_spawns WHERE ended_at IS NULL AND started_at > now() - make_interval(secs => $1::double precision / 1000)`,
    [STALE_SPAWN_MS],
  );
  // A start in the server's future (a member's own started_at) would keep its model busy until then.
  const spawns = validRows(
    spawnRowSchema.refine((row) => Number(row.age_ms) >= 0),
    spawnRows.rows,
  );
  return {
    observations,
    lastId: lastRead !== undefined && /^\d+$/.test(String(lastRead)) ? Number(lastRead) : from,
    resetMark,
    imports: imports.valid.map((row) => ({
      sourceId: row.source_id,
      model: row.model,
      classKey: row.class_key,
      graded: row.graded,
      ok: row.ok,
      rating: row.rating,
      updatedAt: Number(row.updated_at),
    })),
    aliases: new Map(aliases.valid.filter((row) => row.slug !== row.resolved).map((row) => [row.slug, row.resolved])),
    spawns: new Map(
      spawns.valid.map((row): [string, SpawnRecord] => [
        row.spawn_id,
        { spawnId: row.spawn_id, traceId: row.trace_id, model: row.model, startedAt: now - Number(row.age_ms), endedAt: null },
      ]),
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
