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
 * DR's outcome model predicts each call, cross-fitted (crossFit.ts): a call's predicted cost and
 * first-try success under the target come from a fit on the other four fifths of the log, by its class,
 * its size (the prompt's input tokens) and whether any rung answered it, so no call is scored by a fit
 * that read it. The fit reads every graded attempt, not only openers: a later rung's verdict on a call
 * is an outcome of that rung too, and in a cascade those are most of what a dear model is ever seen doing.
 *
 * Every call is weighed, the calls every rung failed too. They used to enter at their logged cost,
 * unweighed, as if any opener climbed through every rung; but whether a climb reaches every rung
 * depends on where it opened, since the planner gives up on a call that looks unanswerable: in the
 * made-up cascade of the unit tests only a dear opener's climb reached all three rungs, and "always open
 * with the cheap rung" came out 21% too dear on average. Such calls are the dearest in a log, so on data
 * where they take half the spend the rule's error is a third of the estimate.
 *
 * DR's interval is the wider of two spreads: that of the per-call terms, and the one the outcome model
 * implies over every call, each call's cost under the target imputed from the verdicts its own climb
 * saw. The first alone missed the truth on 7 of 60 estimates in the validation (BENCHMARKS.md): a
 * climb after a failed opener is rare and dear, so a few matching calls that happened to miss those
 * climbs gave both a low mean and a low spread.
 *
 * Intervals are otherwise the normal approximation over the per-call terms (the sandwich form for
 * SNIPS). A skip is estimated with an opener (`open=X,skip=Y`): the opener's weight is known, and the
 * climb without Y is the logged one less Y's attempt, or imputed where Y was what answered. A skip
 * alone, or another exploration rate, changes each call's chance of opening with every rung, which a
 * decision row does not record (only its own opener's), so those are refused.
 */
import { answered, CROSS_FIT_FOLDS, crossFitted, foldOf, promptSizes, type CrossFitted } from './crossFit';
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
/** The other estimators measured beside the shipped three (`EstimateOptions.variants`); see {@link variantEstimates}. */
export type VariantMethod = 'dr-class' | 'dr-size' | 'dr-answered' | 'dr-terms' | 'sndr' | 'switch-dr' | 'clipped-dr';
/**
 * Whether the shipped DR's outcome model fits apart the calls some rung answered and those none did.
 *
 * @remarks
 * A call no rung answered costs the climb to where the planner gave up, 10–40 times an answered one, so
 * without it the residual of every such call that opened with the target is left to the weights. On
 * the generated `eleven-models` world at 10,000 logged calls the median 95% half-width went from ±11%
 * to ±8% and the share of estimates within ±30% from 70% to 100%, coverage unchanged (97%); on the
 * recorded outcomes at 3,000 calls from ±31% to ±19% (BENCHMARKS.md, "How sure the What if is").
 * Whether a call was answered is read from its own climb, so it can depend on the opener where a climb
 * gives up before a rung that would have answered: in the made-up cascade of the unit tests that costs
 * about 1% of bias.
 */
export const OUTCOME_BY_ANSWER = true;

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

/** A variant's estimate; a thresholded one says its threshold and the bias it accepts (USD per call). */
export interface VariantEstimate extends MethodEstimate {
  threshold?: number;
  bias?: number;
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
  /** The other estimators, when asked for (`EstimateOptions.variants`). */
  variants?: Partial<Record<VariantMethod, VariantEstimate>>;
  /** What the DR cost's variance is made of, for working out what more logging would narrow it to. */
  spread?: CostSpread;
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
  /** Also work out the other estimators ({@link VariantMethod}), for the benchmark. */
  variants?: boolean;
  /**
   * On a refusal for too few openings, still fit the outcome model and give {@link PolicyEstimate.spread},
   * so the What if can say how much logging would answer the question.
   */
  spreadWhenRefused?: boolean;
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
  // Too few openings: no number, but, when asked, what the log's imputed costs say more logging would do.
  function* tooFew(refused: string): Generator<void, PolicyEstimate> {
    if (!options.spreadWhenRefused) return { ...result, refused };
    return yield* spreadWhenRefused(log, supported, weights, target, options, callsPerSlice, { ...result, refused });
  }
  if (matching === 0) return yield* tooFew(`the log never opened a call with ${target}, so it says nothing about opening with it`);
  if (effectiveSampleSize < minimum) {
    return yield* tooFew(
      `the calls that opened with ${target} are worth ${effectiveSampleSize.toFixed(1)} calls once weighed, fewer than ${minimum}; an exploration floor on measured rungs (routing.exploreMeasured) makes the log answer this`,
    );
  }
  const skip = policy.skip;
  const skippedAnswered = supported.reduce((sum, call, i) => sum + (answeredBy(call, skip) ? (weights[i] as number) : 0), 0) / sum;
  if (skippedAnswered > MAX_SKIPPED_ANSWER_SHARE) {
    return {
      ...result,
      refused: `${skip.join(', ')} answered ${(100 * skippedAnswered).toFixed(0)}% of the calls that opened with ${target} (weighed), and the log shows little of what the climb would have done past ${skip.length === 1 ? 'it' : 'them'}; check it with rung replay --policy`,
    };
  }
  const { model, folds } = yield* fittedModels(log, options, callsPerSlice);
  const cost = skip.length
    ? yield* mapInSlices(supported, callsPerSlice, (call) => costWithout(call, skip, model, target))
    : supported.map((call) => call.cost);
  const success = supported.map((call) => (call.firstSuccess ? 1 : 0));
  const sizes = promptSizes(supported);
  const fit = (byAnswer: boolean) => crossFitted(supported, sizes, target, skip, folds, { byAnswer, callsPerSlice });
  const fitted = yield* fit(OUTCOME_BY_ANSWER);
  // Each call's cost under the target as its own climb shows it: the spread DR's interval is held to.
  const imputed = yield* imputedCosts(supported, model, target, skip, callsPerSlice);
  const everyCall = supported.map(() => true);
  const costTerms = doublyRobustTerms(weights, cost, fitted.cost);
  const costSpread = modelledSpread(weights, imputed, fitted.cost, everyCall);
  const successTerms = doublyRobustTerms(weights, success, fitted.success);
  const drCost = widened(meanInterval(costTerms), costSpread);
  const methods = {
    ips: join(ips(weights, cost), ips(weights, success)),
    snips: join(snips(weights, cost), snips(weights, success)),
    dr: join(drCost, meanInterval(successTerms)),
  };
  const variants = options.variants
    ? yield* variantEstimates({ supported, weights, cost, success, fitted, imputed, model, target, skip, callsPerSlice, fit })
    : undefined;
  return {
    ...result,
    methods,
    ...(variants ? { variants } : {}),
    spread: costSpreadParts(weights, costTerms, imputed, fitted.cost),
    versusLog: versusLog(costTerms, cost, successTerms, success, costSpread),
  };
}

/** The outcome model of the whole log and the cross-fit's fold models: shared when the options carry them. */
function* fittedModels(
  log: LoggedCalls,
  options: EstimateOptions,
  callsPerSlice: number,
): Generator<void, { model: OutcomeModel; folds: OutcomeModel[] }> {
  const model = options.outcomeModel
    ? yield* options.outcomeModel.fitting(log.calls, callsPerSlice)
    : yield* OutcomeModel.fitting(log.calls, callsPerSlice);
  const folds = options.outcomeModel
    ? yield* options.outcomeModel.foldsFitting(log.calls, callsPerSlice)
    : yield* foldModelsFitting(log.calls, callsPerSlice);
  return { model, folds };
}

/** Each call's cost under the target as its own climb shows it ({@link OutcomeModel.imputedCost}). */
function imputedCosts(
  calls: readonly LoggedCall[],
  model: OutcomeModel,
  target: string,
  skip: readonly string[],
  callsPerSlice: number,
): Generator<void, number[]> {
  return mapInSlices(calls, callsPerSlice, (call) => model.imputedCost(call, target, skip, stopAfter(call)));
}

/**
 * A refusal for too few openings, with the spread the log's imputed costs imply: what the What if
 * needs to say how much logging would answer the question, though the log cannot answer it yet.
 */
function* spreadWhenRefused(
  log: LoggedCalls,
  supported: readonly LoggedCall[],
  weights: readonly number[],
  target: string,
  options: EstimateOptions,
  callsPerSlice: number,
  refusal: PolicyEstimate,
): Generator<void, PolicyEstimate> {
  const { model, folds } = yield* fittedModels(log, options, callsPerSlice);
  const fitted = yield* crossFitted(supported, promptSizes(supported), target, [], folds, { byAnswer: OUTCOME_BY_ANSWER, callsPerSlice });
  const imputed = yield* imputedCosts(supported, model, target, [], callsPerSlice);
  const terms = doublyRobustTerms(
    weights,
    supported.map((call) => call.cost),
    fitted.cost,
  );
  return { ...refusal, spread: costSpreadParts(weights, terms, imputed, fitted.cost) };
}

/**
 * How far the imputed climb of a call no rung answered goes: as many attempts as its own climb made,
 * since the planner gives up on a call that looks unanswerable; a call some rung answered climbs until
 * the pass it is imputed to find.
 */
function stopAfter(call: LoggedCall): number | undefined {
  return answered(call) ? undefined : call.attempts.length;
}

/** The per-call figures the estimate's variants are worked out from. */
interface VariantInputs {
  supported: readonly LoggedCall[];
  weights: readonly number[];
  cost: readonly number[];
  success: readonly number[];
  fitted: CrossFitted;
  imputed: readonly number[];
  model: OutcomeModel;
  target: string;
  skip: readonly string[];
  callsPerSlice: number;
  fit: (byAnswer: boolean) => Generator<void, CrossFitted>;
}

/**
 * The estimators the shipped DR was chosen among, for the benchmark (`EstimateOptions.variants`).
 *
 * @remarks
 * - `dr-class`: the first DR, its outcome model a per-class mean, calls every rung failed at their
 *   logged cost unweighed, its interval held to the imputed spread.
 * - `dr-size`, `dr-answered`: cross-fitted on class and size, and on whether any rung answered.
 * - `dr-terms`: the shipped DR's interval from its terms' spread alone.
 * - `sndr`: the correction divided by Σw instead of n (self-normalised DR).
 * - `switch-dr`, `clipped-dr`: the correction dropped (switch) or each weight cut (clipped) above the
 *   threshold of {@link SWITCH_THRESHOLDS} that minimises the estimated squared error; each carries the
 *   bias that costs it, estimated as the correction it leaves out (`bias`), which its interval does not hold.
 */
function* variantEstimates(input: VariantInputs): Generator<void, Partial<Record<VariantMethod, VariantEstimate>>> {
  const { supported, weights, cost, success, fitted, imputed, model, target, skip, callsPerSlice } = input;
  const predictedCost = skip.length
    ? yield* classMeans(supported, callsPerSlice, (call) => model.imputedCost(call, target, skip, Number.POSITIVE_INFINITY, false))
    : yield* mapInSlices(supported, callsPerSlice, (call) => model.cost(call.classKey, target));
  const predictedSuccess = yield* mapInSlices(supported, callsPerSlice, (call) => model.success(call.classKey, target));
  const answerable = supported.map((call) => !call.everyRungFailed);
  const classCost = widened(
    meanInterval(doublyRobustTerms(weights, cost, predictedCost, answerable)),
    modelledSpread(
      weights,
      yield* mapInSlices(supported, callsPerSlice, (call) => model.imputedCost(call, target, skip, Number.POSITIVE_INFINITY, false)),
      predictedCost,
      answerable,
    ),
  );
  const everyCall = supported.map(() => true);
  const crossFit = (each: CrossFitted): MethodEstimate =>
    join(
      widened(meanInterval(doublyRobustTerms(weights, cost, each.cost)), modelledSpread(weights, imputed, each.cost, everyCall)),
      meanInterval(doublyRobustTerms(weights, success, each.success)),
    );
  const bySize = yield* input.fit(false);
  const byAnswer = yield* input.fit(true);
  return {
    'dr-class': join(classCost, meanInterval(doublyRobustTerms(weights, success, predictedSuccess))),
    'dr-size': crossFit(bySize),
    'dr-answered': crossFit(byAnswer),
    'dr-terms': join(
      meanInterval(doublyRobustTerms(weights, cost, fitted.cost)),
      meanInterval(doublyRobustTerms(weights, success, fitted.success)),
    ),
    sndr: join(selfNormalised(weights, cost, fitted.cost), selfNormalised(weights, success, fitted.success)),
    'switch-dr': thresholded('switch', weights, cost, success, fitted),
    'clipped-dr': thresholded('clip', weights, cost, success, fitted),
  };
}

/** Self-normalised DR: Σq/n + Σw(y − q)/Σw, with the delta-method interval. */
function selfNormalised(weights: readonly number[], outcomes: readonly number[], predicted: readonly number[]): Interval {
  const n = weights.length;
  const sum = weights.reduce((s, w) => s + w, 0);
  const residual = weights.reduce((s, w, i) => s + w * ((outcomes[i] as number) - (predicted[i] as number)), 0) / sum;
  const meanPredicted = predicted.reduce((s, q) => s + q, 0) / n;
  const value = meanPredicted + residual;
  const spread =
    sampleVariance(predicted) / n +
    weights.reduce((s, w, i) => s + (w * ((outcomes[i] as number) - (predicted[i] as number) - residual)) ** 2, 0) / (sum * sum);
  const half = Z_95 * Math.sqrt(spread);
  return { value, low: value - half, high: value + half };
}

/** Weight thresholds switch-DR and clipped DR choose among (the last keeps every weight: plain DR). */
export const SWITCH_THRESHOLDS = [2, 5, 10, 20, 50, 100, Number.POSITIVE_INFINITY];

/**
 * Switch-DR (the correction dropped on calls weighed above τ) or clipped DR (each weight cut to τ), τ the
 * threshold of {@link SWITCH_THRESHOLDS} with the least estimated squared error of the cost: the
 * variance of the terms plus the square of the correction left out, less that correction's own variance.
 */
function thresholded(
  kind: 'switch' | 'clip',
  weights: readonly number[],
  cost: readonly number[],
  success: readonly number[],
  fitted: CrossFitted,
): VariantEstimate {
  const n = weights.length;
  const at = (threshold: number) => {
    const kept = weights.map((w) => (kind === 'switch' ? (w > threshold ? 0 : w) : Math.min(w, threshold)));
    const left = weights.map((w, i) => w - (kept[i] as number));
    const terms = (outcomes: readonly number[], predicted: readonly number[]) => doublyRobustTerms(kept, outcomes, predicted);
    const leftOut = left.map((w, i) => w * ((cost[i] as number) - (fitted.cost[i] as number)));
    const bias = leftOut.reduce((s, x) => s + x, 0) / n;
    const costTerms = terms(cost, fitted.cost);
    const error = sampleVariance(costTerms) / n + Math.max(0, bias * bias - sampleVariance(leftOut) / n);
    return { threshold, bias, error, cost: meanInterval(costTerms), success: meanInterval(terms(success, fitted.success)) };
  };
  const best = SWITCH_THRESHOLDS.map(at).reduce((a, b) => (b.error < a.error ? b : a));
  return { ...join(best.cost, best.success), threshold: best.threshold, bias: best.bias };
}

/**
 * The DR cost's variance per call, in the parts more logging changes differently: what every call
 * carries (`perCall`, the spread of the predictions) and what only calls that opened with the target
 * carry, weighed (`weighed`, E[w²(y − q)²]), the larger of the terms' and the imputed residuals' figure;
 * and the mean squared residual of the imputed costs over every call (`residual`), which says how much
 * a call that opened with the target would carry at any exploration rate.
 */
export interface CostSpread {
  calls: number;
  /** The mean prediction, USD per call: the outcome model's own estimate of the target's cost. */
  predicted: number;
  perCall: number;
  weighed: number;
  residual: number;
  /** E[1/π] over the calls: Σw² / n. */
  meanInverse: number;
}

function costSpreadParts(
  weights: readonly number[],
  terms: readonly number[],
  imputed: readonly number[],
  predicted: readonly number[],
): CostSpread {
  const n = weights.length;
  const meanInverse = weights.reduce((s, w) => s + w * w, 0) / n;
  const residual = imputed.reduce((s, value, i) => s + (value - (predicted[i] as number)) ** 2, 0) / n;
  const perCall = sampleVariance(predicted);
  const weighed = Math.max(sampleVariance(terms) - perCall, Math.max(0, meanInverse - 1) * residual + sampleVariance(imputed) - perCall, 0);
  return { calls: n, predicted: predicted.reduce((s, q) => s + q, 0) / n, perCall, weighed, residual, meanInverse };
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
  // The climb imputed through every rung, as when skips were checked against replays (BENCHMARKS.md).
  if (answeredBy(call, skip)) return model.imputedCost(call, opener, skip, Number.POSITIVE_INFINITY, false);
  if (!answer && !call.everyRungFailed) return model.imputedCost(call, opener, skip, Number.POSITIVE_INFINITY, false);
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
  private folds: OutcomeModel[] | undefined;

  constructor(private readonly calls: readonly LoggedCall[]) {}

  /** The model of `calls` (the very array this was made for), fitted in steps the first time. */
  *fitting(calls: readonly LoggedCall[], callsPerSlice: number): Generator<void, OutcomeModel> {
    if (calls !== this.calls) throw new Error('a shared outcome model is for the calls it was made for');
    if (!this.model) this.model = yield* OutcomeModel.fitting(this.calls, callsPerSlice);
    return this.model;
  }

  /** The cross-fit's models of `calls`, one per fold, each fitted on the calls outside it, the first time. */
  *foldsFitting(calls: readonly LoggedCall[], callsPerSlice: number): Generator<void, OutcomeModel[]> {
    if (calls !== this.calls) throw new Error('a shared outcome model is for the calls it was made for');
    if (!this.folds) this.folds = yield* foldModelsFitting(this.calls, callsPerSlice);
    return this.folds;
  }
}

/** One outcome model per fold of the cross-fit, each fitted on every call outside its fold. */
function* foldModelsFitting(calls: readonly LoggedCall[], callsPerSlice: number): Generator<void, OutcomeModel[]> {
  const folds: OutcomeModel[] = [];
  for (let fold = 0; fold < CROSS_FIT_FOLDS; fold++) {
    folds.push(
      yield* OutcomeModel.fitting(
        calls.filter((call) => foldOf(call.call) !== fold),
        callsPerSlice,
      ),
    );
  }
  return folds;
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
    private readonly goneOn: Map<string, { reached: number; went: number }>,
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
    const goneOn = new Map<string, { reached: number; went: number }>();
    for (const [index, call] of calls.entries()) {
      if (index > 0 && index % callsPerSlice === 0) yield;
      // After each of its first failures, whether the climb went on to another rung.
      for (let failed = 1; failed <= call.attempts.length; failed++) {
        if ((call.attempts[failed - 1] as LoggedAttempt).passed === true) break;
        const key = `${call.classKey}\u0000${failed}`;
        const entry = goneOn.get(key) ?? { reached: 0, went: 0 };
        entry.reached++;
        if (failed < call.attempts.length) entry.went++;
        goneOn.set(key, entry);
      }
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
    return new OutcomeModel(byClass, byModel, opened, asOpener, afterFailure, goneOn);
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
  imputedCost(
    call: LoggedCall,
    target: string,
    skip: readonly string[] = [],
    stopAfter: number = Number.POSITIVE_INFINITY,
    givesUp = true,
  ): number {
    const seen = new Map<string, LoggedAttempt>();
    for (const attempt of call.attempts) if (attempt.passed !== null && !seen.has(attempt.model)) seen.set(attempt.model, attempt);
    const rest = call.candidates.length > 0 ? call.candidates : call.attempts.map((attempt) => attempt.model);
    const order = [target, ...rest.filter((model) => model !== target && !skip.includes(model))];
    let climbing = 1;
    let cost = 0;
    order.forEach((model, index) => {
      if (climbing === 0 || index >= stopAfter) return;
      // A climb past its first rung goes on only as often as the log's climbs went on after as many failures.
      if (index > 0 && givesUp) climbing *= this.goesOn(call.classKey, index);
      const known = seen.get(model);
      const rung = known ? { pass: known.passed ? 1 : 0, cost: known.cost } : this.expected(call.classKey, model, index === 0);
      cost += climbing * rung.cost;
      climbing *= 1 - rung.pass;
    });
    return cost;
  }

  /**
   * The share of the class's climbs that went on to another rung after `failed` failures, one climb
   * that went on presumed, so a count never seen reads as going on.
   *
   * @remarks
   * The planner gives up on a call that looks unanswerable, and the imputed climb of a call whose own
   * climb never reached the dear rungs went through every one of them: on a made-up cascade whose
   * climbs give up after two failures, that made the imputed spread, DR's interval floor, three times
   * the terms' own.
   */
  private goesOn(classKey: string, failed: number): number {
    const entry = this.goneOn.get(`${classKey}\u0000${failed}`) ?? { reached: 0, went: 0 };
    return (entry.went + 1) / (entry.reached + 1);
  }

  /** P(the model passes) on a call of the class, as an opener (weighed by propensity) or after a failure. */
  passRate(classKey: string, model: string, opening: boolean): number {
    return this.expected(classKey, model, opening).pass;
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
