/**
 * The replay: recorded prompts routed through the real router, so a routing policy is judged on real
 * outcomes before anyone trusts it.
 *
 * @remarks
 * The router learns a model's outcome on a prompt only by calling it: the attempt function is the only
 * code that reads a row's grades, and it reads the one model the router chose. The baselines (best
 * single model, oracle, price-order cascade) are computed from the whole table, as hindsight is their
 * point.
 */
import { shaped } from '../classKey';
import { systemClock, type Clock } from '../clock';
import type { DecisionSink } from '../decisions/decision';
import type { Ledger } from '../ledger/ledger';
import { FLUSH_INTERVAL_MS } from '../files/flushTimer';
import { MemoryLedger } from '../ledger/memoryLedger';
import { callCost, PanelError, waitWorthPerMinute, type ModelSpec, type Panel, type Tradeoff } from '../panel';
import { ability, MIN_GRADED } from '../ratings';
import { seededRandom, shuffle, type Random } from '../random';
import type { CallPricer } from '../routing/pricing';
import type { PromptText } from '../signal/promptFeatures';
import { Router } from '../routing/router';
import { RoutingError } from '../routing/rank';
import type { AttemptOutcome, AttemptRecord, Candidate, Ranking } from '../routing/types';
import { confidenceClimb, judgeConfidence } from '../confidence/confidenceClimb';
import { unreadReason } from '../confidence/confidenceVerifier';
import { ConfidenceLearner, OPENING, type ConfidencePlan } from '../confidence/confidenceLearner';
import { runOnlineLearner, type OnlineLearnerScore } from './onlineLearner';
import type { ModelOutcome, OutcomeRow } from './outcomes';
import { PolicySpecError, type RoutingPolicy } from '../evaluation/policy';
import { WaitTally, type WaitScore } from './waitTally';

export type ReplayVerifier =
  | { kind: 'perfect' }
  | { kind: 'confidence'; threshold: number }
  /**
   * The confidence check that ships: thresholds per model and class learned during the run from the
   * grades of the answers it paid for, and the climb planned from them (src/core/confidence).
   * `multiple` prices a wrong answer in calls to the dearest rung.
   */
  | { kind: 'learned-confidence'; multiple: number }
  | { kind: 'noisy'; falsePass: number; falseFail: number };

/**
 * The confidence a `confidence` verifier asks for by default: a log-probability of −0.1, i.e. the
 * model put about 90% on its own answer.
 */
export const DEFAULT_CONFIDENCE_THRESHOLD = -0.1;

/**
 * How much wall time a replay runs between saves of what it learned, ms: the ledger's own batching
 * interval, so a killed replay loses at most the last second, like any other writer.
 *
 * @remarks
 * The ledger's timer cannot do this for a replay. Every attempt reads a table, so `route` resolves
 * through microtasks only, the event loop never reaches its timers, and a replay of the recorded
 * outcomes (about 2 s) killed at any point before its end kept nothing.
 */
export const REPLAY_SAVE_INTERVAL_MS = FLUSH_INTERVAL_MS;

