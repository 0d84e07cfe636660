/**
 * The ledger file's schema: every version so far, and the migrations that carry a file forward.
 *
 * @remarks
 * A workspace ledger outlives the extension version that wrote it, and a teammate's older copy may be
 * merged in years later, so a file from any earlier version must open. Migrations are a list, one step
 * per version, and `migrate` runs every step a file needs in one transaction together with the write of
 * the new `schema_version`: a file is either at its old version or at the current one, never at some
 * step between. One transaction for all is enough because the steps only ever run in memory on a copy
 * of the file (sql.js) and the result lands by one atomic rename, so no reader could see an
 * intermediate version anyway, and a step that fails leaves the old file untouched. A file from a newer
 * version is never migrated backwards or rewritten (see the workspace ledger); the numbers only grow.
 *
 * - v1: ratings, aliases and meta (the first release: one window, no merging).
 * - v2: spawns, so two windows see each other's calls in flight, and a ledger id in meta.
 * - v3: per-profile diversity caps, and the merged-sources table that makes merging idempotent.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'sql.js';

export interface Migration {
  /** The version the file is at after this step. */
  to: number;
  /** Why the step exists, for `rung ledger` and the migration notice. */
  summary: string;
  apply(db: Database, context: MigrationContext): void;
}

export interface MigrationContext {
  /** When the migration ran, ms since the epoch (from the injected clock). */
  now: number;
  /** Makes the ledger's id; a parameter so a test can pin it. */
  newId(): string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    to: 1,
    summary: 'ratings, aliases and meta',
    apply(db, context) {
      db.run(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      db.run(`CREATE TABLE ratings (
        model TEXT NOT NULL,
        class_key TEXT NOT NULL,
        rating REAL NOT NULL,
        graded INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (model, class_key))`);
      db.run(`CREATE TABLE aliases (slug TEXT PRIMARY KEY, resolved TEXT NOT NULL)`);
      db.run(`INSERT INTO meta (key, value) VALUES ('created_at', ?)`, [String(context.now)]);
    },
  },
  {
    to: 2,
    summary: 'spawns (calls in flight, shared across windows) and a ledger id',
    apply(db, context) {
      db.run(`CREATE TABLE spawns (
        spawn_id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        model TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER)`);
      db.run(`CREATE INDEX spawns_model ON spawns (model)`);
      db.run(`INSERT OR IGNORE INTO meta (key, value) VALUES ('ledger_id', ?)`, [context.newId()]);
    },
  },
  {
    to: 3,
    summary: 'per-profile diversity caps and merged sources',
    apply(db) {
      // NULL in either cap column means unbounded; it never reads as 0 (SPEC section 2).
      db.run(`CREATE TABLE profile_caps (
        class_key TEXT PRIMARY KEY,
        max_consecutive_per_provider INTEGER,
        max_total_per_provider INTEGER)`);
      db.run(`CREATE TABLE merged_sources (
        source_id TEXT NOT NULL,
        model TEXT NOT NULL,
        class_key TEXT NOT NULL,
        graded INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        merged_at INTEGER NOT NULL,
        PRIMARY KEY (source_id, model, class_key))`);
    },
  },
];

/** The version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.to ?? 0;

/** What a database file turned out to be. */
export type SchemaReading =
  | { kind: 'empty' }
  | { kind: 'rung'; version: number }
  | { kind: 'foreign'; reason: string };

/** Reads the schema version; an empty database is version 0, a database without Rung's meta is foreign. */
export function readSchema(db: Database): SchemaReading {
  const tables = db.exec(`SELECT name FROM sqlite_master WHERE type = 'table'`)[0]?.values.map((row) => String(row[0])) ?? [];
  if (tables.length === 0) return { kind: 'empty' };
  if (!tables.includes('meta')) return { kind: 'foreign', reason: `no meta table (tables: ${tables.slice(0, 5).join(', ')})` };
  const value = db.exec(`SELECT value FROM meta WHERE key = 'schema_version'`)[0]?.values[0]?.[0];
  const version = Number(value);
  if (value === undefined || !Number.isInteger(version) || version < 1) return { kind: 'foreign', reason: `schema_version is ${String(value)}` };
  return { kind: 'rung', version };
}

/**
 * Runs every migration after `from` in one transaction and records the new version.
 * Returns the steps that ran (empty when the file was current).
 */
export function migrate(db: Database, from: number, context: Partial<MigrationContext> & { now: number }): Migration[] {
  const steps = MIGRATIONS.filter((migration) => migration.to > from);
  if (steps.length === 0) return [];
  const full: MigrationContext = { now: context.now, newId: context.newId ?? randomUUID };
  db.run('BEGIN');
  try {
    for (const step of steps) step.apply(db, full);
    db.run(`INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [String(SCHEMA_VERSION)]);
    db.run('COMMIT');
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
  return steps;
}
