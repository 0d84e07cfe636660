import { describe, expect, it } from 'vitest';
import { ratingKey } from '../../../../src/core/ledger/ledger';
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

function observe(model: string, classKey: string, success: boolean, at = 1): LedgerOp {
  return { kind: 'observe', observation: { model, classKey, success, at } };
}

function timing(model: string, totalMs: number): LedgerOp {
  return { kind: 'timing', observation: { model, classKey: 'plan', totalMs } };
}

function spawnStart(spawnId: string, model = 'a'): LedgerOp {
  return { kind: 'spawn-start', spawn: { spawnId, traceId: 't', model, startedAt: 0 } };
}

describe('LedgerState.advanced: a ledger stepping its own state', () => {
  it('keeps a snapshot as it was when taken, through every later update', () => {
    let state = new LedgerState('ledger').advanced([observe('a', 'plan', true), timing('a', 100)]);
    const snapshot = snapshotOf(state, 0);
    const rating = snapshot.rating('a', 'plan');
    const took = snapshot.timing?.('a', 'plan');
    for (const ops of [
      [spawnStart('s1')],
      [observe('a', 'plan', false), timing('a', 900)],
      [observe('b', 'chat', true)],
      [spawnStart('s2')],
    ])
      state = state.advanced(ops);
    expect(snapshot.rating('a', 'plan')).toEqual(rating);
    expect(snapshot.timing?.('a', 'plan')).toEqual(took);
    expect(snapshot.inFlight('a')).toBe(0);
    expect(snapshot.rating('b', 'chat')).toBeUndefined();
    expect(snapshot.hasMeasurements('chat')).toBe(false);
    const now = snapshotOf(state, 0);
    expect(now.rating('a', 'plan')?.graded).toBe(2);
    expect(now.inFlight('a')).toBe(2);
    expect(now.hasMeasurements('chat')).toBe(true);
  });

  it('copies a table once after a snapshot, and changes that copy in place until the next', () => {
    let state = new LedgerState('ledger').advanced([observe('a', 'plan', true)]);
    snapshotOf(state, 0);
    state = state.advanced([observe('a', 'plan', false)]);
    const copied = state.ratings;
    state = state.advanced([observe('a', 'plan', true)]).advanced([observe('b', 'plan', true)]);
    expect(state.ratings).toBe(copied);
    snapshotOf(state, 0);
    state = state.advanced([observe('a', 'plan', true)]);
    expect(state.ratings).not.toBe(copied);
    expect(copied.get('a\u0000plan')?.graded).toBe(3);
    expect(state.ratings.get('a\u0000plan')?.graded).toBe(4);
  });

  it('leaves a state kept aside as it was when states are built from it with applied', () => {
    // As a team's fold does: it keeps its folded state and builds on it again at every read.
    const folded = new LedgerState('').advanced([observe('a', 'plan', true)]).applied([observe('a', 'plan', true)]);
    const first = folded.applied([observe('b', 'plan', true)]).advanced([observe('a', 'plan', false)]);
    const second = folded.applied([observe('c', 'plan', true)]).advanced([observe('a', 'plan', false)]);
    expect(folded.ratings.get('a\u0000plan')?.graded).toBe(2);
    expect([...folded.ratings.keys()]).toEqual(['a\u0000plan']);
    expect(first.ratings.has('c\u0000plan')).toBe(false);
    expect(second.ratings.has('b\u0000plan')).toBe(false);
    expect(second.ratings.get('a\u0000plan')?.graded).toBe(3);
  });

  it('changes the state itself while no snapshot holds it, and builds a new one once a snapshot does', () => {
    const state = new LedgerState('ledger').advanced([observe('a', 'plan', true)]);
    expect(state.advanced([timing('a', 10)])).toBe(state);
    const snapshot = snapshotOf(state, 0);
    const next = state.advanced([timing('a', 500)]);
    expect(next).not.toBe(state);
    expect(snapshot.timing?.('a', 'plan')?.attempts).toBe(1);
    expect(next.advanced([observe('b', 'plan', false)])).toBe(next);
  });

  it('copies a table put in from outside before changing it', () => {
    const state = new LedgerState('').advanced([spawnStart('s1')]);
    const handed = new Map(state.spawns);
    state.spawns = handed;
    const next = state.advanced([spawnStart('s2')]);
    expect([...handed.keys()]).toEqual(['s1']);
    expect([...next.spawns.keys()]).toEqual(['s1', 's2']);
  });

  it('ends up where applied does, entry for entry and in the same order', () => {
    const ops: LedgerOp[][] = [
      [observe('a', 'plan', true), timing('a', 120)],
      [spawnStart('s1', 'b'), { kind: 'spawn-end', spawnId: 's1', at: 5 }],
      [observe('b', 'chat', false), observe('a', 'chat', true)],
      [{ kind: 'alias', slug: 'a', resolved: 'a-1' }, timing('b', 40)],
      [{ kind: 'reset', classKey: 'chat', at: 6 }, observe('c', 'plan', true)],
    ];
    let stepped = new LedgerState('x');
    let copied = new LedgerState('x');
    for (const batch of ops) {
      stepped = stepped.advanced(batch);
      snapshotOf(stepped, 0);
      copied = copied.applied(batch);
    }
    for (const table of ['ratings', 'aliases', 'spawns', 'timings'] as const) expect([...stepped[table]]).toEqual([...copied[table]]);
    expect(stepped.measuredClasses()).toEqual(copied.measuredClasses());
  });
});

describe('ratingKey', () => {
  it('gives the same key, spelled out, however often it is asked and however many models it has seen', () => {
    expect(ratingKey('m', 'plan')).toBe('m\u0000plan');
    expect(ratingKey('m', 'plan')).toBe('m\u0000plan');
    for (let i = 0; i < 1_000; i++) expect(ratingKey(`model-${i}`, `class-${i % 300}`)).toBe(`model-${i}\u0000class-${i % 300}`);
    expect(ratingKey('m', 'edit/typescript')).toBe('m\u0000edit/typescript');
  });
});
