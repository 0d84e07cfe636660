/**
 * The session's contract: the one way every front end (the `rung` CLI, the chat participant, the
 * model provider, the ledger panel) reaches the router.
 *
 * @remarks
 * Before the session, the only place a chat request was put together was the CLI's chat command: the
 * default class, what counts as verifiable, which verifiers run, the escalation message. An extension
 * writing all of that again would drift from it, and had already: `rung chat` sent a 100 KB prompt to
 * a 4,000-token model that `rung rank --context` pruned. So the rules live behind this interface, and
 * a front end only renders {@link SessionEvent}s. The types are declared apart from the implementation
 * so front ends and their tests can be written against the contract alone.
 */
import type { DecisionRow, PrunedCandidate } from '../decisions/decision';
import type { VersusLog } from '../evaluation/estimate';
import type { Panel } from '../panel';
import type {
  ChatMessage,
  ChatOptions,
  FailureKind,
  ProviderAdapter,
  ProviderFailure,
  StreamPart,
  ToolCall,
  ToolSpec,
} from '../providers/provider';
import type { Candidate, OpenedForWait, Ranking } from '../routing/types';
import type { Verdict } from '../verdict';
import type { TimingFigures } from '../timing';
import type { Verifier } from '../verifiers/verifier';
import type { CheckProgress } from '../verifiers/commandVerifier';
import type { Clock } from '../clock';
import type { ProviderConnection } from './connectProviders';
import type { FetchLike } from '../providers/transport';
import type { DecisionFilter, DecisionPage, DecisionPlace } from '../store/store';
import type { ToolsSent } from '../providers/tokens';

/** A verdict with its reason carried as data, never as a prefix one module adds and another strips. */
export interface VerdictWithReason {
  kind: Verdict;
  reason: string;
  /** The kind of provider failure behind a `provider-error` or `stopped` verdict (`unavailable` for a rejected key). */
  failure?: FailureKind;
  /**
   * How much a later verdict (`settle`) says about the model, 0–1; 1 when absent. A check's verdict is
   * whole; a front end gives less to one it infers from what the user did (asked again, discarded an edit).
   */
  weight?: number;
}

/**
 * The checks a call asks for, on top of those its class and its request imply (inferredChecks.ts: JSON
 * when asked for, a tool call when a change is asked of the tools offered, code syntax for code).
 */
export interface CallChecks {
  /**
   * A JSON Schema the answer must match; asks the provider for JSON too. One the check cannot read
   * (`schemaProblems`) makes `chat` reject with an `InvalidSchemaError` before any model is asked.
   */
  schema?: unknown;
  /** A workspace command run on a scratch copy with the answer's files written in. */
  command?: {
    command: string;
    cwd: string;
    timeoutMs?: number;
    /** The environment the command's is drawn from; the session's `environment` option when absent. Only its allowed part is given (commandEnvironment.ts). */
    env?: Record<string, string | undefined>;
    /** Variables the command may see beyond those every command gets, by name (`rung.verifyCommandEnv`, `rung chat --verify-env`). */
    allowEnv?: readonly string[];
    /** Told now and then while the command runs, so a front end can say it is still checking. */
    onProgress?: (progress: CheckProgress) => void;
  };
  /** Further checks a front end brings (the extension's diagnostics, a test double). */
  extra?: Verifier[];
  /**
   * Whether an `edit` call's answer blocks are syntax-checked on their own; default true. A front end
   * that checks the edit in its file (Edit Selection) says false, since a fragment need not parse alone.
   */
  answerSyntax?: boolean;
  /**
   * Whether the answer must make a tool call: `'required'` says the request asks for a change the tools
   * offered make (inline chat); `'optional'` says it does not, whatever its words; absent, the session
   * reads it from the words, conservatively. Either way the arguments of every call are checked, and a
   * turn that has already called a tool needs no further call.
   */
  toolCall?: 'required' | 'optional';
}

