/**
 * The router's vocabulary: a request to route, the candidates a ranking returns, and what one attempt
 * reports back to the cascade.
 */
import type { ModelSpec } from '../panel';
import type { Verdict } from '../verdict';
import type { FailureKind } from '../providers/provider';
import type { ToolsSent } from '../providers/tokens';
import type { PrunedCandidate } from '../decisions/decision';
import type { PromptText } from '../signal/promptFeatures';
import type { RungWait } from './waitCost';

/** One call to route. */
export interface RouteRequest {
  /** Ties every row about this call together. */
  callId: string;
  /** The conversation or run: the scope of the diversity caps. */
  runId?: string;
  /** `shaped(class, shape)`. */
  classKey: string;
  needsTools?: boolean;
  /** What the tool schemas take of the input, and the tools left out: written on every row of the call. */
  tools?: ToolsSent;
  /** Tokens the call needs in context. */
  contextTokens?: number;
  /**
   * A model the user picked: the first attempt, with the panel's later rungs kept as fallbacks. A slug
   * names a panel model; a full spec joins the panel for this call when absent.
   */
  pinned?: string | ModelSpec;
  /** A model to move off the opener position without removing it. */
  avoid?: string;
  /**
   * A model to climb past: every rung the ladder does not put above it (a higher tier, or a dearer
   * model of its tier) is pruned with that reason. "Retry with a stronger model" asks this: a rung
   * below the rejected answer's model, or the model itself, is not what the user asked for.
   */
  above?: string;
  /** A verifier will check the answer; exploration happens only on such calls. */
  verifiable: boolean;
  /** For pricing the call: tokens in, tokens expected out. */
  inputTokens?: number;
  outputTokens?: number;
  /**
   * The daily spending limit and what today has spent, both USD: once spent reaches the limit, paid
   * (non-local) rungs are pruned and local ones still run.
   */
  budget?: { dailyUsd: number; spentTodayUsd: number };
  /**
   * USD one answer may cost over all its attempts: a paid rung whose worst cost would take the call
   * past it is left out (spendLimits.ts). Absent: no ceiling.
   */
  answerCeilingUsd?: number;
  /**
   * The most output tokens a paid attempt is priced at under a spending limit: the request's own
   * maximum; `OUTPUT_TOKENS_BOUND` (spendLimits.ts) when absent.
   */
  outputTokensBound?: number;
  /**
   * What the per-prompt signal reads (signal/promptFeatures.ts): hashed into features and never kept or
   * logged. Absent, the call is planned from its class alone, as it always was.
   */
  prompt?: PromptText;
  /**
   * Plans this call's climb in place of the router's planner, once the ranking is known; undefined
   * leaves it to the planner.
   *
   * @remarks
   * The planner prices a failed check as a wrong answer, which is right for a schema or a test and
   * wrong for a check whose verdict depends on what climbing would buy: the confidence check accepts
   * an answer the strategy's own plan judges worth more than the climb from it.
   */
  climb?: (ranking: Ranking) => ClimbStrategy | undefined;
}

/** A climb planned for one call outside the router (see {@link RouteRequest.climb}). */
export interface ClimbStrategy {
  /** The rung to open with: an index into the ranking's candidates. A pinned model opens anyway. */
  opener: number;
  /**
   * The rung after an attempt that did not end the call (a failed check, a provider error): an index
   * into the candidates, or null to stop with `reason`; undefined hands this step to the planner.
   */
  next(record: AttemptRecord, tried: readonly number[]): { index: number | null; reason: string } | undefined;
}

/** Capability ladder tier: T0 deterministic, T1 small local, T2 mid local, T3 large local, T4 cloud. */
export type Tier = 0 | 1 | 2 | 3 | 4;

/** One rung of a ranking. */
export interface Candidate {
  slug: string;
  provider: string;
  spec: ModelSpec;
  tier: Tier;
  local: boolean;
  /** The snapshot the ledger last saw this slug resolve to. */
  resolved: string;
  /** P(success) on this call as the ranking sees it (measured, or the prior below the gate). */
  ability: number;
  /** Graded observations at this class key (below the gate, those gathered so far, while the prior sets `ability`). */
  graded: number;
  /** Passes among them. */
  ok: number;
  /** Whether `ability` comes from at least MIN_GRADED graded observations. */
  measured: boolean;
  /** USD for this call at list price; null when no price is known. */
  cost: number | null;
  /** Why the candidate is where it is, naming its evidence. */
  reason: string;
}

