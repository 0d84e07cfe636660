/**
 * Off-policy estimates: what a target routing policy would have cost per call, and how often its first
 * answer would have passed, from calls the router logged under its own policy.
 *
 * @remarks
 * Each logged call chose its opener with a recorded probability (the propensity). A target that always
 * opens with model X is estimated from the calls that did open with X, each weighed by one over that
 * probability (inverse propensity scoring, IPS); the self-normalised form (SNIPS) divides by the sum of
 * the weights instead of the number of calls, trading a little bias for much less variance; the doubly
 * robust estimate (DR) starts from an outcome model's prediction for every call and corrects it with
 * the weighed residual of the calls that opened with X, so it stays unbiased when the model is wrong
 * and is tighter when the model is right.
 *
 * The outcome model is fitted on the same log per (class, model), from every graded attempt, not only
 * openers: a later rung's verdict on a call is an outcome of that rung too, and in a cascade those are
 * most of what a dear model is ever seen doing.
 *
 * DR's cost takes two things more from the cascade. A call on which every candidate was tried and
 * failed costs the same whichever rung opens (every opener climbs through all of them), so its cost
 * enters as logged, unweighed. And its interval is the wider of two spreads: that of the per-call terms,
 * read from the hundred-odd calls that opened with the target, and the one the outcome model implies
 * over every call, each call's cost under the target imputed from the verdicts its own climb saw. The
 * first alone missed the truth on 7 of 60 estimates in the validation (BENCHMARKS.md): a climb after
 * a failed opener is rare and dear (a call that reaches the 405b model costs a hundred cheap ones), so
 * a few matching calls that happened to miss those climbs gave both a low mean and a low spread.
 *
 * Intervals are otherwise the normal approximation over the per-call terms (the sandwich form for
 * SNIPS). A skip is estimated with an opener (`open=X,skip=Y`): the opener's weight is known, and the
 * climb without Y is the logged one less Y's attempt, or imputed where Y was what answered. A skip
 * alone, or another exploration rate, changes each call's chance of opening with every rung, which a
 * decision row does not record (only its own opener's), so those are refused.
 */
import type { LoggedAttempt, LoggedCall, LoggedCalls } from './loggedCalls';
import type { RoutingPolicy } from './policy';
import { formatPolicy } from './policy';

/** Below this many effective calls an estimate is refused: the interval would rest on a handful of weights. */
export const MIN_EFFECTIVE_SAMPLE_SIZE = 30;
/** The normal quantile of a two-sided 95% interval. */
const Z_95 = 1.959963984540054;
/**
 * The share of calls on which the target's opener was not even a candidate (pruned, capped, off the
 * panel) above which an estimate is refused: on those calls the log gave it no chance at all, so no
 * weight can stand in for them. Below it the estimate covers the other calls, and says so.
 */
export const MAX_UNSUPPORTED_SHARE = 0.05;
/**
 * The weighed share of the target's calls that a skipped model answered above which a skip is refused.
 *
 * @remarks
 * Where the skipped rung answered, the climb past it is imputed from rates of rungs that calls reach
 * only after more failures than the target's climb would have had, so it comes out too dear. In the
 * validation (BENCHMARKS.md) `open=llama3.2-3b,skip=gpt-4o-mini`, where gpt-4o-mini answered about
 * 15% of the calls, came out 76 µ$ a call too dear on 4 seeds of 4; skips of rungs that answered
 * about 3% held the truth on 7 of 8.
 */
export const MAX_SKIPPED_ANSWER_SHARE = 0.05;
/** Pseudo-observations a (class, model) pass rate borrows from the model's rate over all classes. */
const CLASS_PRIOR_WEIGHT = 2;

export type EstimateMethod = 'ips' | 'snips' | 'dr';

export interface MethodEstimate {
  /** USD per call. */
  cost: number;
  costLow: number;
  costHigh: number;
  /** First-attempt success rate. */
  success: number;
  successLow: number;
  successHigh: number;
}

/**
 * The target against the log's own routing, paired call by call (so what the two share cancels): the
 * relative change in cost per call and the change in first-try success, points, each with 95% bounds.
 *
 * @remarks
 * What a sentence such as "had you always opened with X: cost −34% (±8%), first-try success −2% (±3%),
 * from 1,240 of your calls" is made of.
 */
