/**
 * The router: one routing authority per extension host (or CLI run, or replay), which ranks a call,
 * runs its cascade, writes every decision down and folds what it learned into the ledger.
 *
 * @remarks
 * The router does not know how a model is called or how an answer is checked: the caller hands it an
 * {@link AttemptFn} that does both. That is what lets one router serve the chat participant (streaming
 * from Ollama and the cloud), the `rung chat` CLI and the replay benchmark (reading recorded outcomes),
 * so the policy that is measured is the policy that ships.
 */
import { modelOwners, ownAlias } from './ownAlias';
import { boundName, boundReason } from '../boundedText';
import { cascades, splitClassKey } from '../classKey';
import type { Clock } from '../clock';
import { DECISION_ROW_VERSION, spendFigure, type DecisionRow, type DecisionSink, type PrunedCandidate } from '../decisions/decision';
import type { Ledger, LedgerSnapshot } from '../ledger/ledger';
import { waitWorthPerMinute, type Panel } from '../panel';
import { ALWAYS_HEALTHY, type ProviderHealth } from '../providers/health';
import { ProviderFailure, type ModelFacts } from '../providers/provider';
import { observedPrice, rolePrior, type Observation } from '../ratings';
import { guessingFloor } from '../signal/answerFormat';
import { promptFeatures, type PromptFeatures } from '../signal/promptFeatures';
import { readSignal, signalPrior, signalUpdate, type SignalReading } from '../signal/promptSignal';
import type { Random } from '../random';
import { interruptedBy, isGraded, reasonText, type CallInterrupted, type Verdict } from '../verdict';
import { posterior, type PairedOutcome } from '../difficulty';
import { durationWords, type TimingObservation } from '../timing';
import { CascadePlan, type PlannedRung, type PlanStep } from './planner';
import { tokenPricer, type CallPricer } from './pricing';
import { rank, RoutingError } from './rank';
import { hasSpendLimits, spendLimitCause } from './spendLimits';
import { learningKeys, standing, type Standing } from './standing';
import { rungWaits, usdPerMs, type PlannedWait } from './waitCost';
import type {
  AttemptFn,
  AttemptOutcome,
  AttemptRecord,
  Candidate,
  ClimbStrategy,
  OpenedForWait,
  Opening,
  Ranking,
  RouteObserver,
  RouteRequest,
  RouteResult,
} from './types';

export interface RouterOptions {
  panel: Panel;
  ledger: Ledger;
  clock: Clock;
  sink: DecisionSink;
  /** Drives exploration; seeded in the replay so a seed gives the same bytes out. */
  random: Random;
  health?: ProviderHealth;
  facts?: ReadonlyMap<string, ModelFacts>;
  pricer?: CallPricer;
}

/** How many scopes (runs, conversations) the diversity history remembers before forgetting the oldest. */
export const MAX_SCOPES = 1_000;
/** How many recent calls can still be settled by a later verdict (a thumbs-down after the answer). */
export const MAX_SETTLEABLE_CALLS = 1_000;

interface SettleableCall {
  classKey: string;
  row: DecisionRow;
  /** Every graded outcome of the call, with the rating used, for pairing a late verdict. */
  graded: PairedOutcome[];
  /** The call's guessing floor. */
  guess: number;
  /** The id the last attempt's model is rated under: its slug, or its provider's own name for it (ownAlias.ts). */
  lastKey: string;
  lastRating: number;
  lastPrior: number;
  lastGraded: boolean;
}

export class Router {
  private panel: Panel;
  private readonly ledger: Ledger;
  private readonly clock: Clock;
  private readonly sink: DecisionSink;
  private readonly random: Random;
  private readonly health: ProviderHealth;
  private facts: ReadonlyMap<string, ModelFacts>;
  private pricer: CallPricer;
  private readonly history = new Map<string, string[]>();
  private readonly settleable = new Map<string, SettleableCall>();

  constructor(options: RouterOptions) {
    this.panel = options.panel;
    this.ledger = options.ledger;
    this.clock = options.clock;
    this.sink = options.sink;
    this.random = options.random;
    this.health = options.health ?? ALWAYS_HEALTHY;
    this.facts = options.facts ?? new Map();
    this.pricer = options.pricer ?? tokenPricer(this.facts);
  }

  /** Replaces the panel (the user edited it); ratings and history are kept. */
  setPanel(panel: Panel): void {
    this.panel = panel;
  }

  /** Replaces what providers said about their models (a catalog refresh, an Ollama listing). */
  setFacts(facts: ReadonlyMap<string, ModelFacts>, pricer?: CallPricer): void {
    this.facts = facts;
    this.pricer = pricer ?? tokenPricer(facts);
  }

  getPanel(): Panel {
    return this.panel;
  }

  /**
   * What the router would do for this request, and why; changes nothing. The ranking carries the rung the
   * plan opens with when nothing is explored, and why the user's wait moved it when it did.
   */
  rank(request: RouteRequest): Ranking {
    const ranking = this.walk(request);
    if (ranking.candidates.length === 0) return ranking;
    const snapshot = this.ledger.snapshot(this.clock.now());
    const planned = this.planCall(request, ranking, snapshot);
    const opener = this.usualOpener(ranking.candidates, request, planned);
    return { ...ranking, opening: this.opening(opener, planned) };
  }

  /** The ranking's walk alone (rank.ts): the candidates kept and the ones pruned, with their reasons. */
  private walk(request: RouteRequest): Ranking {
    const now = this.clock.now();
    return rank({
      request,
      panel: this.panel,
      snapshot: this.ledger.snapshot(now),
      health: this.health,
      now,
      facts: this.facts,
      pricer: this.pricer,
      history: request.runId ? (this.history.get(request.runId) ?? []) : [],
    });
  }

