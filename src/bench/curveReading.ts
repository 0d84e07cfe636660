/** Reading a cost–accuracy curve at a given cost: how the confidence benchmarks compare policies at 40% and 55%. */

export interface CurvePoint {
  /** Cost as a share of the best single model's. */
  share: number;
  accuracy: number;
  label: string;
}

/** The accuracy a curve reaches at `share`, linear between its measured points (sorted by cost); null off its range. */
export function accuracyAt(points: readonly CurvePoint[], share: number): number | null {
  const sorted = [...points].sort((a, b) => a.share - b.share);
  let best: number | null = null;
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i] as CurvePoint;
    if (p.share <= share) best = Math.max(best ?? -1, p.accuracy);
    const q = sorted[i + 1];
    if (q && p.share <= share && q.share > share) best = Math.max(best ?? -1, p.accuracy + ((q.accuracy - p.accuracy) * (share - p.share)) / (q.share - p.share));
  }
  return best;
}

/** The least cost share at which a curve reaches `accuracy`, linear between its measured points; null when it never does. */
export function shareAt(points: readonly CurvePoint[], accuracy: number): number | null {
  const sorted = [...points].sort((a, b) => a.share - b.share);
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i] as CurvePoint;
    if (p.accuracy >= accuracy) {
      const before = sorted[i - 1];
      if (!before || before.accuracy >= accuracy) return p.share;
      return before.share + ((p.share - before.share) * (accuracy - before.accuracy)) / (p.accuracy - before.accuracy);
    }
  }
  return null;
}
