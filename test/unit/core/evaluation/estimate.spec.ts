import { describe, expect, it, vi } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import {
  estimatePolicy,
  estimatePolicyInSlices,
  MIN_EFFECTIVE_SAMPLE_SIZE,
  OUTCOME_BY_ANSWER,
  OutcomeModel,
  SharedOutcomeModel,
} from '../../../../src/core/evaluation/estimate';
import { CROSS_FIT_FOLDS, crossFitted, foldOf, promptSizes, type CrossFitted } from '../../../../src/core/evaluation/crossFit';
import { readLoggedCalls, readRecentLoggedCalls, type LoggedCall, type LoggedCalls } from '../../../../src/core/evaluation/loggedCalls';
import { parsePolicy } from '../../../../src/core/evaluation/policy';
import { seededRandom } from '../../../../src/core/random';
import { decisionRow } from '../../support/decisionRow';

const Z = 1.959963984540054;
const CANDIDATES = ['cheap', 'dear'];

/** One call's attempt rows: the opener with its propensity, then each later rung (propensity 1). */
function call(
  id: string,
  propensity: number,
  attempts: [string, 'pass' | 'fail', number][],
  candidates: string[] = CANDIDATES,
): DecisionRow[] {
  return attempts.map(([model, verdict, cost], index) =>
    decisionRow({
      call: id,
      class: 'mmlu',
      candidates,
      model,
      rung: candidates.indexOf(model),
      escalation: attempts.slice(0, index).map(([m]) => m),
      verdict,
      cost,
      propensity: index === 0 ? propensity : 1,
      explore: index === 0 && model === 'dear',
    }),
  );
}

const lines = (rows: DecisionRow[]): string => rows.map((row) => JSON.stringify(row)).join('\n');
const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const costs = (log: LoggedCalls): number[] => log.calls.map((c) => c.cost);
const firsts = (log: LoggedCalls): number[] => log.calls.map((c) => (c.firstSuccess ? 1 : 0));

/** The shipped DR's predictions for every call of the log under `open=target`, as the estimate makes them. */
function crossFittedFor(log: LoggedCalls, target: string): CrossFitted {
  const folds = Array.from({ length: CROSS_FIT_FOLDS }, (_, fold) => OutcomeModel.fit(log.calls.filter((c) => foldOf(c.call) !== fold)));
  const generator = crossFitted(log.calls, promptSizes(log.calls), target, [], folds, {
    byAnswer: OUTCOME_BY_ANSWER,
    callsPerSlice: Infinity,
  });
  for (let step = generator.next(); ; step = generator.next()) if (step.done) return step.value;
}

/**
 * Four calls: the router opened with `cheap` at 0.8 three times (a pass, a fail climbing to `dear`, a
 * pass) and explored `dear` at 0.2 once (a pass).
 */
const fourCalls = lines([
  ...call('c1', 0.8, [['cheap', 'pass', 1]]),
  ...call('c2', 0.8, [
    ['cheap', 'fail', 1],
    ['dear', 'pass', 10],
  ]),
  ...call('c3', 0.2, [['dear', 'pass', 10]]),
  ...call('c4', 0.8, [['cheap', 'pass', 1]]),
]);
const small = { minEffectiveSampleSize: 1 };
/** Five calls, seven rows: c2 and c5 climb. */
const withUnanswerableText = (): string =>
  lines([
    ...call('c1', 0.8, [['cheap', 'pass', 1]]),
    ...call('c2', 0.8, [
      ['cheap', 'fail', 1],
      ['dear', 'pass', 10],
    ]),
    ...call('c3', 0.2, [['dear', 'pass', 10]]),
    ...call('c4', 0.8, [['cheap', 'pass', 1]]),
    ...call('c5', 0.8, [
      ['cheap', 'fail', 1],
      ['dear', 'fail', 10],
    ]),
  ]);