export interface VersusLog {
  /** USD per call and first-try success rate of the calls as they were routed. */
  loggedCost: number;
  loggedSuccess: number;
  /** (target − logged) / logged. */
  costChange: number;
  costChangeLow: number;
  costChangeHigh: number;
  /** target − logged, as a rate (0.02 = 2 points). */
  successChange: number;
  successChangeLow: number;
  successChangeHigh: number;
}

export interface PolicyEstimate {
  policy: string;
  /** Calls the estimate covers: every call with a propensity on which the target's opener was a candidate. */
  calls: number;
  /** Calls with a propensity on which the target's opener was not a candidate, so left out of the estimate. */
  unsupported: number;
  /** Calls left out for want of a propensity. */
  leftOut: number;
  /** (Σw)² / Σw²: how many calls the weighed ones are worth. */
  effectiveSampleSize: number;
  /** Calls that opened as the target would. */
  matching: number;
  /** Absent when the log cannot support a number; `refused` then says why. */
  methods?: Record<EstimateMethod, MethodEstimate>;
  /** The doubly robust estimate against what the logged routing did on the same calls; absent with `methods`. */
  versusLog?: VersusLog;
  refused?: string;
}

export interface EstimateOptions {
  /** Refuse below this effective sample size; {@link MIN_EFFECTIVE_SAMPLE_SIZE} when absent. */
  minEffectiveSampleSize?: number;
  /**
   * The outcome model of the same log's calls, shared by several estimates of that log; when absent the
   * estimate fits its own.
   *
   * @remarks
   * The outcome model depends on the log alone, never on the target policy, so the panel's What if,
   * which estimates every panel model from one log, fitted the same model once per panel model.
   */
  outcomeModel?: SharedOutcomeModel;
}

/**
 * Calls worked through between pauses by {@link estimatePolicyInSlices}.
 *
 * @remarks
 * One estimate of the panel's newest 10,000 calls held the extension host's thread 22–167 ms in one
 * piece on the team's loaded 2-core machine; in slices of 500 calls the longest slice took 2.3–7.5 ms
 * (BENCHMARKS.md, "What if at 100k decisions").
 */
export const CALLS_PER_SLICE = 500;

export function estimatePolicy(log: LoggedCalls, policy: RoutingPolicy, options: EstimateOptions = {}): PolicyEstimate {
  return toEnd(estimateSteps(log, policy, options, Number.POSITIVE_INFINITY));
}

/**
 * {@link estimatePolicy}, pausing on `pause` (a yield to the event loop) after every `callsPerSlice`
 * calls of each pass over the log, so a thread that must keep serving others is never held for a
 * whole estimate.
 *
 * @remarks
 * Both run the same steps ({@link estimateSteps}), this one pausing where the other goes straight on,
 * so the two give the same estimate to the last bit: every sum adds the same terms in the same order.
 */