  /**
   * Routes one call: rank, pick an opener (exploring now and then on verifiable calls), and walk the
   * rungs until an answer stands.
   *
   * @remarks
   * A verified failure escalates to the next rung the planner thinks worth its price; a provider error
   * skips to the next rung and grades nobody; a stop ends the call. A `leaf` is routed once and pinned:
   * its failure is the scheduler's to retry, not the router's to escalate.
   */
  async route<T>(request: RouteRequest, attempt: AttemptFn<T>, signal?: AbortSignal, observer?: RouteObserver<T>): Promise<RouteResult<T>> {
    const ranking = this.walk(request);
    if (ranking.candidates.length === 0) {
      const why = ranking.pruned.map((p) => `${p.model}: ${p.reason}`).join('; ');
      const error = new RoutingError(`no model can take this call${why ? ` (${why})` : ' (the panel is empty)'}`, ranking.pruned);
      this.refuse(request, error.message, ranking);
      throw error;
    }
    const snapshot = this.ledger.snapshot(this.clock.now());
    const planned = this.planCall(request, ranking, snapshot);
    const { plan, rungs, prompt, guess, priorOf } = planned;
    const strategy = request.climb?.(ranking);
    const opener =
      strategy && request.pinned === undefined
        ? { index: strategy.opener, explore: false, propensity: 1 }
        : this.chooseOpener(ranking.candidates, request, planned);
    observer?.routed?.({ ...ranking, opening: this.opening(opener, planned) });
    const climb = new Climb<T>(
      request,
      ranking,
      plan,
      opener,
      (candidate) => standing(snapshot, candidate.resolved, request.classKey).rating ?? priorOf(candidate),
      priorOf,
      prompt?.reading.speaks
        ? new SignalNotes(plan, new CascadePlan(rungs, this.panel.routing.tradeoff, undefined, guess, planned.wait), ranking.candidates)
        : undefined,
      guess,
    );

    // The next rung is decided as soon as an attempt's verdict is known, before its row is written, so
    // a decision to stop climbing lands in the decision log with the attempt that prompted it.
    let next: number | null = climb.opener.index;
    while (next !== null) {
      next = this.withinSpendLimits(climb, next);
      if (next === null) break;
      const { record, candidate, resolved }: Attempted<T> = await this.attemptRung(climb, next, attempt, signal, observer);
      climb.grade(record, candidate, resolved);
      next = strategy ? this.strategyRung(climb, record, strategy) : this.nextRung(climb, record);
      // The row says what the provider reported; the ratings key on `resolved` (ownAlias.ts).
      this.sink.append(
        this.row({
          request,
          ranking,
          record,
          before: climb.attempts,
          resolved: record.resolvedModel ?? resolved,
          candidate,
          pruned: climb.pruned(),
        }),
      );
      climb.add(record);
    }

    this.learn(request.classKey, climb.graded);
    if (prompt) this.learnSignal(request.classKey, prompt, climb.graded);
    // A call used the provider that answered it, or whose answer last failed its check; one that met
    // only provider errors or a stop used none.
    const served = climb.answer ?? [...climb.attempts].reverse().find((a) => a.verdict === 'fail');
    if (served && request.runId) this.remember(request.runId, climb.candidateAt(served.rung).provider);
    this.keepForSettling(climb);
    return { ranking: { ...ranking, pruned: climb.pruned() }, attempts: climb.attempts, answer: climb.answer };
  }

  /**
   * What the planner needs for one call: each rung's rating, price and evidence, the call's difficulty
   * prior and guessing floor, and — where the panel values the user's wait — each rung's planned wait.
   */
  private planCall(request: RouteRequest, ranking: Ranking, snapshot: LedgerSnapshot): PlannedCall {
    const priors = presumedPriors(ranking.candidates, (candidate) => standing(snapshot, candidate.resolved, request.classKey));
    const priorOf = (candidate: Candidate): number => priors.get(candidate.slug) ?? rolePrior(candidate.spec.role);
    // A rung below the gate is planned at its presumed prior, not the role's alone. Economy may give such
    // a rung up, and one given up is never measured: planned at the role's prior, a dear rung behind an
    // able cheap one looked hopeless after that one failed, so economy stopped there for good (on the
    // drift world, after the swap, 0.84 answered against 0.89 planned this way; BENCHMARKS.md, "Routing quality out of sample").
    // The planner prices a rung at what its attempts at this class have really cost once there are a
    // few, and at its list price before (ratings.ts, MIN_PRICED_ATTEMPTS); an unanswered call is priced
    // from the list prices alone (planner.ts, FAILURE_COST_MULTIPLE).
    const priced = (candidate: Candidate): number | null => observedAt(snapshot, candidate.resolved, request.classKey) ?? candidate.cost;
    const rungs = ranking.candidates.map((candidate) => ({
      rating: candidate.measured ? logit(candidate.ability) : priorOf(candidate),
      cost: priced(candidate),
      listed: candidate.cost,
      measured: candidate.measured,
      graded: candidate.graded,
      ok: candidate.ok,
    }));
    // The prompt's text is read only where the panel asks (`routing.promptSignal`): on the recorded
    // prompts neither the signal nor the format's guessing floor paid its way at equal accuracy.
    const readsPrompt = this.panel.routing.promptSignal === true;
    const prompt = readsPrompt ? this.readSignal(request, snapshot) : undefined;
    const guess = readsPrompt && request.prompt ? guessingFloor(request.prompt.text) : 0;
    const worth = waitWorthPerMinute(this.panel);
    // Read only where the wait is valued: at 0 the plan is the money-only plan, to the byte.
    const wait: PlannedWait | undefined =
      worth > 0
        ? { usdPerMs: usdPerMs(worth), rungs: rungWaits(ranking.candidates, snapshot, this.panel, request.classKey, this.clock.now()) }
        : undefined;
    const plan = new CascadePlan(
      rungs,
      this.panel.routing.tradeoff,
      prompt?.reading.speaks ? signalPrior(prompt.reading) : undefined,
      guess,
      wait,
    );
    return { rungs, plan, prompt, guess, priorOf, wait, worth, snapshot, classKey: request.classKey };
  }

