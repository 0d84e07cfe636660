import type { ProviderHealth } from '../../../src/core/providers/health';

/** Provider health from a fixed table: a provider named here is down for the given reason. */
export class StaticHealth implements ProviderHealth {
  constructor(private readonly down: Record<string, string> = {}) {}

  unavailableReason(provider: string): string | null {
    return this.down[provider] ?? null;
  }
}