describe('estimatePolicy on a log small enough to work out by hand', () => {
  it('weighs the one call that opened with dear by 1/0.2 for IPS and SNIPS', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=dear'), small);
    expect(estimate.calls).toBe(4);
    expect(estimate.matching).toBe(1);
    // Weights 0, 0, 5, 0: (Σw)²/Σw² = 25/25.
    expect(estimate.effectiveSampleSize).toBeCloseTo(1, 12);
    const { ips, snips } = estimate.methods ?? expect.unreachable();
    // IPS: (5 × $10) / 4 calls; success 5 × 1 / 4.
    expect(ips.cost).toBeCloseTo(12.5, 12);
    expect(ips.success).toBeCloseTo(1.25, 12);
    // Terms 0, 0, 50, 0: sample variance 625, standard error √(625/4) = 12.5.
    expect(ips.costHigh).toBeCloseTo(12.5 + Z * 12.5, 9);
    expect(ips.costLow).toBe(0);
    // SNIPS divides by Σw = 5: exactly the one call's $10 and its pass, with nothing left to vary.
    expect(snips.cost).toBeCloseTo(10, 12);
    expect(snips.success).toBeCloseTo(1, 12);
    expect(snips.costHigh - snips.costLow).toBeCloseTo(0, 12);
  });

  it('weighs the three calls that opened with cheap by 1/0.8, counting the climb in their cost', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=cheap'), small);
    // Weights 1.25 three times: ESS 3.75² / (3 × 1.5625) = 3.
    expect(estimate.effectiveSampleSize).toBeCloseTo(3, 12);
    const { ips, snips } = estimate.methods ?? expect.unreachable();
    expect(ips.success).toBeCloseTo((1.25 * 2) / 4, 12);
    expect(ips.cost).toBeCloseTo((1.25 * (1 + 11 + 1)) / 4, 12);
    expect(snips.success).toBeCloseTo(2 / 3, 12);
    expect(snips.cost).toBeCloseTo(13 / 3, 12);
  });

  it('gives the per-class doubly robust estimate the benchmark compares with: the class model, corrected by the weighed residual', () => {
    const log = readLoggedCalls(fourCalls);
    const model = OutcomeModel.fit(log.calls);
    // dear was graded twice in mmlu, both passes (once as an opener, once climbed to): pulled towards
    // its overall rate (2 + 1)/(2 + 2) = 0.75 by two calls: (2 + 2 × 0.75)/(2 + 2).
    expect(model.success('mmlu', 'dear')).toBeCloseTo(0.875, 12);
    // One call opened with dear and cost $10; each attempt of dear cost $10 and none failed, so $10.
    expect(model.cost('mmlu', 'dear')).toBeCloseTo(10, 12);
    const estimate = estimatePolicy(log, parsePolicy('open=dear'), { ...small, variants: true });
    const perClass = estimate.variants?.['dr-class'] ?? expect.unreachable();
    // Three calls contribute 0.875; c3 contributes 0.875 + 5 × (1 − 0.875) = 1.5.
    expect(perClass.success).toBeCloseTo((3 * 0.875 + 1.5) / 4, 12);
    // The cost model is exact here, so every term is $10 and the interval has no width.
    expect(perClass.cost).toBeCloseTo(10, 12);
    expect(perClass.costHigh - perClass.costLow).toBeCloseTo(0, 12);
  });

  it("gives the doubly robust estimate from each call's cross-fitted prediction, corrected by the weighed residual", () => {
    const log = readLoggedCalls(fourCalls);
    const predicted = crossFittedFor(log, 'dear');
    const weights = log.calls.map((c) => (c.opener === 'dear' ? 1 / c.propensity : 0));
    const terms = (outcomes: number[], q: number[]) =>
      q.map((value, i) => value + (weights[i] as number) * ((outcomes[i] as number) - value));
    const { dr } = estimatePolicy(log, parsePolicy('open=dear'), small).methods ?? expect.unreachable();
    expect(dr.cost).toBeCloseTo(mean(terms(costs(log), predicted.cost)), 12);
    expect(dr.success).toBeCloseTo(mean(terms(firsts(log), predicted.success)), 12);
  });

  it('compares the doubly robust estimate with the calls as they were routed, paired call by call', () => {
    const log = readLoggedCalls(fourCalls);
    const { versusLog, methods } = estimatePolicy(log, parsePolicy('open=dear'), small);
    // As routed: $1, $11, $10, $1 (mean $5.75) and first answers pass, fail, pass, pass (0.75).
    expect(versusLog?.loggedCost).toBeCloseTo(5.75, 12);
    expect(versusLog?.loggedSuccess).toBeCloseTo(0.75, 12);
    // The target's side is DR's: its cost over the logged cost, less one; its success less the logged.
    const dr = methods?.dr ?? expect.unreachable();
    expect(versusLog?.costChange).toBeCloseTo(dr.cost / 5.75 - 1, 12);
    expect(versusLog?.successChange).toBeCloseTo(dr.success - 0.75, 12);
    expect(versusLog?.costChangeHigh).toBeGreaterThan(versusLog?.costChange ?? Number.NaN);
  });

  it('refuses a policy opening with a model the log never opened with, and prints no number', () => {
    const estimate = estimatePolicy(readLoggedCalls(lines(call('c1', 1, [['cheap', 'pass', 1]]))), parsePolicy('open=dear'), small);
    expect(estimate.methods).toBeUndefined();
    expect(estimate.refused).toMatch(/never opened a call with dear/);
  });

  it('refuses when the calls that opened as the policy would are worth too few once weighed', () => {
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=dear'));
    expect(estimate.effectiveSampleSize).toBeLessThan(MIN_EFFECTIVE_SAMPLE_SIZE);
    expect(estimate.methods).toBeUndefined();
    expect(estimate.refused).toMatch(/worth 1\.0 calls once weighed, fewer than 30/);
  });

  it('refuses when the target was not even a candidate on many calls, since the log gave it no chance there', () => {
    const pruned = lines([
      ...call('c1', 0.5, [['dear', 'pass', 10]]),
      decisionRow({ call: 'c2', class: 'mmlu', candidates: ['cheap'], model: 'cheap', propensity: 1, cost: 1 }),
    ]);
    const estimate = estimatePolicy(readLoggedCalls(pruned), parsePolicy('open=dear'), small);
    expect(estimate.unsupported).toBe(1);
    expect(estimate.refused).toMatch(/not among the candidates on 1 of 2 calls/);
  });

  it("refuses a skip when the skipped rung answered many of the target's calls, since the climb past it is guesswork", () => {
    // dear answered c2, one of the three calls that opened with cheap (equal weights).
    const estimate = estimatePolicy(readLoggedCalls(fourCalls), parsePolicy('open=cheap,skip=dear'), small);
    expect(estimate.methods).toBeUndefined();
    expect(estimate.refused).toMatch(/^dear answered 33% of the calls that opened with cheap \(weighed\)/);
  });

  it('refuses a skip without an opener and another exploration rate, saying what the rows lack', () => {
    const log = readLoggedCalls(fourCalls);
    const skip = estimatePolicy(log, parsePolicy('skip=dear'), small);
    expect(skip.methods).toBeUndefined();
    expect(skip.refused).toMatch(
      /which would have opened in the skipped model's place; estimate open=MODEL,skip=MODEL, or check it with rung replay --policy/,
    );
    const explore = estimatePolicy(log, parsePolicy('explore=0.1'), small);
    expect(explore.methods).toBeUndefined();
    expect(explore.refused).toMatch(/records only the chance its own opener had .* check it with rung replay --policy/);
  });
});

