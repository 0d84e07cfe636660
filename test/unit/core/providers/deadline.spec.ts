import { describe, expect, it } from 'vitest';
import { Deadline } from '../../../../src/core/providers/deadline';

/** Resolves when the signal aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('Deadline', () => {
  it("aborts on the caller's stop and does not call that a timeout", () => {
    const stop = new AbortController();
    const deadline = new Deadline(stop.signal);
    deadline.arm(60_000);
    stop.abort();
    deadline.clear();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.stopped).toBe(true);
    expect(deadline.timedOut).toBeNull();
  });

  it('aborts when the timer runs out and says why', async () => {
    const stop = new AbortController();
    const deadline = new Deadline(stop.signal);
    deadline.arm(1, 'the stream was silent');
    await aborted(deadline.signal);
    expect(deadline.timedOut).toBe('the stream was silent');
    expect(deadline.stopped).toBe(false);
  });

  it('restarts the timer when re-armed, so only the last arming counts', async () => {
    const deadline = new Deadline();
    deadline.arm(1, 'first byte');
    deadline.arm(5, 'idle');
    await aborted(deadline.signal);
    expect(deadline.timedOut).toBe('idle');
  });
});