/** One routed chat call, as a front end asks for it. */
export interface SessionChatRequest {
  messages: ChatMessage[];
  /** The tools sent to the model: only these may be called, and the tool-call check holds an answer to them. */
  tools?: ToolSpec[];
  /** Tools the caller was offered and left out (`rung.agentTools`), by name: recorded with the call, never sent. */
  droppedTools?: string[];
  /**
   * The class key (`plan`, `edit/typescript`), kept as given; `'infer'` or absent lets the session
   * decide: `plan` for JSON (a schema, a JSON response format, or words asking for JSON), `edit` for
   * code or a change (shaped by the request's language), otherwise `chat` (`routedClass`).
   */
  classKey?: string | 'infer';
  checks?: CallChecks;
  /** A model the user picked: it opens, the panel's later rungs stay as fallbacks. */
  pinned?: string;
  /** A model to keep off the opener. */
  avoid?: string;
  /** A model to climb past: rungs not above it on the ladder are pruned (see `RouteRequest.above`). */
  above?: string;
  /** The conversation: the scope of the diversity caps. */
  conversationId?: string;
  /** Overrides the call id (tests, a retry that must settle the same call). */
  callId?: string;
  /** Provider options; `json: true` is the caller's JSON response format, which also makes the answer checked for JSON. */
  chatOptions?: Omit<ChatOptions, 'signal'>;
  think?: boolean;
  signal?: AbortSignal;
}

/** One attempt as a front end shows it. */
export interface SessionAttempt {
  model: string;
  provider: string;
  rung: number;
  verdict: VerdictWithReason;
  resolvedModel: string | null;
  cost: number | null;
  latencyMs: number | null;
  explore: boolean;
  /** The checks that judged this attempt's answer (passed or failed it), in words ("JSON", "TypeScript syntax"); empty when none did. */
  checks: string[];
  /** The answering model's confidence in this answer, a log-probability, when the confidence check read one. */
  confidence?: number;
  /** On the opener: why the user's wait moved the call off the model money alone would open with. */
  openedForWait?: OpenedForWait;
}

/** What a routed call came to. */
export interface SessionChatResult {
  callId: string;
  classKey: string;
  /**
   * The standing answer, or undefined when no rung produced one; `confidence` is the answering model's
   * (a log-probability that the answer is right) when the confidence check read one.
   */
  answer: { text: string; reasoning: string; toolCalls: ToolCall[]; model: string; resolvedModel: string; confidence?: number } | undefined;
  attempts: SessionAttempt[];
  /** The ranking with every pruned rung and its reason (including rungs the climb skipped). */
  ranking: Ranking;
  /** The user stopped the call. */
  stopped: boolean;
  /** Rung shut down under the call (the window closed or reloaded): its last attempt is `interrupted`. */
  interrupted: boolean;
  /** USD summed over every attempt that reported a cost. */
  cost: number;
  /** The checks that judged the standing answer, in words; empty when none did, or no answer stands. */
  checks: string[];
  /** The closing line's words for them: `checked: JSON, TypeScript syntax`, or `unchecked`. */
  checked: string;
  /**
   * What the tool schemas took of the input, when the request offered tools; `cost` is USD they cost
   * as input over every attempt, at each model's price (null when a paid model's price is unknown).
   */
  tools?: ToolsSent & { cost: number | null };
}

/**
 * What happens during a call, in order. A front end renders these and nothing else: the CLI prints
 * them, the chat participant streams them, the panel counts them.
 */
export type SessionEvent =
  | {
      type: 'routed';
      callId: string;
      classKey: string;
      ranking: Ranking;
      /**
       * Whether a check may fail an answer given in text (every check but the arguments of tool calls
       * the request did not need): a front end that must not show a failed answer holds the text of
       * such a call until its verdict.
       *
       * @remarks
       * The confidence check is left out: it judges calls nothing else can (a plain question), which
       * held would never stream, and it climbs from few of them.
       */
      textChecked?: boolean;
    }
  | {
      type: 'rung-started';
      callId: string;
      candidate: Candidate;
      attempt: number;
      /** The checks that will judge this attempt's answer, in words (`JSON`, `code syntax`); empty when none will. */
      checks: string[];
      /** The model's price as the router prices it, USD per million tokens; null when nobody knows it. */
      price: { input: number; output: number } | null;
    }
  | { type: 'part'; callId: string; model: string; part: StreamPart }
  | { type: 'verdict'; callId: string; model: string; verdict: VerdictWithReason }
  | { type: 'escalated'; callId: string; from: string; to: string; reason: string }
  | { type: 'skipped'; callId: string; model: string; verdict: VerdictWithReason; next: string }
  | { type: 'done'; callId: string; result: SessionChatResult };

