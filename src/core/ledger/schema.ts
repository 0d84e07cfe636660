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
 * - v4: the drift detector's state on each rating, so a ledger reopened in the middle of an alarm keeps it.
 * - v5: each rating's information and the prior it followed.
 * - v6: the per-prompt signal: its weights, and each class's record of what it earned there.
 * - v7: what each model's attempts at a class really cost, against their list price.
 * - v8: the confidence check's counts (what each model's stated confidence turned out to be worth), so
 *   the thresholds it learned outlive the window.
 * - v9: how long each model's attempts at a class took on this machine (the whole answer, the first
 *   token, the writing speed), so the planner can weigh the user's wait from the first call of a window.
 */
import { randomUUID } from 'node:crypto';
import type { Database, SqlJsStatic } from 'sql.js';

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
  {
    to: 4,
    summary: "the drift detector's state on each rating",
    apply(db) {
      // A file from before v4 held no drift state: its ratings start from no surprise and no alarm,
      // which is what the in-memory detector of those versions started from on every open.
      db.run(`ALTER TABLE ratings ADD COLUMN drift_surprise REAL NOT NULL DEFAULT 0`);
      // NULL: the detector has never fired for this rating, and its step size decays with its graded count.
      db.run(`ALTER TABLE ratings ADD COLUMN drift_since INTEGER`);
    },
  },
  {
    to: 5,
    summary: 'how firmly each rating holds against its prior',
    apply(db) {
      // NULL: a rating from before v5, whose information was never counted. It keeps the place its
      // evidence gave it and never follows a prior, as every rating of those versions did.
      db.run(`ALTER TABLE ratings ADD COLUMN information REAL`);
      db.run(`ALTER TABLE ratings ADD COLUMN followed_prior REAL`);
    },
  },
  {
    to: 6,
    summary: 'the per-prompt signal',
    apply(db) {
      // Empty in a file from before v6: the signal starts from nothing, as it did in every process then.
      // The weights are one row per table of weights, little-endian float32, with the slot count they
      // were hashed into, so a later size is read as "nothing learned" rather than misread.
      db.run(`CREATE TABLE prompt_signal_weights (name TEXT PRIMARY KEY, slots INTEGER NOT NULL, weights BLOB NOT NULL)`);
      db.run(`CREATE TABLE prompt_signal_classes (
        class_key TEXT PRIMARY KEY,
        calls INTEGER NOT NULL,
        gain REAL NOT NULL,
        gain_square REAL NOT NULL,
        shift REAL NOT NULL,
        odds REAL NOT NULL)`);
    },
  },
  {
    to: 7,
    summary: "what each model's attempts at a class really cost",
    apply(db) {
      // 0 attempts in a file from before v7: every model is priced at its list price until it has attempts.
      db.run(`ALTER TABLE ratings ADD COLUMN cost_observed REAL NOT NULL DEFAULT 0`);
      db.run(`ALTER TABLE ratings ADD COLUMN cost_listed REAL NOT NULL DEFAULT 0`);
      db.run(`ALTER TABLE ratings ADD COLUMN cost_attempts INTEGER NOT NULL DEFAULT 0`);
    },
  },
  {
    to: 8,
    summary: "the confidence check's learned counts",
    apply(db) {
      // One row a count the confidence learner keeps (src/core/confidence): its key names the kind, the
      // class, the model and the bin; n observations, ok of them right. A file from before v8 learned
      // none, which is where every window of those versions started from.
      db.run(`CREATE TABLE confidence_counts (key TEXT PRIMARY KEY, n REAL NOT NULL, ok REAL NOT NULL)`);
    },
  },
  {
    to: 9,
    summary: "how long each model's attempts at a class took",
    apply(db) {
      // Empty in a file from before v9: every model's wait is unknown until it has answered here, which
      // is where every window of those versions stood. A table of its own, not columns on ratings: a
      // timing comes from every answer, checked or not, and a model with no graded answer has no rating.
      db.run(`CREATE TABLE timings (
        model TEXT NOT NULL,
        class_key TEXT NOT NULL,
        attempts REAL NOT NULL,
        total_ms REAL NOT NULL,
        first_token_attempts REAL NOT NULL,
        first_token_ms REAL NOT NULL,
        output_tokens REAL NOT NULL,
        writing_ms REAL NOT NULL,
        PRIMARY KEY (model, class_key))`);
    },
  },
];