describe('the doubly robust cost, with what the cascade shows of every rung', () => {
  /** Four calls opening with cheap at 0.8 and one with dear at 0.2; c5 failed on both rungs. */
  const withUnanswerable = withUnanswerableText();

  it('weighs a call every rung failed like any other, since whether a climb reaches every rung depends on its opener', () => {
    const log = readLoggedCalls(withUnanswerable);
    expect(log.calls.map((c) => c.everyRungFailed)).toEqual([false, false, false, false, true]);
    const estimate = estimatePolicy(log, parsePolicy('open=dear'), { ...small, variants: true });
    // c5 opened with cheap, so it weighs 0: it enters at its prediction, as c1, c2 and c4 do.
    const predicted = crossFittedFor(log, 'dear');
    const weights = log.calls.map((c) => (c.opener === 'dear' ? 1 / c.propensity : 0));
    const terms = predicted.cost.map((q, i) => q + (weights[i] as number) * ((costs(log)[i] as number) - q));
    expect(estimate.methods?.dr.cost).toBeCloseTo(mean(terms), 12);
    // The per-class DR took it at its logged $11: the model predicts $10 for dear (c3 cost $10; dear's
    // attempts cost $10 and nothing followed its one failure), so c1–c4 contribute $10 and c5 $11: 51 / 5.
    const perClass = estimate.variants?.['dr-class'] ?? expect.unreachable();
    expect(perClass.cost).toBeCloseTo(10.2, 12);
    // Terms 10, 10, 10, 10, 11: sample variance 0.8 / 4 = 0.2, standard error √(0.2 / 5) = 0.2.
    expect(perClass.costHigh).toBeCloseTo(10.2 + Z * 0.2, 12);
  });

  /** Three rungs; the two calls that opened with dear passed at $10, but c3 shows dear failing and a $100 climb after it. */
  const THREE = ['cheap', 'dear', 'top'];
  const rareDearClimb = lines([
    ...call('e1', 0.5, [['dear', 'pass', 10]], THREE),
    ...call('e2', 0.5, [['dear', 'pass', 10]], THREE),
    ...call(
      'e3',
      0.5,
      [
        ['cheap', 'fail', 1],
        ['dear', 'fail', 10],
        ['top', 'pass', 100],
      ],
      THREE,
    ),
    ...call('e4', 0.5, [['cheap', 'pass', 1]], THREE),
  ]);

  it("imputes a call's cost under the target from the verdicts its own climb saw, and the target's rate as an opener where it was not tried", () => {
    const log = readLoggedCalls(rareDearClimb);
    const model = OutcomeModel.fit(log.calls);
    const [e1, , e3, e4] = log.calls as [LoggedCall, LoggedCall, LoggedCall, LoggedCall];
    expect(model.imputedCost(e1, 'dear')).toBeCloseTo(10, 12);
    // dear failed on e3 ($10), then cheap failed ($1), then top passed ($100).
    expect(model.imputedCost(e3, 'dear')).toBeCloseTo(111, 12);
    // dear was not tried on e4: as an opener it passed both times, at $10.
    expect(model.imputedCost(e4, 'dear')).toBeCloseTo(10, 12);

    const halfOpenerFails = readLoggedCalls(
      lines([
        ...call('d1', 0.5, [['dear', 'pass', 10]]),
        ...call('d2', 0.5, [['cheap', 'pass', 1]]),
        ...call('d3', 0.5, [
          ['dear', 'fail', 10],
          ['cheap', 'pass', 1],
        ]),
      ]),
    );
    // On d2 dear opens ($10) and passes half the time, as it did as an opener (d1, d3); when it fails,
    // cheap, which passed d2, ends the climb for $1: 10 + 0.5 × 1.
    expect(OutcomeModel.fit(halfOpenerFails.calls).imputedCost(halfOpenerFails.calls[1] as LoggedCall, 'dear')).toBeCloseTo(10.5, 12);
  });

  it("estimates a skip beside an opener by taking the skipped rung's attempt out of the logged climbs", () => {
    const log = readLoggedCalls(rareDearClimb);
    const skipped = estimatePolicy(log, parsePolicy('open=cheap,skip=dear'), { ...small, variants: true });
    const { ips, snips, dr } = skipped.methods ?? expect.unreachable();
    // e3 climbed cheap $1, dear $10, top $100 (pass): without dear, $101; e4 passed at cheap for $1.
    // Weights 2 and 2 over 4 calls: (2 × 101 + 2 × 1) / 4, and SNIPS 204 / 4 too.
    expect(ips.cost).toBeCloseTo(51, 12);
    expect(snips.cost).toBeCloseTo(51, 12);
    // The model: on e1 and e2 cheap ($1) passes half the time as an opener, else top ($100, which
    // passed after a failure): 1 + 0.5 × 100 = 51; e3 101; e4 1. Class mean 51, so the terms are
    // 51, 51, 51 + 2 × (101 − 51), 51 + 2 × (1 − 51): the per-class DR 51.
    expect(skipped.variants?.['dr-class']?.cost).toBeCloseTo(51, 12);
    // The opener's own verdict does not depend on what follows it.
    const opened = estimatePolicy(log, parsePolicy('open=cheap'), small).methods ?? expect.unreachable();
    expect(dr.success).toBeCloseTo(opened.dr.success, 12);
  });

  it('widens the interval to the spread the imputed costs imply when the calls that opened with the target missed the dear climbs', () => {
    const estimate = estimatePolicy(readLoggedCalls(rareDearClimb), parsePolicy('open=dear'), { ...small, variants: true });
    // Worked by hand for the per-class DR; the shipped DR is held to the same kind of floor.
    const dr = estimate.variants?.['dr-class'] ?? expect.unreachable();
    // Predicted $28 = ($20 of e1, e2 + 2 × composed $46) / 4, composed = $10 + (1 − 0.64) × $100.
    // Terms −8, −8, 28, 28: DR $10 with standard error √(432 / 4) = 10.39 from the terms alone.
    expect(dr.cost).toBeCloseTo(10, 12);
    // Imputed 10, 10, 111, 10: variance 2550.25; residuals from $28 squared, averaged: 1965.25; E[1/π] = 8 / 4 = 2.
    // (2550.25 + (2 − 1) × 1965.25) / 4 = 1128.875.
    expect(dr.costHigh).toBeCloseTo(10 + Z * Math.sqrt(1128.875), 9);
  });
});

