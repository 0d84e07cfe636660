/**
 * The session: the one object every front end (the `rung` CLI, the chat participant, the language
 * model provider, the ledger panel) routes through.
 *
 * @remarks
 * It owns the panel, the ledger and the decision log beside it, the providers with their health board,
 * the catalogs and the router, and keeps every rule of putting a chat call together: the class a call
 * is routed as, what checks it, how many tokens it needs in context, which models today's budget still
 * allows. A front end renders the {@link SessionEvent}s of a call and nothing else, so the terminal and
 * the editor cannot drift apart. The contract is in types.ts; this is its one implementation.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { providerAttempt, type ChatAnswer } from '../chat/providerAttempt';
import { shaped } from '../classKey';
import { systemClock, type Clock } from '../clock';
import type { DecisionRow, DecisionSink } from '../decisions/decision';
import type { LedgerNotice } from '../ledger/notices';
import { openStore, type OpenStoreOptions } from '../store/openStore';
import type { Store } from '../store/store';
import { workspaceFileOf, type StoreLocation } from '../store/storeLocation';
import { StoreReads } from './storeReads';
import { attemptTimeoutMs, type Panel } from '../panel';
import { connectProviders } from './connectProviders';
import type { ChatMessage, ModelFacts, ProviderAdapter, ToolSpec } from '../providers/provider';
import type { PromptText } from '../signal/promptFeatures';
import { ProviderHealthBoard } from '../providers/providerHealthBoard';
import { seededRandom, type Random } from '../random';
import { RoutingError } from '../routing/rank';
import { isLocal } from '../providers/locality';
import { Router } from '../routing/router';
import { knownPrice } from '../routing/pricing';
import { AllVerifiers } from '../verifiers/allVerifiers';
import { hasSpendLimits, OUTPUT_TOKENS_BOUND } from '../routing/spendLimits';
import type { AttemptRecord, RouteObserver, RouteRequest } from '../routing/types';
import type { Candidate, Ranking } from '../routing/types';
import { CONFIDENCE_FAILURE_MULTIPLE } from '../confidence/confidenceLearner';
import { DEFAULT_CONFIDENCE_CHECK, LiveConfidence, type ConfidenceCheckMode } from '../confidence/liveConfidence';
import { callVerification, confidenceMayJudge, inferClassKey, InvalidSchemaError, messagesWithSchema, schemaProblems } from './callChecks';
import { estimateTokens, toolsSent, type ToolsSent } from '../providers/tokens';
import { CallInterrupted } from '../verdict';
import type {
  ContextRefusal,
  DecisionFilter,
  DecisionPlace,
  KeyLookup,
  OpenerEstimate,
  ProviderFactory,
  Session,
  SessionAttempt,
  SessionChange,
  SessionChatRequest,
  SessionChatResult,
  SessionEvent,
  SessionSnapshot,
  VerdictWithReason,
} from './types';

/**
 * What the per-prompt signal reads of a chat request: the system and user text as sent (assistant turns
 * and tool results are the models' words, not the asker's), and the tools offered. Hashed into features
 * by the router; never stored.
 */
function promptText(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): PromptText {
  const text = messages
    .filter((message) => message.role === 'system' || message.role === 'user')
    .map((message) => message.content)
    .join('\n\n');
  return { text, ...(tools.length > 0 ? { tools: tools.map((tool) => tool.name) } : {}) };
}

/**
 * How long `dispose` waits for the calls it stopped to end, ms.
 *
 * @remarks
 * A stopped call ends within milliseconds (each adapter aborts its request on the signal); this bounds
 * one that does not, so the ledger and the log are still saved well inside the 5 s VS Code gives an
 * extension host to stop.
 */
export const STOP_WAIT_MS = 1_000;

export { DEFAULT_PAGE_ROWS, MAX_ESTIMATED_CALLS, SPEND_WINDOW_DAYS } from './storeReads';

export type SessionLogLevel = 'info' | 'warning' | 'error';

