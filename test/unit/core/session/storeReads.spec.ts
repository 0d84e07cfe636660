import { describe, expect, it } from 'vitest';
import { MIN_GRADED } from '../../../../src/core/ratings';
import { StoreReads } from '../../../../src/core/session/storeReads';
import { openStore } from '../../../../src/core/store/openStore';
import { FixedClock } from '../../support/FixedClock';
import { decisionRow } from '../../support/decisionRow';
import { alphaBetaPanel } from '../../support/panels';

const DAY_MS = 24 * 60 * 60 * 1000;

async function memoryReads() {
  const store = await openStore({ kind: 'memory' }, { clock: new FixedClock(), log: () => {} });
  return { store, reads: new StoreReads(store) };
}

describe('the session read side over a store', () => {
  it('shows each rating with its gate, and no uncertainty before anything was graded past it', async () => {
    const { store, reads } = await memoryReads();
    store.ratings.observe(Array.from({ length: MIN_GRADED }, (_, at) => ({ model: 'alpha', classKey: 'plan', success: at % 2 === 0, at })));
    const [rating] = reads.ratings();
    expect(rating).toMatchObject({
      model: 'alpha',
      classKey: 'plan',
      graded: MIN_GRADED,
      ok: MIN_GRADED / 2,
      measured: true,
      gate: MIN_GRADED,
    });
    expect(rating?.uncertainty).toBeGreaterThan(0);
  });

  it("tallies a day's spend by model and provider, and prices the same calls on the panel's dearest model", async () => {
    const { store, reads } = await memoryReads();
    const now = 20 * DAY_MS + 1_000;
    store.decisions.append(decisionRow({ call: 'a', at: now - 500, model: 'alpha', cost: 0.25, inputTokens: 1_000_000, outputTokens: 0 }));
    store.decisions.append(decisionRow({ call: 'b', at: now - 40 * DAY_MS, model: 'alpha', cost: 9 }));
    const spend = reads.spend(now, alphaBetaPanel(), new Map());
    expect(spend.byDay).toEqual([{ day: '1970-01-21', model: 'alpha', provider: 'openrouter', cost: 0.25, calls: 1 }]);
    expect(spend.today).toBe(0.25);
    expect(spend.strongestModel).toBe('beta');
    expect(spend.strongestEstimate).toBeCloseTo(1);
  });

  it('says an empty log holds no call to estimate an opener from', async () => {
    const { reads } = await memoryReads();
    expect(await reads.estimateOpeners(['alpha'])).toEqual([{ model: 'alpha', calls: 0, refused: 'no-calls' }]);
  });
});
