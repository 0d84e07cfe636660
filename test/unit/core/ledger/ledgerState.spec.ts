import { describe, expect, it } from 'vitest';
import { LedgerState, snapshotOf, type LedgerOp } from '../../../../src/core/ledger/ledgerState';
import type { SignalUpdate } from '../../../../src/core/signal/promptSignal';

/** One call's step of the signal on a few slots, with a distinct size so each step leaves its own mark. */
function step(size: number, classKey = 'plan'): LedgerOp {
  const update: SignalUpdate = {
    classKey,
    slots: [3, 70, 4095],
    values: [1, 0.5, 0.25],
    meanStep: size,
    unanswerableStep: -size / 2,
    gain: 0.01,
    raw: { shift: 0, odds: 0 },
  };
  return { kind: 'signal', update };
}

/** The signal's weights as plain numbers, so a later change to the tables cannot change what was recorded. */
function weights(state: LedgerState): { mean: number[]; unanswerable: number[]; calls: number | undefined } {
  const signal = state.signal;
  if (!signal) return { mean: [], unanswerable: [], calls: undefined };
  return {
    mean: [signal.mean[3], signal.mean[70], signal.mean[4095]] as number[],
    unanswerable: [signal.unanswerable[3], signal.unanswerable[70], signal.unanswerable[4095]] as number[],
    calls: signal.classes.get('plan')?.calls,
  };
}

/** A state that has taken a few steps down the line a ledger keeps, so it owns its signal's tables. */
function owningState(): LedgerState {
  let state = new LedgerState('ledger');
  for (const size of [0.1, 0.2, 0.3]) state = state.applied([step(size)]);
  return state;
}

describe('LedgerState and the signal it steps', () => {
  it('steps the tables it owns in place, rather than copying them on every call', () => {
    const state = owningState();
    const tables = state.signal?.mean;
    const next = state.applied([step(0.4)]);
    expect(next.signal?.mean).toBe(tables);
    expect(weights(next).calls).toBe(4);
  });

  it('leaves a clone as it was, whatever the state it was taken from learns afterwards', () => {
    const state = owningState();
    const clone = state.clone();
    const before = weights(clone);
    let later = state.applied([step(0.4)]);
    later = later.applied([step(0.5), step(0.6)]);
    state.apply(step(0.7));
    expect(weights(clone)).toEqual(before);
    expect(weights(later).calls).toBe(6);
    expect(weights(later).mean[0]).not.toBe(before.mean[0]);
  });

  it('leaves the state a clone was taken from as it was, whatever the clone learns', () => {
    const state = owningState();
    const before = weights(state);
    const clone = state.clone();
    clone.apply(step(0.4));
    clone.apply(step(0.5));
    expect(weights(state)).toEqual(before);
    expect(weights(clone).calls).toBe(5);
  });

  it('keeps a live view, and a snapshot of it, as they were when taken', () => {
    const state = owningState();
    const view = state.live();
    const snapshot = snapshotOf(view, 0);
    const before = weights(view);
    const later = state.applied([step(0.4)]).applied([step(0.5)]);
    expect(weights(view)).toEqual(before);
    expect(snapshot.signal?.()?.mean[3]).toBe(before.mean[0]);
    expect(weights(later).calls).toBe(5);
  });

  it('copies the tables of a base it was given before its first step, so the base stays as read', () => {
    // As a save does: a state read from the file takes the queued steps in place, one by one.
    const base = owningState().clone();
    const before = weights(base);
    const rebuilt = base.applied([]);
    rebuilt.apply(step(0.4));
    rebuilt.apply(step(0.5));
    expect(weights(base)).toEqual(before);
    expect(weights(rebuilt).calls).toBe(5);
  });
});