  /** The ranking's opening: the usual opener and, when the wait moved it, why. */
  private opening(opener: { index: number; openedForWait?: OpenedForWait }, planned: PlannedCall): Opening {
    return {
      index: opener.index,
      ...(opener.openedForWait ? { openedForWait: opener.openedForWait } : {}),
      ...(planned.wait ? { waits: planned.wait.rungs.map((rung) => ({ ...rung })) } : {}),
    };
  }

  /**
   * Writes the decision row of a call no rung could take: verdict `refused`, no model, every pruned
   * candidate with its reason, so the decision log says why for this call too.
   *
   * @remarks
   * `route` writes it when the walk pruned every rung; a front end that refuses a call before routing
   * it (the session, for a prompt no model's context can hold) calls it with its own message. The
   * ranking is this request's unless given: for a prompt too long for every model it prunes each one
   * with `needs context N > C`. The row has no model, no rung (-1) and no cost, and moves no rating.
   */
  refuse(request: RouteRequest, message: string, ranking: Ranking = this.rank(request)): void {
    const { cls, shape } = splitClassKey(request.classKey);
    this.sink.append({
      v: DECISION_ROW_VERSION,
      at: this.clock.now(),
      call: request.callId,
      run: request.runId ?? null,
      class: cls,
      shape: shape ?? null,
      candidates: [],
      rung: -1,
      escalation: [],
      model: '',
      resolved: null,
      explore: false,
      propensity: 1,
      verdict: 'refused',
      verdictReason: boundReason(message),
      inputTokens: null,
      outputTokens: null,
      cost: null,
      latencyMs: null,
      reason: 'no model can take this call',
      // Nothing left this machine.
      mode: 'local',
      // Any rung the ranking kept (a caller's own refusal) is left out of the call as well.
      pruned: [...ranking.pruned, ...ranking.candidates.map((candidate) => ({ model: candidate.slug, reason: `pruned: ${message}` }))].map(
        ({ model, reason }) => ({ model, reason: boundReason(reason) }),
      ),
      final: false,
    });
  }

  /** Asks one rung, with its in-flight mark held for the attempt; a throw or a stop becomes a verdict. */
  private async attemptRung<T>(
    climb: Climb<T>,
    index: number,
    attempt: AttemptFn<T>,
    signal: AbortSignal | undefined,
    observer: RouteObserver<T> | undefined,
  ): Promise<Attempted<T>> {
    const candidate = climb.candidateAt(index);
    const opening = climb.attempts.length === 0;
    const explore = opening && climb.opener.explore;
    const spawnId = `${climb.request.callId}#${climb.attempts.length}`;
    observer?.attemptStarted?.(candidate, climb.attempts.length, climb.attempts.at(-1));
    const started = this.clock.now();
    this.ledger.spawnStarted({ spawnId, traceId: climb.request.runId ?? climb.request.callId, model: candidate.slug, startedAt: started });
    let outcome: AttemptOutcome<T>;
    try {
      outcome = await attempt(candidate, { attempt: climb.attempts.length, escalation: climb.escalation(), signal });
    } catch (error) {
      outcome = failureOutcome(error);
    } finally {
      this.ledger.spawnEnded(spawnId, this.clock.now());
    }
    if (signal?.aborted && outcome.verdict !== 'pass') outcome = abortedOutcome(outcome, signal);
    outcome = bounded(outcome);
    // The model the response names keys the rating only when it is its own provider's name for it (ownAlias.ts).
    const claimed = outcome.resolvedModel;
    const resolved =
      claimed === undefined
        ? candidate.resolved
        : ownAlias(candidate.slug, candidate.provider, claimed, modelOwners(this.panel, this.ledger.snapshot(this.clock.now())));
    if (claimed !== undefined && resolved === claimed) this.ledger.alias(candidate.slug, claimed);
    this.learnTiming(climb.request.classKey, resolved, outcome);
    const openedForWait = opening && !explore ? climb.opener.openedForWait : undefined;
    const record: AttemptRecord<T> = {
      ...outcome,
      latencyMs: outcome.latencyMs ?? this.clock.now() - started,
      model: candidate.slug,
      rung: index,
      explore,
      propensity: opening ? climb.opener.propensity : 1,
      reason:
        (explore
          ? `explore (rate ${this.panel.routing.explore}${this.panel.routing.exploreMeasured ? `, floor ${this.panel.routing.exploreMeasured}` : ''}); ${candidate.reason}`
          : candidate.reason) +
        (openedForWait ? openedForWaitReason(openedForWait) : '') +
        (climb.notes?.attempt(index, climb.tried, climb.failed) ?? ''),
      ...(openedForWait ? { openedForWait } : {}),
    };
    observer?.attemptEnded?.(record);
    return { record, candidate, resolved };
  }

  /**
   * `index`, or the rung the planner would try in its place when a spending limit leaves it out now
   * that the call has spent what its earlier attempts cost; null when none is left.
   *
   * @remarks
   * The ranking judged each paid rung against the day's spend before the call; a climb that has paid
   * for a rung since may no longer afford the next, and learns it here, before the attempt is sent.
   */
  private withinSpendLimits<T>(climb: Climb<T>, index: number): number | null {
    if (!hasSpendLimits(climb.request)) return index;
    let next: number | null = index;
    while (next !== null) {
      const candidate = climb.candidateAt(next);
      const cause = spendLimitCause(candidate.spec, candidate.local, this.facts.get(candidate.slug), climb.request, climb.spent());
      if (cause === null) return next;
      climb.passOver(next, `pruned: ${cause}`);
      if (climb.considered().length >= climb.ranking.candidates.length) return null;
      next = climb.plan.step(climb.considered(), climb.failed).next;
    }
    return null;
  }

