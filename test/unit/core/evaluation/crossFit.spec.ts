import { describe, expect, it } from 'vitest';
import { CROSS_FIT_FOLDS, crossFitted, foldOf, promptSizes, type CrossFitted } from '../../../../src/core/evaluation/crossFit';
import { OutcomeModel } from '../../../../src/core/evaluation/estimate';
import { readLoggedCalls, type LoggedCall } from '../../../../src/core/evaluation/loggedCalls';
import { cascadeLog } from '../../../../src/bench/madeUpCascade';

function logOf(rows: ReturnType<typeof cascadeLog>['rows']): LoggedCall[] {
  return readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n')).calls;
}

function predictions(calls: readonly LoggedCall[], target: string, byAnswer: boolean): CrossFitted {
  const folds = Array.from({ length: CROSS_FIT_FOLDS }, (_, fold) => OutcomeModel.fit(calls.filter((call) => foldOf(call.call) !== fold)));
  const steps = crossFitted(calls, promptSizes(calls), target, [], folds, { byAnswer, callsPerSlice: 100 });
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

describe('crossFitted', () => {
  it('puts a call in the same fold every time, and spreads calls evenly over the folds', () => {
    expect(foldOf('call-17')).toBe(foldOf('call-17'));
    const counts = new Array<number>(CROSS_FIT_FOLDS).fill(0);
    for (let index = 0; index < 5_000; index++) counts[foldOf(`call-${index}`)] = (counts[foldOf(`call-${index}`)] ?? 0) + 1;
    for (const count of counts) expect(count).toBeGreaterThan(900);
  });

  it("never scores a call with a fit that read it: changing a call's own outcome leaves its prediction as it was", () => {
    const { rows } = cascadeLog({ calls: 600, seed: 4 });
    const calls = logOf(rows);
    const before = predictions(calls, 'mid', true);
    // Call 9 becomes a dear climb that no rung answered: every other fold's fit reads it, its own does not.
    const changed = calls.map((call, index) =>
      index === 9
        ? {
            ...call,
            attempts: call.attempts.map((attempt) => ({ ...attempt, passed: false, cost: attempt.cost * 50 })),
            cost: call.cost * 50,
            firstSuccess: false,
          }
        : call,
    );
    const after = predictions(changed, 'mid', true);
    const fold = foldOf((calls[9] as LoggedCall).call);
    calls.forEach((call, index) => {
      if (foldOf(call.call) === fold) {
        expect(after.cost[index], call.call).toBe(before.cost[index]);
        expect(after.success[index], call.call).toBe(before.success[index]);
      }
    });
    expect(after.cost.some((cost, index) => cost !== before.cost[index])).toBe(true);
  });

  it('predicts a call no rung answered to cost more, and to pass less often, than one some rung answered', () => {
    const calls = logOf(cascadeLog({ calls: 2_000, seed: 2 }).rows);
    const fitted = predictions(calls, 'cheap', true);
    const answered = calls.map((call) => call.attempts.some((attempt) => attempt.passed === true));
    const mean = (xs: number[], keep: boolean) => {
      const kept = xs.filter((_, index) => answered[index] === keep);
      return kept.reduce((s, x) => s + x, 0) / kept.length;
    };
    expect(mean(fitted.cost, false)).toBeGreaterThan(1.5 * mean(fitted.cost, true));
    expect(mean(fitted.success, false)).toBeLessThan(mean(fitted.success, true));
  });

  it("moves a prediction with the prompt's size, which every rung's price scales with", () => {
    const calls = logOf(cascadeLog({ calls: 2_000, seed: 5 }).rows);
    const sizes = promptSizes(calls);
    const fitted = predictions(calls, 'mid', false);
    const small = calls.findIndex((_, index) => (sizes[index] as number) < 0.7);
    const large = calls.findIndex(
      (_, index) => (sizes[index] as number) > 1.3 && foldOf(calls[index]?.call ?? '') === foldOf(calls[small]?.call ?? ''),
    );
    expect(fitted.cost[large]).toBeGreaterThan(1.5 * (fitted.cost[small] as number));
  });

  it("reads a call's size as its opener's input tokens over that model's mean, and 1 where no tokens were recorded", () => {
    const call = (id: string, model: string, inputTokens?: number): LoggedCall => ({
      call: id,
      classKey: 'qa',
      candidates: [],
      opener: model,
      propensity: 1,
      attempts: [{ model, passed: true, cost: 0, ...(inputTokens === undefined ? {} : { inputTokens }) }],
      cost: 0,
      firstSuccess: true,
      everyRungFailed: false,
    });
    expect(promptSizes([call('a', 'x', 100), call('b', 'x', 300), call('c', 'y', 50), call('d', 'y')])).toEqual([0.5, 1.5, 1, 1]);
  });
});