/**
 * A model the ranking left out: the decision row's entry, and what left it out as data.
 *
 * @remarks
 * `reason` is the logged text, opening with what happened (`pruned: needs tools`); `cause` is the rest
 * (`needs tools`), for a front end whose heading already says "pruned". Only `model` and `reason`
 * are written to the decision log.
 */
export interface RankedOut extends PrunedCandidate {
  cause?: string;
}

export interface Ranking {
  classKey: string;
  /** The eligible chain after the walk, in order. */
  candidates: Candidate[];
  pruned: RankedOut[];
  /**
   * The rung the plan opens with when nothing is explored, and why the wait moved it when it did; set by
   * the router's `rank` (a ranking the walk alone made has none).
   */
  opening?: Opening;
}

/** Where a call would open, before any exploration is drawn. */
export interface Opening {
  /** Index into the candidates. */
  index: number;
  /** Present when the user's wait moved the opener off the rung money alone would open with. */
  openedForWait?: OpenedForWait;
  /** Each candidate's planned wait, in the candidates' order, when the wait is valued. */
  waits?: RungWait[];
}

/**
 * Why a call did not open on the rung money alone would open with: that rung's record at the class and
 * what one try of it keeps the user waiting, at what the panel says a minute of waiting is worth.
 */
export interface OpenedForWait {
  /** The rung money alone would have opened with (its slug). */
  model: string;
  /** Its graded answers at the class and the passes among them, at the key its standing is read at. */
  graded: number;
  ok: number;
  classKey: string;
  /** What one try of it is planned to take, ms: its mean here, and what the calls already on its server have left. */
  meanMs: number | null;
  queuedMs: number;
  queuedCalls: number;
  /** USD a minute of the user's wait was worth. */
  waitWorth: number;
}

/** What one attempt reports to the cascade. */
export interface AttemptOutcome<T = unknown> {
  verdict: Verdict;
  /** What the check said, or the failure's message; never prefixed with a verdict or a failure kind. */
  verdictReason?: string;
  /** The kind of provider failure that ended the attempt, when one did (`unavailable` for a rejected key). */
  failure?: FailureKind;
  /** The response's own model field. */
  resolvedModel?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** USD. */
  cost?: number;
  latencyMs?: number;
  /** From the request to the first streamed part of the answer, ms, when the attempt streamed one. */
  firstTokenMs?: number;
  /**
   * The answer's confidence as the model stated it, a log-probability that the answer is right, when
   * one was read (the confidence check); a climb strategy plans from it.
   */
  confidence?: number;
  /**
   * The verdict is the answering model's own word about its answer (the confidence check). It may decide
   * the climb, but it grades nobody: the ratings do not count it, so a later grade (the user's) still
   * can. Counted, a server that always said "Y" at log-prob 0 lifted a model from 8 graded answers and
   * ability 0.742 to 14 and 0.809 with no grade from anyone.
   */
  selfJudged?: boolean;
  /** Whatever the caller wants back (the answer text, a replay's grade). */
  value?: T;
}

export interface AttemptContext {
  /** 0 for the opener. */
  attempt: number;
  /** Models already tried and failed on this call. */
  escalation: string[];
  signal?: AbortSignal;
}

/**
 * Runs one attempt on one candidate: call the model, check the answer. May throw a ProviderFailure,
 * which the cascade reads as a provider error (skip, grade nobody) or a stop (end the call).
 */
export type AttemptFn<T> = (candidate: Candidate, context: AttemptContext) => Promise<AttemptOutcome<T>>;

export interface AttemptRecord<T = unknown> extends AttemptOutcome<T> {
  model: string;
  rung: number;
  explore: boolean;
  propensity: number;
  reason: string;
  /** On the opener only: why the wait moved the call off the rung money alone would open with. */
  openedForWait?: OpenedForWait;
}

/**
 * Watches one routed call as it happens, for a front end that narrates it (the session's events).
 *
 * @remarks
 * Called synchronously by the router at each step; an observer that throws breaks the call, so it
 * must not.
 */
export interface RouteObserver<T = unknown> {
  /** The ranking is known and the climb is about to start. */
  routed?(ranking: Ranking): void;
  /** A rung is about to be asked; `previous` is the attempt that led here (undefined for the opener). */
  attemptStarted?(candidate: Candidate, attempt: number, previous: AttemptRecord<T> | undefined): void;
  /** An attempt's verdict is known (a stop already read as `stopped`). */
  attemptEnded?(record: AttemptRecord<T>): void;
}

export interface RouteResult<T = unknown> {
  ranking: Ranking;
  attempts: AttemptRecord<T>[];
  /** The attempt whose answer stands: the last one that passed or was not checked; undefined if none. */
  answer: AttemptRecord<T> | undefined;
}
