/**
 * A routing policy to evaluate or replay, written the way a user types it: `open=MODEL`, `skip=MODEL`,
 * `explore=RATE`, joined with commas.
 *
 * @remarks
 * One parser serves `rung evaluate` (which estimates the policy from a log) and `rung replay --policy`
 * (which runs it on recorded outcomes), so the policy estimated is the policy checked.
 */

export interface RoutingPolicy {
  /** Every call opens with this model (a pin), the panel's later rungs kept as fallbacks. */
  open?: string;
  /** Models never tried. */
  skip: string[];
  /** The exploration rate, 0 to 1. */
  explore?: number;
}

/** A policy written wrongly; the message names the part and says what was expected. */
export class PolicySpecError extends Error {
  override name = 'PolicySpecError';
}

export function parsePolicy(spec: string): RoutingPolicy {
  const policy: RoutingPolicy = { skip: [] };
  const parts = spec.split(',').map((part) => part.trim());
  if (parts.every((part) => part === ''))
    throw new PolicySpecError('the policy is empty: write open=MODEL, skip=MODEL or explore=RATE, joined with commas');
  for (const part of parts) {
    const match = /^(open|skip|explore)=(.+)$/.exec(part);
    if (!match) throw new PolicySpecError(`"${part}" is not open=MODEL, skip=MODEL or explore=RATE`);
    const [, key, value] = match as unknown as [string, 'open' | 'skip' | 'explore', string];
    if (key === 'open') {
      if (policy.open !== undefined)
        throw new PolicySpecError(`open= is given twice ("${policy.open}" and "${value}"): a call opens with one model`);
      policy.open = value;
    } else if (key === 'skip') {
      if (!policy.skip.includes(value)) policy.skip.push(value);
    } else {
      const rate = Number(value);
      if (!Number.isFinite(rate) || rate < 0 || rate > 1)
        throw new PolicySpecError(`explore= must be a number from 0 to 1, not "${value}"`);
      if (policy.explore !== undefined) throw new PolicySpecError('explore= is given twice');
      policy.explore = rate;
    }
  }
  if (policy.open !== undefined && policy.skip.includes(policy.open))
    throw new PolicySpecError(`"${policy.open}" is both opened with and skipped`);
  // A pinned opener never explores (the router's rule), so the pair would promise what neither command can do.
  if (policy.open !== undefined && policy.explore !== undefined)
    throw new PolicySpecError('open= and explore= do not combine: a call that opens with a chosen model never explores');
  return policy;
}

/** The policy written back in its canonical form: open, then skips, then explore. */
export function formatPolicy(policy: RoutingPolicy): string {
  return [
    ...(policy.open !== undefined ? [`open=${policy.open}`] : []),
    ...policy.skip.map((model) => `skip=${model}`),
    ...(policy.explore !== undefined ? [`explore=${policy.explore}`] : []),
  ].join(',');
}