  /**
   * Folds an attempt's times into the ledger's timings (timing.ts) under the keys its ratings learn at,
   * when an answer came back and the attempt said how long it took.
   *
   * @remarks
   * Only an answer, checked or not, times a model: a provider error or a stop ended early for a reason that
   * is not the model's speed. An attempt that reported no time (a test's, a recorded outcome without
   * one) teaches nothing rather than a time of 0.
   */
  private learnTiming(classKey: string, resolved: string, outcome: AttemptOutcome): void {
    if (!this.ledger.observeTiming || outcome.latencyMs === undefined) return;
    if (outcome.verdict !== 'pass' && outcome.verdict !== 'fail' && outcome.verdict !== 'unverified') return;
    this.ledger.observeTiming(
      learningKeys(classKey).map((key): TimingObservation => ({
        model: resolved,
        classKey: key,
        totalMs: outcome.latencyMs as number,
        ...(outcome.firstTokenMs !== undefined ? { firstTokenMs: outcome.firstTokenMs } : {}),
        ...(outcome.outputTokens !== undefined ? { outputTokens: outcome.outputTokens } : {}),
      })),
    );
  }

  /**
   * The rung after `record`, or null: a provider error skips on, a verified failure escalates (on a
   * class that cascades) while the planner thinks it worth the price. Stopping the climb early names
   * every untried rung as skipped, with the planner's figures.
   */
  private nextRung<T>(climb: Climb<T>, record: AttemptRecord<T>): number | null {
    const goesOn = record.verdict === 'provider-error' || (record.verdict === 'fail' && cascades(climb.request.classKey));
    if (!goesOn || climb.considered().length >= climb.ranking.candidates.length) return null;
    const step = climb.plan.step(climb.considered(), climb.failed);
    if (step.next === null) {
      // In quality a stop before rungs below the gate is the released hold's: the reason says so.
      const released = step.released
        ? `; looks unanswerable at ${step.released.unanswerable.toFixed(2)}, and each rung left below the gate has failed every try at the class`
        : '';
      const why = `skipped: ${climb.notes?.stop(step) ?? ''}stopped climbing after ${climb.failed.length} failed; expected cost of going on ${usdInReason(step.valueIfContinued)} > unanswered ${usdInReason(step.valueIfStopped)} (${this.panel.routing.tradeoff}${released})`;
      climb.skipUntried(why);
    }
    return step.next;
  }

  /** The rung after `record` by the call's own strategy, where it has one; the planner's otherwise. */
  private strategyRung<T>(climb: Climb<T>, record: AttemptRecord<T>, strategy: ClimbStrategy): number | null {
    const goesOn = record.verdict === 'provider-error' || (record.verdict === 'fail' && cascades(climb.request.classKey));
    if (!goesOn || climb.considered().length >= climb.ranking.candidates.length) return null;
    const step = strategy.next(record, climb.considered());
    // A strategy that names a rung already tried, or none of the ranking's, gets the planner's choice.
    const invalid =
      step !== undefined &&
      step.index !== null &&
      (climb.considered().includes(step.index) || climb.ranking.candidates[step.index] === undefined);
    if (step === undefined || invalid) return this.nextRung(climb, record);
    if (step.index === null) climb.skipUntried(`skipped: ${step.reason}`);
    return step.index;
  }

  /** Keeps what a late verdict on the call's last attempt needs: its row and the ratings it was graded against. */
  private keepForSettling<T>(climb: Climb<T>): void {
    const last = climb.attempts.at(-1);
    if (!last) return;
    const candidate = climb.candidateAt(last.rung);
    const lastGraded = climb.graded.find((g) => g.candidate.slug === last.model);
    this.rememberCall(climb.request.callId, {
      classKey: climb.request.classKey,
      row: this.row({
        request: climb.request,
        ranking: climb.ranking,
        record: last,
        before: climb.attempts.slice(0, -1),
        resolved: last.resolvedModel ?? climb.resolvedAt.get(last.rung) ?? candidate.resolved,
        candidate,
        pruned: climb.pruned(),
      }),
      graded: climb.graded.map(pairedOutcome),
      guess: climb.guess,
      lastKey: climb.resolvedAt.get(last.rung) ?? candidate.resolved,
      lastRating: lastGraded?.rating ?? climb.ratingOf(candidate),
      lastPrior: climb.priorOf(candidate),
      lastGraded: gradesModel(last),
    });
  }

  /**
   * Records a verdict that arrived after the answer (a thumbs-down, an accepted edit) as a second,
   * short row marked final. It becomes evidence only if the attempt was not graded already, so one
   * answer never counts twice. `weight` (0–1, 1 when absent) is how much the verdict says about the
   * model: a front end gives less than 1 to a signal it only infers (the user asking again), which then
   * moves the rating by that share of a check's step, and still counts as one graded outcome.
   */
  settle(callId: string, verdict: Verdict, reason: string, weight?: number): boolean {
    const call = this.settleable.get(callId);
    if (!call) return false;
    const now = this.clock.now();
    this.sink.append({
      ...call.row,
      at: now,
      verdict,
      verdictReason: boundReason(reason),
      final: true,
      pruned: [],
      candidates: [],
      escalation: [],
    });
    if (isGraded(verdict) && !call.lastGraded) {
      const difficulty = posterior([
        ...call.graded,
        { rating: call.lastRating, success: verdict === 'pass', ...(call.guess > 0 ? { guess: call.guess } : {}) },
      ]);
      this.ledger.observe(
        learningKeys(call.classKey).map((key) => ({
          model: call.lastKey,
          classKey: key,
          success: verdict === 'pass',
          difficulty,
          prior: call.lastPrior,
          at: now,
          ...(weight !== undefined ? { weight } : {}),
        })),
      );
      call.lastGraded = true;
    }
    return true;
  }

  /**
   * What the per-prompt signal says about this request, or undefined when it cannot say anything: the
   * request carries no prompt, or the ledger keeps no signal (a team's, which keeps no prompt-derived state).
   */
  private readSignal(request: RouteRequest, snapshot: LedgerSnapshot): { features: PromptFeatures; reading: SignalReading } | undefined {
    if (!request.prompt || !this.ledger.learnSignal) return undefined;
    const features = promptFeatures(request.prompt, request.classKey);
    return { features, reading: readSignal(snapshot.signal?.(), features, request.classKey) };
  }

