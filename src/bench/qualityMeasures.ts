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


/** One point of a Pareto front: the least cost found for a number of prompts answered. */
export interface ChainPoint {
  /** USD. */
  cost: number;
  correct: number;
}

/**
 * The least a fixed chain per class could have spent, in hindsight, to answer at least `accuracy` of
 * the prompts: for each class, the best order of the best subset of models, tried until one is right.
 *
 * @remarks
 * A router that sees nothing of a prompt but its class, and only pass or fail from each rung, makes
 * the same choices on every call of a class it knows equally well: it plays a fixed chain per class.
 * So the cheapest such chains, chosen with the answers known, bound what any such policy can reach on
 * the same prompts — and it still has to learn its chains first. Exact: per class a dynamic programme
 * over subsets (which prompts reach the next model depends only on the set tried before it, not their
 * order), then the classes' Pareto fronts merged. Infinity when no chain reaches `accuracy`.
 */
export function hindsightChainCost(rows: readonly OutcomeRow[], models: readonly string[], classOf: (row: OutcomeRow) => string, accuracy: number): number {
  const needed = Math.ceil(accuracy * rows.length - 1e-9);
  return hindsightFront(rows, models, classOf).find((point) => point.correct >= needed)?.cost ?? Number.POSITIVE_INFINITY;
}

/** Every point of the hindsight chains' front: for each number of prompts answered, the least cost (see {@link hindsightChainCost}). */
export function hindsightFront(rows: readonly OutcomeRow[], models: readonly string[], classOf: (row: OutcomeRow) => string): ChainPoint[] {
  const byClass = new Map<string, OutcomeRow[]>();
  for (const row of rows) byClass.set(classOf(row), [...(byClass.get(classOf(row)) ?? []), row]);
  let merged: ChainPoint[] = [{ cost: 0, correct: 0 }];
  for (const members of byClass.values()) {
    const front = classFront(members, models);
    merged = paretoFront(merged.flatMap((a) => front.map((b) => ({ cost: a.cost + b.cost, correct: a.correct + b.correct }))));
  }
  return merged;
}

function classFront(rows: readonly OutcomeRow[], models: readonly string[]): ChainPoint[] {
  const count = models.length;
  const right = rows.map((row) => models.map((model) => row.m[model]?.c === 1));
  const cost = rows.map((row) => models.map((model) => row.m[model]?.cost ?? 0));
  const best = new Float64Array(1 << count).fill(Number.POSITIVE_INFINITY);
  best[0] = 0;
  const points: ChainPoint[] = [];
  for (let set = 0; set < 1 << count; set++) {
    const spent = best[set] as number;
    if (!Number.isFinite(spent)) continue;
    const reaching: number[] = [];
    let correct = 0;
    rows.forEach((_, i) => {
      const answered = (right[i] as boolean[]).some((ok, m) => ok && (set >> m) & 1);
      if (answered) correct++;
      else reaching.push(i);
    });
    points.push({ cost: spent, correct });
    for (let m = 0; m < count; m++) {
      if ((set >> m) & 1) continue;
      const next = set | (1 << m);
      const total = spent + reaching.reduce((sum, i) => sum + ((cost[i] as number[])[m] as number), 0);
      if (total < (best[next] as number)) best[next] = total;
    }
  }
  return paretoFront(points);
}

/** The points no other point beats on both cost and prompts answered, cheapest first. */
function paretoFront(points: ChainPoint[]): ChainPoint[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || b.correct - a.correct);
  const front: ChainPoint[] = [];
  for (const point of sorted) if (front.length === 0 || point.correct > (front[front.length - 1] as ChainPoint).correct) front.push(point);
  return front;
}
