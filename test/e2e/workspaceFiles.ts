/** What a browser check reads back from its workspace copy after Rung has written there. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { loadSqlJs } from '../../src/core/ledger/sqlJs';

/** The workspace's decision rows, oldest first; none when the log is not written yet. */
export function decisionRows(folder: string): DecisionRow[] {
  const file = join(folder, '.rung', 'decisions.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as DecisionRow);
}

/** Graded observations per `model|class`, as the workspace's ledger file holds them, and its integrity check. */
export async function ledgerOnDisk(folder: string): Promise<{ graded: Map<string, number>; integrity: string }> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(join(folder, '.rung', 'ledger.sqlite')));
  try {
    const integrity = db
      .exec('PRAGMA integrity_check')
      .map((result) => result.values.map((row) => String(row[0])).join('; '))
      .join('; ');
    const graded = new Map<string, number>();
    for (const result of db.exec('SELECT model, class_key, graded FROM ratings')) {
      for (const [model, classKey, count] of result.values) graded.set(`${String(model)}|${String(classKey)}`, Number(count));
    }
    return { graded, integrity };
  } finally {
    db.close();
  }
}