/**
 * `count` calls over four rungs in two classes: most open with `cheap` at 0.85, the rest with one of the
 * first three rungs drawn uniformly, each climbing in order until a pass; the last rung, `rare`, seldom
 * passes (so a skip of it can be estimated), some calls fail every rung, and some answers are unverified.
 */
function randomLog(count: number, seed: number): string {
  const random = seededRandom(seed);
  const models = ['cheap', 'mid', 'dear', 'rare'];
  const prices = [0.001, 0.01, 0.1, 0.5];
  const passRates = [0.3, 0.55, 0.8, 0.02];
  const rows: DecisionRow[] = [];
  for (let index = 0; index < count; index++) {
    const drawn = random() < 0.15;
    const opener = drawn ? Math.floor(random() * 3) : 0;
    const climb = [opener, ...[0, 1, 2, 3].filter((rung) => rung !== opener)];
    const attempts: [string, 'pass' | 'fail', number][] = [];
    for (const rung of climb) {
      const passed = random() < (passRates[rung] as number);
      attempts.push([models[rung] as string, passed ? 'pass' : 'fail', (prices[rung] as number) * (1 + random())]);
      if (passed) break;
    }
    const propensity = 0.05 + (opener === 0 ? 0.85 : 0);
    const rowsOfCall = call(`c${index}`, propensity, attempts, models).map((row) => ({
      ...row,
      class: index % 3 === 0 ? 'code' : 'mmlu',
      verdict: random() < 0.05 ? ('unverified' as const) : row.verdict,
    }));
    rows.push(...rowsOfCall);
  }
  return lines(rows);
}

