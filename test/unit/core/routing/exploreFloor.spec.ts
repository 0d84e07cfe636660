import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import { RouterHarness, request } from '../../support/routerHarness';
import { PASS, ScriptedAttempts } from '../../support/ScriptedAttempts';

/** Three paid models, cheapest first, that always pass: the plan opens with alpha once all are measured. */
const threeModels = (routing: Record<string, unknown>): Panel =>
  parsePanel(
    {
      models: [
        { slug: 'alpha', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
        { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        { slug: 'delta', provider: 'openai', price: { input: 2, output: 8 } },
      ],
      routing: { explorePaid: true, ...routing },
    },
    'floor',
  );

async function run(routing: Record<string, unknown>, seed: number, count: number): Promise<DecisionRow[]> {
  const harness = new RouterHarness(threeModels(routing), { seed });
  const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS).on('delta', PASS);
  for (let i = 0; i < count; i++) await harness.router.route({ ...request(), callId: `f-${i}` }, attempts.fn);
  return harness.sink.rows;
}

describe('Router: exploration floor on measured rungs (routing.exploreMeasured)', () => {
  it("keeps opening with every rung after all are measured, recording floor/3 (+ 1 − floor for the plan's opener)", async () => {
    const floor = 0.3;
    const rows = await run({ explore: 0, exploreMeasured: floor }, 7, 300);
    for (const row of rows) expect(row.propensity).toBeCloseTo(row.model === 'alpha' ? 1 - floor + floor / 3 : floor / 3, 12);
    // The last hundred calls come long after every rung passed the gate of 8 graded.
    const late = rows.slice(-100);
    for (const model of ['alpha', 'beta', 'delta']) expect(late.some((row) => row.model === model)).toBe(true);
    expect(late.filter((row) => row.model !== 'alpha').every((row) => row.explore)).toBe(true);
  });

  it('mixes with exploration below the gate: floor/3 + (1 − floor) × the usual chance', async () => {
    const floor = 0.2;
    const rate = 0.5;
    const rows = await run({ explore: rate, exploreMeasured: floor }, 11, 120);
    const graded = new Map<string, number>();
    for (const row of rows) {
      const pool = ['alpha', 'beta', 'delta'].filter((model) => (graded.get(model) ?? 0) < 8);
      const usual = (row.model === 'alpha' ? 1 - (pool.length ? rate : 0) : 0) + (pool.includes(row.model) ? rate / pool.length : 0);
      expect(row.propensity).toBeCloseTo(floor / 3 + (1 - floor) * usual, 12);
      graded.set(row.model, (graded.get(row.model) ?? 0) + 1);
    }
  });

  it('opens with certainty once all rungs are measured when the floor is 0, as before it existed', async () => {
    const without = await run({ explore: 0.5 }, 21, 80);
    const zero = await run({ explore: 0.5, exploreMeasured: 0 }, 21, 80);
    expect(JSON.stringify(zero)).toBe(JSON.stringify(without));
    expect(without.slice(-20).every((row) => row.model === 'alpha' && row.propensity === 1)).toBe(true);
  });

  it('never explores a call no verifier checks, floor or not', async () => {
    const harness = new RouterHarness(threeModels({ explore: 0, exploreMeasured: 1 }), { seed: 3 });
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS).on('delta', PASS);
    for (let i = 0; i < 20; i++) await harness.router.route({ ...request({ verifiable: false }), callId: `u-${i}` }, attempts.fn);
    expect(harness.sink.rows.every((row) => row.model === 'alpha' && row.propensity === 1)).toBe(true);
  });

  it('rejects a floor outside 0 to 1 in the panel file', () => {
    expect(() => threeModels({ exploreMeasured: 1.5 })).toThrow(/exploreMeasured/);
  });
});
