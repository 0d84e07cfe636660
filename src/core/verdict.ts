/**
 * What a check says about one answer.
 *
 * @remarks
 * Only `pass` and `fail` are evidence about a model. `unverified` (nobody checked), `provider-error`
 * (transport, quota, timeout) and `stopped` (the user cancelled) move no rating: the origin lab once
 * let five budget stops on one oversized task reroute a whole panel. `refused` is a call's, not an
 * answer's: no rung could take it (every one pruned, the row's pruned list says why), so no model was
 * asked; it was the one outcome with no decision row at all.
 */
export type Verdict = 'pass' | 'fail' | 'unverified' | 'provider-error' | 'stopped' | 'refused';

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'unverified', 'provider-error', 'stopped', 'refused'];

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
