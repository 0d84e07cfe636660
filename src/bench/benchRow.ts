/**
 * One line of a benchmark report: what was measured, at what size, and how long it took.
 *
 * @remarks
 * Median and 99th percentile rather than a mean: a save that usually takes 2 ms and sometimes 40 ms
 * (a lock wait, a GC) is a different promise from one that always takes 3 ms, and a mean hides which.
 */
export interface BenchRow {
  name: string;
  /** The size the measurement ran at (for the ledger: decisions recorded). */
  n: number;
  medianMs: number;
  p99Ms: number;
  /** Anything else the measurement found, each key naming its unit (`heapMB`, `fileBytes`). */
  extra?: Record<string, number>;
}

/** Median and 99th percentile (nearest rank) of samples in ms. */
export function summarise(samples: number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { medianMs: round(at(0.5)), p99Ms: round(at(0.99)) };
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
