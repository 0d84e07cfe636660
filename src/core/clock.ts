/**
 * The time source every core component is given.
 *
 * @remarks
 * Nothing in the router, the ledger or the decision log reads `Date.now()` itself: a test that can
 * set the clock can prove the 30-minute stale-spawn rule and the one-second batching without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
