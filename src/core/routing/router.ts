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
import { cascades, splitClassKey } from '../classKey';
import type { Clock } from '../clock';
import { DECISION_ROW_VERSION, type DecisionRow, type DecisionSink, type PrunedCandidate } from '../decisions/decision';
import type { Ledger } from '../ledger/ledger';
import type { Panel } from '../panel';
import { ALWAYS_HEALTHY, type ProviderHealth } from '../providers/health';
import { ProviderFailure, type ModelFacts } from '../providers/provider';
import { rolePrior, type Observation } from '../ratings';
import type { Random } from '../random';
import { isGraded, type Verdict } from '../verdict';
import { posterior } from './difficulty';
import { CascadePlan } from './planner';
import { tokenPricer, type CallPricer } from './pricing';
import { rank, RoutingError } from './rank';
import { learningKeys, standing } from './standing';
import type { AttemptFn, AttemptOutcome, AttemptRecord, Candidate, Ranking, RouteObserver, RouteRequest, RouteResult } from './types';

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
  graded: { rating: number; success: boolean }[];
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

  /** What the router would do for this request, and why; changes nothing. */
  rank(request: RouteRequest): Ranking {
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
    const ranking = this.rank(request);
    const { candidates } = ranking;
    if (candidates.length === 0) {
      const why = ranking.pruned.map((p) => `${p.model}: ${p.reason}`).join('; ');
      throw new RoutingError(`no model can take this call${why ? ` (${why})` : ' (the panel is empty)'}`, ranking.pruned);
    }
    observer?.routed?.(ranking);
    const snapshot = this.ledger.snapshot(this.clock.now());
    const ratingOf = (candidate: Candidate): number => standing(snapshot, candidate.resolved, request.classKey).rating ?? rolePrior(candidate.spec.role);
    const plan = new CascadePlan(
      candidates.map((candidate) => ({ rating: logit(candidate.ability), cost: candidate.cost, measured: candidate.measured })),
      this.panel.routing.tradeoff,
    );

    const opener = this.chooseOpener(candidates, request, plan);
    const escalates = cascades(request.classKey);
    const attempts: AttemptRecord<T>[] = [];
    const tried: number[] = [];
    const failed: number[] = [];
    const skipped: PrunedCandidate[] = [];
    const graded: { candidate: Candidate; rating: number; success: boolean; prior: number }[] = [];
    let answer: AttemptRecord<T> | undefined;
    const { cls, shape } = splitClassKey(request.classKey);

    // The next rung is decided as soon as an attempt's verdict is known, before its row is written, so
    // a decision to stop climbing lands in the decision log with the attempt that prompted it.
    let next: number | null = opener.index;
    while (next !== null) {
      const index: number = next;
      next = null;
      const first = attempts.length === 0;
      const candidate = candidates[index] as Candidate;
      const explore = first && opener.explore;
      const propensity = first ? opener.propensity : 1;
      observer?.attemptStarted?.(candidate, attempts.length, attempts.at(-1));
      const spawnId = `${request.callId}#${attempts.length}`;
      const started = this.clock.now();
      this.ledger.spawnStarted({ spawnId, traceId: request.runId ?? request.callId, model: candidate.slug, startedAt: started });
      let outcome: AttemptOutcome<T>;
      try {
        outcome = await attempt(candidate, { attempt: attempts.length, escalation: attempts.filter((a) => a.verdict === 'fail').map((a) => a.model), signal });
      } catch (error) {
        outcome = failureOutcome(error);
      } finally {
        this.ledger.spawnEnded(spawnId, this.clock.now());
      }
      if (signal?.aborted && outcome.verdict !== 'pass') outcome = { ...outcome, verdict: 'stopped', verdictReason: outcome.verdictReason ?? 'stopped by the user' };
      const resolved = outcome.resolvedModel ?? candidate.resolved;
      if (outcome.resolvedModel) this.ledger.alias(candidate.slug, outcome.resolvedModel);
      const record: AttemptRecord<T> = {
        ...outcome,
        latencyMs: outcome.latencyMs ?? this.clock.now() - started,
        model: candidate.slug,
        rung: index,
        explore,
        propensity,
        reason: explore ? `explore (rate ${this.panel.routing.explore}); ${candidate.reason}` : candidate.reason,
      };
      observer?.attemptEnded?.(record);
      tried.push(index);
      if (isGraded(outcome.verdict)) {
        const servedBy = { ...candidate, resolved };
        graded.push({ candidate: servedBy, rating: ratingOf(servedBy), success: outcome.verdict === 'pass', prior: rolePrior(candidate.spec.role) });
      }
      if (outcome.verdict === 'fail') failed.push(index);
      const goesOn = outcome.verdict === 'provider-error' || (outcome.verdict === 'fail' && escalates);
      if (goesOn && tried.length < candidates.length) {
        const step = plan.step(tried, failed);
        next = step.next;
        if (step.next === null) {
          const why = `skipped: stopped climbing after ${failed.length} failed; expected cost of going on ${formatUsd(step.valueIfContinued)} > unanswered ${formatUsd(step.valueIfStopped)} (${this.panel.routing.tradeoff})`;
          candidates.forEach((other, i) => {
            if (!tried.includes(i)) skipped.push({ model: other.slug, reason: why });
          });
        }
      }
      this.sink.append(this.row(request, ranking, record, attempts, resolved, candidate, [...ranking.pruned, ...skipped], cls, shape));
      attempts.push(record);
      if (outcome.verdict === 'pass' || outcome.verdict === 'unverified') answer = record;
    }

    this.learn(request.classKey, graded);
    // A call used the provider that answered it, or whose answer last failed its check; one that met
    // only provider errors or a stop used none.
    const served = answer ?? [...attempts].reverse().find((a) => a.verdict === 'fail');
    if (served && request.runId) this.remember(request.runId, (candidates[served.rung] as Candidate).provider);
    const last = attempts[attempts.length - 1];
    if (last) {
      const lastGraded = graded.find((g) => g.candidate.slug === last.model);
      this.rememberCall(request.callId, {
        classKey: request.classKey,
        row: this.row(request, ranking, last, attempts.slice(0, -1), last.resolvedModel ?? (candidates[last.rung] as Candidate).resolved, candidates[last.rung] as Candidate, [...ranking.pruned, ...skipped], cls, shape),
        graded: graded.map((g) => ({ rating: g.rating, success: g.success })),
        lastRating: lastGraded?.rating ?? ratingOf(candidates[last.rung] as Candidate),
        lastPrior: rolePrior((candidates[last.rung] as Candidate).spec.role),
        lastGraded: isGraded(last.verdict),
      });
    }
    return { ranking: { ...ranking, pruned: [...ranking.pruned, ...skipped] }, attempts, answer };
  }

  /**
   * Records a verdict that arrived after the answer (a thumbs-down, an accepted edit) as a second,
   * short row marked final. It becomes evidence only if the attempt was not graded already, so one
   * answer never counts twice.
   */
  settle(callId: string, verdict: Verdict, reason: string): boolean {
    const call = this.settleable.get(callId);
    if (!call) return false;
    const now = this.clock.now();
    this.sink.append({ ...call.row, at: now, verdict, verdictReason: reason, final: true, pruned: [], candidates: [], escalation: [] });
    if (isGraded(verdict) && !call.lastGraded) {
      const difficulty = posterior([...call.graded, { rating: call.lastRating, success: verdict === 'pass' }]);
      this.ledger.observe(
        learningKeys(call.classKey).map((key) => ({ model: call.row.resolved ?? call.row.model, classKey: key, success: verdict === 'pass', difficulty, prior: call.lastPrior, at: now })),
      );
      call.lastGraded = true;
    }
    return true;
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
  private learn(classKey: string, graded: { candidate: Candidate; rating: number; success: boolean; prior: number }[]): void {
    if (graded.length === 0) return;
    const difficulty = posterior(graded.map((g) => ({ rating: g.rating, success: g.success })));
    const at = this.clock.now();
    const observations: Observation[] = learningKeys(classKey).flatMap((key) =>
      graded.map((g) => ({ model: g.candidate.resolved, classKey: key, success: g.success, difficulty, prior: g.prior, at })),
    );
    this.ledger.observe(observations);
  }

  /**
   * The first rung: the planner's, or — on an exploring call — one drawn uniformly from the chain.
   *
   * @remarks
   * Exploration buys evidence on rungs the greedy order would not open with, so it happens only on
   * verifiable calls of cascading classes, and never over a user's pin (a pinned model always opens).
   * It draws only from rungs below the gate: a dear model a cascade rarely reaches would otherwise stay
   * unrated in a class for thousands of calls.
   * The opener's propensity is recorded so a later estimator can weight the evidence back out.
   */
  private chooseOpener(candidates: Candidate[], request: RouteRequest, plan: CascadePlan): { index: number; explore: boolean; propensity: number } {
    if (request.pinned !== undefined) return { index: 0, explore: false, propensity: 1 };
    // The planner reorders measured rungs by conditional cost, so the ranking's "avoid" placement alone
    // would not keep an avoided model from opening: ask for the best opener among the others.
    const avoided = request.avoid === undefined ? -1 : candidates.findIndex((c) => c.slug === request.avoid);
    const greedy = (avoided >= 0 && candidates.length > 1 ? plan.step([avoided], []).next : plan.step([], []).next) ?? 0;
    const rate = this.panel.routing.explore;
    const eligible = request.verifiable && cascades(request.classKey) && rate > 0 && candidates.length > 1;
    if (!eligible) return { index: greedy, explore: false, propensity: 1 };
    // Evidence is bought where it is missing, on rungs below the gate. Past it the planner's own climb
    // keeps the ratings fed; exploring measured rungs too cost 1–2 points of the best single model's
    // price on the recorded outcomes and bought no accuracy.
    // A paid rung opens only where the plan would open it anyway, unless the panel allows paying for
    // evidence (`routing.explorePaid`): exploring is the router's curiosity, not the user's request.
    const explorable = (c: Candidate): boolean => c.local || this.panel.routing.explorePaid === true;
    const pool = candidates.map((c, i) => (c.measured || i === avoided || !explorable(c) ? -1 : i)).filter((i) => i >= 0);
    if (pool.length === 0) return { index: greedy, explore: false, propensity: 1 };
    const chance = (index: number) => (pool.includes(index) ? rate / pool.length : 0);
    const greedyPropensity = 1 - rate + chance(greedy);
    if (this.random() >= rate) return { index: greedy, explore: false, propensity: greedyPropensity };
    const pick = pool[Math.min(pool.length - 1, Math.floor(this.random() * pool.length))] as number;
    if (pick === greedy) return { index: greedy, explore: false, propensity: greedyPropensity };
    return { index: pick, explore: true, propensity: chance(pick) };
  }

  private row(
    request: RouteRequest,
    ranking: Ranking,
    record: AttemptRecord,
    before: AttemptRecord[],
    resolved: string,
    candidate: Candidate,
    pruned: PrunedCandidate[],
    cls: string,
    shape: string | undefined,
  ): DecisionRow {
    return {
      v: DECISION_ROW_VERSION,
      at: this.clock.now(),
      call: request.callId,
      run: request.runId ?? null,
      class: cls,
      shape: shape ?? null,
      candidates: ranking.candidates.map((c) => c.slug),
      rung: record.rung,
      escalation: before.filter((a) => a.verdict === 'fail').map((a) => a.model),
      model: record.model,
      resolved,
      explore: record.explore,
      propensity: record.propensity,
      verdict: record.verdict,
      verdictReason: record.verdictReason ?? null,
      inputTokens: record.inputTokens ?? null,
      outputTokens: record.outputTokens ?? null,
      cost: record.cost ?? null,
      latencyMs: record.latencyMs ?? null,
      reason: record.reason,
      mode: candidate.local ? 'local' : 'cloud',
      pruned,
      final: false,
    };
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

/** Maps a thrown failure to a verdict that grades nobody. */
function failureOutcome(error: unknown): { verdict: Verdict; verdictReason: string } {
  if (error instanceof ProviderFailure) {
    return { verdict: error.kind === 'stopped' ? 'stopped' : 'provider-error', verdictReason: `${error.kind}: ${error.message}` };
  }
  if (error instanceof Error && error.name === 'AbortError') return { verdict: 'stopped', verdictReason: 'stopped by the user' };
  return { verdict: 'provider-error', verdictReason: `provider-error: ${error instanceof Error ? error.message : String(error)}` };
}

function logit(p: number): number {
  const clamped = Math.min(1 - 1e-9, Math.max(1e-9, p));
  return Math.log(clamped / (1 - clamped));
}

function formatUsd(cost: number | null): string {
  return cost === null ? 'an unknown price' : `$${cost.toPrecision(3)}`;
}