export interface ReplayOptions {
  rows: readonly OutcomeRow[];
  models: readonly string[];
  /** Providers, roles, caps and prices; without it each model is its own provider priced at its mean recorded cost. */
  panel?: Panel;
  verifier: ReplayVerifier;
  classKey: 'family' | 'subfamily';
  /** Overrides the panel's exploration rate. */
  explore?: number;
  /** Overrides the panel's tradeoff. */
  tradeoff?: Tradeoff;
  /** Overrides the panel's exploration floor on measured rungs (`routing.exploreMeasured`). */
  exploreMeasured?: number;
  /** Overrides what the panel says a minute of the user's wait is worth, USD (`routing.waitWorth`). */
  waitWorth?: number;
  /**
   * A policy to run instead of the panel's own choice: `open` pins the opener on every call (the
   * panel's later rungs kept as fallbacks), `skip` takes models off the panel, `explore` sets the rate.
   */
  policy?: RoutingPolicy;
  /** The policy as the user wrote it (`open=qwen3:14b`), for the decision rows; absent with Rung's own. */
  policySpec?: string;
  /**
   * The prompts' text by prompt id, for the per-prompt signal (`rung replay --prompts F`). Read as
   * features only, before any model is called, exactly as a live request's text is; a prompt with no
   * text here is routed on its class alone. Given, it turns the panel's `routing.promptSignal` on.
   */
  prompts?: ReadonlyMap<string, PromptText>;
  /** Shuffles the prompts and drives exploration and verifier noise. */
  seed: number;
  /** Route the prompts in the file's order rather than shuffled: for outcomes in time order, such as a drifting world. */
  inOrder?: boolean;
  sink?: DecisionSink;
  /**
   * Opens every call id (`RUN/PROMPT`), so two runs into one decision log never share one; the prompt
   * id alone when absent.
   *
   * @remarks
   * A log reads the last row of a call id as the truth about that call. Call ids made of the prompt
   * ids alone would make a second run's rows the truth about the first run's calls.
   */
  runId?: string;
  /**
   * With the learned confidence check: start from (and leave what was learned in) this learner; a
   * fresh one when absent.
   */
  confidenceLearner?: ConfidenceLearner;
  /** Start from (and leave what was learned in) this ledger; a fresh in-memory one when absent. */
  ledger?: Ledger;
  /**
   * Told how long each routed call took, ms, by `now`. The replay's attempts read a table, so this is
   * the router's own overhead: the benchmark's routing-decision figure.
   */
  timing?: { now: () => number; record: (elapsedMs: number, attempts: number) => void };
  /**
   * The wall clock the periodic save goes by ({@link REPLAY_SAVE_INTERVAL_MS}); the system's unless a
   * test drives it. Apart from the replay's own clock, which moves a second per call so decision rows
   * are the same for the same seed.
   */
  wallClock?: Clock;
  /**
   * Opener policies run beside every call, each from the ratings the router holds at that moment,
   * learning nothing and writing no row: what the call would have cost, and whether its first answer
   * would have passed, had that policy routed it with the router exactly as it then was.
   *
   * @remarks
   * The truth an estimate from this run's decision log aims at. A policy replayed after the run, from
   * the ratings it ended with, climbs as a router that has learned everything would; the log's climbs
   * were made by one that was still learning, and no estimate from the log can see that difference.
   * Only with the perfect or noisy check (the learned confidence check learns from every call it sees).
   */
  alongside?: { policies: readonly RoutingPolicy[]; record: (policy: number, cost: number, firstPassed: boolean) => void };
}

export interface PolicyScore {
  accuracy: number;
  /** USD. */
  cost: number;
  /** The wait to accepted answers, from the outcomes' recorded times; absent when some outcome has none. */
  wait?: WaitScore;
}

export interface ReplaySummary {
  items: number;
  /** What a minute of the user's wait was worth to the router, USD (the panel's, or the override). */
  waitWorth: number;
  /** `unroutable`: prompts no candidate could take (all pruned), counted unanswered. */
  policy: PolicyScore & { attempts: number; unroutable: number };
  bestSingle: PolicyScore & { model: string };
  oracle: PolicyScore;
  priceOrderCascade: PolicyScore;
  /** The simple online learner over the same prompts in the same order, under the same check. */
  onlineLearner: OnlineLearnerScore;
  ratings: { model: string; class: string; rating: number; ability: number; graded: number; ok: number }[];
  /**
   * Per class: Spearman's rank correlation between learned ability and true accuracy over all its
   * prompts (`rho`), the same over the models past the gate of graded evidence only (`pastGateRho`,
   * absent with fewer than 3 of them), and the same for the naive success rate ok/graded the cascade
   * saw (`naiveRho`).
   */
  rankCorrelation: { class: string; rho: number; pastGateRho?: number; naiveRho: number; models: number }[];
}

/**
 * Where the replay's decision rows go: the caller's sink, each row marked `source: "replay"` and with
 * the policy it ran.
 *
 * @remarks
 * A replay may write into the workspace's own decision log (`--ledger`), beside the user's calls, and
 * its rows carry the simulated clock so that a run is the same for the same seed. Unmarked, they read
 * as calls made on 2026-01-01; marked, a reader (and the ledger panel) can tell them apart.
 */