export interface RungSessionOptions {
  panel: Panel;
  /** Where ratings and decision rows are kept; memory when absent. Its notices become `notice` changes. */
  store?: StoreLocation;
  /** How the store is opened beyond its location: the team's member and password, a test's timer. */
  storeOptions?: Omit<OpenStoreOptions, 'clock' | 'log' | 'onNotice' | 'onDecisionNotice'>;
  /**
   * Opens the store in the front end's way (the CLI's refusals and messages); `openStore` unless given.
   * The session's notice listeners are handed over, so the store's notices become its `notice` changes.
   */
  openStore?: (location: StoreLocation, notices: Pick<OpenStoreOptions, 'onNotice' | 'onDecisionNotice'>) => Promise<Store>;
  clock?: Clock;
  /** Exploration's draws; seeded from the clock when absent. */
  random?: Random;
  /** Where keys come from: SecretStorage in the extension, the environment in the CLI. */
  keys: KeyLookup;
  /** How the user sets a missing key, for the message (`set RUNG_OPENROUTER_API_KEY`). */
  keyHint?: (provider: string) => string;
  /** Factories by provider kind, over the core's `ollama` and `openai-compatible`. */
  providerFactories?: Readonly<Record<string, ProviderFactory>> | ReadonlyMap<string, ProviderFactory>;
  /**
   * Where provider catalogs are cached (`catalog-<provider>.json`), a folder of the user's own: a cache
   * there prices models, so a folder a repository can fill would set what the price cap sees. Null: the
   * catalogs are fetched at every open and not cached; absent: no catalog is fetched.
   */
  catalogDir?: string | null;
  /** Everything the user should hear about that is not an event of a call. */
  log?: (level: SessionLogLevel, message: string) => void;
  /** USD a UTC day (by `clock`) may spend on paid models; absent: no limit. */
  dailyBudgetUsd?: number;
  /** USD one answer may cost over all its attempts; absent: no ceiling. */
  answerCeilingUsd?: number;
  /** The environment a workspace command's is drawn from (only its allowed part, never a key); empty when absent. */
  environment?: Record<string, string | undefined>;
  /**
   * Secrets besides the providers' keys (the team ledger's password from SecretStorage): kept out of a
   * workspace command's environment and scrubbed from what it prints, as the keys are.
   */
  secrets?: readonly string[];
  /** Stops connecting to the providers (a probe, a catalog fetch). */
  signal?: AbortSignal;
  /**
   * Judge calls nothing else can judge by the answering model's confidence: a second, one-token
   * question to the answering model, on providers that give log-probabilities. `local` (the default)
   * asks only models on a local provider, where the question costs nothing; `all` asks paid models
   * too; `off` leaves such calls unchecked. See {@link ConfidenceCheckMode}.
   */
  confidenceCheck?: ConfidenceCheckMode;
}

/** A request no rung can hold: the tokens it needs and the largest context on the panel. */
export class ContextRefusalError extends RoutingError {
  constructor(readonly refusal: ContextRefusal) {
    super(
      `this call needs about ${refusal.neededTokens} tokens of context (estimated at 4 characters a token), ` +
        `more than any model on the panel holds; the largest context is ${refusal.largestContext} (${refusal.largestModel})`,
    );
    this.name = 'ContextRefusalError';
  }
}

interface Connected {
  adapters: Map<string, ProviderAdapter>;
  facts: Map<string, ModelFacts>;
  /** What connecting could not learn, and why (a catalog that could not be fetched, a local server that gave no context window). */
  notes: string[];
  /** Asks again for what connecting could not learn (connectProviders.ts). */
  relearn: (signal?: AbortSignal) => Promise<{ facts: ModelFacts[]; notes: string[] }>;
}

/** The most notices and health changes kept for a first listener; past it notices are in the log only. */
const MAX_UNHEARD_NOTICES = 20;

