/**
 * The user's wait as a cost the planner can add to a rung's price: each rung's planned wait, and what a
 * millisecond of it is worth.
 *
 * @remarks
 * A local model costs $0, so a money-only plan always opens on it, however rarely it passes and however
 * long each failed try keeps the user waiting: on one workspace a small model that had passed 1 of 9
 * edits still opened every edit, and 24 s went into its failed tries in one sitting. Priced at what the
 * user says a minute of waiting is worth (`routing.waitWorth`), a rung costs its price plus its planned
 * wait, and the planner's one rule — least expected cost of a verified answer — weighs both.
 *
 * A rung's planned wait is its measured mean time at the class on this machine (timing.ts), plus, on a
 * local server, the rest of the calls it is already answering for another window or conversation (the
 * spawn records say which and since when): a local machine's compute is shared, so a call sent to a busy
 * server waits for the one before it. A cloud provider serves calls side by side, so it adds nothing.
 */
import type { LedgerSnapshot } from '../ledger/ledger';
import type { Panel, Tradeoff } from '../panel';
import { plannedWaitMs } from '../timing';
import { learningKeys } from './standing';
import type { Candidate } from './types';

/** One rung's planned wait: its measured mean (null when not yet measured here) and the calls ahead of it. */
export interface RungWait {
  /** Mean whole attempt at the class on this machine, ms; null below the timings' minimum of attempts. */
  meanMs: number | null;
  /** What the calls already running on its local server have left, ms (0 on a cloud provider or an idle server). */
  queuedMs: number;
  /** How many such calls. */
  queuedCalls: number;
}

/** What the planner adds to each rung's price for the wait: the rungs' waits and what a millisecond is worth. */
export interface PlannedWait {
  /** USD per millisecond of the user's wait (`routing.waitWorth` / 60,000). */
  usdPerMs: number;
  rungs: readonly RungWait[];
}

/**
 * What a call already running is taken to have left, as a share of its mean, at the least.
 *
 * @remarks
 * A call past its mean is a long one, and its end is not near just because the mean has gone by; half a
 * mean call is a first guess, not tuned.
 */
export const BUSY_LEFT_AT_LEAST_SHARE = 0.5;

/**
 * What leaving a call unanswered costs in waiting, in multiples of the slowest rung's usual wait (valued
 * at the panel's `routing.waitWorth`), added to the money's own price of it (planner.ts,
 * `FAILURE_COST_MULTIPLE`).
 *
 * @remarks
 * An unanswered call costs the user the answer they then find some other way, which is time as well as
 * money. Priced in money alone, the price of stopping stayed at ten of the dearest rung's price while
 * every rung now cost its wait too, and the planner stopped climbing sooner: on `train` at the default
 * wait worth, 0.9663 answered against 0.9681 without the wait. `quality`'s 20 was chosen on `train` by a
 * rule stated first: the least multiple on the grid 10, 20, 40, 80 whose `train` accuracy at the
 * default wait worth is no lower than without the wait (10: 0.9663; 20: 0.9690; BENCHMARKS.md, "The
 * user's wait"). `economy`'s 6 keeps quality's proportion to the money multiples (3 against 10) and was
 * not tuned.
 */
export const WAIT_FAILURE_MULTIPLE: Record<Tradeoff, number> = { quality: 20, economy: 6 };

/** USD per minute of the user's wait, as USD per millisecond. */
export function usdPerMs(waitWorthPerMinute: number): number {
  return waitWorthPerMinute / 60_000;
}

/**
 * Each rung's wait in USD (`each`, the calls ahead of it included) and its usual wait alone (`usual`, for
 * the price of an unanswered call, which a busy moment does not change), or undefined when the wait adds
 * nothing: worth 0 (or less, or not a number), or nothing known of any rung's wait. A rung not yet timed
 * is planned at the slowest timed one's mean: it is not instant, but nothing says it is slower (as an
 * unknown price is planned at the dearest known).
 */
export function valuedWaits(wait: PlannedWait | undefined, count: number): { each: number[]; usual: number[] } | undefined {
  if (!wait || !(wait.usdPerMs > 0) || !Number.isFinite(wait.usdPerMs)) return undefined;
  const known = wait.rungs.flatMap((rung) => (rung.meanMs === null ? [] : [rung.meanMs]));
  if (known.length === 0 && wait.rungs.every((rung) => !(rung.queuedMs > 0))) return undefined;
  const slowest = known.length ? Math.max(...known) : 0;
  const usual = Array.from({ length: count }, (_, index) => (wait.rungs[index]?.meanMs ?? slowest) * wait.usdPerMs);
  const each = usual.map((usd, index) => usd + Math.max(0, wait.rungs[index]?.queuedMs ?? 0) * wait.usdPerMs);
  return { each, usual };
}

/** A model's mean whole attempt at `classKey` on this machine, ms: at the key, else at its class; null when neither is timed. */
export function meanWaitAt(snapshot: LedgerSnapshot, model: string, classKey: string): number | null {
  for (const key of learningKeys(classKey)) {
    const mean = plannedWaitMs(snapshot.timing?.(model, key));
    if (mean !== undefined) return mean;
  }
  return null;
}

/**
 * Each candidate's planned wait for a call of `classKey` at `now`.
 *
 * @remarks
 * The calls ahead of a local rung are every call in flight on a model of the same local provider (one
 * machine, one server), each taken to have left its model's mean less the time it has run, and at least
 * {@link BUSY_LEFT_AT_LEAST_SHARE} of that mean; a model whose time is not known is taken to have as
 * long left as it has already run.
 */
export function rungWaits(
  candidates: readonly Candidate[],
  snapshot: LedgerSnapshot,
  panel: Panel,
  classKey: string,
  now: number,
): RungWait[] {
  return candidates.map((candidate) => {
    const meanMs = meanWaitAt(snapshot, candidate.resolved, classKey);
    let queuedMs = 0;
    let queuedCalls = 0;
    if (candidate.local && snapshot.inFlightStarts) {
      for (const model of panel.models) {
        if (model.provider !== candidate.provider) continue;
        const starts = snapshot.inFlightStarts(model.slug);
        if (starts.length === 0) continue;
        const mean = meanWaitAt(snapshot, snapshot.resolve(model.slug), classKey);
        for (const start of starts) {
          const ran = Math.max(0, now - start);
          queuedMs += mean === null ? ran : Math.max(mean - ran, mean * BUSY_LEFT_AT_LEAST_SHARE);
          queuedCalls++;
        }
      }
    }
    return { meanMs, queuedMs, queuedCalls };
  });
}
