/**
 * The one timer that lands a workspace's queued writes: the ledger's observations and the decision
 * log's rows.
 *
 * @remarks
 * Both batch their writes to at most one a second. With a timer each they woke apart and landed apart,
 * so a window killed between the two wake-ups kept decision rows whose observations were lost, or the
 * reverse. Sharing one timer wakes the process once per batch and flushes every member that asked, in
 * the order they first asked (the ledger before the log when the ledger queued first). Each member
 * keeps its own rules for *when* it needs a flush (the ledger's spawn rows go sooner); the timer keeps
 * only the earliest wake-up anyone asked for. Each member reports its own failures as notices and asks
 * again; the timer adds nothing to that.
 *
 * A timer cannot fire while a long batch keeps the event loop busy: a pass whose awaits all resolve
 * at once (the replay's attempts read a table) runs on microtasks and never reaches the timers, and a
 * kill then loses everything since the batch began (measured: a replay killed at 0.6–2.2 s kept 0
 * observations). So a request that
 * finds the wake-up already overdue fires it then and there: whatever batch is still queueing writes
 * gets them saved on the interval, whether or not it ever yields. Only once per
 * {@link FLUSH_INTERVAL_MS}, though: a busy batch's calls start and end within it, so the ledger's
 * quicker wake-up for spawn rows would otherwise save ten times a second (measured: the replay's CPU
 * time up 15–25%) to publish calls that are already over.
 */
import type { Clock } from '../clock';

/**
 * Queued writes land at most this often, ms.
 *
 * @remarks
 * The origin package's figure: a crash costs at most the last second of learning, and a save (lock,
 * re-read, replay, export, fsync, rename) happens at most once a second however fast calls settle.
 */
export const FLUSH_INTERVAL_MS = 1000;

/** Runs `callback` after `delayMs`; returns a cancel function. A parameter so tests and the bench control time. */
export type Scheduler = (callback: () => void, delayMs: number) => () => void;

/** The real timer, unref'd so a pending save never keeps the CLI alive (close() saves anyway). */
export const timerScheduler: Scheduler = (callback, delayMs) => {
  const timer = setTimeout(callback, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Something with queued writes to land. */
export interface Flushable {
  flush(): Promise<void>;
}

export interface FlushTimerOptions {
  clock: Clock;
  schedule?: Scheduler;
}

export class FlushTimer {
  private readonly clock: Clock;
  private readonly schedule: Scheduler;
  /** Members that asked for a flush since the timer last fired, in the order they asked. */
  private readonly waiting = new Set<Flushable>();
  private timer: { dueAt: number; cancel: () => void } | undefined;
  private lastFiredAt = Number.NEGATIVE_INFINITY;

  constructor(options: FlushTimerOptions) {
    this.clock = options.clock;
    this.schedule = options.schedule ?? timerScheduler;
  }

  /** Asks for `member` to be flushed within `delayMs`; a wake-up already due sooner serves it too. */
  request(member: Flushable, delayMs: number): void {
    this.waiting.add(member);
    const now = this.clock.now();
    if (this.timer && this.timer.dueAt < now && now - this.lastFiredAt >= FLUSH_INTERVAL_MS) {
      // Overdue: the event loop has not had a turn since it fell due (see the remarks above).
      this.timer.cancel();
      this.fire();
      return;
    }
    const dueAt = now + delayMs;
    if (this.timer && this.timer.dueAt <= dueAt) return;
    this.timer?.cancel();
    this.timer = { dueAt, cancel: this.schedule(() => this.fire(), delayMs) };
  }

  /** Drops `member`'s request (it flushed on its own, or closed); the timer stops once nobody waits. */
  withdraw(member: Flushable): void {
    this.waiting.delete(member);
    if (this.waiting.size > 0) return;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Whether `member` has asked for a flush that has not happened yet. */
  isWaiting(member: Flushable): boolean {
    return this.waiting.has(member);
  }

  private fire(): void {
    this.timer = undefined;
    this.lastFiredAt = this.clock.now();
    const members = [...this.waiting];
    this.waiting.clear();
    for (const member of members) {
      // A member that fails has already said so (a `save-failed` notice) and asked again.
      member.flush().catch(() => undefined);
    }
  }
}