  /**
   * Hands the signal the call's graded outcomes, scored against the ratings the call was graded with —
   * the same outcomes, and the same ratings, the ledger's ratings learn from.
   */
  private learnSignal(
    classKey: string,
    signal: { features: PromptFeatures; reading: SignalReading },
    graded: readonly GradedOutcome[],
  ): void {
    if (graded.length === 0) return;
    this.ledger.learnSignal?.(signalUpdate(signal.reading, signal.features, classKey, graded.map(pairedOutcome)));
  }

  /**
   * Folds one call's graded outcomes into the ledger, each scored against the call's difficulty as all
   * of them imply it.
   *
   * @remarks
   * observed − E[P(success)] under the posterior that has seen every outcome of the call is the exact
   * gradient of the marginal likelihood (Fisher's identity), so the online update climbs the same hill
   * a batch fit would. A leave-one-out posterior was tried first: on the recorded outcomes it rated the
   * dearest rungs lower and ordered models worse (BENCHMARKS.md).
   */
  private learn(classKey: string, graded: readonly GradedOutcome[]): void {
    if (graded.length === 0) return;
    const difficulty = posterior(graded.map(pairedOutcome));
    const at = this.clock.now();
    const observations: Observation[] = learningKeys(classKey).flatMap((key) =>
      graded.map((g) => ({
        model: g.candidate.resolved,
        classKey: key,
        success: g.success,
        difficulty,
        prior: g.prior,
        at,
        ...(g.cost ? { cost: g.cost } : {}),
      })),
    );
    this.ledger.observe(observations);
  }

  /**
   * The opener when nothing is explored: the planner's first rung (the best among the others when the
   * user avoids one), and — when the user's wait moved it off the rung money alone would open with —
   * that rung and why (its record at the class and what one try of it keeps the user waiting).
   */
  private usualOpener(
    candidates: Candidate[],
    request: RouteRequest,
    planned: PlannedCall,
  ): { index: number; avoided: number; displaced?: number; openedForWait?: OpenedForWait } {
    if (request.pinned !== undefined) return { index: 0, avoided: -1 };
    // The planner reorders measured rungs by conditional cost, so the ranking's "avoid" placement alone
    // would not keep an avoided model from opening: ask for the best opener among the others.
    const avoided = request.avoid === undefined ? -1 : candidates.findIndex((c) => c.slug === request.avoid);
    const first = (plan: CascadePlan): number =>
      (avoided >= 0 && candidates.length > 1 ? plan.step([avoided], []).next : plan.step([], []).next) ?? 0;
    const index = first(planned.plan);
    const money = planned.plan.withoutWait();
    if (money === planned.plan) return { index, avoided };
    const displaced = first(money);
    if (displaced === index) return { index, avoided };
    const candidate = candidates[displaced] as Candidate;
    const { graded, ok, key } = standing(planned.snapshot, candidate.resolved, planned.classKey);
    const wait = planned.wait?.rungs[displaced];
    return {
      index,
      avoided,
      displaced,
      openedForWait: {
        model: candidate.slug,
        graded,
        ok,
        classKey: key,
        meanMs: wait?.meanMs ?? null,
        queuedMs: wait?.queuedMs ?? 0,
        queuedCalls: wait?.queuedCalls ?? 0,
        waitWorth: planned.worth,
      },
    };
  }

  /**
   * The first rung: the planner's, or — on an exploring call — one drawn uniformly from the rungs that
   * need evidence.
   *
   * @remarks
   * Exploration buys evidence on rungs the greedy order would not open with, so it happens only on
   * verifiable calls of cascading classes, and never over a user's pin (a pinned model always opens).
   * It draws from rungs below the gate, and from the rung the user's wait moved off the opener: a dear
   * model a cascade rarely reaches would otherwise stay unrated in a class for thousands of calls, and a
   * model that opened no more once its failed tries cost more time than they saved money would never be
   * seen to improve and earn its place back.
   * The opener's propensity is recorded so a later estimator can weight the evidence back out.
   */
  private chooseOpener(
    candidates: Candidate[],
    request: RouteRequest,
    planned: PlannedCall,
  ): { index: number; explore: boolean; propensity: number; openedForWait?: OpenedForWait } {
    if (request.pinned !== undefined) return { index: 0, explore: false, propensity: 1 };
    const usual = this.usualOpener(candidates, request, planned);
    const { index: greedy, avoided, displaced } = usual;
    const opened = usual.openedForWait ? { openedForWait: usual.openedForWait } : {};
    const floor = this.panel.routing.exploreMeasured ?? 0;
    if (floor > 0) {
      const drawn = this.openerWithFloor(candidates, request, greedy, avoided, floor, displaced);
      return drawn.index === greedy ? { ...drawn, ...opened } : drawn;
    }
    const rate = this.panel.routing.explore;
    const eligible = request.verifiable && cascades(request.classKey) && rate > 0 && candidates.length > 1;
    if (!eligible) return { index: greedy, explore: false, propensity: 1, ...opened };
    // Evidence is bought where it is missing, on rungs below the gate. Past it the planner's own climb
    // keeps the ratings fed; exploring measured rungs too cost 1–2 points of the best single model's
    // price on the recorded outcomes and bought no accuracy. The one measured rung explored is the one
    // the wait displaced, whose evidence the climb no longer feeds.
    // A paid rung opens only where the plan would open it anyway, unless the panel allows paying for
    // evidence (`routing.explorePaid`): exploring is the router's curiosity, not the user's request.
    const explorable = (c: Candidate): boolean => c.local || this.panel.routing.explorePaid === true;
    const pool = candidates
      .map((c, i) => ((c.measured && i !== displaced) || i === avoided || !explorable(c) ? -1 : i))
      .filter((i) => i >= 0);
    if (pool.length === 0) return { index: greedy, explore: false, propensity: 1, ...opened };
    const chance = (index: number) => (pool.includes(index) ? rate / pool.length : 0);
    const greedyPropensity = 1 - rate + chance(greedy);
    if (this.random() >= rate) return { index: greedy, explore: false, propensity: greedyPropensity, ...opened };
    const pick = pool[Math.min(pool.length - 1, Math.floor(this.random() * pool.length))] as number;
    if (pick === greedy) return { index: greedy, explore: false, propensity: greedyPropensity, ...opened };
    return { index: pick, explore: true, propensity: chance(pick) };
  }