describe('estimatePolicyInSlices', () => {
  it('gives exactly the one-piece estimate, to the last bit, pausing after every slice of calls', async () => {
    const log = readLoggedCalls(randomLog(400, 7));
    for (const spec of [
      'open=cheap',
      'open=mid',
      'open=dear',
      'open=cheap,skip=rare',
      'open=dear,skip=rare',
      'open=dear,skip=mid',
      'open=rare',
    ]) {
      const whole = estimatePolicy(log, parsePolicy(spec), small);
      let pauses = 0;
      const sliced = await estimatePolicyInSlices(log, parsePolicy(spec), async () => void pauses++, { ...small, callsPerSlice: 7 });
      expect(sliced, spec).toStrictEqual(whole);
      // Compared as text as well: JSON writes each number's shortest exact form, so any last-bit difference shows.
      expect(JSON.stringify(sliced), spec).toBe(JSON.stringify(whole));
      if (!whole.refused) {
        expect(whole.versusLog, spec).toBeDefined();
        // The fit, the predicted cost, the predicted success and the imputed cost each pause every 7 calls.
        expect(pauses, spec).toBeGreaterThanOrEqual(4 * Math.floor((whole.calls - 1) / 7));
      }
    }
    // Every pass is exercised: openers, skips whose climb is the logged one less a rung, a skip refused, an opener never tried.
    const given = (spec: string) => estimatePolicy(log, parsePolicy(spec), small).refused === undefined;
    expect(['open=cheap', 'open=mid', 'open=dear', 'open=cheap,skip=rare', 'open=dear,skip=rare'].filter(given)).toHaveLength(5);
    expect(['open=dear,skip=mid', 'open=rare'].filter(given)).toHaveLength(0);
  });

  it('refuses what the one-piece estimate refuses, without pausing on a log it never weighs', async () => {
    const log = readLoggedCalls(randomLog(50, 11));
    let pauses = 0;
    const refused = await estimatePolicyInSlices(log, parsePolicy('open=absent'), async () => void pauses++, { callsPerSlice: 7 });
    expect(refused).toStrictEqual(estimatePolicy(log, parsePolicy('open=absent')));
    expect(refused.refused).toMatch(/absent was not among the candidates/);
    expect(pauses).toBe(0);
  });
});

