import { describe, expect, it } from 'vitest';
import { estimatePolicy, type MethodEstimate } from '../../../../src/core/evaluation/estimate';
import { readLoggedCalls } from '../../../../src/core/evaluation/loggedCalls';
import { DECIDING_HALF_WIDTH, loggingToNarrow } from '../../../../src/core/evaluation/narrowing';
import { parsePolicy } from '../../../../src/core/evaluation/policy';
import { cascadeLog, type Rung } from '../../../../src/bench/madeUpCascade';

/** Logs of the made-up cascade, each from its own seed, and every target's truth on each. */
const LOGS = 16;
const CALLS = 1_200;

function estimates(target: Rung, calls = CALLS, floor = 0.3) {
  return Array.from({ length: LOGS }, (_, index) => {
    const { rows, truth } = cascadeLog({ calls, seed: index + 1, floor });
    const log = readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n'));
    return { estimate: estimatePolicy(log, parsePolicy(`open=${target}`), { variants: true }), truth: truth[target] };
  });
}

const meanOf = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const bias = (runs: { truth: { cost: number } }[], pick: (index: number) => MethodEstimate | undefined): number =>
  meanOf(runs.map((run, index) => ((pick(index)?.cost ?? Number.NaN) - run.truth.cost) / run.truth.cost));

describe('the doubly robust cost where climbs give up before the dear rung', () => {
  // In the made-up cascade a climb gives up before the dear rung once two rungs have failed, so on a
  // prompt no rung answers only a climb that opened with the dear rung tries all three.
  const cheap = estimates('cheap');

  it('estimates always opening with the cheap rung within 3% on average, every call weighed', () => {
    expect(Math.abs(bias(cheap, (index) => cheap[index]?.estimate.methods?.dr))).toBeLessThan(0.03);
  });

  it('came out a fifth too dear when it took the calls every rung failed at their logged cost', () => {
    // Those calls all opened with the dear rung and climbed through every rung; the cheap rung's climb gives up after two.
    expect(bias(cheap, (index) => cheap[index]?.estimate.variants?.['dr-class'])).toBeGreaterThan(0.15);
  });

  it('holds the truth in its 95% interval on nearly every log, for every opener', () => {
    for (const target of ['cheap', 'mid', 'dear'] as const) {
      const runs = target === 'cheap' ? cheap : estimates(target);
      const held = runs.filter(({ estimate, truth }) => {
        const dr = estimate.methods?.dr ?? expect.unreachable();
        return dr.costLow <= truth.cost && truth.cost <= dr.costHigh && dr.successLow <= truth.success && truth.success <= dr.successHigh;
      });
      expect(held.length, target).toBeGreaterThanOrEqual(LOGS - 3);
    }
  });

  it('is narrower than IPS where the opener was seldom drawn', () => {
    const mid = estimates('mid');
    const width = (pick: (run: (typeof mid)[number]) => MethodEstimate) => meanOf(mid.map((run) => pick(run).costHigh - pick(run).costLow));
    expect(width((run) => run.estimate.methods?.dr ?? expect.unreachable())).toBeLessThan(
      0.8 * width((run) => run.estimate.methods?.ips ?? expect.unreachable()),
    );
  });

  it('states the bias switch-DR and clipped DR accept for their narrower intervals', () => {
    for (const run of cheap) {
      for (const method of ['switch-dr', 'clipped-dr'] as const) {
        const variant = run.estimate.variants?.[method] ?? expect.unreachable();
        expect(variant.threshold, method).toBeGreaterThan(0);
        expect(Number.isFinite(variant.bias), method).toBe(true);
      }
    }
  });
});

describe('loggingToNarrow on the made-up cascade', () => {
  it('names as many more calls as bring the interval within the half-width asked for, logged at the same floor', () => {
    const within = 0.03;
    const reached: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const first = cascadeLog({ calls: 600, seed, floor: 0.15 });
      const log = readLoggedCalls(first.rows.map((row) => JSON.stringify(row)).join('\n'));
      const estimate = estimatePolicy(log, parsePolicy('open=dear'), { spreadWhenRefused: true });
      const narrowing = loggingToNarrow({ estimate, floorNow: 0.15, candidates: 3, within }) ?? expect.unreachable();
      expect(narrowing.floor).toBe(0.15);
      const longer = cascadeLog({ calls: 600 + narrowing.calls, seed: seed + 100, floor: 0.15 });
      const dr =
        estimatePolicy(readLoggedCalls(longer.rows.map((row) => JSON.stringify(row)).join('\n')), parsePolicy('open=dear')).methods?.dr ??
        expect.unreachable();
      reached.push((dr.costHigh - dr.costLow) / 2 / dr.cost);
    }
    // A projection from one log's spread: on average it lands at the half-width asked for, give or take a fifth.
    expect(meanOf(reached)).toBeGreaterThan(within * 0.8);
    expect(meanOf(reached)).toBeLessThan(within * 1.2);
  });

  it('says nothing when the interval is already within ±30%', () => {
    const { rows } = cascadeLog({ calls: 1_200, seed: 3 });
    const estimate = estimatePolicy(readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n')), parsePolicy('open=dear'));
    expect(estimate.methods?.dr).toBeDefined();
    expect(loggingToNarrow({ estimate, floorNow: 0.3, candidates: 3 })).toBeNull();
    expect(DECIDING_HALF_WIDTH).toBe(0.3);
  });

  it('prices a floor for a panel that sets none: each call the target opens stands for candidates / floor calls', () => {
    const spread = { calls: 1_000, predicted: 2, perCall: 1, weighed: 0, residual: 4, meanInverse: 1 };
    // Per call at a 10% floor over 4 candidates: 1 + (40 − 1) × 4 = 157; the goal (0.3 × 2 / Z)² = 0.0937…;
    // 157 / 0.0937… = 1,675.6…, rounded up to two figures; 30 openings' worth would take only 30 × 40 = 1,200.
    const narrowing = loggingToNarrow({ estimate: { spread }, floorNow: 0, candidates: 4 });
    expect(narrowing).toEqual({ calls: 1_700, floor: 0.1 });
  });
});