  /**
   * The opener when the panel sets an exploration floor on measured rungs (`routing.exploreMeasured`):
   * with that probability any eligible rung opens, drawn uniformly; otherwise the usual rule.
   *
   * @remarks
   * Without the floor, once every rung is measured the opener is certain and the log cannot say what
   * another opener would have done. The propensity recorded is the mixture's, so an estimator weighs
   * each call by exactly the chance it had. Kept apart from the usual rule so a panel without the
   * floor draws the same random numbers, and writes the same rows, as before it existed.
   */
  private openerWithFloor(
    candidates: Candidate[],
    request: RouteRequest,
    greedy: number,
    avoided: number,
    floor: number,
    displaced?: number,
  ): { index: number; explore: boolean; propensity: number } {
    const eligible = request.verifiable && cascades(request.classKey) && candidates.length > 1;
    if (!eligible) return { index: greedy, explore: false, propensity: 1 };
    const rate = this.panel.routing.explore;
    const wide = candidates
      .map((_, i) => i)
      .filter((i) => i !== avoided && ((candidates[i] as Candidate).local || this.panel.routing.explorePaid === true));
    const narrow = wide.filter((i) => !(candidates[i] as Candidate).measured || i === displaced);
    const floorShare = wide.length ? floor : 0;
    const usual = (i: number): number =>
      (i === greedy ? 1 - (narrow.length ? rate : 0) : 0) + (narrow.includes(i) ? rate / narrow.length : 0);
    const probability = (i: number): number => (wide.includes(i) ? floorShare / wide.length : 0) + (1 - floorShare) * usual(i);
    const draw = (pool: number[]): number => pool[Math.min(pool.length - 1, Math.floor(this.random() * pool.length))] as number;
    let index = greedy;
    if (this.random() < floorShare) index = draw(wide);
    else if (narrow.length && this.random() < rate) index = draw(narrow);
    return { index, explore: index !== greedy, propensity: probability(index) };
  }

  /** The decision row for one attempt; `before` are the call's earlier attempts. */
  private row(input: {
    request: RouteRequest;
    ranking: Ranking;
    record: AttemptRecord;
    before: readonly AttemptRecord[];
    resolved: string;
    candidate: Candidate;
    pruned: PrunedCandidate[];
  }): DecisionRow {
    const { request, record } = input;
    const { cls, shape } = splitClassKey(request.classKey);
    return {
      v: DECISION_ROW_VERSION,
      at: this.clock.now(),
      call: request.callId,
      run: request.runId ?? null,
      class: cls,
      shape: shape ?? null,
      candidates: input.ranking.candidates.map((c) => c.slug),
      rung: record.rung,
      escalation: input.before.filter((a) => a.verdict === 'fail').map((a) => a.model),
      model: record.model,
      resolved: input.resolved,
      explore: record.explore,
      propensity: record.propensity,
      verdict: record.verdict,
      verdictReason: nullableReason(reasonText(record)),
      // What an attempt reported, kept only when it can be spend: a provider's negative usage is not.
      inputTokens: spendFigure(record.inputTokens),
      outputTokens: spendFigure(record.outputTokens),
      cost: spendFigure(record.cost),
      latencyMs: record.latencyMs ?? null,
      reason: boundReason(record.reason),
      mode: input.candidate.local ? 'local' : 'cloud',
      // The logged entry only: a ranking's `cause` repeats its reason.
      pruned: input.pruned.map(({ model, reason }) => ({ model, reason: boundReason(reason) })),
      final: false,
      ...(record.confidence !== undefined && Number.isFinite(record.confidence) ? { confidence: record.confidence } : {}),
      ...(request.tools
        ? {
            tools: {
              ...request.tools,
              dropped: [...request.tools.dropped],
              cost: spendFigure(this.toolsCost(input.candidate, request.tools.tokens)),
            },
          }
        : {}),
    };
  }

  /** USD the tool schemas' `tokens` cost as input to `candidate`, at the price the router prices it by; null when unknown. */
  toolsCost(candidate: Pick<Candidate, 'spec' | 'local'>, tokens: number): number | null {
    return this.pricer(candidate.spec, candidate.local, {
      callId: 'tools',
      classKey: '',
      verifiable: false,
      inputTokens: tokens,
      outputTokens: 0,
    });
  }

  private remember(runId: string, provider: string): void {
    const list = this.history.get(runId) ?? [];
    list.push(provider);
    this.history.delete(runId);
    this.history.set(runId, list);
    if (this.history.size > MAX_SCOPES) this.history.delete(this.history.keys().next().value as string);
  }

  private rememberCall(callId: string, call: SettleableCall): void {
    this.settleable.delete(callId);
    this.settleable.set(callId, call);
    if (this.settleable.size > MAX_SETTLEABLE_CALLS) this.settleable.delete(this.settleable.keys().next().value as string);
  }
}

/**
 * An attempt's outcome with the model its answer named cut to what a record keeps.
 *
 * @remarks
 * Cut here, before the alias, the ratings and the row see it, so all three name the same model. The
 * verdict's reason is cut where the row is written, once, after the failure's kind is put before it.
 */
function bounded<T>(outcome: AttemptOutcome<T>): AttemptOutcome<T> {
  return outcome.resolvedModel === undefined ? outcome : { ...outcome, resolvedModel: boundName(outcome.resolvedModel) };
}

/** A row's verdict reason, bounded; null stays null. */
function nullableReason(reason: string | null): string | null {
  return reason === null ? null : boundReason(reason);
}

