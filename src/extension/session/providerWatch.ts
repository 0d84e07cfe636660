/**
 * Keeps asking, in the background, what a user would otherwise learn only by making a call: whether a
 * local model server has started since the window opened (Rung not set up yet), and whether a provider
 * of the open session has gone down or come back.
 *
 * @remarks
 * Two failures made this. With Ollama started after the window opened, the status bar said "not set
 * up" until some command ran; and a provider that went down showed nowhere (the status bar said Auto,
 * Pick Model listed it) until a call was sent to it. So while no session is open, opening is tried again
 * after 2 s, then 4, 8, … up to a minute between tries, until something answers; once open, the session's
 * probes run every 30 s (each is cached that long by the adapter, so this adds no request a call would
 * not have made). Only "not set up" is tried again: a broken panel file is the user's to mend, and trying
 * it again would say so again and again.
 *
 * While the user is at the window, though, the wait stops growing at {@link ATTENTIVE_RETRY_MS}: with
 * the back-off at a minute, an Ollama started beside an open Chat view was found 55 s later, while the
 * user waited on it. An extension cannot see whether the Chat view is open; the window having the focus
 * is the nearest it can see. Each try is one request to a server on this machine, refused at once when
 * nothing listens.
 *
 * No vscode: the timers are injected, so the backoff is unit-tested with a fake clock.
 */

/** How often the open session's providers are probed, ms: the adapters' own probe cache. */
export const PROBE_EVERY_MS = 30_000;
/** The first wait before trying to open again, ms: short, since a user who just ran `ollama serve` is waiting. */
export const FIRST_RETRY_MS = 2_000;
/** The longest wait between tries, ms: a server started a minute ago is found within a minute. */
export const MAX_RETRY_MS = 60_000;
/** The longest wait between tries while the user is at the window, ms: a server they just started is found within seconds. */
export const ATTENTIVE_RETRY_MS = 4_000;

/**
 * The wait before try number `failures + 1`, ms: doubling from {@link FIRST_RETRY_MS}, capped at
 * {@link MAX_RETRY_MS}, or at {@link ATTENTIVE_RETRY_MS} while the user is at the window.
 */
export function retryDelayMs(failures: number, attentive = false): number {
  return Math.min(attentive ? ATTENTIVE_RETRY_MS : MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures));
}

/** Timers, as much of them as the watch needs; Node's are one. */
export interface WatchTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The session host, as much of it as the watch needs; `SessionHost` is one. */
export interface WatchedHost {
  readonly current: { checkProviders(): Promise<void> } | undefined;
  get(): Promise<unknown>;
}

export interface ProviderWatchOptions {
  host: WatchedHost;
  timers: WatchTimers;
  /** Whether a failure to open is worth trying again (Rung not set up), rather than the user's to mend. */
  retryWhen: (error: unknown) => boolean;
  /** Told of each wait the watch schedules, for the log. */
  onWait?: (ms: number, why: 'probe' | 'retry') => void;
  /** Whether the user is at the window (it has the focus): tries to open then come every few seconds. */
  attentive?: () => boolean;
}

export class ProviderWatch {
  private handle: unknown;
  private failures = 0;
  private stopped = false;
  private looking = false;
  /** The wait last scheduled, ms. */
  private pendingMs = 0;

  constructor(private readonly options: ProviderWatchOptions) {}

  /** Starts watching: the first look comes after the first wait (activation has just tried). */
  start(): void {
    this.schedule(
      this.options.host.current ? PROBE_EVERY_MS : retryDelayMs(0, this.attentive()),
      this.options.host.current ? 'probe' : 'retry',
    );
  }

  /** One look now: probes the open session, or tries to open one; then schedules the next. */
  async look(): Promise<void> {
    if (this.stopped) return;
    this.looking = true;
    try {
      await this.lookOnce();
    } finally {
      this.looking = false;
    }
  }

  private async lookOnce(): Promise<void> {
    const session = this.options.host.current;
    if (session) {
      this.failures = 0;
      await session.checkProviders().catch(() => undefined);
      this.schedule(PROBE_EVERY_MS, 'probe');
      return;
    }
    try {
      await this.options.host.get();
      this.failures = 0;
      this.schedule(PROBE_EVERY_MS, 'probe');
    } catch (error) {
      // Not ours to try again (a broken panel): the watch rests until a session opens and wakes it.
      if (!this.options.retryWhen(error)) return;
      this.schedule(retryDelayMs(++this.failures, this.attentive()), 'retry');
    }
  }

  /**
   * The user came back to the window: a try to open that is waiting longer than the attentive wait is
   * made now instead.
   */
  attend(): void {
    if (this.stopped || this.looking || this.options.host.current || this.handle === undefined || this.pendingMs <= ATTENTIVE_RETRY_MS)
      return;
    this.options.timers.clearTimeout(this.handle);
    this.handle = undefined;
    void this.look();
  }

  private attentive(): boolean {
    return this.options.attentive?.() ?? false;
  }

  /** Starts watching again if it rests (a session opened after a broken panel was mended). */
  wake(): void {
    if (this.handle === undefined && !this.looking) this.start();
  }

  dispose(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.options.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private schedule(ms: number, why: 'probe' | 'retry'): void {
    if (this.stopped) return;
    this.pendingMs = ms;
    this.options.onWait?.(ms, why);
    this.handle = this.options.timers.setTimeout(() => {
      this.handle = undefined;
      void this.look();
    }, ms);
  }
}
