/**
 * What a check says about one answer.
 *
 * @remarks
 * Only `pass` and `fail` are evidence about a model. `unverified` (nobody checked), `provider-error`
 * (transport, quota, timeout) and `stopped` (the user cancelled) move no rating: the origin lab once
 * let five budget stops on one oversized task reroute a whole panel.
 */
export type Verdict = 'pass' | 'fail' | 'unverified' | 'provider-error' | 'stopped';

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'unverified', 'provider-error', 'stopped'];

export function isGraded(verdict: Verdict): verdict is 'pass' | 'fail' {
  return verdict === 'pass' || verdict === 'fail';
}
