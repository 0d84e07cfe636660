/** Measures the routing-quality benchmark takes of a run, apart from the script so tests can import them. */
import type { OutcomeRow } from '../core/replay/outcomes';

/**
 * Calls at `cls` from the swap on until the last one the swapped model opened: how long Rung kept
 * paying the swapped model first. 0 when it never opened after the swap.
 */
export function callsToStopOpening(rows: readonly OutcomeRow[], decisions: readonly { call: string; model: string }[], slug: string, cls: string, from: number): number {
  const opener = new Map<string, string>();
  for (const row of decisions) if (!opener.has(row.call)) opener.set(row.call, row.model);
  let count = 0;
  let last = 0;
  rows.forEach((row, index) => {
    if (index < from || row.family !== cls) return;
    count++;
    if (opener.get(row.id) === slug) last = count;
  });
  return last;
}