describe('SharedOutcomeModel', () => {
  it('gives every policy, skips included, exactly the estimate it gives with a fit of its own, from one fit made on first need', () => {
    const log = readLoggedCalls(randomLog(400, 7));
    const shared = new SharedOutcomeModel(log.calls);
    const fits = vi.spyOn(OutcomeModel, 'fitting');
    try {
      // The refused ones first: a log they never weigh needs no model, so none is fitted for them.
      for (const spec of ['open=rare', 'open=dear,skip=mid']) estimatePolicy(log, parsePolicy(spec), { ...small, outcomeModel: shared });
      expect(fits).not.toHaveBeenCalled();
      for (const spec of ['open=cheap', 'open=mid', 'open=dear', 'open=cheap,skip=rare', 'open=dear,skip=rare']) {
        const own = estimatePolicy(log, parsePolicy(spec), small);
        const withShared = estimatePolicy(log, parsePolicy(spec), { ...small, outcomeModel: shared });
        expect(withShared, spec).toStrictEqual(own);
        expect(JSON.stringify(withShared), spec).toBe(JSON.stringify(own));
      }
      // The shared model and its five fold models, then as many for each of the five estimates that fitted their own.
      expect(fits).toHaveBeenCalledTimes(6 * (1 + CROSS_FIT_FOLDS));
    } finally {
      fits.mockRestore();
    }
  });

  it('refuses to serve an estimate of other calls than those it was made for', () => {
    const log = readLoggedCalls(randomLog(400, 7));
    const shared = new SharedOutcomeModel(readLoggedCalls(randomLog(400, 8)).calls);
    expect(() => estimatePolicy(log, parsePolicy('open=cheap'), { ...small, outcomeModel: shared })).toThrow(
      'a shared outcome model is for the calls it was made for',
    );
  });
});

