/**
 * The providers' health as the ranking reads it: who is cooling down after a 429 or a 5xx, and who
 * failed their last probe, each with the reason the decision log will show.
 *
 * @remarks
 * The ranking is pure and never waits on the network, so this board is written by whoever saw the
 * evidence (a probe, a failed call) and read by the walk. A 404 (model not pulled) or a 400 (model
 * without tools) names one model, not the provider, and marks nothing here: its other models are fine.
 */
import type { Clock } from '../clock';
import type { ProviderHealth } from './health';
import type { ProviderFailure } from './provider';

/** How long a provider rests after a 429 that named no Retry-After, ms. */
export const RATE_LIMIT_COOL_DOWN_MS = 30_000;
/** How long a provider rests after a 5xx, ms: long enough for a restarting server, short enough not to lose it. */
export const SERVER_ERROR_COOL_DOWN_MS = 30_000;

interface Mark {
  reason: string;
  /** ms since the epoch; undefined: until the next good probe. */
  until?: number;
}

export class ProviderHealthBoard implements ProviderHealth {
  private readonly clock: Clock;
  private readonly marks = new Map<string, Mark>();

  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }

  unavailableReason(provider: string, now: number): string | null {
    const mark = this.marks.get(provider);
    if (!mark) return null;
    if (mark.until !== undefined && now >= mark.until) {
      this.marks.delete(provider);
      return null;
    }
    return mark.reason;
  }

  /** Records a probe: a failure marks the provider unavailable until the next good probe. */
  recordProbe(provider: string, ok: boolean, reason?: string): void {
    if (ok) {
      this.marks.delete(provider);
      return;
    }
    this.marks.set(provider, { reason: reason ?? 'probe failed' });
  }

  /** A call went through: whatever was marked is over. */
  recordSuccess(provider: string): void {
    this.marks.delete(provider);
  }

  /** Reads a failed call: 429 and 5xx cool the provider down; no server or a rejected key mark it down. */
  recordFailure(provider: string, failure: ProviderFailure): void {
    const now = this.clock.now();
    const status = failure.details.status;
    if (failure.kind === 'stopped') return;
    if (status === 429) {
      const wait = failure.details.retryAfterMs ?? RATE_LIMIT_COOL_DOWN_MS;
      this.marks.set(provider, { reason: `cooling down after 429 for ${wait} ms`, until: now + wait });
    } else if (status !== undefined && status >= 500) {
      const wait = failure.details.retryAfterMs ?? SERVER_ERROR_COOL_DOWN_MS;
      this.marks.set(provider, { reason: `cooling down after ${status} for ${wait} ms`, until: now + wait });
    } else if (failure.kind === 'unavailable' && (status === undefined || status === 401 || status === 403)) {
      this.marks.set(provider, { reason: failure.message });
    }
  }
}