/** The version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.to ?? 0;

/**
 * SQLite's application id for a Rung ledger (`PRAGMA application_id`): the four bytes "RUNG".
 *
 * @remarks
 * Every save writes it, so a ledger is known as Rung's by its header whatever became of its tables.
 * Files saved before it existed carry 0 and are known by their tables instead (see {@link readSchema}).
 */
export const RUNG_APPLICATION_ID = 0x52554e47;

/** The columns Rung's ratings table has had since v1: with a key-value meta, the mark of a ledger saved before {@link RUNG_APPLICATION_ID}. */
const V1_RATINGS_COLUMNS = ['model', 'class_key', 'rating', 'graded', 'ok', 'updated_at'];

/** Marks `db` as a Rung ledger in its header; see {@link RUNG_APPLICATION_ID}. */
export function markAsRung(db: Database): void {
  db.run(`PRAGMA application_id = ${RUNG_APPLICATION_ID}`);
}

/** What a whole SQLite database turned out to be. */
export type SchemaReading =
  | { kind: 'empty' }
  | { kind: 'rung'; version: number }
  /** Carries Rung's application id but its version cannot be read: a damaged ledger. */
  | { kind: 'broken'; reason: string }
  /**
   * Looks like a Rung ledger but holds what Rung never creates (a view, a trigger, a table or column of
   * another shape): made by hand or by someone who meant harm, never by a Rung that crashed.
   */
  | { kind: 'crafted'; reason: string }
  | { kind: 'foreign'; reason: string };

/**
 * Reads what a whole SQLite database is: empty, a Rung ledger at some version, or someone else's. Never throws.
 *
 * @remarks
 * A file is a Rung ledger only if it carries Rung's mark: {@link RUNG_APPLICATION_ID}, or, for a file
 * saved before the id, a key-value `meta` together with a `ratings` table with Rung's columns, which
 * every version since v1 has (the ledger id came only with v2). A `meta` table with a schema_version is
 * no mark: other applications keep one too, and two of their databases were once moved aside as
 * damaged ledgers ("no such column: value", and "a Rung ledger whose tables cannot be read"). So an SQL
 * error while looking at an unmarked file means someone else's file, to be left alone; only a file
 * with the id whose version cannot be read is `broken`.
 *
 * Before any query touches a table, `sqlite_master` is read: a file that carries the mark (or Rung's
 * tables) may still be made by hand. An 8 KB file whose `meta` was a recursive view spun at 100% CPU
 * for good on the first `SELECT … FROM meta`, which froze the extension host at every activation. So
 * any view, trigger, virtual table or generated column makes the file `crafted` before its tables are
 * read (none of these run until a query reaches them), and a file at a version this Rung knows must
 * hold exactly the objects Rung's own migrations make at that version, each with the same definition
 * (whitespace and case aside): a CHECK, a DEFAULT or an index expression of someone else's would
 * otherwise run on every save. See {@link expectedObjects}.
 */
export function readSchema(db: Database, sql: SqlJsStatic): SchemaReading {
  let applicationId: number;
  let objects: SchemaObject[];
  try {
    applicationId = Number(db.exec('PRAGMA application_id')[0]?.values[0]?.[0] ?? 0);
    objects = readObjects(db).filter((object) => !isSqliteStatistics(object));
  } catch (error) {
    return { kind: 'foreign', reason: `its schema cannot be read (${messageOf(error)})` };
  }
  if (applicationId !== 0 && applicationId !== RUNG_APPLICATION_ID)
    return { kind: 'foreign', reason: `application_id is 0x${(applicationId >>> 0).toString(16)}` };
  if (objects.length === 0) return { kind: 'empty' };
  const tables = objects.filter((object) => object.type === 'table').map((object) => object.name);
  const marked = applicationId === RUNG_APPLICATION_ID;
  const unrecognised = (reason: string): SchemaReading => (marked ? { kind: 'broken', reason } : { kind: 'foreign', reason });
  try {
    if (!marked) {
      const missing = missingTableMark(db, tables);
      if (missing) return { kind: 'foreign', reason: missing };
    }
    const hostile = hostileObject(db, objects);
    if (hostile) return { kind: 'crafted', reason: hostile };
    if (tables.length === 0) return unrecognised('it has no tables');
    const value = db.exec(`SELECT value FROM meta WHERE key = 'schema_version'`)[0]?.values[0]?.[0];
    const version = Number(value);
    if (value === undefined || !Number.isInteger(version) || version < 1) return unrecognised(`schema_version is ${String(value)}`);
    // A newer Rung's schema is not known here; such a file is only ever read, and reading runs none of
    // what a save would (checks, defaults, index expressions).
    if (version <= SCHEMA_VERSION) {
      const stranger = unexpectedObject(db, objects, expectedObjects(sql, version), version);
      if (stranger) return { kind: 'crafted', reason: stranger };
    }
    return { kind: 'rung', version };
  } catch (error) {
    return unrecognised(`its meta table cannot be read (${messageOf(error)})`);
  }
}

