import { describe, expect, it } from 'vitest';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { parsePolicy, PolicySpecError } from '../../../../src/core/evaluation/policy';
import { runReplay, type ReplayOptions } from '../../../../src/core/replay/replay';
import { makeOutcomes } from '../../support/outcomesFixture';

const rows = makeOutcomes(30);
const models = ['tiny', 'small', 'mid', 'large'];

async function replayRows(extra: Partial<ReplayOptions>) {
  const sink = new MemoryDecisionSink();
  await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 4, sink, ...extra });
  return sink.rows;
}

const openers = (decisions: { call: string; model: string; final: boolean }[]): Map<string, string> => {
  const first = new Map<string, string>();
  for (const row of decisions) if (!row.final && !first.has(row.call)) first.set(row.call, row.model);
  return first;
};

describe('runReplay with a policy', () => {
  it('opens every call with the model open= names, climbing to the other rungs after a miss', async () => {
    const decisions = await replayRows({ policy: parsePolicy('open=mid') });
    expect([...openers(decisions).values()].every((model) => model === 'mid')).toBe(true);
    expect(decisions.some((row) => row.model !== 'mid')).toBe(true);
  });

  it('never tries a model skip= names', async () => {
    const decisions = await replayRows({ policy: parsePolicy('skip=tiny,skip=large'), explore: 0.5 });
    expect(decisions.length).toBeGreaterThan(rows.length - 1);
    expect(decisions.some((row) => row.model === 'tiny' || row.model === 'large')).toBe(false);
  });

  it('explores at the rate explore= sets', async () => {
    expect((await replayRows({ policy: parsePolicy('explore=0') })).some((row) => row.explore)).toBe(false);
    expect((await replayRows({ policy: parsePolicy('explore=1') })).some((row) => row.explore)).toBe(true);
  });

  it('refuses a policy naming a model the outcomes do not grade', async () => {
    await expect(replayRows({ policy: parsePolicy('open=huge') })).rejects.toThrow(PolicySpecError);
    await expect(replayRows({ policy: parsePolicy('skip=huge') })).rejects.toThrow(/"huge", not on the panel/);
  });

  it('passes an exploration floor through to the router, so measured rungs keep opening', async () => {
    const decisions = await replayRows({ exploreMeasured: 0.5 });
    const late = [...openers(decisions).values()].slice(-40);
    expect(new Set(late).size).toBe(models.length);
  });
});