export class RungSession implements Session {
  private panel: Panel;
  private readonly clock: Clock;
  private readonly store: Store;
  /** What a ledger view reads of the store: ratings, pages, one call's rows, spend, the export, the estimates. */
  private readonly reads: StoreReads;
  private readonly health: ProviderHealthBoard;
  private readonly router: Router;
  private readonly options: RungSessionOptions;
  private adapters: Map<string, ProviderAdapter>;
  private facts: Map<string, ModelFacts>;
  private relearn: Connected['relearn'];
  /** Counts `setPanel` calls, so a panel whose providers answer late cannot replace one set after it. */
  private panelsSet = 0;
  private readonly secrets = new Set<string>();
  private readonly listeners = new Set<(change: SessionChange) => void>();
  /**
   * Notices and provider-health changes raised while nobody listened, for the first listener. Opening
   * raises them before `open` returns, so before anyone can subscribe: a damaged ledger moved aside, a
   * catalog that could not be fetched, a provider down from the start. Without this a front end never
   * heard of them (the log had the notices, not the health).
   */
  private unheard: SessionChange[] = [];
  private readonly healthSeen = new Map<string, string | null>();
  private disposed: Promise<void> | undefined;
  /** Calls under way, each with the switch that stops it: dispose stops them and waits for their rows and observations. */
  private readonly inFlight = new Map<AbortController, Promise<unknown>>();
  /** Per call under way, the checks that judged its latest attempt, for that attempt's decision row. */
  private readonly judgedBy = new Map<string, string[]>();
  /** The confidence check for calls nothing else can judge; absent when the session was opened without it. */
  private readonly confidence: LiveConfidence | undefined;

  /** Opens the store, connects the panel's providers and builds the router. */
  static async open(options: RungSessionOptions): Promise<RungSession> {
    const clock = options.clock ?? systemClock;
    const notices: { level: SessionLogLevel; message: string }[] = [];
    // Notices that arrive while opening wait for the session; later ones go straight to its listeners.
    const opened: { session?: RungSession } = {};
    const notice = (level: SessionLogLevel, message: string): void => {
      if (opened.session) opened.session.notify(level, message);
      else notices.push({ level, message });
    };
    const listeners = {
      onNotice: (ledgerNotice: LedgerNotice) => notice('warning', ledgerNotice.message),
      // The one report of a failed write, whether the timer or a flush ran it.
      onDecisionNotice: (logNotice: LedgerNotice) => notice(logNotice.kind === 'save-failed' ? 'error' : 'warning', logNotice.message),
    };
    const location = options.store ?? { kind: 'memory' };
    const store = options.openStore
      ? await options.openStore(location, listeners)
      : await openStore(location, { ...options.storeOptions, clock, log: (level, message) => options.log?.(level, message), ...listeners });
    const health = new ProviderHealthBoard({ clock });
    const secrets = new Set<string>();
    let connected: Connected;
    try {
      connected = await connect(options, options.panel, clock, health, secrets);
    } catch (error) {
      await store.close();
      throw error;
    }
    const session = new RungSession(options, clock, store, health, connected, secrets);
    opened.session = session;
    for (const { level, message } of notices) session.notify(level, message);
    for (const note of connected.notes) session.notify('info', note);
    session.noticeHealth();
    return session;
  }

  private constructor(
    options: RungSessionOptions,
    clock: Clock,
    store: Store,
    health: ProviderHealthBoard,
    connected: Connected,
    secrets: Set<string>,
  ) {
    this.options = options;
    this.panel = options.panel;
    this.clock = clock;
    this.store = store;
    this.reads = new StoreReads(store);
    this.health = health;
    this.adapters = connected.adapters;
    this.facts = connected.facts;
    this.relearn = connected.relearn;
    for (const secret of [...secrets, ...(options.secrets ?? [])]) if (secret) this.secrets.add(secret);
    // Every row the router writes is a change a panel shows as it happens.
    const sink: DecisionSink = {
      append: (written) => {
        const judged = written.final ? undefined : this.judgedBy.get(written.call);
        const row = judged === undefined ? written : { ...written, checks: judged };
        store.decisions.append(row);
        this.emit({ type: 'decision-written', row });
      },
    };
    this.router = new Router({
      panel: this.panel,
      ledger: store.ratings,
      clock,
      sink,
      random: options.random ?? seededRandom(clock.now()),
      health,
      facts: this.facts,
    });
    const confidenceCheck = options.confidenceCheck ?? DEFAULT_CONFIDENCE_CHECK;
    this.confidence =
      confidenceCheck === 'off'
        ? undefined
        : new LiveConfidence({
            ledger: store.ratings,
            adapters: () => this.adapters,
            multiple: () => CONFIDENCE_FAILURE_MULTIPLE[this.panel.routing.tradeoff],
            ask: confidenceCheck,
          });
  }