/** One row of `sqlite_master`. */
interface SchemaObject {
  type: string;
  name: string;
  tableName: string;
  /** The CREATE statement as SQLite keeps it; null for the indexes SQLite makes for a key. */
  sql: string | null;
}

/** One of Rung's own objects at some version; a table's columns in order, for saying how a file's differs. */
interface OwnObject extends SchemaObject {
  columns: string[];
}

/**
 * The tables SQLite itself keeps for `ANALYZE`'s statistics, each as SQLite defines it: someone
 * inspecting a ledger may have made them, and Rung reads none.
 *
 * @remarks
 * Only a table of exactly this name and definition is SQLite's own. Passing anything by its name alone
 * let a trigger named `sqlite_stat1` (written with `PRAGMA writable_schema`, which lifts SQLite's
 * refusal of the name) through the check; it ran a five-way join of the ratings on the first save's
 * `DELETE`, and the process never came back.
 */
const SQLITE_STATISTICS: ReadonlyMap<string, string> = new Map([
  ['sqlite_stat1', 'CREATE TABLE sqlite_stat1(tbl,idx,stat)'],
  ['sqlite_stat2', 'CREATE TABLE sqlite_stat2(tbl,idx,sampleno,sample)'],
  ['sqlite_stat3', 'CREATE TABLE sqlite_stat3(tbl,idx,neq,nlt,ndlt,sample)'],
  ['sqlite_stat4', 'CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)'],
]);

/** Whether `object` is one of SQLite's statistics tables, as `ANALYZE` makes it; any other object is judged whatever its name. */
function isSqliteStatistics(object: SchemaObject): boolean {
  const own = SQLITE_STATISTICS.get(object.name);
  return (
    own !== undefined && object.type === 'table' && object.tableName === object.name && normalisedSql(object.sql) === normalisedSql(own)
  );
}

function readObjects(db: Database): SchemaObject[] {
  return (db.exec('SELECT type, name, tbl_name, sql FROM sqlite_master')[0]?.values ?? []).map((row) => ({
    type: String(row[0]),
    name: String(row[1]),
    tableName: String(row[2]),
    sql: row[3] === null || row[3] === undefined ? null : String(row[3]),
  }));
}

/** Why an object Rung never makes at any version is in the file, or undefined when there is none. */
function hostileObject(db: Database, objects: readonly SchemaObject[]): string | undefined {
  for (const object of objects) {
    if (object.type === 'view' || object.type === 'trigger') {
      return `it holds a ${object.type} named "${object.name}", and Rung never creates views or triggers (one can make a read of the file run forever)`;
    }
    if (object.type !== 'table') continue;
    if (/^\s*create\s+virtual\s/i.test(object.sql ?? '')) return `its table "${object.name}" is a virtual table, which Rung never creates`;
    // table_xinfo marks generated columns hidden 2 (virtual) or 3 (stored); it evaluates nothing.
    const generated = db.exec(`PRAGMA table_xinfo(${quoteName(object.name)})`)[0]?.values.find((row) => Number(row[6]) >= 2);
    if (generated) return `its table "${object.name}" has a generated column "${String(generated[1])}", which Rung never creates`;
  }
  return undefined;
}

