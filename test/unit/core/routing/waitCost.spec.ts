import { describe, expect, it } from 'vitest';
import type { LedgerSnapshot } from '../../../../src/core/ledger/ledger';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { parsePanel } from '../../../../src/core/panel';
import { seededRandom } from '../../../../src/core/random';
import { CascadePlan, type PlannedRung } from '../../../../src/core/routing/planner';
import type { Candidate } from '../../../../src/core/routing/types';
import {
  BUSY_LEFT_AT_LEAST_SHARE,
  rungWaits,
  usdPerMs,
  valuedWaits,
  type PlannedWait,
  type RungWait,
} from '../../../../src/core/routing/waitCost';

/** Every step a plan takes from every set of rungs tried, each tried rung failed or not. */
function everyStep(plan: CascadePlan, count: number): unknown[] {
  const steps: unknown[] = [];
  for (let mask = 0; mask < 1 << count; mask++) {
    const tried = Array.from({ length: count }, (_, i) => i).filter((i) => mask & (1 << i));
    steps.push(plan.step(tried, tried), plan.step(tried, tried.slice(0, 1)));
  }
  return steps;
}

function randomRungs(random: () => number, count: number): PlannedRung[] {
  return Array.from({ length: count }, () => {
    const graded = Math.floor(random() * 20);
    return {
      rating: random() * 6 - 3,
      cost: random() < 0.1 ? null : random() * 0.01,
      measured: graded >= 8,
      graded,
      ok: Math.floor(random() * (graded + 1)),
    };
  });
}

function waitsFor(random: () => number, count: number): RungWait[] {
  return Array.from({ length: count }, () => ({ meanMs: random() < 0.2 ? null : random() * 20_000, queuedMs: 0, queuedCalls: 0 }));
}

describe('CascadePlan with the wait valued at zero', () => {
  it('takes exactly the money-only plan’s every step, whatever the rungs and their waits', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 60; trial++) {
      const count = 2 + Math.floor(random() * 4);
      const rungs = randomRungs(random, count);
      const tradeoff = random() < 0.5 ? 'quality' : 'economy';
      const money = new CascadePlan(rungs, tradeoff);
      const zero = new CascadePlan(rungs, tradeoff, undefined, 0, { usdPerMs: 0, rungs: waitsFor(random, count) });
      expect(everyStep(zero, count)).toEqual(everyStep(money, count));
      expect(zero.withoutWait()).toBe(zero);
    }
  });

  it('plans on money alone while no rung has been timed', () => {
    const rungs = randomRungs(seededRandom(3), 3);
    const untimed: PlannedWait = { usdPerMs: usdPerMs(0.1), rungs: rungs.map(() => ({ meanMs: null, queuedMs: 0, queuedCalls: 0 })) };
    expect(valuedWaits(untimed, 3)).toBeUndefined();
    expect(everyStep(new CascadePlan(rungs, 'quality', undefined, 0, untimed), 3)).toEqual(everyStep(new CascadePlan(rungs, 'quality'), 3));
  });
});