  /** The panel in force, without the reads a {@link snapshot} makes (ratings, decisions, spend). */
  get currentPanel(): Panel {
    return this.panel;
  }

  /** Where the ratings and decision rows are kept. */
  get storeLocation(): StoreLocation {
    return this.store.location;
  }

  chat(request: SessionChatRequest, onEvent?: (event: SessionEvent) => void): Promise<SessionChatResult> {
    this.requireOpen();
    const stop = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, stop.signal]) : stop.signal;
    const call = this.routeChat({ ...request, signal }, onEvent);
    this.inFlight.set(stop, call);
    const forget = (): void => void this.inFlight.delete(stop);
    call.then(forget, forget);
    return call;
  }

  private async routeChat(request: SessionChatRequest, onEvent?: (event: SessionEvent) => void): Promise<SessionChatResult> {
    const emit = (event: SessionEvent): void => onEvent?.(event);
    const callId = request.callId ?? `chat-${randomUUID()}`;
    const tools = request.tools ?? [];
    // What the request itself asks of the answer (JSON, a tool call, code) is read once, for the class and the checks.
    const asked = {
      messages: request.messages,
      tools,
      ...(request.classKey !== undefined ? { classKey: request.classKey } : {}),
      ...(request.chatOptions?.json === true ? { json: true } : {}),
    };
    const classKey = inferClassKey({ ...asked, ...(request.checks ? { checks: request.checks } : {}) });
    const schema = request.checks?.schema;
    // Refused before any rung is asked: the check would misread it and grade every model for the caller's mistake.
    const problems = schema === undefined ? [] : schemaProblems(schema);
    if (problems.length > 0) throw new InvalidSchemaError(problems);
    // A provider that was down when the session opened may be back; the ranking reads the board only.
    await this.health.recheck(request.signal);
    this.noticeHealth();
    // Likewise a local server started since: its window is what prunes a prompt too long for it.
    await this.relearnFacts(request.signal);
    const messages = messagesWithSchema(request.messages, schema);
    const contextTokens = estimateTokens(messages, tools);
    const toolsShare = toolsSent(messages, tools, request.droppedTools ?? []);
    const verification = callVerification(classKey, request.checks, this.options.environment ?? {}, [...this.secrets], asked);
    const { verifiable } = verification;
    // Where nothing else can judge, the answering model's confidence does, with its climb planned from it.
    const confidence = this.confidence && confidenceMayJudge(verification) ? this.confidence.forCall(classKey, messages) : undefined;
    const verifier = confidence?.verifier ?? verification.verifier;
    // What is named before each attempt: the confidence check only for a model whose answer it would judge.
    const checkWords = (candidate: Candidate): string[] =>
      confidence
        ? confidence.judges(candidate)
          ? [confidence.verifier.label]
          : []
        : verifier instanceof AllVerifiers
          ? verifier.labels
          : [verifier.label ?? verifier.name];
    const routeRequest: RouteRequest = {
      callId,
      classKey,
      verifiable,
      contextTokens,
      ...(tools.length > 0 ? { needsTools: true } : {}),
      ...(toolsShare ? { tools: toolsShare } : {}),
      prompt: promptText(request.messages, tools),
      ...(request.conversationId !== undefined ? { runId: request.conversationId } : {}),
      ...(request.pinned !== undefined ? { pinned: request.pinned } : {}),
      ...(request.avoid !== undefined ? { avoid: request.avoid } : {}),
      ...(request.above !== undefined ? { above: request.above } : {}),
      ...(confidence ? { climb: confidence.climb } : {}),
      ...this.spendLimits(request.chatOptions?.maxOutputTokens),
    };
    try {
      this.refuseOversized(contextTokens);
    } catch (error) {
      // Refused by every rung's context: a decision row says so, as for any call the walk pruned whole.
      if (error instanceof ContextRefusalError) {
        this.router.refuse(routeRequest, error.message);
        await this.flushDecisions();
      }
      throw error;
    }
    const attempt = providerAttempt({
      adapters: this.adapters,
      messages,
      tools,
      verifier,
      clock: this.clock,
      signal: request.signal,
      health: this.health,
      attemptTimeoutMs: attemptTimeoutMs(this.panel),
      ...(hasSpendLimits(routeRequest) ? { paidOutputTokens: routeRequest.outputTokensBound ?? OUTPUT_TOKENS_BOUND } : {}),
      chatOptions: { ...(request.chatOptions ?? {}), ...(schema !== undefined ? { json: true } : {}) },
      ...(request.think !== undefined ? { think: request.think } : {}),
      onPart: (model, part) => emit({ type: 'part', callId, model, part }),
    });
    const observer: RouteObserver<ChatAnswer> = {
      routed: (ranking) => emit({ type: 'routed', callId, classKey, ranking, textChecked: verification.textChecked }),
      attemptStarted: (candidate, index, previous) => {
        if (previous?.verdict === 'fail') {
          const reason = `escalated from ${previous.model} to ${candidate.slug}: ${previous.verdictReason ?? 'the check failed'}`;
          emit({ type: 'escalated', callId, from: previous.model, to: candidate.slug, reason });
        } else if (previous) {
          emit({ type: 'skipped', callId, model: previous.model, verdict: verdictOf(previous), next: candidate.slug });
        }
        emit({
          type: 'rung-started',
          callId,
          candidate,
          attempt: index,
          checks: checkWords(candidate),
          price: knownPrice(candidate.spec, candidate.local, this.facts.get(candidate.slug)),
        });
      },
      attemptEnded: (record) => {
        // The router writes the attempt's row right after this, in the same turn: the row carries these.
        this.judgedBy.set(callId, record.value?.checks ?? []);
        emit({ type: 'verdict', callId, model: record.model, verdict: verdictOf(record) });
      },
    };
    let routed;
    try {
      routed = await this.router.route(routeRequest, attempt, request.signal, observer);
      confidence?.finish(callId, routed.answer);
    } finally {
      this.judgedBy.delete(callId);
      await this.flushDecisions();
      this.noticeHealth();
    }
    this.emit({ type: 'ledger-changed' });
    const value = routed.answer?.value;
    const checks = value?.checks ?? [];
    const result: SessionChatResult = {
      callId,
      classKey,
      answer:
        value && routed.answer
          ? {
              text: value.text,
              reasoning: value.reasoning,
              toolCalls: value.toolCalls,
              model: routed.answer.model,
              resolvedModel: value.resolvedModel,
              ...(routed.answer.confidence !== undefined ? { confidence: routed.answer.confidence } : {}),
            }
          : undefined,
      attempts: routed.attempts.map((record) => sessionAttempt(record, routed.ranking)),
      ranking: routed.ranking,
      stopped: routed.attempts.some((record) => record.verdict === 'stopped'),
      interrupted: routed.attempts.some((record) => record.verdict === 'interrupted'),
      cost: routed.attempts.reduce((sum, record) => sum + (record.cost ?? 0), 0),
      checks,
      checked: checkedLine(checks),
      ...(toolsShare ? { tools: { ...toolsShare, cost: this.toolsCost(toolsShare, routed.attempts, routed.ranking) } } : {}),
    };
    emit({ type: 'done', callId, result });
    return result;
  }

  /** USD the tool schemas cost as input over `attempts`, each at its model's price; null when one's is unknown. */
  private toolsCost(tools: ToolsSent, attempts: readonly AttemptRecord<ChatAnswer>[], ranking: Ranking): number | null {
    let cost = 0;
    for (const attempt of attempts) {
      const candidate = ranking.candidates[attempt.rung];
      const each = candidate ? this.router.toolsCost(candidate, tools.tokens) : null;
      if (each === null) return null;
      cost += each;
    }
    return cost;
  }

  rank(request: Parameters<Session['rank']>[0]): Ranking {
    this.requireOpen();
    const contextTokens = request.messages || request.tools ? estimateTokens(request.messages ?? [], request.tools ?? []) : undefined;
    return this.router.rank({
      callId: 'rank',
      classKey: shaped(request.classKey),
      verifiable: true,
      ...(contextTokens !== undefined ? { contextTokens } : {}),
      ...(request.tools && request.tools.length > 0 ? { needsTools: true } : {}),
      ...(request.conversationId !== undefined ? { runId: request.conversationId } : {}),
      ...(request.pinned !== undefined ? { pinned: request.pinned } : {}),
      ...(request.avoid !== undefined ? { avoid: request.avoid } : {}),
      ...(request.above !== undefined ? { above: request.above } : {}),
      ...this.spendLimits(undefined),
    });
  }

  async checkProviders(signal?: AbortSignal): Promise<void> {
    this.requireOpen();
    await this.health.probeAll(signal);
    this.noticeHealth();
  }

  settle(callId: string, verdict: VerdictWithReason): boolean {
    this.requireOpen();
    const settled = this.router.settle(callId, verdict.kind, verdict.reason, verdict.weight);
    // A grade of an answer the confidence check let stand is what its thresholds learn from.
    this.confidence?.grade(callId, verdict.kind);
    if (settled) {
      this.emit({ type: 'ledger-changed' });
      void this.flushDecisions();
    }
    return settled;
  }

  snapshot(options: { offset?: number; limit?: number; filter?: DecisionFilter; before?: number } = {}): SessionSnapshot {
    this.requireOpen();
    const now = this.clock.now();
    const panelName = this.panelNames(now);
    return {
      panel: this.panel,
      ratings: this.reads.ratings(panelName),
      decisions: this.reads.page(options),
      spend: this.reads.spend(now, this.panel, this.facts),
      providers: [...new Set(this.panel.models.map((model) => model.provider))].map((name) => {
        const reason = this.health.unavailableReason(name, now);
        return reason === null ? { name, healthy: true } : { name, healthy: false, reason };
      }),
      prices: this.prices(),
      ledgerPath: workspaceFileOf(this.store.location),
    };
  }

  placeOf(row: DecisionRow, filter: DecisionFilter = {}): DecisionPlace {
    this.requireOpen();
    return this.reads.placeOf(row, filter);
  }

  explain(callId: string): DecisionRow[] {
    this.requireOpen();
    return this.reads.explain(callId);
  }

  async resetClass(classKey: string): Promise<void> {
    this.requireOpen();
    await this.store.reset(shaped(classKey));
    this.confidence?.reload();
    this.emit({ type: 'ledger-changed' });
  }

  async resetLedger(): Promise<void> {
    this.requireOpen();
    await this.store.reset();
    this.confidence?.reload();
    this.emit({ type: 'ledger-changed' });
  }

  async exportLedger(): Promise<string> {
    this.requireOpen();
    await this.flushDecisions();
    return this.reads.export();
  }

  async estimateOpeners(): Promise<OpenerEstimate[]> {
    this.requireOpen();
    await this.flushDecisions();
    return this.reads.estimateOpeners(
      this.panel.models.map((model) => model.slug),
      this.panel.routing.exploreMeasured ?? 0,
    );
  }

  async setPanel(panel: Panel): Promise<void> {
    this.requireOpen();
    const turn = ++this.panelsSet;
    const connected = await connect(this.options, panel, this.clock, this.health, this.secrets);
    // Settings changed twice in a row set two panels; connecting is a network round trip, so the first
    // can finish last. The one set last is the one the settings hold now.
    if (turn !== this.panelsSet) return;
    this.panel = panel;
    this.adapters = connected.adapters;
    this.facts = connected.facts;
    this.relearn = connected.relearn;
    this.router.setPanel(panel);
    this.router.setFacts(connected.facts);
    this.emit({ type: 'panel-changed', panel });
    for (const note of connected.notes) this.notify('info', note);
    this.noticeHealth();
  }

  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    const unheard = this.unheard;
    this.unheard = [];
    for (const change of unheard) listener(change);
    return () => this.listeners.delete(listener);
  }

  /**
   * Stops the calls under way, then saves the ledger and the decision log.
   *
   * @remarks
   * A call is stopped rather than left running because its graded attempts become observations only
   * when the call ends, while each attempt's row is queued as the attempt ends: closing the files under
   * a running call (a Reload Window during a cascade) wrote the row of its failed first rung but never
   * its observation. A stopped call ends at once with its current rung `stopped` (graded by nobody)
   * and its earlier rungs learned, so the rows and the ledger agree. A call that ignores the stop is
   * waited for only {@link STOP_WAIT_MS}. The ledger is saved before the log: its save is the slow one
   * (a lock, a whole-file export), so a host that ends the process during it loses both, not one.
   */
  dispose(reason?: string): Promise<void> {
    this.disposed ??= (async () => {
      try {
        await this.stopCalls(reason);
        await this.store.close();
      } finally {
        this.listeners.clear();
      }
    })();
    return this.disposed;
  }

  private async stopCalls(reason: string | undefined): Promise<void> {
    if (this.inFlight.size === 0) return;
    const calls = [...this.inFlight.values()].map((call) => call.catch(() => undefined));
    for (const stop of this.inFlight.keys()) stop.abort(new CallInterrupted(reason));
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      Promise.all(calls).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!waited)
      this.options.log?.(
        'warning',
        `${this.inFlight.size} call(s) did not stop within ${STOP_WAIT_MS} ms of shutting down; what they learn from here on is not saved`,
      );
  }

  /**
   * Asks the providers again for the facts they could not give when they connected, and hands what
   * they learn to the ranking.
   *
   * @remarks
   * Each provider asks at most once per its own interval (30 s for a local server's window) and for at
   * most its probe timeout (2 s), so most calls wait for nothing here. What a connection replaced by
   * {@link setPanel} learns meanwhile is dropped: its facts belong to the panel that was.
   */
  private async relearnFacts(signal: AbortSignal | undefined): Promise<void> {
    const relearn = this.relearn;
    const found = await relearn(signal);
    if (relearn !== this.relearn || found.facts.length === 0) return;
    const facts = new Map(this.facts);
    for (const known of found.facts) facts.set(known.slug, known);
    this.facts = facts;
    this.router.setFacts(facts);
    for (const note of found.notes) this.notify('info', note);
  }

  /** Refuses a call no model on the panel can hold, naming what it needs and the largest context there is. */
  private refuseOversized(neededTokens: number): void {
    let largest: { context: number; model: string } | undefined;
    for (const spec of this.panel.models) {
      const context = spec.context ?? this.facts.get(spec.slug)?.context;
      // A model whose context nobody knows might hold the call: the ranking keeps it.
      if (context === undefined) return;
      if (!largest || context > largest.context) largest = { context, model: spec.slug };
    }
    if (largest && neededTokens > largest.context) {
      throw new ContextRefusalError({ neededTokens, largestContext: largest.context, largestModel: largest.model });
    }
  }

  /**
   * The spending limits of a route request: the daily budget with today's spend, the ceiling on one
   * answer, and the output a paid attempt is priced at (`maxOutputTokens`, the request's own maximum).
   */
  private spendLimits(maxOutputTokens: number | undefined): Pick<RouteRequest, 'budget' | 'answerCeilingUsd' | 'outputTokensBound'> {
    const { dailyBudgetUsd: dailyUsd, answerCeilingUsd } = this.options;
    if (dailyUsd === undefined && answerCeilingUsd === undefined) return {};
    return {
      ...(dailyUsd !== undefined ? { budget: { dailyUsd, spentTodayUsd: this.store.decisions.spend.today(this.clock.now()) } } : {}),
      ...(answerCeilingUsd !== undefined ? { answerCeilingUsd } : {}),
      ...(maxOutputTokens !== undefined ? { outputTokensBound: maxOutputTokens } : {}),
    };
  }

  /**
   * The panel's slug for each snapshot a provider reported serving it (`openai/gpt-4o-mini-2024-07-18`
   * for `gpt-4o-mini`), so a front end names a rated model as the panel, the picker and the answers do.
   *
   * @remarks
   * Ratings are keyed by the snapshot, because a floating alias is a moving target; shown under that key,
   * one model went by two names (its slug on the ladder and in the short line, the snapshot in the
   * ratings table), and the ladder found no rating for the slug. A snapshot no slug resolves to now (an
   * alias that has moved on, a model off the panel) keeps its own name.
   */
  private panelNames(now: number): Map<string, string> {
    const snapshot = this.store.ratings.snapshot(now);
    const names = new Map<string, string>();
    for (const model of this.panel.models) {
      const resolved = snapshot.resolve(model.slug);
      if (resolved !== model.slug && !names.has(resolved)) names.set(resolved, model.slug);
    }
    return names;
  }

  /** Each panel model's price as the router prices it, and where it came from. */
  private prices(): SessionSnapshot['prices'] {
    const prices: SessionSnapshot['prices'] = [];
    for (const spec of this.panel.models) {
      const catalog = this.facts.get(spec.slug)?.price;
      if (spec.price) prices.push({ model: spec.slug, input: spec.price.input, output: spec.price.output, from: 'panel' });
      else if (catalog) prices.push({ model: spec.slug, input: catalog.input, output: catalog.output, from: 'catalog' });
      else if (isLocal(this.panel.providers[spec.provider])) prices.push({ model: spec.slug, input: 0, output: 0, from: 'local' });
    }
    return prices;
  }

  /** Writes the queued rows now; a failure is the log's to report (a `save-failed` notice) and to retry. */
  private async flushDecisions(): Promise<void> {
    try {
      await this.store.decisions.flush();
    } catch {
      // Already reported through the log's onNotice; saying it here as well would say it twice.
    }
  }

  /** Tells the listeners about every provider whose health changed since they last heard. */
  private noticeHealth(): void {
    const now = this.clock.now();
    for (const provider of new Set(this.panel.models.map((model) => model.provider))) {
      const reason = this.health.unavailableReason(provider, now);
      const seen = this.healthSeen.get(provider);
      if (seen === reason) continue;
      this.healthSeen.set(provider, reason);
      // The first look at a healthy provider is no change worth telling.
      if (seen === undefined && reason === null) continue;
      this.emit(
        reason === null
          ? { type: 'provider-health', provider, healthy: true }
          : { type: 'provider-health', provider, healthy: false, reason },
      );
    }
  }

  private notify(level: SessionLogLevel, message: string): void {
    this.options.log?.(level, message);
    this.emit({ type: 'notice', level, message });
  }

  private emit(change: SessionChange): void {
    if (this.listeners.size === 0) {
      if ((change.type === 'notice' || change.type === 'provider-health') && this.unheard.length < MAX_UNHEARD_NOTICES)
        this.unheard.push(change);
      return;
    }
    for (const listener of [...this.listeners]) listener(change);
  }

  private requireOpen(): void {
    if (this.disposed) throw new Error('the session was disposed');
  }
}