/** A model's standing in one class, for a picker or the panel. */
export interface RatingView {
  model: string;
  classKey: string;
  /** Logits. */
  rating: number;
  /** P(success) on an average call of the class. */
  ability: number;
  /** Standard error in logits (an estimate from the graded count); null when nothing was graded. */
  uncertainty: number | null;
  graded: number;
  ok: number;
  /** Whether the rating has passed its gate and overrides the prior. */
  measured: boolean;
  /**
   * The graded observations a rating needs before it overrides its prior (MIN_GRADED), carried with each
   * rating so that a view shows the core's number, not a copy of it that can drift.
   */
  gate: number;
  updatedAt: number;
  /** How long its answers at the class took on this machine (timing.ts); absent before any was timed. */
  timing?: TimingFigures;
}

export interface SpendView {
  /** USD per day (UTC date `YYYY-MM-DD`), model and provider. */
  byDay: { day: string; model: string; provider: string; cost: number; calls: number }[];
  total: number;
  today: number;
  /** What the same calls would have cost on the panel's strongest (dearest) model: an estimate. */
  strongestModel: string | null;
  strongestEstimate: number | null;
  /**
   * USD of `total` that paid for tool schemas sent as input (an agent's dozens of tools), at each
   * attempt's model's input price: estimated tokens, so a share of the bill, not a bill of its own.
   */
  toolSchemas: number;
}

export type { DecisionFilter, DecisionPage, DecisionPlace } from '../store/store';

export interface SessionSnapshot {
  panel: Panel;
  /** Per class key, strongest first. */
  ratings: RatingView[];
  decisions: DecisionPage;
  spend: SpendView;
  providers: { name: string; healthy: boolean; reason?: string }[];
  /**
   * Each panel model's price as the router uses it, USD per million tokens: the panel's own, else the
   * catalog's (fetched and cached), else 0 for a local model; absent when none is known.
   */
  prices: { model: string; input: number; output: number; from: 'panel' | 'catalog' | 'local' }[];
  /** Where the ledger lives; null for a memory ledger. */
  ledgerPath: string | null;
}

export type SessionChange =
  | { type: 'ledger-changed' }
  | { type: 'decision-written'; row: DecisionRow }
  | { type: 'panel-changed'; panel: Panel }
  | { type: 'provider-health'; provider: string; healthy: boolean; reason?: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string };

/**
 * Builds the adapter for one provider of a panel; one factory per provider `kind`.
 *
 * @remarks
 * A factory may return the adapter alone, or a {@link ProviderConnection} that also says how to probe
 * the provider and what it knows of its models. Throwing a `ProviderSetupError` (connectProviders.ts)
 * prunes the provider's models with its message instead of failing the session.
 */
export type ProviderFactory = (input: {
  name: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** The panel's `key` for this provider (`required`, `none`); absent: the factory decides (loopback needs none). */
  key?: 'required' | 'none';
  clock: Clock;
  /** The panel's slugs on this provider. */
  models?: readonly string[];
  /** Those of {@link models} whose context window the panel does not state, for a factory that can ask the provider. */
  modelsWithoutContext?: readonly string[];
  /** How the user sets a missing key (`set RUNG_OPENROUTER_API_KEY`), for the adapter's message. */
  keyHint?: string;
  /** Where this provider's catalog is cached; null: fetched on every connect, not cached; absent: no catalog is fetched. */
  catalogPath?: string | null;
  fetch?: FetchLike;
  /** Stops a slow connect (a catalog fetch) when the user does. */
  signal?: AbortSignal;
}) => ProviderAdapter | ProviderConnection | Promise<ProviderAdapter | ProviderConnection>;

/** Where keys come from: SecretStorage in the extension, the environment in the CLI. */
export type KeyLookup = (provider: string) => Promise<string | undefined>;

/** A context-window refusal: no rung can hold the call. */
export interface ContextRefusal {
  neededTokens: number;
  largestContext: number;
  largestModel: string;
}

