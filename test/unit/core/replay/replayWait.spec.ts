import { describe, expect, it } from 'vitest';
import { generateWorld, worldNamed } from '../../../../src/bench/worlds';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import type { Ledger } from '../../../../src/core/ledger/ledger';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import type { OutcomeRow } from '../../../../src/core/replay/outcomes';
import { runReplay } from '../../../../src/core/replay/replay';
import { percentile, valuedCost, WaitTally } from '../../../../src/core/replay/waitTally';
import { makeOutcomes } from '../../support/outcomesFixture';

describe('WaitTally', () => {
  it('reads the mean and the 90th percentile over the calls a check accepted, and the whole wait over every call', () => {
    const tally = new WaitTally();
    for (let ms = 100; ms <= 1000; ms += 100) tally.add(ms, true);
    tally.add(5000, false);
    expect(tally.score()).toEqual({ accepted: 10, meanMs: 550, p90Ms: 900, totalMs: 10_500 });
    expect(percentile([], 0.9)).toBe(0);
    // $0.10 a minute over 10.5 s of wait is $0.0175.
    expect(valuedCost(1, tally.score(), 0.1)).toBeCloseTo(1.0175, 12);
  });
});

/** A ledger that keeps no timings: a router over it never knows a rung's wait. */
function untimedLedger(): Ledger {
  const ledger = new MemoryLedger();
  return {
    snapshot: (now) => {
      const { timing: _timing, ...rest } = ledger.snapshot(now);
      return rest;
    },
    observe: (observations) => ledger.observe(observations),
    alias: (slug, resolved) => ledger.alias(slug, resolved),
    spawnStarted: (spawn) => ledger.spawnStarted(spawn),
    spawnEnded: (spawnId) => ledger.spawnEnded(spawnId),
    entries: () => ledger.entries(),
    flush: () => ledger.flush(),
    close: () => ledger.close(),
  };
}

describe('the replay’s wait', () => {
  it('charges each call every attempt’s recorded time, failed tries included, and reports it beside the baselines', async () => {
    const rows: OutcomeRow[] = makeOutcomes(20).map((row) => ({
      ...row,
      m: Object.fromEntries(
        Object.entries(row.m).map(([model, outcome]) => [model, { ...outcome, lat_ms: model === 'large' ? 2000 : 500 }]),
      ),
    }));
    const models = ['tiny', 'small', 'mid', 'large'];
    const sink = new MemoryDecisionSink();
    const run = await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1, sink, waitWorth: 0 });
    expect(run.waitWorth).toBe(0);
    const calls = new Map<string, number[]>();
    for (const row of sink.rows) calls.set(row.call, [...(calls.get(row.call) ?? []), row.latencyMs ?? 0]);
    const lastOf = new Map(sink.rows.map((row) => [row.call, row]));
    const accepted = [...calls]
      .filter(([call]) => lastOf.get(call)?.verdict === 'pass')
      .map(([, times]) => times.reduce((a, b) => a + b, 0));
    expect(run.policy.wait?.accepted).toBe(accepted.length);
    expect(run.policy.wait?.meanMs).toBeCloseTo(accepted.reduce((a, b) => a + b, 0) / accepted.length, 9);
    expect(run.policy.wait?.totalMs).toBe([...calls.values()].flat().reduce((a, b) => a + b, 0));
    // The best single model answers each call in one try: its wait is its own time.
    expect(run.bestSingle.wait?.meanMs).toBe(2000);
    expect(run.priceOrderCascade.wait?.totalMs).toBeGreaterThan(run.oracle.wait?.totalMs ?? Infinity);
  });

  it('reports no wait where the outcomes do not say how long an answer took', async () => {
    const rows = makeOutcomes(10).map((row) => ({
      ...row,
      m: Object.fromEntries(Object.entries(row.m).map(([model, { lat_ms: _time, ...outcome }]) => [model, outcome])),
    }));
    const run = await runReplay({
      rows,
      models: ['tiny', 'small', 'mid', 'large'],
      verifier: { kind: 'perfect' },
      classKey: 'family',
      seed: 1,
    });
    expect(run.policy.wait).toBeUndefined();
    expect(run.bestSingle.wait).toBeUndefined();
  });

  it('writes the same decisions with the wait valued at 0 as a router that never knew a rung’s wait', async () => {
    const world = worldNamed('spread-100x');
    const rows = generateWorld(world, 2).slice(0, 900);
    const models = world.models.map((model) => model.slug);
    const decisions = async (waitWorth: number, ledger: Ledger): Promise<string> => {
      const sink = new MemoryDecisionSink();
      await runReplay({
        rows,
        models,
        verifier: { kind: 'perfect' },
        classKey: 'family',
        seed: 2,
        inOrder: true,
        sink,
        ledger,
        waitWorth,
        explore: 0.05,
      });
      return JSON.stringify(sink.rows);
    };
    const zero = await decisions(0, new MemoryLedger());
    expect(zero).toBe(await decisions(0.1, untimedLedger()));
    // …and the wait, valued, does change them: the test would pass vacuously otherwise.
    expect(await decisions(0.1, new MemoryLedger())).not.toBe(zero);
  });
});
