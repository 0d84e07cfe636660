import { describe, expect, it } from 'vitest';
import type { Scheduler } from '../../../../src/core/files/flushTimer';
import { DEACTIVATE_BUDGET_MS, shutdownWithinBudget, type ShutdownLog } from '../../../../src/extension/session/shutdown';
import { FixedClock } from '../../support/FixedClock';

/** Rung's log as a test double: every line, with its level. */
class RecordingLog implements ShutdownLog {
  readonly lines: string[] = [];

  info(text: string): void {
    this.lines.push(`info ${text}`);
  }

  warn(text: string): void {
    this.lines.push(`warn ${text}`);
  }

  error(text: string, error?: unknown): void {
    this.lines.push(`error ${text}${error instanceof Error ? `: ${error.message}` : ''}`);
  }
}

/** A timer the test ends by hand, remembering the delay it was asked for. */
class ManualTimer {
  delayMs: number | undefined;
  cancelled = false;
  private callback: (() => void) | undefined;

  readonly schedule: Scheduler = (callback, delayMs) => {
    this.callback = callback;
    this.delayMs = delayMs;
    return () => {
      this.cancelled = true;
    };
  };

  fire(): void {
    this.callback?.();
  }
}

describe('shutdownWithinBudget', () => {
  it('says how long the save took once it lands, and stops the budget timer', async () => {
    const clock = new FixedClock();
    const log = new RecordingLog();
    const timer = new ManualTimer();
    const outcome = await shutdownWithinBudget({
      stop: async () => {
        clock.advance(230);
      },
      log,
      clock,
      schedule: timer.schedule,
    });
    expect(outcome).toBe('saved');
    expect(timer.delayMs).toBe(DEACTIVATE_BUDGET_MS);
    expect(timer.cancelled).toBe(true);
    expect(log.lines).toEqual(['info stopping: saved the ledger and the decision log in 230 ms']);
  });

  it('gives up on a save that outlasts the budget, well inside the 5 s VS Code allows, and says so', async () => {
    const log = new RecordingLog();
    const timer = new ManualTimer();
    const ending = shutdownWithinBudget({
      stop: () => new Promise<void>(() => undefined),
      log,
      clock: new FixedClock(),
      schedule: timer.schedule,
    });
    timer.fire();
    expect(await ending).toBe('out-of-time');
    expect(DEACTIVATE_BUDGET_MS).toBeLessThan(5_000);
    expect(log.lines).toEqual([
      'warn stopping: the ledger and the decision log were still saving after 4000 ms; VS Code ends the extension host at 5 s, so what they had not written is lost',
    ]);
  });

  it('logs a save that fails instead of throwing out of deactivate', async () => {
    const log = new RecordingLog();
    const outcome = await shutdownWithinBudget({
      stop: () => Promise.reject(new Error('3 ledger updates could not be saved: ledger.sqlite.lock stayed locked')),
      log,
      clock: new FixedClock(),
      schedule: new ManualTimer().schedule,
    });
    expect(outcome).toBe('failed');
    expect(log.lines).toEqual([
      'error stopping: the ledger or the decision log could not be saved: 3 ledger updates could not be saved: ledger.sqlite.lock stayed locked',
    ]);
  });
});
