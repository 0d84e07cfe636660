/**
 * A request's deadline: one AbortSignal that fires when the caller stops or when a re-armable timer
 * runs out, and that remembers which of the two it was.
 *
 * @remarks
 * The transport, the Ollama probe and the catalog fetch each need "abort on the caller's stop or after
 * so many ms, and tell the two apart" (a timeout is the provider's fault, a stop is the user's), and
 * each had its own controller, timer and abort listener to undo. The caller's signal is joined with
 * `AbortSignal.any`, so there is no listener to remove. The timer can be re-armed because the
 * transport's patience changes once bytes flow (first byte, then idle between chunks), which
 * `AbortSignal.timeout` cannot do. Timers are real: a timeout is about a socket's wall clock.
 */
export class Deadline {
  /** Aborts on the caller's stop or when the timer runs out; hand it to `fetch`. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly stop: AbortSignal | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired: string | null = null;

  constructor(stop?: AbortSignal) {
    this.stop = stop;
    this.signal = stop ? AbortSignal.any([stop, this.controller.signal]) : this.controller.signal;
  }

  /** (Re)starts the timer: `ms` from now the signal aborts, and {@link timedOut} says `why`. */
  arm(ms: number, why = `no answer within ${ms} ms`): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = why;
      this.controller.abort();
    }, ms);
  }

  /** Why the timer ran out; null when it has not (a stop is not a timeout). */
  get timedOut(): string | null {
    return this.expired;
  }

  /** Whether the caller stopped. */
  get stopped(): boolean {
    return this.stop?.aborted ?? false;
  }

  /** Stops the timer; call once the request is over, however it ended. */
  clear(): void {
    clearTimeout(this.timer);
  }
}
