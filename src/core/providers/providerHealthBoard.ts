/**
 * The providers' health as the ranking reads it: who is cooling down after a 429, a 5xx or a fault
 * without a status (a timeout, a stream cut mid-way), and who failed their last probe, each with the
 * reason the decision log will show.
 *
 * @remarks
 * The ranking is pure and never waits on the network, so this board is written by whoever saw the
 * evidence (a probe, a failed call) and read by the walk; reading never changes it, and expired
 * cool-downs are pruned when something is written. A 404 (model not pulled) or a 400 (model
 * without tools) names one model, not the provider, and marks nothing here: its other models are fine.
 */
import type { Clock } from '../clock';
import type { ProviderHealth } from './health';
import { PROBE_CACHE_MS } from './ollamaAdapter';
import type { ProviderFailure } from './provider';

/** How long a provider rests after a 429 that named no Retry-After, ms. */
export const RATE_LIMIT_COOL_DOWN_MS = 30_000;
/** How long a provider rests after a 5xx, ms: long enough for a restarting server, short enough not to lose it. */
export const SERVER_ERROR_COOL_DOWN_MS = 30_000;
/**
 * How long a provider rests after a provider error with no HTTP status (a timeout, a stream cut
 * mid-way, a malformed stream), ms.
 *
 * @remarks
 * A third of the 5xx rest, because a fault without a status is weaker evidence: one dropped
 * connection may be the network in between, not the server. But a provider that has just timed out
 * only did so after its first-byte timeout (60 s cloud, 120 s Ollama), and the next call should not
 * wait that out again straight away. A judgement, not a measurement: what matters is that such a fault
 * cools the provider down.
 */
export const TRANSPORT_FAULT_COOL_DOWN_MS = 10_000;

/**
 * How old a "down until the next good probe" mark must be before {@link ProviderHealthBoard.recheck}
 * asks again, ms: the adapters' own probe cache, so a recheck costs at most one request per provider
 * per {@link PROBE_CACHE_MS} and never reads a cached answer older than the mark.
 */
export const RECHECK_AFTER_MS = PROBE_CACHE_MS;

/**
 * How long a provider that nothing can probe stays down after "no server" (ECONNREFUSED, ENOTFOUND,
 * EAI_AGAIN), ms: the probe cache's 30 s, so it is tried again as often as a watched one is asked again.
 *
 * @remarks
 * A watched provider (Ollama) is down until {@link ProviderHealthBoard.recheck} finds it back. A cloud
 * provider has no prober, and the ranking drops a provider that is marked, so no call could ever clear
 * the mark either: one network blip took it out for the life of the board. Trying again after the
 * same rest a watched provider gets costs at most one failed call per 30 s while it is really gone.
 */
export const UNWATCHED_NO_SERVER_MS = PROBE_CACHE_MS;

/** Asks a provider whether it is there (Ollama's cached `/api/tags` probe); never throws. */
export type Prober = (signal?: AbortSignal) => Promise<{ ok: boolean; reason?: string }>;

interface Mark {
  reason: string;
  /** ms since the epoch; undefined: until the next good probe (or a call that goes through). */
  until?: number;
  /** Whether a good probe is evidence against it: yes for "no server", no for a rejected key or a cool-down. */
  probeClears: boolean;
  /** When it was set, ms since the epoch. */
  at: number;
}