export type { PrunedCandidate, ProviderFailure };

/** Which models the confidence check asks (`off`, `local`, `all`): `RungSessionOptions.confidenceCheck`, here for front ends that offer the choice. */
export type { ConfidenceCheckMode } from '../confidence/liveConfidence';

/**
 * Why the decision log cannot say what always opening with a model would have done.
 *
 * @remarks
 * `no-calls`: the log holds no call with a propensity; `not-a-candidate`: the model was pruned or off
 * the panel on too many calls for the log to have given it a chance; `too-few`: too few calls opened
 * with it (none, or too few once weighed by their propensity).
 */
export type OpenerRefusal = 'no-calls' | 'not-a-candidate' | 'too-few';

/** What always opening with one panel model would have done, estimated from the decision log (`rung evaluate --policy open=MODEL`). */
export interface OpenerEstimate {
  model: string;
  /** The calls the estimate rests on. */
  calls: number;
  /** The doubly robust estimate against the calls as they were routed; absent when `refused` says why. */
  versusLog?: VersusLog;
  refused?: OpenerRefusal;
  /** Present when the estimate read only the most recent calls (`MAX_ESTIMATED_CALLS`): how many calls the log holds. */
  logCalls?: number;
}

/**
 * The session's methods. The implementation (`RungSession` in session.ts) owns the panel, the ledger
 * and its decision log, the providers with their health board, the catalog and the router.
 */
export interface Session {
  /** Routes one call through the cascade, reporting each event as it happens. */
  chat(request: SessionChatRequest, onEvent?: (event: SessionEvent) => void): Promise<SessionChatResult>;
  /** What the router would do for a request, and why; calls no model, changes nothing. */
  rank(request: {
    classKey: string;
    messages?: ChatMessage[];
    tools?: ToolSpec[];
    pinned?: string;
    avoid?: string;
    above?: string;
    conversationId?: string;
  }): Ranking;
  /**
   * Asks every provider that can be probed (a local server) whether it is there, and tells the
   * listeners of each whose health changed; never throws. Cheap on a timer: each probe is cached 30 s.
   */
  checkProviders(signal?: AbortSignal): Promise<void>;
  /** A verdict that arrived after the answer (thumbs up/down, an accepted or discarded edit). */
  settle(callId: string, verdict: VerdictWithReason): boolean;
  /**
   * Ratings, a page of recent decisions, spend: everything a panel shows. With `before`, the page is the
   * newer one that ends just before that row offset ("Newer" from a page starting there); `offset` is then not read.
   */
  snapshot(options?: { offset?: number; limit?: number; filter?: DecisionFilter; before?: number }): SessionSnapshot;
  /**
   * Where `row`, the newest row of its call just written, is counted in the decision list `filter`
   * shows, and how much the list grew: what a panel needs to keep its page where it is.
   */
  placeOf(row: DecisionRow, filter?: DecisionFilter): DecisionPlace;
  /** Every decision row written for one call, oldest first (the last is the truth): "explain this answer". */
  explain(callId: string): DecisionRow[];
  /** Forgets every rating at a class key (and its shapes), as `rung ledger reset --class` does. */
  resetClass(classKey: string): Promise<void>;
  /** Forgets every rating, alias and spawn; the decision log is kept. */
  resetLedger(): Promise<void>;
  /** The ledger as JSON text, as `rung ledger export` writes it. */
  exportLedger(): Promise<string>;
  /** Replaces the panel (the user edited the setting or the file); ratings and history stay. */
  setPanel(panel: Panel): Promise<void>;
  /** Change events; returns the unsubscribe function. */
  onChange(listener: (change: SessionChange) => void): () => void;
  /**
   * For each panel model, what always opening with it would have done on the calls in the decision log.
   *
   * @remarks
   * Reads the whole log (up to 100k rows), so only on a user's request, never on a refresh.
   */
  estimateOpeners(): Promise<OpenerEstimate[]>;
  /**
   * Stops the calls under way, flushes the ledger and the decision log, and releases every resource.
   * A stopped call's attempt is recorded `interrupted`, with `reason` when given (why the session was let
   * go of), else as cut off by Rung shutting down.
   */
  dispose(reason?: string): Promise<void>;
}
