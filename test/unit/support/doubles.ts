/** Small test doubles shared by the ledger specs. */
import type { Clock } from '../../../src/core/clock';
import type { Scheduler } from '../../../src/core/ledger/workspaceLedger';

export { FixedClock } from './FixedClock';

/** A scheduler that never fires on its own: the test calls flush() or runDue() when it wants a save. */
export class ManualScheduler {
  private readonly timers: { at: number; callback: () => void; cancelled: boolean }[] = [];
  constructor(private readonly clock: Clock) {}

  readonly schedule: Scheduler = (callback, delayMs) => {
    const timer = { at: this.clock.now() + delayMs, callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };

  /** Delays of the timers still waiting, ms from now. */
  pendingDelays(): number[] {
    return this.timers.filter((timer) => !timer.cancelled).map((timer) => timer.at - this.clock.now());
  }

  /** Fires every timer whose time has come. */
  runDue(): void {
    for (const timer of this.timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.at <= this.clock.now()) timer.callback();
      else this.timers.push(timer);
    }
  }
}