export class ProviderHealthBoard implements ProviderHealth {
  private readonly clock: Clock;
  private readonly marks = new Map<string, Mark>();
  private readonly probers = new Map<string, Prober>();

  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }

  /** A pure read: an expired cool-down reads as over but stays until the next write prunes it. */
  unavailableReason(provider: string, now: number): string | null {
    const mark = this.marks.get(provider);
    if (!mark) return null;
    if (mark.until !== undefined && now >= mark.until) return null;
    return mark.reason;
  }

  /**
   * Records a probe: a failure marks the provider unavailable until the next good probe; a good one
   * ends such a mark, but not a cool-down or a rejected key, which a listing of models cannot see.
   */
  recordProbe(provider: string, ok: boolean, reason?: string): void {
    if (ok) {
      if (this.marks.get(provider)?.probeClears) this.marks.delete(provider);
      return;
    }
    this.mark(provider, { reason: reason ?? 'probe failed', probeClears: true });
  }

  /** Tells the board how to probe `provider` again, for {@link recheck}. */
  watch(provider: string, probe: Prober): void {
    this.probers.set(provider, probe);
  }

  /**
   * Probes again every watched provider marked down until a good probe whose mark is at least
   * {@link RECHECK_AFTER_MS} old, and records what it finds.
   *
   * @remarks
   * The ranking reads the board and never waits on the network, so without this a server that was
   * down when the providers were connected would stay down for as long as the board lives. A
   * long-lived caller (the extension) awaits it before routing a call; the age gate and the adapters'
   * probe cache keep that to one request per provider per 30 s. A one-shot `rung chat` has no need:
   * its board is as old as its probe.
   */
  async recheck(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const due = [...this.probers].filter(([provider]) => {
      const mark = this.marks.get(provider);
      return mark !== undefined && mark.probeClears && mark.until === undefined && now - mark.at >= RECHECK_AFTER_MS;
    });
    await Promise.all(
      due.map(async ([provider, probe]) => {
        const result = await probe(signal);
        // A probe the user stopped says nothing about the server.
        if (!signal?.aborted) this.recordProbe(provider, result.ok, result.reason);
      }),
    );
  }

  /**
   * Probes every watched provider, marked or not, and records what it finds: a server that stopped
   * shows as down before a call is sent to it.
   *
   * @remarks
   * {@link recheck} asks only about a provider already marked, so a local server stopped after its
   * last good probe read as healthy until a call failed on it; the status bar and Pick Model said
   * nothing of it meanwhile. Each probe goes through the adapter's own cache ({@link PROBE_CACHE_MS}),
   * so a caller on a timer costs at most one request per provider per 30 s.
   */
  async probeAll(signal?: AbortSignal): Promise<void> {
    await Promise.all(
      [...this.probers].map(async ([provider, probe]) => {
        const result = await probe(signal);
        if (!signal?.aborted) this.recordProbe(provider, result.ok, result.reason);
      }),
    );
  }

  /** A call went through: whatever was marked is over. */
  recordSuccess(provider: string): void {
    this.marks.delete(provider);
  }

  /**
   * Reads a failed call: 429, 5xx and a provider error without a status (a timeout, a cut stream) cool
   * the provider down; no server or a rejected key mark it down — no server for
   * {@link UNWATCHED_NO_SERVER_MS} when no prober watches the provider.
   */
  recordFailure(provider: string, failure: ProviderFailure): void {
    const now = this.clock.now();
    const status = failure.details.status;
    if (failure.kind === 'stopped') return;
    if (status === 429) {
      const wait = failure.details.retryAfterMs ?? RATE_LIMIT_COOL_DOWN_MS;
      this.mark(provider, { reason: `cooling down after 429 for ${wait} ms`, until: now + wait, probeClears: false });
    } else if (status !== undefined && status >= 500) {
      const wait = failure.details.retryAfterMs ?? SERVER_ERROR_COOL_DOWN_MS;
      this.mark(provider, { reason: `cooling down after ${status} for ${wait} ms`, until: now + wait, probeClears: false });
    } else if (failure.kind === 'provider-error' && status === undefined) {
      const wait = TRANSPORT_FAULT_COOL_DOWN_MS;
      this.mark(provider, {
        reason: `cooling down after a provider error for ${wait} ms: ${failure.message}`,
        until: now + wait,
        probeClears: false,
      });
    } else if (failure.kind === 'unavailable' && status === undefined) {
      // No server: a good probe says it is back, or, with nothing to probe it, time to try again.
      const until = this.probers.has(provider) ? undefined : now + UNWATCHED_NO_SERVER_MS;
      this.mark(provider, { reason: failure.message, probeClears: true, ...(until !== undefined ? { until } : {}) });
    } else if (failure.kind === 'unavailable' && (status === 401 || status === 403)) {
      // A rejected key: only a call that goes through says it is accepted again.
      this.mark(provider, { reason: failure.message, probeClears: false });
    }
  }

  /** Sets a mark, pruning the cool-downs that are over so the board does not grow with old ones. */
  private mark(provider: string, mark: Omit<Mark, 'at'>): void {
    const now = this.clock.now();
    for (const [name, old] of this.marks) if (old.until !== undefined && now >= old.until) this.marks.delete(name);
    this.marks.set(provider, { ...mark, at: now });
  }
}