/** Connects the panel's providers, asking the key lookup for each and remembering the keys it gave. */
function connect(
  options: RungSessionOptions,
  panel: Panel,
  clock: Clock,
  health: ProviderHealthBoard,
  secrets: Set<string>,
): Promise<Connected> {
  const catalogDir = options.catalogDir;
  return connectProviders({
    panel,
    clock,
    health,
    keyFor: async (provider) => {
      const key = await options.keys(provider);
      // Kept only to keep them out of a workspace command's environment and what it prints.
      if (key) secrets.add(key);
      return key;
    },
    ...(options.keyHint ? { keyHint: options.keyHint } : {}),
    ...(catalogDir !== undefined
      ? { catalogPath: (provider: string) => (catalogDir === null ? null : join(catalogDir, `catalog-${provider}.json`)) }
      : {}),
    ...(options.providerFactories ? { factories: options.providerFactories } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

function verdictOf(record: AttemptRecord): VerdictWithReason {
  return { kind: record.verdict, reason: record.verdictReason ?? '', ...(record.failure !== undefined ? { failure: record.failure } : {}) };
}

function sessionAttempt(record: AttemptRecord<ChatAnswer>, ranking: Ranking): SessionAttempt {
  const candidate = ranking.candidates[record.rung];
  return {
    model: record.model,
    provider: candidate?.provider ?? '',
    rung: record.rung,
    verdict: verdictOf(record),
    resolvedModel: record.resolvedModel ?? null,
    cost: record.cost ?? null,
    latencyMs: record.latencyMs ?? null,
    explore: record.explore,
    checks: record.value?.checks ?? [],
    ...(record.confidence !== undefined ? { confidence: record.confidence } : {}),
    ...(record.openedForWait ? { openedForWait: record.openedForWait } : {}),
  };
}

/** What a closing line says of an answer's checks: `checked: JSON, TypeScript syntax`, or `unchecked`. */
export function checkedLine(checks: readonly string[]): string {
  return checks.length > 0 ? `checked: ${checks.join(', ')}` : 'unchecked';
}