function replaySink(sink: DecisionSink | undefined, policySpec: string | undefined): DecisionSink {
  if (!sink) return { append: () => {} };
  return { append: (row) => sink.append({ ...row, source: 'replay', ...(policySpec ? { policy: policySpec } : {}) }) };
}

/** A clock that moves one second per routed call, so decision rows are the same for the same seed. */
class ReplayClock implements Clock {
  private time = Date.UTC(2026, 0, 1);
  now(): number {
    return this.time;
  }
  tick(): void {
    this.time += 1_000;
  }
}

export async function runReplay(options: ReplayOptions): Promise<ReplaySummary> {
  const { rows, models } = options;
  const meanCost = meanCosts(rows, models);
  const basePanel = options.panel ?? defaultReplayPanel(models);
  const problem = options.policy ? policyProblem(options.policy, basePanel) : null;
  if (problem) throw new PolicySpecError(problem);
  const panel = withOverrides(basePanel, options);
  checkPanelModels(panel, models);
  const random = seededRandom(options.seed);
  const noise = seededRandom(options.seed ^ 0x5bd1e995);
  const clock = new ReplayClock();
  const ledger = options.ledger ?? new MemoryLedger();
  const pricer = replayPricer(meanCost, rows, models);
  const router = new Router({ panel, ledger, clock, sink: replaySink(options.sink, options.policySpec), random, pricer });
  const beside = options.alongside ? alongsideRouters(options.alongside.policies, panel, ledger, clock, pricer, options) : [];
  const priceOrder = panel.models
    .map((spec, index) => ({
      spec,
      index,
      price: pricer(spec, false, { callId: '', classKey: '', verifiable: true }) ?? Number.POSITIVE_INFINITY,
    }))
    .sort((a, b) => a.price - b.price || a.index - b.index)
    .map((entry) => entry.spec.slug);

  const order = options.inOrder ? [...rows] : shuffle([...rows], random);
  const timed = everyOutcomeTimed(rows, models);
  const waits = new WaitTally();
  let correct = 0;
  let cost = 0;
  let attempts = 0;
  let unroutable = 0;
  const wall = options.wallClock ?? systemClock;
  let savedAt = wall.now();
  const learned =
    options.verifier.kind === 'learned-confidence'
      ? { learner: options.confidenceLearner ?? new ConfidenceLearner(), multiple: options.verifier.multiple }
      : undefined;
  const classOf = (row: OutcomeRow): string => (options.classKey === 'subfamily' ? shaped(row.family, row.subfamily) : row.family);
  const prices = classPriceList(rows, models, classOf);
  for (const row of order) {
    if (wall.now() - savedAt >= REPLAY_SAVE_INTERVAL_MS) {
      await saveProgress(ledger, options.sink);
      savedAt = wall.now();
    }
    clock.tick();
    const classKey = classOf(row);
    for (const [index, shadow] of beside.entries()) {
      const { cost, firstPassed } = await shadow(row, classKey);
      options.alongside?.record(index, cost, firstPassed);
    }
    const started = options.timing?.now();
    let result;
    let plan: ConfidencePlan | undefined;
    // The model whose answer the call took without reading its confidence, if any.
    let unread: string | undefined;
    const climb = learned
      ? (ranking: Ranking) => {
          plan = learned.learner.plan(
            classKey,
            ranking.candidates.map((candidate) => {
              const listed = prices.get(classKey)?.get(candidate.slug);
              return {
                slug: candidate.slug,
                price: listed?.answer ?? candidate.cost,
                listed: candidate.cost,
                readPrice: listed?.read ?? 0,
              };
            }),
            learned.multiple,
          );
          return confidenceClimb(plan, ranking);
        }
      : undefined;
    try {
      result = await router.route(
        {
          callId: options.runId === undefined ? row.id : `${options.runId}/${row.id}`,
          runId: row.trace ?? undefined,
          classKey,
          verifiable: true,
          ...promptOf(options.prompts, row.id),
          ...(options.policy?.open !== undefined ? { pinned: options.policy.open } : {}),
          ...(climb ? { climb } : {}),
        },
        async (candidate: Candidate): Promise<AttemptOutcome<ModelOutcome>> => {
          const outcome = row.m[candidate.slug] as ModelOutcome;
          const confidence = outcome.conf ?? undefined;
          if (plan) {
            // The confidence is read only where the plan finds it worth its price; an answer taken unread stands.
            const decision = plan.reads(candidate.slug);
            if (!decision.read) {
              unread = candidate.slug;
              return {
                verdict: 'unverified',
                verdictReason: unreadReason(candidate.slug, decision),
                cost: attemptCost(candidate.spec, outcome),
                inputTokens: outcome.ti,
                outputTokens: outcome.to,
                latencyMs: outcome.lat_ms,
                value: outcome,
              };
            }
            // The learned check reads the answer's confidence, never its grade: a row without one is unverified.
            const check = confidence === undefined ? undefined : judgeConfidence(plan, candidate.slug, confidence);
            return {
              verdict: check?.verdict ?? 'unverified',
              verdictReason: check?.reason ?? 'no confidence recorded',
              ...(confidence !== undefined ? { confidence } : {}),
              cost: attemptCost(candidate.spec, outcome) + readCost(outcome),
              inputTokens: outcome.ti,
              outputTokens: outcome.to,
              latencyMs: outcome.lat_ms,
              value: outcome,
            };
          }
          // The one place a grade is read: the model the router chose, at the moment it chose it.
          return {
            verdict: verdictFor(outcome, options.verifier, noise) ? 'pass' : 'fail',
            // One fixed confidence threshold reads every answer's confidence, and pays for each read.
            cost: attemptCost(candidate.spec, outcome) + (options.verifier.kind === 'confidence' ? readCost(outcome) : 0),
            inputTokens: outcome.ti,
            outputTokens: outcome.to,
            latencyMs: outcome.lat_ms,
            value: outcome,
          };
        },
      );
    } catch (error) {
      // A prompt no rung may take (every candidate capped or busy) is unanswered, not the end of the run.
      if (!(error instanceof RoutingError)) throw error;
      unroutable++;
      waits.add(0, false);
      continue;
    }
    if (started !== undefined) options.timing?.record(options.timing.now() - started, result.attempts.length);
    if (learned && plan) learnConfidence(learned.learner, classKey, plan, result.attempts, unread);
    attempts += result.attempts.length;
    for (const attempt of result.attempts) cost += attempt.cost ?? 0;
    const last = result.attempts[result.attempts.length - 1];
    if (last?.value?.c === 1) correct++;
    waits.add(
      result.attempts.reduce((sum, attempt) => sum + (attempt.value?.lat_ms ?? 0), 0),
      last?.verdict === 'pass',
    );
  }
  await ledger.flush();

  const entries = ledger.entries();
  return {
    items: rows.length,
    waitWorth: waitWorthPerMinute(panel),
    policy: { accuracy: correct / rows.length, cost, attempts, unroutable, ...(timed ? { wait: waits.score() } : {}) },
    bestSingle: bestSingle(rows, models, timed),
    oracle: oracle(rows, priceOrder, timed),
    priceOrderCascade: priceOrderCascade(rows, priceOrder, options.verifier, seededRandom(options.seed ^ 0x1b873593), timed),
    onlineLearner: onlineLearner(order, panel, pricer, options),
    ratings: entries.map((entry) => ({
      model: entry.model,
      class: entry.classKey,
      rating: entry.rating,
      ability: ability(entry.rating),
      graded: entry.graded,
      ok: entry.ok,
    })),
    rankCorrelation: rankCorrelations(rows, entries, options.classKey),
  };
}

