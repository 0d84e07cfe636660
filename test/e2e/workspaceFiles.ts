/** What a browser check reads back from its workspace copy after Rung has written there. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecisionRow } from '../../src/core/decisions/decision';

/** The workspace's decision rows, oldest first; none when the log is not written yet. */
export function decisionRows(folder: string): DecisionRow[] {
  const file = join(folder, '.rung', 'decisions.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as DecisionRow);
}
