import { describe, expect, it } from 'vitest';
import { FLUSH_INTERVAL_MS, FlushTimer, type Flushable } from '../../../../src/core/files/flushTimer';
import { FixedClock, ManualScheduler } from '../../support/doubles';

/** A member that counts its flushes. */
class CountingMember implements Flushable {
  flushes = 0;
  async flush(): Promise<void> {
    this.flushes++;
  }
}

function setup(): { clock: FixedClock; scheduler: ManualScheduler; timer: FlushTimer } {
  const clock = new FixedClock();
  const scheduler = new ManualScheduler(clock);
  return { clock, scheduler, timer: new FlushTimer({ clock, schedule: scheduler.schedule }) };
}

describe('FlushTimer', () => {
  it('keeps one wake-up, at the earliest time any member asked for, and flushes every member that asked', () => {
    const { clock, scheduler, timer } = setup();
    const ledger = new CountingMember();
    const log = new CountingMember();
    timer.request(ledger, 1_000);
    timer.request(log, 100);
    timer.request(ledger, 500);
    expect(scheduler.pendingDelays()).toEqual([100]);
    clock.advance(100);
    scheduler.runDue();
    expect([ledger.flushes, log.flushes]).toEqual([1, 1]);
    expect(scheduler.pendingDelays()).toEqual([]);
  });

  it('stops the wake-up once no member waits for it, and keeps it while one still does', () => {
    const { scheduler, timer } = setup();
    const ledger = new CountingMember();
    const log = new CountingMember();
    timer.request(ledger, 1_000);
    timer.request(log, 1_000);
    timer.withdraw(log);
    expect(scheduler.pendingDelays()).toEqual([1_000]);
    expect(timer.isWaiting(ledger)).toBe(true);
    timer.withdraw(ledger);
    expect(scheduler.pendingDelays()).toEqual([]);
  });

  it('fires at once when a request finds the wake-up overdue, as in a batch that never lets the event loop turn', () => {
    const { clock, scheduler, timer } = setup();
    const ledger = new CountingMember();
    timer.request(ledger, 1_000);
    // The batch runs on: time passes, the timer's callback never gets its turn.
    clock.advance(1_001);
    expect(ledger.flushes).toBe(0);
    timer.request(ledger, 1_000);
    expect(ledger.flushes).toBe(1);
    expect(scheduler.pendingDelays()).toEqual([]);
  });

  it('waits for a wake-up that is due but not yet overdue', () => {
    const { clock, scheduler, timer } = setup();
    const ledger = new CountingMember();
    timer.request(ledger, 1_000);
    clock.advance(1_000);
    timer.request(ledger, 0);
    expect(ledger.flushes).toBe(0);
    expect(scheduler.pendingDelays()).toEqual([0]);
  });

  it('fires overdue wake-ups in a busy batch at most once a second, however soon a member asked', () => {
    const { clock, timer } = setup();
    const ledger = new CountingMember();
    timer.request(ledger, 100);
    clock.advance(101);
    timer.request(ledger, 100);
    expect(ledger.flushes).toBe(1);
    timer.request(ledger, 100);
    clock.advance(FLUSH_INTERVAL_MS - 1);
    timer.request(ledger, 100);
    expect(ledger.flushes).toBe(1);
    clock.advance(1);
    timer.request(ledger, 100);
    expect(ledger.flushes).toBe(2);
  });
});
