/**
 * How long opening a ledger file holds the thread, by the file's size and by what is in it: the
 * measurement behind the ledger's size bound (ledgerFile.ts, `LEDGER_MAX_BYTES`).
 *
 * @remarks
 * sql.js runs on the thread that opens the file, the extension host's included. Once views and
 * triggers are refused (schema.ts), the work an open does is reading the bytes, SQLite's quick check
 * and one pass over each table, so its time should follow the file's size whatever fills it. Files of
 * Rung's own shape are built at several sizes, filled the cheapest way per byte for each table Rung
 * reads (many short ratings, aliases or spawns), and opened read-only, which is the whole open: the file,
 * the check and the read into memory. The crafted files are the ones the bound is for: the 8 KB
 * recursive view as found, and a file just over the bound, both timed to their refusal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { systemClock } from '../core/clock';
import { LEDGER_MAX_BYTES } from '../core/ledger/ledgerFile';
import { markAsRung, migrate } from '../core/ledger/schema';
import { loadSqlJs } from '../core/ledger/sqlJs';
import { WorkspaceLedger } from '../core/ledger/workspaceLedger';
import { round, summarise, type BenchRow } from './benchRow';

const RUNS = 5;
const MIB = 1024 * 1024;

/** How each table is filled: rows of that table, each as short as Rung would write one. */
const FILLS: Record<string, { insert: string; row: (i: number) => (string | number | null)[] }> = {
  ratings: { insert: 'INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES (?, ?, ?, ?, ?, ?)', row: (i) => [`m${i % 40}`, `c${i}`, 0.5, 9, 5, 1] },
  aliases: { insert: 'INSERT INTO aliases VALUES (?, ?)', row: (i) => [i.toString(36), 'r'] },
  spawns: { insert: 'INSERT INTO spawns VALUES (?, ?, ?, ?, ?)', row: (i) => [i.toString(36), 't', 'm', 1, null] },
};

export async function runLedgerOpenBench(): Promise<BenchRow[]> {
  const sql = await loadSqlJs();
  const dir = mkdtempSync(join(tmpdir(), 'rung-ledger-open-bench-'));
  const rows: BenchRow[] = [];
  try {
    // Rows a MiB of each table holds, measured on the files this builds.
    for (const [table, rowsPerMiB] of [['ratings', 16_000], ['aliases', 37_000], ['spawns', 24_000]] as const) {
      for (const mib of [1, 2, LEDGER_MAX_BYTES / MIB - 0.25]) {
        const path = join(dir, `${table}-${mib}.sqlite`);
        const bytes = buildLedger(sql, table, Math.round(rowsPerMiB * mib));
        writeFileSync(path, bytes);
        rows.push({ name: `open a ledger of ${table}, read-only (ms)`, n: Math.round(rowsPerMiB * mib), ...(await timeOpens(path)), extra: { fileMiB: round(bytes.length / MIB, 1) } });
      }
    }
    const crafted = join(dir, 'crafted.sqlite');
    writeFileSync(crafted, recursiveView(sql));
    rows.push({ name: 'refuse an 8 KB ledger whose meta is a recursive view (ms)', n: 1, ...(await timeOpens(crafted)) });
    const huge = join(dir, 'huge.sqlite');
    writeFileSync(huge, Buffer.concat([buildLedger(sql, 'ratings', 10), Buffer.alloc(LEDGER_MAX_BYTES)]));
    rows.push({ name: `refuse a ledger file over ${LEDGER_MAX_BYTES / MIB} MiB (ms)`, n: 1, ...(await timeOpens(huge)) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Opens `path` read-only and closes it, RUNS times; a refusal counts as the open's end. */
async function timeOpens(path: string): Promise<{ medianMs: number; p99Ms: number }> {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    try {
      const ledger = await WorkspaceLedger.open({ path, clock: systemClock, readOnly: true, schedule: () => () => undefined });
      await ledger.close();
    } catch {
      // Refused: what is timed is how long the refusal took.
    }
    samples.push(performance.now() - started);
  }
  return summarise(samples);
}

function buildLedger(sql: SqlJsStatic, table: string, count: number): Buffer {
  const db = new sql.Database();
  try {
    migrate(db, 0, { now: 1, newId: () => 'bench' });
    markAsRung(db);
    const fill = FILLS[table] as (typeof FILLS)[string];
    db.run('BEGIN');
    const statement = db.prepare(fill.insert);
    for (let i = 0; i < count; i++) statement.run(fill.row(i));
    statement.free();
    db.run('COMMIT');
    return Buffer.from(db.export());
  } finally {
    db.close();
  }
}

function recursiveView(sql: SqlJsStatic): Buffer {
  const db = new sql.Database();
  try {
    markAsRung(db);
    db.run("CREATE VIEW meta AS WITH RECURSIVE r(key, value) AS (SELECT 'schema_version', '5' UNION ALL SELECT key, value FROM r) SELECT key, value FROM r");
    db.run('CREATE TABLE ratings (model TEXT)');
    return Buffer.from(db.export());
  } finally {
    db.close();
  }
}