/** A read of the live ledger that learns nothing, so a policy run beside a call leaves the router as it was. */
class ReadOnlyLedger implements Ledger {
  constructor(private readonly inner: Ledger) {}
  snapshot(now: number) {
    return this.inner.snapshot(now);
  }
  observe(): void {}
  alias(): void {}
  spawnStarted(): void {}
  spawnEnded(): void {}
  entries() {
    return this.inner.entries();
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** One router per policy run beside the calls ({@link ReplayOptions.alongside}), each routing a row and saying what it cost. */
function alongsideRouters(
  policies: readonly RoutingPolicy[],
  panel: Panel,
  ledger: Ledger,
  clock: Clock,
  pricer: CallPricer,
  options: ReplayOptions,
): ((row: OutcomeRow, classKey: string) => Promise<{ cost: number; firstPassed: boolean }>)[] {
  if (options.verifier.kind === 'learned-confidence' || options.verifier.kind === 'confidence')
    throw new PolicySpecError('policies run beside the calls need the perfect or noisy check');
  const verifier = options.verifier;
  return policies.map((policy, index) => {
    const problem = policyProblem(policy, panel);
    if (problem) throw new PolicySpecError(problem);
    const own = { ...panel, models: panel.models.filter((model) => !policy.skip.includes(model.slug)) };
    // Its own draws, so the run's exploration and noise are the same with or without it.
    const noise = seededRandom((options.seed ^ 0x2545f491) + index);
    const router = new Router({
      panel: own,
      ledger: new ReadOnlyLedger(ledger),
      clock,
      sink: { append: () => {} },
      random: seededRandom(options.seed + index + 1),
      pricer,
    });
    return async (row, classKey) => {
      try {
        const result = await router.route(
          {
            callId: `alongside-${index}/${row.id}`,
            classKey,
            verifiable: true,
            ...promptOf(options.prompts, row.id),
            ...(policy.open !== undefined ? { pinned: policy.open } : {}),
          },
          async (candidate: Candidate): Promise<AttemptOutcome<ModelOutcome>> => {
            const outcome = row.m[candidate.slug] as ModelOutcome;
            return {
              verdict: verdictFor(outcome, verifier, noise) ? 'pass' : 'fail',
              cost: attemptCost(candidate.spec, outcome),
              value: outcome,
            };
          },
        );
        return {
          cost: result.attempts.reduce((sum, attempt) => sum + (attempt.cost ?? 0), 0),
          firstPassed: result.attempts[0]?.verdict === 'pass',
        };
      } catch (error) {
        if (!(error instanceof RoutingError)) throw error;
        return { cost: 0, firstPassed: false };
      }
    };
  });
}

/**
 * Teaches the confidence learner one call, after it ended: the confidences read, in the order tried,
 * and the grade of every answer the call paid for — as a test or the user would grade them later.
 *
 * @remarks
 * Only attempts the router made are read, so no model's grade on a prompt it was not asked ever reaches
 * the learner; and only after the call, so no grade steered the call it belongs to.
 */
function learnConfidence(
  learner: ConfidenceLearner,
  classKey: string,
  plan: ConfidencePlan,
  attempts: readonly AttemptRecord<ModelOutcome>[],
  unread: string | undefined,
): void {
  const answers = plan.answers();
  learner.observeReads(classKey, answers);
  for (const answer of answers) {
    const attempt = attempts.find((each) => each.model === answer.model);
    if (attempt?.value) learner.observeGrade(classKey, answer.model, answer.logprob, attempt.value.c === 1, answer.incoming);
  }
  // An answer taken without reading its confidence closes the call; its grade says what such answers are worth.
  const taken = unread === undefined ? undefined : attempts.find((each) => each.model === unread);
  if (taken?.value) learner.observeUnread(classKey, taken.model, taken.value.c === 1, answers[answers.length - 1]?.state ?? OPENING);
}

/**
 * What each model's answer costs, and reading its confidence beyond the answer call, per class: the
 * means over the class's prompts of the recorded answer cost and of the source's recorded cost less it
 * — a price list per class, as the router learns one from what its attempts cost (ratings.ts,
 * `observedPrice`), not a peek at the prompt at hand.
 */
function classPriceList(
  rows: readonly OutcomeRow[],
  models: readonly string[],
  classOf: (row: OutcomeRow) => string,
): Map<string, Map<string, { answer: number; read: number }>> {
  const sums = new Map<string, { count: number; cost: Map<string, { answer: number; read: number }> }>();
  for (const row of rows) {
    const entry = sums.get(classOf(row)) ?? { count: 0, cost: new Map<string, { answer: number; read: number }>() };
    entry.count++;
    for (const model of models) {
      const outcome = row.m[model];
      if (!outcome) continue;
      const sum = entry.cost.get(model) ?? { answer: 0, read: 0 };
      entry.cost.set(model, { answer: sum.answer + outcome.cost, read: sum.read + readCost(outcome) });
    }
    sums.set(classOf(row), entry);
  }
  return new Map(
    [...sums].map(([classKey, entry]) => [
      classKey,
      new Map([...entry.cost].map(([model, sum]) => [model, { answer: sum.answer / entry.count, read: sum.read / entry.count }])),
    ]),
  );
}

/**
 * USD it took to read this answer's confidence beyond the answer call: the source's recorded cost less
 * the answer's, 0 where the confidence came with the answer (its own token's log-probability).
 */
function readCost(outcome: ModelOutcome): number {
  return outcome.cost_src !== undefined && outcome.cost_src > outcome.cost ? outcome.cost_src - outcome.cost : 0;
}

/** Whether the check is the model's own confidence, which must be read (and on some classes paid for) to judge. */
function readsConfidence(verifier: ReplayVerifier): boolean {
  return verifier.kind === 'confidence' || verifier.kind === 'learned-confidence';
}

/**
 * Lands what the replay has learned so far and lets the event loop turn once.
 *
 * @remarks
 * The turn lets timers due meanwhile run: the ledger's refresh, a lock retry, a signal handler. A
 * failed save does not end the run: the ledger has reported it (`save-failed`) and kept the queue,
 * and the save at the end tries again.
 */
async function saveProgress(ledger: Ledger, sink: DecisionSink | undefined): Promise<void> {
  await ledger.flush().catch(() => undefined);
  await sink?.flush?.().catch(() => undefined);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

function promptOf(prompts: ReadonlyMap<string, PromptText> | undefined, id: string): { prompt?: PromptText } {
  const prompt = prompts?.get(id);
  return prompt ? { prompt } : {};
}

/** The simple learner over the prompts in the order the router met them, priced by the router's price list. */
function onlineLearner(order: readonly OutcomeRow[], panel: Panel, pricer: CallPricer, options: ReplayOptions): OnlineLearnerScore {
  const noise = seededRandom(options.seed ^ 0x27d4eb2f);
  const specs = new Map(panel.models.map((spec) => [spec.slug, spec]));
  return runOnlineLearner({
    rows: order,
    models: panel.models.map((spec) => ({
      slug: spec.slug,
      price: pricer(spec, false, { callId: '', classKey: '', verifiable: true }) ?? Number.POSITIVE_INFINITY,
    })),
    classOf: (row) => (options.classKey === 'subfamily' ? shaped(row.family, row.subfamily) : row.family),
    verdict: (outcome) => verdictFor(outcome, options.verifier, noise),
    costOf: (slug, outcome) => attemptCost(specs.get(slug) as ModelSpec, outcome),
    ...(readsConfidence(options.verifier) ? { readCostOf: readCost } : {}),
  });
}

/** Each model its own provider, no roles: the cold start is then a plain cheapest-first cascade. */
function defaultReplayPanel(models: readonly string[]): Panel {
  return {
    models: models.map((slug) => ({ slug, provider: slug })),
    maxOutputPrice: null,
    diversity: { maxConsecutivePerProvider: null, maxTotalPerProvider: null },
    profiles: {},
    // Every recorded model counts as paid; the replay measures exploration over all of them.
    routing: { explore: 0, requireEvidence: false, tradeoff: 'quality', explorePaid: true },
    providers: Object.fromEntries(models.map((slug) => [slug, { kind: 'replay' as const }])),
  };
}

function withOverrides(panel: Panel, options: ReplayOptions): Panel {
  const skip = options.policy?.skip ?? [];
  const exploreMeasured = options.exploreMeasured ?? panel.routing.exploreMeasured;
  return {
    ...panel,
    models: skip.length ? panel.models.filter((model) => !skip.includes(model.slug)) : panel.models,
    routing: {
      ...panel.routing,
      explore: options.policy?.explore ?? options.explore ?? panel.routing.explore,
      tradeoff: options.tradeoff ?? panel.routing.tradeoff,
      ...(exploreMeasured ? { exploreMeasured } : {}),
      // Prompts handed to the replay are there to be read: the signal and the guessing floor plan on them.
      ...(options.prompts ? { promptSignal: true } : {}),
      ...(options.waitWorth !== undefined ? { waitWorth: options.waitWorth } : {}),
    },
  };
}

/** Whether every model's outcome on every prompt says how long it took: the wait is reported only then. */
function everyOutcomeTimed(rows: readonly OutcomeRow[], models: readonly string[]): boolean {
  return rows.every((row) => models.every((model) => row.m[model]?.lat_ms !== undefined));
}

/** Why a policy cannot run on this panel (it opens with or skips a model the panel lacks), or null. */
export function policyProblem(policy: RoutingPolicy, panel: Panel): string | null {
  const slugs = panel.models.map((model) => model.slug);
  const unknown = [...(policy.open !== undefined ? [policy.open] : []), ...policy.skip].filter((slug) => !slugs.includes(slug));
  if (unknown.length) return `the policy names ${unknown.map((slug) => `"${slug}"`).join(', ')}, not on the panel (${slugs.join(', ')})`;
  if (policy.skip.length >= slugs.length) return 'the policy skips every model on the panel';
  return null;
}

/** One line per panel model the outcomes do not grade, naming its position in the panel file. */
export function ungradedPanelModels(panel: Panel, models: readonly string[]): string[] {
  return panel.models.flatMap((model, index) =>
    models.includes(model.slug)
      ? []
      : [`models[${index}].slug: "${model.slug}" is not graded by the outcomes (graded: ${models.join(', ')})`],
  );
}

function checkPanelModels(panel: Panel, models: readonly string[]): void {
  const issues = ungradedPanelModels(panel, models);
  if (issues.length) throw new PanelError('the replay panel', issues);
}

function meanCosts(rows: readonly OutcomeRow[], models: readonly string[]): Map<string, number> {
  return new Map(models.map((model) => [model, rows.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0) / rows.length]));
}

/**
 * Prices a replayed call before it is made: the panel's $/M prices over the model's mean recorded
 * tokens, or, with no price, the model's mean recorded cost — a price list, not a peek at this prompt.
 */
function replayPricer(meanCost: Map<string, number>, rows: readonly OutcomeRow[], models: readonly string[]): CallPricer {
  const meanTokens = new Map(
    models.map((model) => [
      model,
      {
        input: rows.reduce((sum, row) => sum + (row.m[model]?.ti ?? 0), 0) / rows.length,
        output: rows.reduce((sum, row) => sum + (row.m[model]?.to ?? 0), 0) / rows.length,
      },
    ]),
  );
  return (spec) => {
    const tokens = meanTokens.get(spec.slug);
    if (spec.price && tokens) return callCost(spec.price, tokens.input, tokens.output);
    return meanCost.get(spec.slug) ?? null;
  };
}

function attemptCost(spec: ModelSpec, outcome: ModelOutcome): number {
  if (spec.price && outcome.ti !== undefined && outcome.to !== undefined) {
    return callCost(spec.price, outcome.ti, outcome.to);
  }
  return outcome.cost;
}

function verdictFor(outcome: ModelOutcome, verifier: ReplayVerifier, noise: Random): boolean {
  switch (verifier.kind) {
    case 'perfect':
      return outcome.c === 1;
    case 'confidence':
      return (outcome.conf ?? Number.NEGATIVE_INFINITY) >= verifier.threshold;
    case 'learned-confidence':
      // The baselines (price-order cascade, simple learner) have no plan to learn into: they keep the
      // fixed default threshold, which BENCHMARKS.md says beside their figures.
      return (outcome.conf ?? Number.NEGATIVE_INFINITY) >= DEFAULT_CONFIDENCE_THRESHOLD;
    case 'noisy': {
      const draw = noise();
      if (outcome.c === 1) return draw >= verifier.falseFail;
      return draw < verifier.falsePass;
    }
  }
}

/** The most accurate model alone (the cheaper of equals); its answer counts as accepted when it is right. */
function bestSingle(rows: readonly OutcomeRow[], models: readonly string[], timed: boolean): PolicyScore & { model: string } {
  let best = { model: '', accuracy: -1, cost: 0 };
  for (const model of models) {
    const accuracy = rows.reduce((sum, row) => sum + (row.m[model]?.c ?? 0), 0) / rows.length;
    const cost = rows.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0);
    if (accuracy > best.accuracy || (accuracy === best.accuracy && cost < best.cost)) best = { model, accuracy, cost };
  }
  if (!timed) return best;
  const waits = new WaitTally();
  for (const row of rows) waits.add(row.m[best.model]?.lat_ms ?? 0, row.m[best.model]?.c === 1);
  return { ...best, wait: waits.score() };
}

/**
 * For each prompt, the cheapest model by the price list that got it right; a prompt nobody got right
 * costs the oracle nothing. (With the list prices of the recorded data this is the data README's oracle.)
 */
function oracle(rows: readonly OutcomeRow[], priceOrder: readonly string[], timed: boolean): PolicyScore {
  let correct = 0;
  let cost = 0;
  const waits = new WaitTally();
  for (const row of rows) {
    const right = priceOrder.map((model) => row.m[model] as ModelOutcome).find((outcome) => outcome.c === 1);
    waits.add(right?.lat_ms ?? 0, right !== undefined);
    if (!right) continue;
    correct++;
    cost += right.cost;
  }
  return { accuracy: correct / rows.length, cost, ...(timed ? { wait: waits.score() } : {}) };
}

/** Every model cheapest-first by the price list, the run's check after each answer, stopping at the first pass. */
function priceOrderCascade(
  rows: readonly OutcomeRow[],
  order: readonly string[],
  verifier: ReplayVerifier,
  noise: Random,
  timed: boolean,
): PolicyScore {
  let correct = 0;
  let cost = 0;
  const waits = new WaitTally();
  for (const row of rows) {
    let last: ModelOutcome | undefined;
    let waited = 0;
    let accepted = false;
    for (const [position, model] of order.entries()) {
      last = row.m[model] as ModelOutcome;
      cost += last.cost;
      // Under a confidence check every answer but the last one's is read, and each read is paid for.
      if (readsConfidence(verifier) && position < order.length - 1) cost += readCost(last);
      waited += last.lat_ms ?? 0;
      if (verdictFor(last, verifier, noise)) {
        accepted = true;
        break;
      }
    }
    waits.add(waited, accepted);
    if (last?.c === 1) correct++;
  }
  return { accuracy: correct / rows.length, cost, ...(timed ? { wait: waits.score() } : {}) };
}

function rankCorrelations(
  rows: readonly OutcomeRow[],
  entries: { model: string; classKey: string; rating: number; graded: number; ok: number }[],
  mode: 'family' | 'subfamily',
): ReplaySummary['rankCorrelation'] {
  const byClass = new Map<string, { model: string; rating: number; graded: number; ok: number }[]>();
  for (const entry of entries) {
    const list = byClass.get(entry.classKey) ?? [];
    list.push(entry);
    byClass.set(entry.classKey, list);
  }
  const result: ReplaySummary['rankCorrelation'] = [];
  for (const [classKey, list] of [...byClass].sort(([a], [b]) => a.localeCompare(b))) {
    if (list.length < 3) continue;
    const members = rows.filter((row) => (mode === 'subfamily' ? shaped(row.family, row.subfamily) : row.family) === classKey);
    if (members.length === 0) continue;
    const truth = list.map((entry) => members.reduce((sum, row) => sum + (row.m[entry.model]?.c ?? 0), 0) / members.length);
    const past = list
      .map((entry, index) => ({ rating: entry.rating, truth: truth[index] as number, graded: entry.graded }))
      .filter((entry) => entry.graded >= MIN_GRADED);
    result.push({
      class: classKey,
      rho: spearman(
        list.map((entry) => entry.rating),
        truth,
      ),
      ...(past.length >= 3
        ? {
            pastGateRho: spearman(
              past.map((entry) => entry.rating),
              past.map((entry) => entry.truth),
            ),
          }
        : {}),
      naiveRho: spearman(
        list.map((entry) => entry.ok / Math.max(1, entry.graded)),
        truth,
      ),
      models: list.length,
    });
  }
  return result;
}

/** Spearman's rho with average ranks for ties. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    const x = (ra[i] as number) - ma;
    const y = (rb[i] as number) - mb;
    num += x * y;
    da += x * x;
    db += y * y;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value);
  const result = new Array<number>(values.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && (order[j + 1] as { value: number }).value === (order[i] as { value: number }).value) j++;
    for (let k = i; k <= j; k++) result[(order[k] as { index: number }).index] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return result;
}
