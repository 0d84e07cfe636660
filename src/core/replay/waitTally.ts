/**
 * The user's wait over a replay: how long each call kept the user waiting for an answer a check accepted.
 *
 * @remarks
 * A call's wait is the time of every attempt it made, one after another, the failed ones included:
 * a cascade shows its answer only once the check has passed it, so a failed try is time the user spent
 * waiting for nothing. The recorded outcomes carry each model's time on each prompt (`lat_ms`); the
 * wait to an accepted answer is read over the calls that ended with one, and the whole run's wait (every
 * call, answered or not) is what the wait's value is charged on.
 */

export interface WaitScore {
  /** Calls that ended with an answer the check accepted. */
  accepted: number;
  /** Mean wait to an accepted answer, ms. */
  meanMs: number;
  /** 90th percentile (nearest rank) of the wait to an accepted answer, ms. */
  p90Ms: number;
  /** Every call's wait summed, answered or not, ms. */
  totalMs: number;
}

export class WaitTally {
  private readonly accepted: number[] = [];
  private total = 0;

  /** One call: its attempts' times summed, ms, and whether it ended with an accepted answer. */
  add(waitMs: number, accepted: boolean): void {
    this.total += waitMs;
    if (accepted) this.accepted.push(waitMs);
  }

  score(): WaitScore {
    const sorted = [...this.accepted].sort((a, b) => a - b);
    const mean = sorted.length ? sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length : 0;
    return { accepted: sorted.length, meanMs: mean, p90Ms: percentile(sorted, 0.9), totalMs: this.total };
  }
}

/** The nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length)));
  return sorted[rank - 1] as number;
}

/** What the run cost with its wait valued: USD plus `waitWorth` USD a minute of every call's wait. */
export function valuedCost(cost: number, wait: WaitScore | undefined, waitWorth: number): number {
  return cost + (wait ? (waitWorth * wait.totalMs) / 60_000 : 0);
}