/**
 * The first object in the file that Rung's migrations do not make at `version`, or make otherwise;
 * undefined when every object is one of Rung's. Objects Rung makes that are missing are left to the
 * reads, which fail on a missing table as on any damage.
 */
function unexpectedObject(
  db: Database,
  objects: readonly SchemaObject[],
  expected: ReadonlyMap<string, OwnObject>,
  version: number,
): string | undefined {
  for (const object of objects) {
    const own = expected.get(objectKey(object));
    if (!own || own.tableName !== object.tableName)
      return `it holds ${object.type === 'index' ? 'an index' : `a ${object.type}`} named "${object.name}" that Rung's schema v${version} does not have`;
    if (normalisedSql(own.sql) === normalisedSql(object.sql)) continue;
    if (object.type !== 'table') return `its ${object.type} "${object.name}" is not the one Rung creates`;
    const columns = columnsOf(db, object.name);
    const ownColumns = own.columns;
    const said =
      columns.join(', ') === ownColumns.join(', ')
        ? 'the same columns, defined otherwise'
        : `columns ${columns.join(', ')}; Rung's are ${ownColumns.join(', ')}`;
    return `its table "${object.name}" is not the one Rung creates (${said})`;
  }
  return undefined;
}

/** What Rung's own migrations make at each version, by type and name: worked out once per sql.js, by running them. */
const EXPECTED = new WeakMap<SqlJsStatic, Map<number, Map<string, OwnObject>>>();

/**
 * Every object Rung's migrations leave in a file at `version`, keyed by type and name.
 *
 * @remarks
 * Made by running the migrations on an empty database rather than written out by hand, so a new
 * migration cannot forget to update it. A file migrated step by step over the years holds the same
 * definitions: `ALTER TABLE … ADD COLUMN` splices the column into the stored CREATE statement the same
 * way whichever Rung ran it, and whitespace (files written by hand in tests, on one line) is ignored.
 */
export function expectedObjects(sql: SqlJsStatic, version: number): ReadonlyMap<string, OwnObject> {
  let byVersion = EXPECTED.get(sql);
  if (!byVersion) {
    byVersion = new Map();
    EXPECTED.set(sql, byVersion);
  }
  let objects = byVersion.get(version);
  if (!objects) {
    const db = new sql.Database();
    try {
      const context: MigrationContext = { now: 0, newId: () => 'expected' };
      for (const step of MIGRATIONS) if (step.to <= version) step.apply(db, context);
      objects = new Map(
        readObjects(db).map((object) => [
          objectKey(object),
          { ...object, columns: object.type === 'table' ? columnsOf(db, object.name) : [] },
        ]),
      );
    } finally {
      db.close();
    }
    byVersion.set(version, objects);
  }
  return objects;
}

function objectKey(object: Pick<SchemaObject, 'type' | 'name'>): string {
  return `${object.type}\u0000${object.name.toLowerCase()}`;
}

/** A CREATE statement with its whitespace and case made uniform, for comparing definitions. */
function normalisedSql(text: string | null): string | null {
  return text === null
    ? null
    : text
        .replace(/\s+/g, ' ')
        .replace(/ ?([(),]) ?/g, '$1')
        .trim()
        .toLowerCase();
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Why an unmarked database lacks the tables of a Rung ledger, or undefined when it has them. */
function missingTableMark(db: Database, tables: string[]): string | undefined {
  const listed = `tables: ${tables.slice(0, 5).join(', ')}`;
  if (!tables.includes('meta')) return `no meta table (${listed})`;
  const meta = columnsOf(db, 'meta');
  if (!meta.includes('key') || !meta.includes('value')) return `its meta table has no key and value columns (columns: ${meta.join(', ')})`;
  const ratings = columnsOf(db, 'ratings');
  if (!V1_RATINGS_COLUMNS.every((column) => ratings.includes(column))) return `no ratings table with Rung's columns (${listed})`;
  return undefined;
}

/** A table's column names; none for a table that does not exist (PRAGMA table_info does not throw for one). */
function columnsOf(db: Database, table: string): string[] {
  return db.exec(`PRAGMA table_info(${quoteName(table)})`)[0]?.values.map((row) => String(row[1])) ?? [];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
    db.run(`INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
      String(SCHEMA_VERSION),
    ]);
    db.run('COMMIT');
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
  return steps;
}
