/**
 * What Rung needs of a team's PostgreSQL server before it reads or writes there: the schema, brought
 * forward or checked.
 *
 * @remarks
 * Kept apart from the ledger (teamLedger.ts) because the schema is a contract with every other member's
 * Rung, old and new: its steps are released once and never edited, and a reader must be able to say
 * exactly which versions it can read without writing anything.
 */
import type { Pool, PoolClient } from 'pg';
import { checkout } from './teamPool';
import { readTeamId as teamIdOf } from './teamRows';

/** The team's id as `rung_meta` holds it; `usable` false when a stand-in had to be derived (see teamRows.ts). */
export interface TeamIdentity {
  id: string;
  usable: boolean;
}

/** Any number unique to Rung: the advisory lock two members migrating at once serialise on. */
const MIGRATION_LOCK = 0x52554e47;

/**
 * The schema, one step per version, applied in order and never edited once released.
 *
 * @remarks
 * A server that is ahead of this list was migrated by a newer Rung, and this one refuses to use it rather
 * than guess at columns it does not know.
 *
 * Exported for the test that migrates a server a first-version Rung wrote.
 *
 * - v1: observations keyed by origin, aliases, spawns.
 * - v2: observations numbered in the order the server received them (the fold order, read incrementally;
 *   v1's rows are numbered in v1's fold order, so no rating moves), resets, imports of workspace files,
 *   and the team's id, which a workspace file that pulled the team's evidence records as its source.
 * - v3: decision rows a member chose to share (`shareDecisions`), keyed by member, call, attempt and
 *   time so a row sent again is stored once. A decision row holds no prompt and no answer: the class,
 *   the candidates, the model chosen, the verdict and its reason, tokens, cost and latency. Reading the
 *   team's evidence never needs it (see {@link READ_SCHEMA_VERSION}).
 */
export const TEAM_MIGRATIONS: readonly string[] = [
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
  `ALTER TABLE rung_observations ADD COLUMN id bigint;
   UPDATE rung_observations o SET id = numbered.n
     FROM (SELECT member_id, origin, row_number() OVER (ORDER BY graded_at, member_id, origin) AS n FROM rung_observations) numbered
     WHERE o.member_id = numbered.member_id AND o.origin = numbered.origin;
   CREATE SEQUENCE rung_observations_id_seq OWNED BY rung_observations.id;
   SELECT setval('rung_observations_id_seq', coalesce((SELECT max(id) FROM rung_observations), 0) + 1, false);
   ALTER TABLE rung_observations ALTER COLUMN id SET DEFAULT nextval('rung_observations_id_seq'), ALTER COLUMN id SET NOT NULL;
   CREATE UNIQUE INDEX rung_observations_by_id ON rung_observations (id);
   CREATE TABLE rung_resets (
     id bigserial PRIMARY KEY,
     class_key text,
     up_to bigint NOT NULL,
     member_id text NOT NULL,
     reset_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE rung_imports (
     source_id text NOT NULL,
     model text NOT NULL,
     class_key text NOT NULL,
     graded integer NOT NULL,
     ok integer NOT NULL,
     rating double precision NOT NULL,
     updated_at bigint NOT NULL,
     member_id text NOT NULL,
     imported_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (source_id, model, class_key)
   );
   CREATE TABLE rung_meta (key text PRIMARY KEY, value text NOT NULL);
   INSERT INTO rung_meta (key, value) VALUES ('team_id', gen_random_uuid()::text);`,
  `CREATE TABLE rung_decisions (
     member_id text NOT NULL,
     call_id text NOT NULL,
     attempt integer NOT NULL,
     final boolean NOT NULL,
     at bigint NOT NULL,
     decision jsonb NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (member_id, call_id, attempt, final, at)
   );`,
];

/**
 * The oldest schema a read-only open reads the team's evidence from.
 *
 * @remarks
 * v3 only added the shared decision rows, which ranking and `rung ledger show` never read, so a server a
 * v2 Rung migrated is still read as it is: a reading user cannot migrate it, and need not.
 */
export const READ_SCHEMA_VERSION = 2;

/** The first schema that holds shared decision rows. */
export const DECISIONS_SCHEMA_VERSION = 3;

/**
 * Brings the server's schema to the newest version, each step in the same transaction as its version row;
 * returns the team's id.
 */
export async function migrate(pool: Pool): Promise<TeamIdentity> {
  const client = await checkout(pool);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS rung_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rung_schema');
    const current = result.rows[0]?.version ?? 0;
    if (current > TEAM_MIGRATIONS.length)
      throw new Error(`the server's schema is version ${current}, newer than this Rung knows (${TEAM_MIGRATIONS.length}): update Rung`);
    for (let version = current + 1; version <= TEAM_MIGRATIONS.length; version++) {
      await client.query(TEAM_MIGRATIONS[version - 1] as string);
      await client.query('INSERT INTO rung_schema (version) VALUES ($1)', [version]);
    }
    const teamId = await readTeamId(client);
    await client.query('COMMIT');
    client.release();
    return teamId;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/**
 * Checks, without writing anything, that the server's schema is the one this Rung reads; returns the team's id.
 *
 * @remarks
 * Reading commands (`rung rank`, `rung ledger show`) must not change a team's server, and may run with a
 * user that can only read. A schema this Rung would have to migrate is therefore an error that says so
 * and how to bring it forward, rather than a silent migration.
 */
export async function checkSchema(pool: Pool): Promise<TeamIdentity> {
  const client = await checkout(pool);
  try {
    const present = await client.query<{ present: boolean }>(`SELECT to_regclass('rung_schema') IS NOT NULL AS present`);
    if (!present.rows[0]?.present)
      throw new Error('it holds no Rung ledger yet (no rung_schema table); a command that writes (rung replay --ledger URL) creates one');
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rung_schema');
    const current = result.rows[0]?.version ?? 0;
    if (current > TEAM_MIGRATIONS.length)
      throw new Error(`the server's schema is version ${current}, newer than this Rung knows (${TEAM_MIGRATIONS.length}): update Rung`);
    if (current < READ_SCHEMA_VERSION) {
      throw new Error(
        `the server's schema is version ${current}, older than this Rung's ${READ_SCHEMA_VERSION}; reading does not migrate it: run a command that writes (rung replay --ledger URL) once to bring it forward`,
      );
    }
    const teamId = await readTeamId(client);
    client.release();
    return teamId;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

async function readTeamId(client: PoolClient): Promise<TeamIdentity> {
  const result = await client.query<{ value: unknown }>(`SELECT value FROM rung_meta WHERE key = 'team_id'`);
  if (result.rows.length === 0) throw new Error('the server has no team id in rung_meta');
  return teamIdOf(result.rows[0]?.value);
}