/**
 * An attempt cut off by its call's signal: `interrupted` when Rung shut down under it, else `stopped`.
 *
 * @remarks
 * Decided here, from the signal's reason, because every adapter reports an abort alike ("stopped by
 * the user"); a shutdown's attempt keeps no failure kind, so its row says why in its own words.
 */
function abortedOutcome<T>(outcome: AttemptOutcome<T>, signal: AbortSignal): AttemptOutcome<T> {
  if (interruptedBy(signal)) {
    const { failure: _failure, ...rest } = outcome;
    return { ...rest, verdict: 'interrupted', verdictReason: (signal.reason as CallInterrupted).message };
  }
  return { ...outcome, verdict: 'stopped', verdictReason: outcome.verdictReason ?? 'stopped by the user' };
}

/** Maps a thrown failure to a verdict that grades nobody, with the failure's kind as data beside its message. */
function failureOutcome(error: unknown): Pick<AttemptOutcome, 'verdict' | 'verdictReason' | 'failure'> {
  if (error instanceof ProviderFailure) {
    return { verdict: error.kind === 'stopped' ? 'stopped' : 'provider-error', verdictReason: error.message, failure: error.kind };
  }
  if (error instanceof Error && error.name === 'AbortError') return { verdict: 'stopped', verdictReason: 'stopped by the user' };
  return { verdict: 'provider-error', verdictReason: error instanceof Error ? error.message : String(error), failure: 'provider-error' };
}

/**
 * One call's climb: the ranking and plan it climbs, the opener, and what each attempt has added —
 * the rungs tried and failed, the graded outcomes, the rungs given up on, the answer that stands.
 *
 * @remarks
 * Kept apart from the Router so `route` reads as the climb itself, and everything one call
 * accumulates lives, and dies, with that call.
 */
class Climb<T> {
  readonly attempts: AttemptRecord<T>[] = [];
  /** Indices into the ranking's candidates, in the order tried. */
  readonly tried: number[] = [];
  readonly failed: number[] = [];
  /** Rungs left out during the climb without being asked (a spending limit reached on the way). */
  readonly passed: number[] = [];
  readonly graded: GradedOutcome[] = [];
  /** The id each rung tried keys its ratings under (its slug, or its provider's own name for it: ownAlias.ts). */
  readonly resolvedAt = new Map<number, string>();
  /** The answer that stands: the last attempt that passed or was not checked. */
  answer: AttemptRecord<T> | undefined;
  private readonly skipped: PrunedCandidate[] = [];

  constructor(
    readonly request: RouteRequest,
    readonly ranking: Ranking,
    readonly plan: CascadePlan,
    readonly opener: { index: number; explore: boolean; propensity: number; openedForWait?: OpenedForWait },
    /** The rating a candidate is graded against: measured, or its prior. */
    readonly ratingOf: (candidate: Candidate) => number,
    /** What a candidate is presumed able to do before its own evidence says otherwise (see {@link presumedPriors}). */
    readonly priorOf: (candidate: Candidate) => number,
    /** The per-prompt signal's words for the decision rows, when it speaks on this call. */
    readonly notes?: SignalNotes,
    /** The call's guessing floor (signal/answerFormat.ts), 0 when its format shows none. */
    readonly guess = 0,
  ) {}

  candidateAt(index: number): Candidate {
    return this.ranking.candidates[index] as Candidate;
  }

  /** Models already tried and failed on this call. */
  escalation(): string[] {
    return this.attempts.filter((a) => a.verdict === 'fail').map((a) => a.model);
  }

  /** The ranking's pruned rungs and those the climb gave up on. */
  pruned(): PrunedCandidate[] {
    return [...this.ranking.pruned, ...this.skipped];
  }

  /** Notes an attempt's verdict: tried, graded (against the model that served it), failed. */
  grade(record: AttemptRecord<T>, candidate: Candidate, resolved: string): void {
    this.tried.push(record.rung);
    this.resolvedAt.set(record.rung, resolved);
    if (gradesModel(record)) {
      const servedBy = { ...candidate, resolved };
      const cost = record.cost !== undefined && candidate.cost !== null ? { observed: record.cost, listed: candidate.cost } : undefined;
      this.graded.push({
        candidate: servedBy,
        rating: this.ratingOf(servedBy),
        success: record.verdict === 'pass',
        prior: this.priorOf(candidate),
        ...(cost ? { cost } : {}),
        ...(this.guess > 0 ? { guess: this.guess } : {}),
      });
    }
    if (record.verdict === 'fail') this.failed.push(record.rung);
  }

  /** Every rung not tried, nor passed over already, is skipped, for `why`. */
  skipUntried(why: string): void {
    this.ranking.candidates.forEach((other, i) => {
      if (!this.tried.includes(i) && !this.passed.includes(i)) this.skipped.push({ model: other.slug, reason: why });
    });
  }

  /** Leaves rung `index` out of the rest of the call without asking it, for `reason` (a spending limit). */
  passOver(index: number, reason: string): void {
    this.passed.push(index);
    this.skipped.push({ model: this.candidateAt(index).slug, reason });
  }

  /** The rungs tried and those passed over: none of them is asked again. */
  considered(): number[] {
    return [...this.tried, ...this.passed];
  }

  /** USD this call's attempts have cost so far. */
  spent(): number {
    return this.attempts.reduce((sum, attempt) => sum + (attempt.cost ?? 0), 0);
  }

  /** Adds the attempt once its row is written; an answer that stands replaces the one before. */
  add(record: AttemptRecord<T>): void {
    this.attempts.push(record);
    if (record.verdict === 'pass' || record.verdict === 'unverified') this.answer = record;
  }
}

/** What the planner needs for one call (see `Router.planCall`). */
interface PlannedCall {
  rungs: PlannedRung[];
  plan: CascadePlan;
  prompt: { features: PromptFeatures; reading: SignalReading } | undefined;
  guess: number;
  priorOf: (candidate: Candidate) => number;
  /** The rungs' planned waits, where the wait is valued. */
  wait: PlannedWait | undefined;
  /** USD a minute of the user's wait is worth under the panel. */
  worth: number;
  snapshot: LedgerSnapshot;
  classKey: string;
}