describe('CascadePlan with the wait valued', () => {
  // A free local model that passes about one call in nine, slow; a cloud model that passes nearly all, at a cent a call.
  const small: PlannedRung = { rating: -2, cost: 0, measured: true, graded: 9, ok: 1 };
  const strong: PlannedRung = { rating: 3, cost: 0.01, measured: true, graded: 8, ok: 8 };
  const waits = (smallMs: number, strongMs: number): PlannedWait => ({
    usdPerMs: usdPerMs(0.1),
    rungs: [
      { meanMs: smallMs, queuedMs: 0, queuedCalls: 0 },
      { meanMs: strongMs, queuedMs: 0, queuedCalls: 0 },
    ],
  });

  it('opens on the strong model once the free one’s failed tries cost more in wait than they save in money', () => {
    expect(new CascadePlan([small, strong], 'quality').step([], []).next).toBe(0);
    const plan = new CascadePlan([small, strong], 'quality', undefined, 0, waits(3000, 4000));
    expect(plan.step([], []).next).toBe(1);
    // Money alone still opens on the free one: what the displaced opener is read against.
    expect(plan.withoutWait().step([], []).next).toBe(0);
  });

  it('keeps the free model first when its tries are quick enough to be worth their chance', () => {
    expect(new CascadePlan([small, strong], 'quality', undefined, 0, waits(50, 4000)).step([], []).next).toBe(0);
  });

  it('keeps a free model that passes most calls first beside a cloud model as fast as it', () => {
    const able: PlannedRung = { rating: 2, cost: 0, measured: true, graded: 20, ok: 17 };
    expect(new CascadePlan([able, strong], 'quality', undefined, 0, waits(3000, 3000)).step([], []).next).toBe(0);
  });

  it('counts the rest of the calls a busy server is answering as wait', () => {
    const able: PlannedRung = { rating: 2, cost: 0, measured: true, graded: 20, ok: 17 };
    const busy: PlannedWait = {
      usdPerMs: usdPerMs(0.1),
      rungs: [
        { meanMs: 3000, queuedMs: 30_000, queuedCalls: 1 },
        { meanMs: 3000, queuedMs: 0, queuedCalls: 0 },
      ],
    };
    expect(new CascadePlan([able, strong], 'quality', undefined, 0, busy).step([], []).next).toBe(1);
  });
});

describe('rungWaits', () => {
  const panel = parsePanel(
    {
      models: [
        { slug: 'small', provider: 'ollama' },
        { slug: 'big', provider: 'ollama' },
        { slug: 'cloud', provider: 'openrouter' },
      ],
    },
    'test panel',
  );
  const candidate = (slug: string, local: boolean): Candidate =>
    ({ slug, provider: local ? 'ollama' : 'openrouter', local, resolved: slug }) as Candidate;

  function ledgerWith(): { ledger: MemoryLedger; snapshot: (now: number) => LedgerSnapshot } {
    const ledger = new MemoryLedger();
    for (const [model, ms] of [
      ['small', 4000],
      ['big', 20_000],
      ['cloud', 2000],
    ] as const)
      ledger.observeTiming([
        { model, classKey: 'edit', totalMs: ms },
        { model, classKey: 'edit', totalMs: ms },
      ]);
    return { ledger, snapshot: (now) => ledger.snapshot(now) };
  }

  it('plans each rung at its mean time at the class, and a shaped key at its class until it has its own', () => {
    const { snapshot } = ledgerWith();
    const waits = rungWaits([candidate('small', true), candidate('cloud', false)], snapshot(0), panel, 'edit/typescript', 0);
    expect(waits).toEqual([
      { meanMs: 4000, queuedMs: 0, queuedCalls: 0 },
      { meanMs: 2000, queuedMs: 0, queuedCalls: 0 },
    ]);
  });

  it('adds to a local rung what the calls already on its server have left, and nothing to a cloud one', () => {
    const { ledger, snapshot } = ledgerWith();
    ledger.spawnStarted({ spawnId: 'other-window#0', traceId: 'other', model: 'big', startedAt: 1000 });
    ledger.spawnStarted({ spawnId: 'cloud#0', traceId: 'other', model: 'cloud', startedAt: 1000 });
    const waits = rungWaits([candidate('small', true), candidate('cloud', false)], snapshot(6000), panel, 'edit', 6000);
    // big's call has run 5 s of its usual 20.
    expect(waits[0]).toEqual({ meanMs: 4000, queuedMs: 15_000, queuedCalls: 1 });
    expect(waits[1]).toEqual({ meanMs: 2000, queuedMs: 0, queuedCalls: 0 });
    // Past its mean, a call is taken to have half a mean call left, not none.
    expect(rungWaits([candidate('small', true)], snapshot(31_000), panel, 'edit', 31_000)[0]?.queuedMs).toBe(
      20_000 * BUSY_LEFT_AT_LEAST_SHARE,
    );
  });
});
