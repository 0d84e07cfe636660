import { describe, expect, it } from 'vitest';
import {
  ATTENTIVE_RETRY_MS,
  FIRST_RETRY_MS,
  MAX_RETRY_MS,
  PROBE_EVERY_MS,
  ProviderWatch,
  retryDelayMs,
  type WatchedHost,
  type WatchTimers,
} from '../../../../src/extension/session/providerWatch';

/** Timers a test fires by hand: what is pending, and for how long it was set. */
class ManualTimers implements WatchTimers {
  private next = 1;
  readonly pending = new Map<number, { run: () => void; ms: number }>();
  setTimeout(run: () => void, ms: number): unknown {
    const handle = this.next++;
    this.pending.set(handle, { run, ms });
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** The waits pending, ms. */
  get waits(): number[] {
    return [...this.pending.values()].map((timer) => timer.ms);
  }
  /** Fires every pending timer and lets what it started finish. */
  async fire(): Promise<void> {
    const due = [...this.pending.entries()];
    for (const [handle, timer] of due) {
      this.pending.delete(handle);
      timer.run();
    }
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
  }
}

class NotSetUp extends Error {}

/** A host with no session until `serverUp`, then one whose provider probes are counted. */
class WaitingHost implements WatchedHost {
  serverUp = false;
  opens = 0;
  probes = 0;
  current: { checkProviders(): Promise<void> } | undefined;
  async get(): Promise<unknown> {
    this.opens++;
    if (!this.serverUp) throw new NotSetUp('no local Ollama answered');
    this.current = { checkProviders: async () => void this.probes++ };
    return this.current;
  }
}

describe('the wait between tries to open', () => {
  it('doubles from 2 s and stops growing at a minute', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map((failures) => retryDelayMs(failures))).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
    expect(retryDelayMs(0)).toBe(FIRST_RETRY_MS);
    expect(retryDelayMs(50)).toBe(MAX_RETRY_MS);
  });
});

describe('the wait between tries while the user is at the window', () => {
  it('stops growing at a few seconds', () => {
    expect([0, 1, 2, 10].map((failures) => retryDelayMs(failures, true))).toEqual([2_000, 4_000, 4_000, 4_000]);
    expect(ATTENTIVE_RETRY_MS).toBe(4_000);
  });

  it('tries every few seconds while the window has the focus, backs off without it, and tries at once when the user comes back', async () => {
    const timers = new ManualTimers();
    const host = new WaitingHost();
    let focused = true;
    const watch = new ProviderWatch({ host, timers, retryWhen: (error) => error instanceof NotSetUp, attentive: () => focused });
    watch.start();
    const waits: number[] = [];
    for (let look = 0; look < 4; look++) {
      waits.push(...timers.waits);
      await timers.fire();
    }
    expect(waits).toEqual([2_000, 4_000, 4_000, 4_000]);
    focused = false;
    await timers.fire();
    await timers.fire();
    expect(timers.waits).toEqual([retryDelayMs(6)]);
    const opens = host.opens;
    focused = true;
    watch.attend();
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    expect(host.opens).toBe(opens + 1);
    expect(timers.waits).toEqual([ATTENTIVE_RETRY_MS]);
  });
});

describe('the provider watch', () => {
  it('tries to open again with backoff until a server answers, then probes the providers every 30 s', async () => {
    const timers = new ManualTimers();
    const host = new WaitingHost();
    const watch = new ProviderWatch({ host, timers, retryWhen: (error) => error instanceof NotSetUp });
    watch.start();
    const waits: number[] = [];
    for (let look = 0; look < 4; look++) {
      waits.push(...timers.waits);
      await timers.fire();
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(host.opens).toBe(4);
    host.serverUp = true;
    await timers.fire();
    expect(host.current).toBeDefined();
    expect(timers.waits).toEqual([PROBE_EVERY_MS]);
    await timers.fire();
    expect(host.probes).toBe(1);
    expect(timers.waits).toEqual([PROBE_EVERY_MS]);
    watch.dispose();
    expect(timers.waits).toEqual([]);
  });

  it("rests after a failure that is the user's to mend, until woken", async () => {
    const timers = new ManualTimers();
    const host = new WaitingHost();
    const watch = new ProviderWatch({ host, timers, retryWhen: () => false });
    watch.start();
    await timers.fire();
    expect(timers.waits).toEqual([]);
    host.serverUp = true;
    watch.wake();
    await timers.fire();
    expect(host.current).toBeDefined();
    expect(timers.waits).toEqual([PROBE_EVERY_MS]);
  });
});
