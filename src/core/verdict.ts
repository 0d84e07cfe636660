/**
 * What a check says about one answer.
 *
 * @remarks
 * Only `pass` and `fail` are evidence about a model. `unverified` (nobody checked), `provider-error`
 * (transport, quota, timeout), `stopped` (the user cancelled) and `interrupted` (Rung itself shut down
 * mid-answer: the window closed or reloaded) move no rating: the origin lab once let five budget stops
 * on one oversized task reroute a whole panel. `interrupted` is apart from `stopped` because a reload
 * is nobody's word on the answer: logged as "stopped by the user", it read as a choice the user never
 * made. `refused` is a call's, not an answer's: no rung could take it (every one pruned, the row's
 * pruned list says why), so no model was asked; it was the one outcome with no decision row at all.
 */
export type Verdict = 'pass' | 'fail' | 'unverified' | 'provider-error' | 'stopped' | 'interrupted' | 'refused';

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'unverified', 'provider-error', 'stopped', 'interrupted', 'refused'];

/** The reason an `interrupted` attempt's row gives when the window closed or reloaded under it. */
export const INTERRUPTED_REASON = 'Rung shut down (the window closed or reloaded) before the answer was finished';

/** The reason an `interrupted` attempt's row gives when the session was reopened under it (a key set, the ledger moved). */
export function reopenedReason(why: string): string {
  return `Rung reopened its session (${why}) before the answer was finished`;
}

/**
 * What a call is aborted with when Rung shuts down under it, so the attempt is recorded `interrupted`,
 * not `stopped`.
 *
 * @remarks
 * Every adapter turns an aborted signal into the same "stopped by the user" failure; the signal's
 * reason is the one thing that still tells a shutdown from a user's Stop where the verdict is decided.
 */
export class CallInterrupted extends Error {
  /** `reason` is the row's: {@link INTERRUPTED_REASON} for a shutdown, {@link reopenedReason} for a reopened session. */
  constructor(reason: string = INTERRUPTED_REASON) {
    super(reason);
    this.name = 'CallInterrupted';
  }
}

/** Whether an aborted signal was aborted by Rung shutting down ({@link CallInterrupted}). */
export function interruptedBy(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof CallInterrupted;
}

export function isGraded(verdict: Verdict): verdict is 'pass' | 'fail' {
  return verdict === 'pass' || verdict === 'fail';
}

/**
 * A verdict's reason as one text, for the decision row and `--json`: the message, after the kind of
 * provider failure that ended the attempt when one did (`unavailable: openrouter: no API key`).
 *
 * @remarks
 * The kind travels as data (`failure`) beside the message, so no reader has to strip a prefix to learn
 * it; this is the one place the two are joined, and the row format stays what it always was.
 */
export function reasonText(outcome: { verdictReason?: string | null; failure?: string }): string | null {
  const reason = outcome.verdictReason ?? null;
  if (outcome.failure === undefined) return reason;
  return `${outcome.failure}: ${reason ?? ''}`;
}
