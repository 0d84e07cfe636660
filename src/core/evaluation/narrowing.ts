/**
 * What more logging would make an estimate good enough to act on: how many more calls, logged with how
 * much exploration, would bring the doubly robust cost interval within ±{@link DECIDING_HALF_WIDTH} of
 * the estimate.
 *
 * @remarks
 * DR's variance per call has two parts (`CostSpread`): the spread of the outcome model's predictions,
 * which every call carries, and the weighed residual, which only calls that opened with the target
 * carry, each standing for 1/π calls: (E[1/π] − 1) times the residual's variance. More exploration raises π and shrinks the second part; more
 * calls shrink both. New calls are pooled with the estimate the log already gives by inverse variance,
 * so N more calls at floor ρ′ bring the variance to 1 / (1/v + N / v′), v′ the per-call variance at ρ′.
 */
import { MIN_EFFECTIVE_SAMPLE_SIZE, type CostSpread, type PolicyEstimate } from './estimate';

/** The half-width, relative to the estimate, at which the What if calls an interval close enough to act on. */
export const DECIDING_HALF_WIDTH = 0.3;
/** The exploration floor suggested when the panel sets none (`routing.exploreMeasured`). */
export const SUGGESTED_FLOOR = 0.1;
const Z_95 = 1.959963984540054;

export interface Narrowing {
  /** More calls to log, rounded up to two significant figures. */
  calls: number;
  /** At this exploration floor on measured rungs (`routing.exploreMeasured`), 0 to 1. */
  floor: number;
}

export interface NarrowingInput {
  estimate: Pick<PolicyEstimate, 'methods' | 'spread'>;
  /** The floor the log was written with (the panel's `routing.exploreMeasured`; 0 when it sets none). */
  floorNow: number;
  /** Candidates a call chooses among on average: the chance the floor gives one rung is floor / candidates. */
  candidates: number;
  /** The floor to log at; the current one when it is above 0, else {@link SUGGESTED_FLOOR}. */
  floor?: number;
  within?: number;
}

/**
 * How many more calls at `floor` would bring the DR cost interval within ±`within` of the estimate;
 * null when it already is, or when the estimate has nothing to work from.
 *
 * @remarks
 * At the floor the log was written with, a call that opens with the target stands for as many calls
 * as it does now (E[1/π] as measured). At another floor, or where the log shows none (no floor, so the
 * target never opened once its rungs were measured), it stands for candidates / floor calls: the
 * floor's uniform draw is the target's chance. An estimate with no interval yet is worked out from
 * the imputed costs alone.
 */
export function loggingToNarrow(input: NarrowingInput): Narrowing | null {
  const { estimate, floorNow, candidates } = input;
  const spread = estimate.spread;
  const within = input.within ?? DECIDING_HALF_WIDTH;
  const floor = input.floor ?? (floorNow > 0 ? floorNow : SUGGESTED_FLOOR);
  if (!spread || !(floor > 0)) return null;
  const dr = estimate.methods?.dr;
  const value = dr?.cost ?? spread.predicted;
  if (!(value > 0)) return null;
  const meanInverse = floorNow > 0 && floor === floorNow && dr ? spread.meanInverse : Math.max(1, candidates) / floor;
  // The residual a call that opens with the target carries: as the terms measured it where they could
  // (the imputed costs are expectations, and leave out whether the target itself passes), else as imputed.
  const residual = Math.max(spread.residual, spread.meanInverse > 1 ? spread.weighed / (spread.meanInverse - 1) : 0);
  const perCall = spread.perCall + Math.max(0, meanInverse - 1) * residual;
  const goal = ((within * value) / Z_95) ** 2;
  const now = dr ? ((dr.costHigh - dr.costLow) / 2 / Z_95) ** 2 : Number.POSITIVE_INFINITY;
  if (now <= goal) return null;
  const forWidth = perCall * (1 / goal - (Number.isFinite(now) && now > 0 ? 1 / now : 0));
  // And enough that the openings are worth the estimate's minimum once weighed: n / E[1/π] of them.
  const forWeight = MIN_EFFECTIVE_SAMPLE_SIZE * meanInverse - (dr ? spread.calls : 0);
  const calls = Math.max(forWidth, forWeight);
  if (!Number.isFinite(calls) || calls <= 0) return null;
  return { calls: roundUp(calls), floor };
}

/** Up to two significant figures, never down: 2,341 is 2,400. */
function roundUp(value: number): number {
  const scale = 10 ** Math.max(0, Math.floor(Math.log10(value)) - 1);
  return Math.ceil(value / scale) * scale;
}

export type { CostSpread };
