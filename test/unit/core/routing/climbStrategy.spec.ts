import { describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import type { AttemptRecord, ClimbStrategy } from '../../../../src/core/routing/types';
import { RouterHarness, request } from '../../support/routerHarness';
import { FAIL, PASS, ScriptedAttempts } from '../../support/ScriptedAttempts';

const panel = parsePanel(
  {
    models: [
      { slug: 'alpha', provider: 'a', price: { input: 0.1, output: 0.1 } },
      { slug: 'beta', provider: 'b', price: { input: 1, output: 1 } },
      { slug: 'gamma', provider: 'c', price: { input: 5, output: 5 } },
    ],
    routing: { explore: 0 },
    providers: { a: { kind: 'ollama' }, b: { kind: 'ollama' }, c: { kind: 'ollama' } },
  },
  'three rungs',
);

/** A strategy that opens where it is told and jumps as it is told, remembering what it was asked. */
class ScriptedStrategy implements ClimbStrategy {
  readonly asked: { model: string; tried: number[] }[] = [];
  constructor(
    readonly opener: number,
    private readonly jumps: ({ index: number | null; reason: string } | undefined)[],
  ) {}
  next(record: AttemptRecord, tried: readonly number[]): { index: number | null; reason: string } | undefined {
    this.asked.push({ model: record.model, tried: [...tried] });
    return this.jumps.shift();
  }
}

const indexOf = (slug: string): number => ['alpha', 'beta', 'gamma'].indexOf(slug);

describe('Router with a climb strategy', () => {
  it("opens and climbs where the call's strategy says, skipping the rung between", async () => {
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS).on('gamma', PASS);
    const strategy = new ScriptedStrategy(indexOf('alpha'), [{ index: indexOf('gamma'), reason: '' }]);
    const result = await harness.router.route(request({ climb: () => strategy }), attempts.fn);
    expect(attempts.models()).toEqual(['alpha', 'gamma']);
    expect(strategy.asked).toEqual([{ model: 'alpha', tried: [indexOf('alpha')] }]);
    expect(result.answer?.model).toBe('gamma');
  });

  it('stops where the strategy stops, and names its reason for every rung left', async () => {
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('beta', FAIL);
    const strategy = new ScriptedStrategy(indexOf('beta'), [{ index: null, reason: 'nothing above is worth it' }]);
    const result = await harness.router.route(request({ climb: () => strategy }), attempts.fn);
    expect(attempts.models()).toEqual(['beta']);
    expect(
      result.ranking.pruned
        .filter((p) => p.reason === 'skipped: nothing above is worth it')
        .map((p) => p.model)
        .sort(),
    ).toEqual(['alpha', 'gamma']);
  });

  it('hands a step back to the planner when the strategy gives none or names a rung already tried', async () => {
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', FAIL).on('gamma', PASS);
    const strategy = new ScriptedStrategy(indexOf('alpha'), [undefined, { index: indexOf('alpha'), reason: '' }]);
    await harness.router.route(request({ climb: () => strategy }), attempts.fn);
    expect(attempts.models()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('lets a pinned model open whatever the strategy would open with', async () => {
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('beta', PASS);
    await harness.router.route(request({ pinned: 'beta', climb: () => new ScriptedStrategy(indexOf('gamma'), []) }), attempts.fn);
    expect(attempts.models()).toEqual(['beta']);
  });

  it('climbs by the planner as before when the request has no strategy, and when its factory declines', async () => {
    const plain = new RouterHarness(panel);
    const declined = new RouterHarness(panel);
    const script = () => new ScriptedAttempts().on('alpha', FAIL).on('beta', FAIL).on('gamma', PASS);
    const [a, b] = [script(), script()];
    await plain.router.route(request({ callId: 'same' }), a.fn);
    await declined.router.route(request({ callId: 'same', climb: () => undefined }), b.fn);
    expect(b.models()).toEqual(a.models());
    expect(declined.sink.rows).toEqual(plain.sink.rows);
  });
});
