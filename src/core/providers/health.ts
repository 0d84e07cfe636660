/**
 * Whether a provider may take calls now, as the ranking sees it.
 *
 * @remarks
 * The ranking is pure and never waits on the network, so availability is a cached answer that the
 * health board keeps current (a cool-down after a failed call, a recheck through the probe at most
 * every 30 s). A provider that is down stays in the chain and is dropped in the walk with this
 * reason, so the decision log says why.
 */
export interface ProviderHealth {
  /** null when the provider may take calls; otherwise the reason it may not. */
  unavailableReason(provider: string, now: number): string | null;
}

export const ALWAYS_HEALTHY: ProviderHealth = { unavailableReason: () => null };