export async function estimatePolicyInSlices(
  log: LoggedCalls,
  policy: RoutingPolicy,
  pause: () => Promise<void>,
  options: EstimateOptions & { callsPerSlice?: number } = {},
): Promise<PolicyEstimate> {
  const steps = estimateSteps(log, policy, options, options.callsPerSlice ?? CALLS_PER_SLICE);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** Runs steps that yield where a caller may pause straight through, and returns what they end with. */
function toEnd<Result>(steps: Generator<void, Result>): Result {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** `items` mapped, yielding after every `perSlice` of them. */
function* mapInSlices<Item, Mapped>(items: readonly Item[], perSlice: number, map: (item: Item) => Mapped): Generator<void, Mapped[]> {
  const mapped: Mapped[] = [];
  for (let index = 0; index < items.length; index++) {
    mapped.push(map(items[index] as Item));
    if ((index + 1) % perSlice === 0) yield;
  }
  return mapped;
}

/**
 * The estimate as steps: it yields after every `callsPerSlice` calls of each pass over the log that
 * does real work per call (fitting the outcome model, predicting and imputing each call's outcome).
 *
 * @remarks
 * The passes that only add numbers up (weights, sums, spreads) take well under a millisecond on 10,000
 * calls and run whole.
 */
function* estimateSteps(
  log: LoggedCalls,
  policy: RoutingPolicy,
  options: EstimateOptions,
  callsPerSlice: number,
): Generator<void, PolicyEstimate> {
  const minimum = options.minEffectiveSampleSize ?? MIN_EFFECTIVE_SAMPLE_SIZE;
  const base = { policy: formatPolicy(policy), calls: log.calls.length, leftOut: log.withoutPropensity };
  const unsupportedPolicy = unsupportedPart(policy);
  if (unsupportedPolicy) return { ...base, unsupported: 0, effectiveSampleSize: 0, matching: 0, refused: unsupportedPolicy };
  const target = policy.open as string;
  // Rows too old to list their candidates cannot show the target was missing, so they count as supported.
  const supported = log.calls.filter((call) => call.candidates.length === 0 || call.candidates.includes(target));
  const unsupported = log.calls.length - supported.length;
  const weights = supported.map((call) => (call.opener === target ? 1 / call.propensity : 0));
  const matching = weights.filter((w) => w > 0).length;
  const sum = weights.reduce((s, w) => s + w, 0);
  const squares = weights.reduce((s, w) => s + w * w, 0);
  const effectiveSampleSize = squares > 0 ? (sum * sum) / squares : 0;
  const result = { ...base, calls: supported.length, unsupported, effectiveSampleSize, matching };
  if (log.calls.length === 0) return { ...result, refused: 'the log holds no call with a propensity' };
  if (unsupported > MAX_UNSUPPORTED_SHARE * log.calls.length) {
    return {
      ...result,
      refused: `${target} was not among the candidates on ${unsupported} of ${log.calls.length} calls (pruned or off the panel), so the log gave it no chance to open there`,
    };
  }
  if (matching === 0) return { ...result, refused: `the log never opened a call with ${target}, so it says nothing about opening with it` };
  if (effectiveSampleSize < minimum) {
    return {
      ...result,
      refused: `the calls that opened with ${target} are worth ${effectiveSampleSize.toFixed(1)} calls once weighed, fewer than ${minimum}; an exploration floor on measured rungs (routing.exploreMeasured) makes the log answer this`,
    };
  }
  const skip = policy.skip;
  const skippedAnswered = supported.reduce((sum, call, i) => sum + (answeredBy(call, skip) ? (weights[i] as number) : 0), 0) / sum;
  if (skippedAnswered > MAX_SKIPPED_ANSWER_SHARE) {
    return {
      ...result,
      refused: `${skip.join(', ')} answered ${(100 * skippedAnswered).toFixed(0)}% of the calls that opened with ${target} (weighed), and the log shows little of what the climb would have done past ${skip.length === 1 ? 'it' : 'them'}; check it with rung replay --policy`,
    };
  }
  const model = options.outcomeModel
    ? yield* options.outcomeModel.fitting(log.calls, callsPerSlice)
    : yield* OutcomeModel.fitting(log.calls, callsPerSlice);
  const cost = skip.length
    ? yield* mapInSlices(supported, callsPerSlice, (call) => costWithout(call, skip, model, target))
    : supported.map((call) => call.cost);
  const success = supported.map((call) => (call.firstSuccess ? 1 : 0));
  const predictedCost = skip.length
    ? yield* classMeans(supported, callsPerSlice, (call) => model.imputedCost(call, target, skip))
    : yield* mapInSlices(supported, callsPerSlice, (call) => model.cost(call.classKey, target));
  const predictedSuccess = yield* mapInSlices(supported, callsPerSlice, (call) => model.success(call.classKey, target));
  const answerable = supported.map((call) => !call.everyRungFailed);
  const costTerms = doublyRobustTerms(weights, cost, predictedCost, answerable);
  const costSpread = modelledSpread(
    weights,
    yield* mapInSlices(supported, callsPerSlice, (call) => model.imputedCost(call, target, skip)),
    predictedCost,
    answerable,
  );
  const drCost = widened(meanInterval(costTerms), costSpread);
  const successTerms = doublyRobustTerms(weights, success, predictedSuccess);
  return {
    ...result,
    methods: {
      ips: join(ips(weights, cost), ips(weights, success)),
      snips: join(snips(weights, cost), snips(weights, success)),
      dr: join(drCost, meanInterval(successTerms)),
    },
    versusLog: versusLog(costTerms, cost, successTerms, success, costSpread),
  };
}

/**
 * What a call would have cost had the skipped models been off the panel, the opener kept: the logged
 * climb less the skipped rungs' attempts when a rung that stays answered it (or none could), otherwise
 * the outcome model's imputation from the verdicts the call saw.
 *
 * @remarks
 * Taking a rung out of a climb that an earlier or later rung answers removes that rung's attempt and
 * nothing else; when the skipped rung is the one that answered, the climb goes on past it to rungs the
 * log may never have tried on that call.
 */
function costWithout(call: LoggedCall, skip: readonly string[], model: OutcomeModel, opener: string): number {
  const answer = call.attempts.find((attempt) => attempt.passed === true);
  if (answeredBy(call, skip)) return model.imputedCost(call, opener, skip);
  if (!answer && !call.everyRungFailed) return model.imputedCost(call, opener, skip);
  return call.attempts.filter((attempt) => !skip.includes(attempt.model)).reduce((sum, attempt) => sum + attempt.cost, 0);
}

/** Whether a skipped model gave the call's passing answer. */
function answeredBy(call: LoggedCall, skip: readonly string[]): boolean {
  const answer = call.attempts.find((attempt) => attempt.passed === true);
  return answer !== undefined && skip.includes(answer.model);
}

/** Each call's class mean of `value` over the calls given: the outcome model when the opener's own record no longer fits. */
function* classMeans(calls: readonly LoggedCall[], callsPerSlice: number, value: (call: LoggedCall) => number): Generator<void, number[]> {
  const sums = new Map<string, { n: number; sum: number }>();
  const values = yield* mapInSlices(calls, callsPerSlice, value);
  calls.forEach((call, i) => {
    const entry = sums.get(call.classKey) ?? { n: 0, sum: 0 };
    sums.set(call.classKey, { n: entry.n + 1, sum: entry.sum + (values[i] as number) });
  });
  return calls.map((call) => {
    const entry = sums.get(call.classKey) as { n: number; sum: number };
    return entry.sum / entry.n;
  });
}

/**
 * The standard error of the DR cost the outcome model implies: the spread of the calls' imputed costs
 * under the target, plus what weighing adds, (E[1/π] − 1) × E[(imputed − predicted)²] over the calls
 * some rung answers.
 *
 * @remarks
 * E[1/π], the mean over calls of one over the chance each had of opening with the target, is
 * Σ w² / n over the calls that did (each stands for 1/π calls and carries 1/π). It reads every call's
 * imputed cost, so the rare dear climbs that a hundred matching calls can miss still set the spread.
 */
export function modelledSpread(
  weights: readonly number[],
  imputed: readonly number[],
  predicted: readonly number[],
  answerable: readonly boolean[],
): number {
  const n = weights.length;
  const meanInverse = weights.reduce((s, w) => s + w * w, 0) / n;
  const residual = imputed.reduce((s, value, i) => s + (answerable[i] ? (value - (predicted[i] as number)) ** 2 : 0), 0) / n;
  return Math.sqrt((sampleVariance(imputed) + Math.max(0, meanInverse - 1) * residual) / n);
}

/** The interval, widened to at least ±Z·`standardError` about its value. */
function widened(interval: Interval, standardError: number): Interval {
  const half = Math.max(interval.high - interval.value, Z_95 * standardError);
  return { value: interval.value, low: interval.value - half, high: interval.value + half };
}

/**
 * The paired comparison: a ratio of means for cost (delta method), a mean difference for success.
 *
 * @remarks
 * `costStandardError`, the outcome model's standard error of the target's cost ({@link modelledSpread}),
 * is a floor on the cost bound as it is on DR's own interval (divided by the logged cost: the logged
 * side is no uncertainty of the target's).
 */
export function versusLog(
  targetCost: readonly number[],
  loggedCost: readonly number[],
  targetSuccess: readonly number[],
  loggedSuccess: readonly number[],
  costStandardError = 0,
): VersusLog {
  const n = loggedCost.length;
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const logged = mean(loggedCost);
  const ratio = mean(targetCost) / logged;
  // Var(mean(t) / mean(y)) ≈ Var(t − R·y) / (n · ȳ²), R the ratio.
  const linear = targetCost.map((t, i) => t - ratio * (loggedCost[i] as number));
  const ratioHalf = (Z_95 * Math.max(Math.sqrt(sampleVariance(linear) / n), costStandardError)) / logged;
  const difference = meanInterval(targetSuccess.map((t, i) => t - (loggedSuccess[i] as number)));
  return {
    loggedCost: logged,
    loggedSuccess: mean(loggedSuccess),
    costChange: ratio - 1,
    costChangeLow: ratio - 1 - ratioHalf,
    costChangeHigh: ratio - 1 + ratioHalf,
    successChange: difference.value,
    successChangeLow: difference.low,
    successChangeHigh: difference.high,
  };
}

function sampleVariance(terms: readonly number[]): number {
  const n = terms.length;
  const mean = terms.reduce((s, t) => s + t, 0) / n;
  return n > 1 ? terms.reduce((s, t) => s + (t - mean) ** 2, 0) / (n - 1) : 0;
}

/** Why the policy is beyond what an opener log can weigh, or null when it is an opener policy. */
function unsupportedPart(policy: RoutingPolicy): string | null {
  if (policy.explore !== undefined) {
    return "explore= changes each call's chance of opening with every rung, and a decision row records only the chance its own opener had (not how many rungs were unmeasured, nor which was the greedy one), so no weight for another rate can be worked out; check it with rung replay --policy";
  }
  if (policy.skip.length && policy.open === undefined) {
    return "skip= without open= leaves the router to pick the opener among the other rungs, and a decision row does not record which would have opened in the skipped model's place; estimate open=MODEL,skip=MODEL, or check it with rung replay --policy";
  }
  if (policy.open === undefined) return 'the policy names no opener';
  return null;
}

interface Interval {
  value: number;
  low: number;
  high: number;
}

function join(cost: Interval, success: Interval): MethodEstimate {
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  return {
    cost: cost.value,
    costLow: Math.max(0, cost.low),
    costHigh: cost.high,
    success: success.value,
    successLow: clamp(success.low),
    successHigh: clamp(success.high),
  };
}

/** The mean of per-call terms, with the normal interval from their spread. */
function meanInterval(terms: readonly number[]): Interval {
  const n = terms.length;
  const mean = terms.reduce((s, t) => s + t, 0) / n;
  const half = Z_95 * Math.sqrt(sampleVariance(terms) / n);
  return { value: mean, low: mean - half, high: mean + half };
}

export function ips(weights: readonly number[], outcomes: readonly number[]): Interval {
  return meanInterval(weights.map((w, i) => w * (outcomes[i] as number)));
}

/** Σwy / Σw, with the delta-method (sandwich) interval. */
export function snips(weights: readonly number[], outcomes: readonly number[]): Interval {
  const sum = weights.reduce((s, w) => s + w, 0);
  const value = weights.reduce((s, w, i) => s + w * (outcomes[i] as number), 0) / sum;
  const spread = weights.reduce((s, w, i) => s + (w * ((outcomes[i] as number) - value)) ** 2, 0);
  const half = (Z_95 * Math.sqrt(spread)) / sum;
  return { value, low: value - half, high: value + half };
}

/**
 * Each call's DR term: the model's prediction, corrected by the weighed residual where the call opened
 * as the target would; a call marked not `modelled` (one every rung failed, whose cost any opener
 * repeats) enters as its logged outcome.
 */
function doublyRobustTerms(
  weights: readonly number[],
  outcomes: readonly number[],
  predicted: readonly number[],
  modelled?: readonly boolean[],
): number[] {
  return weights.map((w, i) =>
    modelled && !modelled[i]
      ? (outcomes[i] as number)
      : (predicted[i] as number) + w * ((outcomes[i] as number) - (predicted[i] as number)),
  );
}

interface Tally {
  graded: number;
  passed: number;
  attempts: number;
  cost: number;
  /** Attempts that did not pass, and what the call spent after each of them. */
  notPassed: number;
  costAfter: number;
}

const emptyTally = (): Tally => ({ graded: 0, passed: 0, attempts: 0, cost: 0, notPassed: 0, costAfter: 0 });

/** Calls of a class that opened with a model, and what they cost in all. */
interface Opened {
  calls: number;
  cost: number;
}

/** A rung's attempts in one position (opening, or after a failure), weighed: how many, passes, cost. */
interface Seen {
  weight: number;
  passed: number;
  cost: number;
}

const emptySeen = (): Seen => ({ weight: 0, passed: 0, cost: 0 });

/**
 * One {@link OutcomeModel} fit for several estimates of one log, made by the first estimate that needs it.
 *
 * @remarks
 * Fitted on first need rather than up front because an estimate refused early (a model seldom a
 * candidate, or too few openings) needs no model, and the What if should then cost no fit at all, as
 * before. Sharing changes no figure: the model reads only the log, and its one cache (a rung's expected
 * pass and cost) holds values that depend only on the model. It is bound to the calls it was made for,
 * so an estimate of another log cannot be handed a model of the wrong one.
 */
export class SharedOutcomeModel {
  private model: OutcomeModel | undefined;

  constructor(private readonly calls: readonly LoggedCall[]) {}

  /** The model of `calls` (the very array this was made for), fitted in steps the first time. */
  *fitting(calls: readonly LoggedCall[], callsPerSlice: number): Generator<void, OutcomeModel> {
    if (calls !== this.calls) throw new Error('a shared outcome model is for the calls it was made for');
    if (!this.model) this.model = yield* OutcomeModel.fitting(this.calls, callsPerSlice);
    return this.model;
  }
}

/**
 * Per (class, model): the pass rate of a model's attempts, what an attempt costs, and what a call
 * spends after it when it does not pass — so the cost of opening with X is X's attempt plus, when X
 * fails, the climb that follows — and, where calls did open with X, what they cost.
 *
 * @remarks
 * A class the model was never seen in borrows the model's rate over all classes (and a model seen
 * nowhere, a coin's); a thin class is pulled towards that rate by {@link CLASS_PRIOR_WEIGHT} calls.
 * The cost of calls that opened with X leaves out calls every rung failed: the estimate takes those
 * as logged, so the model predicts only the calls some rung answers.
 */
export class OutcomeModel {
  private readonly expectations = new Map<string, { pass: number; cost: number }>();

  private constructor(
    private readonly byClass: Map<string, Tally>,
    private readonly byModel: Map<string, Tally>,
    private readonly opened: Map<string, Opened>,
    private readonly asOpener: Map<string, Seen>,
    private readonly afterFailure: Map<string, Seen>,
  ) {}

  static fit(calls: readonly LoggedCall[]): OutcomeModel {
    return toEnd(OutcomeModel.fitting(calls, Number.POSITIVE_INFINITY));
  }

  /** {@link fit} as steps, yielding after every `callsPerSlice` calls so a caller may pause there. */
  static *fitting(calls: readonly LoggedCall[], callsPerSlice: number): Generator<void, OutcomeModel> {
    const byClass = new Map<string, Tally>();
    const byModel = new Map<string, Tally>();
    const opened = new Map<string, Opened>();
    const asOpener = new Map<string, Seen>();
    const afterFailure = new Map<string, Seen>();
    for (const [index, call] of calls.entries()) {
      if (index > 0 && index % callsPerSlice === 0) yield;
      const key = `${call.classKey}\u0000${call.opener}`;
      if (!call.everyRungFailed) {
        const entry = opened.get(key) ?? { calls: 0, cost: 0 };
        opened.set(key, { calls: entry.calls + 1, cost: entry.cost + call.cost });
      }
      call.attempts.forEach((attempt, index) => {
        const after = call.attempts.slice(index + 1).reduce((s, a) => s + a.cost, 0);
        for (const [map, key] of [
          [byClass, `${call.classKey}\u0000${attempt.model}`],
          [byModel, attempt.model],
        ] as const) {
          const tally = map.get(key) ?? emptyTally();
          tally.attempts++;
          tally.cost += attempt.cost;
          if (attempt.passed !== null) {
            tally.graded++;
            if (attempt.passed) tally.passed++;
          }
          if (attempt.passed !== true) {
            tally.notPassed++;
            tally.costAfter += after;
          }
          map.set(key, tally);
        }
        if (attempt.passed === null) return;
        // An opener stands for 1/propensity calls of its class; a later rung for the calls that failed before it.
        const [map, weight] = index === 0 ? [asOpener, 1 / call.propensity] : [afterFailure, 1];
        const seen = map.get(`${call.classKey}\u0000${attempt.model}`) ?? emptySeen();
        seen.weight += weight;
        seen.passed += attempt.passed ? weight : 0;
        seen.cost += weight * attempt.cost;
        map.set(`${call.classKey}\u0000${attempt.model}`, seen);
      });
    }
    return new OutcomeModel(byClass, byModel, opened, asOpener, afterFailure);
  }

  /** P(the model's answer passes) on a call of this class. */
  success(classKey: string, model: string): number {
    const overall = this.byModel.get(model) ?? emptyTally();
    const prior = (overall.passed + 1) / (overall.graded + 2);
    const local = this.byClass.get(`${classKey}\u0000${model}`) ?? emptyTally();
    return (local.passed + CLASS_PRIOR_WEIGHT * prior) / (local.graded + CLASS_PRIOR_WEIGHT);
  }

  /**
   * USD a call of this class spends when it opens with the model, if some rung answers it: the mean of
   * the calls that did, pulled towards {@link composedCost} by {@link CLASS_PRIOR_WEIGHT} calls.
   */
  cost(classKey: string, model: string): number {
    const opened = this.opened.get(`${classKey}\u0000${model}`) ?? { calls: 0, cost: 0 };
    return (opened.cost + CLASS_PRIOR_WEIGHT * this.composedCost(classKey, model)) / (opened.calls + CLASS_PRIOR_WEIGHT);
  }

  /** The model's attempt, and the climb after a miss, from every attempt of it in the class (or, unseen there, anywhere). */
  composedCost(classKey: string, model: string): number {
    const local = this.byClass.get(`${classKey}\u0000${model}`);
    const overall = this.byModel.get(model) ?? emptyTally();
    const source = local && local.attempts > 0 ? local : overall;
    const attempt = source.attempts > 0 ? source.cost / source.attempts : 0;
    const afterSource = local && local.notPassed > 0 ? local : overall;
    const after = afterSource.notPassed > 0 ? afterSource.costAfter / afterSource.notPassed : 0;
    return attempt + (1 - this.success(classKey, model)) * after;
  }

  /**
   * What this call would have cost had it opened with `target`, then climbed through the other
   * candidates (less `skip`) in their logged order: each rung's verdict and cost as the call's own climb saw them,
   * and for a rung it never tried, the expected pass and cost of that rung in the class.
   *
   * @remarks
   * A later rung's verdict on a call is that rung's outcome on the call whoever opened, so a call that
   * opened with a cheap rung and passed at its third tells how the target's climb would end on it
   * once the target fails. An untried opener takes the target's weighed rate as an opener of the class;
   * an untried later rung the rate of its attempts after a failure, the calls a climb brings it.
   */
  imputedCost(call: LoggedCall, target: string, skip: readonly string[] = []): number {
    const seen = new Map<string, LoggedAttempt>();
    for (const attempt of call.attempts) if (attempt.passed !== null && !seen.has(attempt.model)) seen.set(attempt.model, attempt);
    const rest = call.candidates.length > 0 ? call.candidates : call.attempts.map((attempt) => attempt.model);
    const order = [target, ...rest.filter((model) => model !== target && !skip.includes(model))];
    let climbing = 1;
    let cost = 0;
    order.forEach((model, index) => {
      if (climbing === 0) return;
      const known = seen.get(model);
      const rung = known ? { pass: known.passed ? 1 : 0, cost: known.cost } : this.expected(call.classKey, model, index === 0);
      cost += climbing * rung.cost;
      climbing *= 1 - rung.pass;
    });
    return cost;
  }

  /** A rung's pass rate and attempt cost in a class, as an opener or after a failure, falling back to all its attempts. */
  private expected(classKey: string, model: string, opening: boolean): { pass: number; cost: number } {
    // Asked once per untried rung of every call: the answer depends on three strings only, so it is kept.
    const asked = `${classKey}\u0000${model}\u0000${opening}`;
    const known = this.expectations.get(asked);
    if (known) return known;
    const found = this.expectedUncached(classKey, model, opening);
    this.expectations.set(asked, found);
    return found;
  }

  private expectedUncached(classKey: string, model: string, opening: boolean): { pass: number; cost: number } {
    const key = `${classKey}\u0000${model}`;
    const preferred = (opening ? this.asOpener : this.afterFailure).get(key);
    const other = (opening ? this.afterFailure : this.asOpener).get(key);
    const seen = preferred && preferred.weight > 0 ? preferred : other && other.weight > 0 ? other : undefined;
    if (seen) return { pass: seen.passed / seen.weight, cost: seen.cost / seen.weight };
    const tally = this.byModel.get(model) ?? emptyTally();
    return { pass: this.success(classKey, model), cost: tally.attempts > 0 ? tally.cost / tally.attempts : 0 };
  }
}