describe('readRecentLoggedCalls', () => {
  it('with no cap reads the same calls as readLoggedCalls, pausing while it reads', async () => {
    const text = `${withUnanswerableText()}\nnot json\n`;
    let pauses = 0;
    const { log, callsInLog } = await readRecentLoggedCalls(text, Number.POSITIVE_INFINITY, async () => void pauses++, 2);
    expect(log).toEqual(readLoggedCalls(text));
    expect(log.unreadable).toBe(1);
    expect(callsInLog).toBe(5);
    expect(pauses).toBeGreaterThan(0);
  });

  it("reads the same calls from the file's bytes, decoding each line, characters of several bytes included", async () => {
    const rows = [
      ...call('c1', 0.8, [['cheap', 'pass', 1]]),
      ...call('c2', 0.8, [
        ['cheap', 'fail', 1],
        ['dear', 'pass', 10],
      ]),
    ].map((row, index) => ({
      ...row,
      call: `${row.call}-ü`,
      class: index === 0 ? 'résumé' : 'π',
      verdictReason: 'schema: “steps” missing 🙃',
    }));
    const text = `${lines(rows)}\nnot json\n`;
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.length).toBeGreaterThan(text.length);
    let pauses = 0;
    const { log } = await readRecentLoggedCalls(bytes, Number.POSITIVE_INFINITY, async () => void pauses++, 1);
    expect(log).toEqual(readLoggedCalls(text));
    expect(log.calls.map((loggedCall) => [loggedCall.call, loggedCall.classKey])).toEqual([
      ['c1-ü', 'résumé'],
      ['c2-ü', 'π'],
    ]);
    expect(log.unreadable).toBe(1);
    expect(pauses).toBeGreaterThan(0);
  });

  it('keeps the newest calls by their first row, as the whole-log reader orders them, and counts the rest by id', async () => {
    // Calls interleave (a second window's call starts before the first's climb ends), and a verdict
    // given later settles c1 after every other call has started: c1 stays the oldest call.
    const [c1] = call('c1', 0.8, [['cheap', 'pass', 1]]);
    const c2 = call('c2', 0.8, [
      ['cheap', 'fail', 1],
      ['dear', 'pass', 10],
    ]);
    const [c3] = call('c3', 0.2, [['dear', 'pass', 10]]);
    const c4 = call('c4', 0.8, [
      ['cheap', 'fail', 1],
      ['dear', 'fail', 10],
    ]);
    const settled = { ...(c1 as DecisionRow), final: true, verdict: 'fail' as const };
    const rows = [c1, c2[0], c3, c2[1], c4[0], settled, c4[1]] as DecisionRow[];
    for (const text of [lines(rows), Buffer.from(lines(rows))]) {
      const whole = readLoggedCalls(lines(rows));
      for (const max of [1, 2, 3, 4, 9]) {
        const { log, callsInLog } = await readRecentLoggedCalls(text, max, async () => undefined);
        expect(callsInLog).toBe(4);
        expect(log.calls).toEqual(whole.calls.slice(-max));
      }
    }
    const { log } = await readRecentLoggedCalls(lines(rows), 2, async () => undefined);
    expect(log.calls.map((loggedCall) => loggedCall.call)).toEqual(['c3', 'c4']);
  });

  it("on a long random log keeps exactly the whole-log reader's newest calls", async () => {
    const text = randomLog(600, 11);
    const whole = readLoggedCalls(text);
    const { log, callsInLog } = await readRecentLoggedCalls(Buffer.from(text), 250, async () => undefined, 50);
    expect(callsInLog).toBe(600);
    expect(log.calls).toEqual(whole.calls.slice(-250));
    expect(log.calls[0]?.call).toBe('c350');
  });

  it('finds the call of a line written by hand or holding an escaped id, and counts lines that are no row', async () => {
    const spaced = '{ "call" : "hand", "model": "cheap", "verdict": "pass", "propensity": 1 }';
    const escaped = JSON.stringify(decisionRow({ call: 'say "hi"\\now', model: 'dear', verdict: 'pass', propensity: 0.5 }));
    const noCall = '{"model":"cheap","verdict":"pass"}';
    const torn = '{"call":"torn","model":"ch';
    const text = [
      ...call('old', 0.8, [['cheap', 'pass', 1]]).map((row) => JSON.stringify(row)),
      spaced,
      'not json',
      escaped,
      noCall,
      '',
      torn,
    ].join('\n');
    const { log, callsInLog } = await readRecentLoggedCalls(text, 3, async () => undefined);
    expect(log.calls.map((loggedCall) => loggedCall.call)).toEqual(['hand', 'say "hi"\\now']);
    // "old" is left unread; the torn line names a call, so it counts as one and as unreadable.
    expect(callsInLog).toBe(4);
    expect(log.unreadable).toBe(3);
  });
});

describe('readLoggedCalls', () => {
  it('leaves out and counts calls whose opener row carries no propensity, reading rows of every version', () => {
    const { propensity: _dropped, ...withoutPropensity } = decisionRow({ call: 'old', model: 'cheap' });
    const minimal = { call: 'v0', model: 'dear', verdict: 'pass', propensity: 0.5 };
    const text = [JSON.stringify(withoutPropensity), JSON.stringify(minimal), 'not json', ''].join('\n');
    const log = readLoggedCalls(text);
    expect(log.withoutPropensity).toBe(1);
    expect(log.unreadable).toBe(1);
    expect(log.calls.map((c) => [c.call, c.opener, c.propensity, c.firstSuccess, c.cost])).toEqual([['v0', 'dear', 0.5, true, 0]]);
  });

  it('lets a later final row settle a one-attempt call, and sums the cost of every attempt', () => {
    const settled = decisionRow({ call: 'c1', model: 'cheap', verdict: 'fail', final: true, propensity: 0.8 });
    const log = readLoggedCalls(
      lines([
        ...call('c1', 0.8, [['cheap', 'pass', 1]]),
        settled,
        ...call('c2', 0.8, [
          ['cheap', 'fail', 1],
          ['dear', 'pass', 10],
        ]),
      ]),
    );
    expect(log.calls.map((c) => [c.call, c.firstSuccess, c.cost])).toEqual([
      ['c1', false, 1],
      ['c2', false, 11],
    ]);
  });
});