/**
 * The note an opener's reason ends with when the user's wait moved it off the rung money alone would open
 * with: that rung's record and what one try of it keeps the user waiting, at what the wait is worth.
 */
export function openedForWaitReason(note: OpenedForWait): string {
  const tryText = note.meanMs === null ? '' : ` and a try takes about ${durationWords(note.meanMs)}`;
  const busy =
    note.queuedCalls > 0
      ? `, busy with ${note.queuedCalls} other call${note.queuedCalls === 1 ? '' : 's'} (about ${durationWords(note.queuedMs)} left)`
      : '';
  return `; opened past ${note.model} for the wait: it passed ${note.ok} of ${note.graded} graded at ${note.classKey}${tryText}${busy} (wait worth $${note.waitWorth}/min)`;
}

/** One attempt as the climb records it, with the candidate asked and the model that served it. */
interface Attempted<T> {
  record: AttemptRecord<T>;
  candidate: Candidate;
  resolved: string;
}

interface GradedOutcome {
  candidate: Candidate;
  rating: number;
  success: boolean;
  prior: number;
  /** What the attempt cost against its list price before the call, when both are known. */
  cost?: { observed: number; listed: number };
  /** The call's guessing floor, when its format shows one. */
  guess?: number;
}

/** A graded outcome as the difficulty posterior reads it: the rating, the verdict and any guessing floor. */
function pairedOutcome(graded: GradedOutcome): PairedOutcome {
  return graded.guess
    ? { rating: graded.rating, success: graded.success, guess: graded.guess }
    : { rating: graded.rating, success: graded.success };
}

/**
 * What the per-prompt signal changed on one call, in words for the decision rows: the rung's predicted
 * success for this prompt beside the class's average, the cheaper rungs the opener went past, and why a
 * climb stopped.
 *
 * @remarks
 * Written only on calls where the signal speaks, so a call it does not move keeps the reasons it always had.
 */
class SignalNotes {
  constructor(
    private readonly plan: CascadePlan,
    /** The same rungs planned from the class prior alone: what the call would have done without the signal. */
    private readonly classPlan: CascadePlan,
    private readonly candidates: readonly Candidate[],
  ) {}

  /** The note an attempt's reason ends with: its predicted success, and at the opener the rung the class plan would have opened with. */
  attempt(index: number, tried: readonly number[], failed: readonly number[]): string {
    const here = this.plan.chance(index, failed);
    const average = this.classPlan.chance(index, failed);
    const after = failed.length === 0 ? '' : ` after ${failed.length} failed`;
    let note = `; predicted ${here.toFixed(2)} success for this prompt${after} (${average.toFixed(2)} for the class)`;
    if (tried.length === 0) {
      const usual = this.classPlan.step([], []).next;
      const passed = usual === null || usual === index ? undefined : this.candidates[usual];
      if (passed && usual !== null)
        note += `; opened past ${passed.slug}: predicted ${this.plan.chance(usual, []).toFixed(2)} success for this prompt`;
    }
    return note;
  }

  /** The words a stop opens with: the next rung's predicted success for this prompt. */
  stop(step: PlanStep): string {
    return `predicted ${step.success.toFixed(2)} success for this prompt; `;
  }
}

/**
 * What a model's attempts have really cost on average at the class key or, for a shaped key whose own
 * attempts are too few, at its class; undefined where neither has enough.
 */
function observedAt(snapshot: LedgerSnapshot, model: string, classKey: string): number | undefined {
  for (const key of learningKeys(classKey)) {
    const price = observedPrice(snapshot.rating(model, key));
    if (price !== undefined) return price;
  }
  return undefined;
}

/**
 * Each candidate's prior for this call: its role's, raised to the best measured rating among the
 * candidates that cost less at this call.
 *
 * @remarks
 * A dearer model on the same panel is presumed no less able than the cheaper ones already measured,
 * until its own evidence says otherwise. In a cascade that evidence is thin for the dear rungs, which
 * see only calls the cheap ones failed; without this their ratings sat at the role's prior, below the
 * cheap rungs, and the learned order of models ran against their true accuracy. The rating follows this
 * prior only as far as its own information allows (ratings.ts, `applyObservation`). Never price as such:
 * price only says which models' evidence counts as a floor, not how able a model is.
 */
function presumedPriors(candidates: readonly Candidate[], standingOf: (candidate: Candidate) => Standing): Map<string, number> {
  // The measured candidates' costs and ratings side by side, in the candidates' order.
  const costs: number[] = [];
  const ratings: number[] = [];
  for (const candidate of candidates) {
    const { rating, measured: past } = standingOf(candidate);
    if (past && rating !== undefined && candidate.cost !== null) {
      costs.push(candidate.cost);
      ratings.push(rating);
    }
  }
  const priors = new Map<string, number>();
  for (const candidate of candidates) {
    let prior = rolePrior(candidate.spec.role);
    const cost = candidate.cost;
    if (cost !== null)
      for (let i = 0; i < costs.length; i++) if ((costs[i] as number) < cost) prior = Math.max(prior, ratings[i] as number);
    priors.set(candidate.slug, prior);
  }
  return priors;
}

function logit(p: number): number {
  const clamped = Math.min(1 - 1e-9, Math.max(1e-9, p));
  return Math.log(clamped / (1 - clamped));
}

/**
 * A cost inside a decision reason, three significant figures (`$0.00310`).
 *
 * @remarks
 * Not the display rule of src/protocol/formatUsd.ts: reasons are logged words that the decision log,
 * its readers and the replay's byte-for-byte comparisons have always had in this form.
 */
function usdInReason(cost: number | null): string {
  return cost === null ? 'an unknown price' : `$${cost.toPrecision(3)}`;
}

/** Whether an attempt's verdict is evidence about its model: a pass or a fail, and not the model's own word (AttemptOutcome.selfJudged). */
function gradesModel(record: AttemptOutcome): boolean {
  return isGraded(record.verdict) && record.selfJudged !== true;
}
