/**
 * The ledger view's host side without `vscode`: it answers the webview's messages from the session
 * and forwards the session's changes as deltas.
 *
 * @remarks
 * Kept apart from `ledgerView.ts` (the webview glue) so its rules — parse before acting, never send
 * a whole log, coalesce a burst of changes into one refresh — are checked by unit tests against a
 * session double, without an editor. It posts only after the webview said `ready`: a delta sent
 * before the page listens would be lost, and the snapshot that answers `ready` already holds it.
 */
import type { DecisionRow } from '../../core/decisions/decision';
import type { Panel } from '../../core/panel';
import { isLocal } from '../../core/providers/locality';
import type { DecisionFilter, OpenerEstimate, Session, SessionChange, SessionSnapshot } from '../../core/session/types';
import {
  DEFAULT_PAGE_ROWS,
  type DecisionFilterWire,
  type DecisionPageWire,
  type DecisionWire,
  type HostMessage,
  type ModelWire,
  type OpenerEstimateWire,
  type ProviderWire,
  type ViewMessage,
  parseViewMessage,
  unhandled,
} from '../../protocol/ledgerProtocol';
import { fitHostMessage } from './wireFit';

/**
 * How long ratings and spend wait before being re-read after a change, ms.
 *
 * @remarks
 * An escalating call writes a row per rung and the ledger flushes about once a second; re-reading
 * ratings and spend for each would snapshot the session several times for one call. A quarter
 * second still looks immediate to a reader.
 */
export const REFRESH_COALESCE_MS = 250;

/**
 * How many times its own duration a refresh waits before the next one may run.
 *
 * @remarks
 * `Session.snapshot` runs on the extension host's thread. Before the session kept a running spend
 * tally, each snapshot re-read the last 30 days of the decision log: on a 100k-row log about half a
 * second of CPU, and a cold snapshot still takes seconds (BENCHMARKS.md, "Ledger panel"). Spacing
 * refreshes by ten times what the last one took keeps the ledger view to about a tenth of the host's time
 * however busy routing is, where a fixed delay would let a busy cascade keep the host snapshotting.
 */
export const REFRESH_SPACING_FACTOR = 10;

/**
 * Where the view's session comes from: the extension's SessionHost, which opens the session after
 * activation and again after a key or a ledger setting changes.
 */
export interface SessionSource {
  /** The session, opening it if needed; rejects with why it cannot open. */
  get(): Promise<Session>;
  /** Fires when a session opens (or reopens), and with undefined when it closes or did not open. */
  onDidOpen(listener: (session: Session | undefined) => void): { dispose(): void };
}

/** What the ledger view asks the rest of the extension to do; the editor's commands and dialogs in the real host. */
export interface LedgerActions {
  pin(model: string): Promise<void>;
  avoid(model: string): Promise<void>;
  exportLedger(): Promise<void>;
  /** Asks the user (modally) whether to forget a class's ratings. */
  confirmResetClass(classKey: string): Promise<boolean>;
}

export interface LedgerLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Runs `task` after `delayMs`; returns a cancel function. */
export type Defer = (task: () => void, delayMs: number) => () => void;

export const timerDefer: Defer = (task, delayMs) => {
  const timer = setTimeout(task, delayMs);
  return () => clearTimeout(timer);
};

export interface LedgerControllerOptions {
  /** The session, when it is open already; otherwise {@link LedgerController.attach} it when it opens. */
  session?: Session;
  post: (message: HostMessage) => void;
  actions: LedgerActions;
  log: LedgerLog;
  defer?: Defer;
  /** A monotonic clock for how long a refresh took, ms; `performance.now` by default. */
  now?: () => number;
}

export class LedgerController {
  private session: Session | undefined;
  private readonly post: (message: HostMessage) => void;
  private readonly actions: LedgerActions;
  private readonly log: LedgerLog;
  private readonly defer: Defer;
  private readonly now: () => number;
  /** How long the last refresh took, ms: the next waits {@link REFRESH_SPACING_FACTOR} times this. */
  private lastRefreshMs = 0;
  private unsubscribe: (() => void) | undefined;
  private ready = false;
  /** The page the webview shows, so a session that opens or reopens later can answer with it. */
  private view: { filter: DecisionFilterWire; offset: number; limit: number } = { filter: {}, offset: 0, limit: DEFAULT_PAGE_ROWS };
  private cancelRefresh: (() => void) | undefined;
  private panelStale = false;
  private pendingNotice: HostMessage | undefined;
  /** Models the webview was shown, the only ones a pin or avoid from it may name. */
  private knownModels = new Set<string>();

  constructor(options: LedgerControllerOptions) {
    this.post = options.post;
    this.actions = options.actions;
    this.log = options.log;
    this.defer = options.defer ?? timerDefer;
    this.now = options.now ?? (() => performance.now());
    if (options.session) this.attach(options.session);
  }

  /**
   * Serves the view from `session` (one that opened after the view, or a reopened one), or from
   * none while the session is closed.
   *
   * @remarks
   * The extension opens the session after activation and reopens it when a key or the ledger path
   * changes; a view bound to the first session would go on showing a closed one.
   */
  attach(session: Session | undefined): void {
    if (session === this.session) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.session = session;
    if (!session) return;
    this.unsubscribe = session.onChange((change) => this.onSessionChange(change));
    if (this.ready) this.sendSnapshot();
  }

  /**
   * Serves the view from whatever session `source` has open, now and after every reopen: the one way the
   * view waits for a session that is not open yet.
   *
   * @remarks
   * A view restored at startup says `ready` before the session has opened (it reads the ledger and probes
   * providers after activation). There were three ways of waiting for it: a stand-in session that threw
   * until the real one opened, a snapshot retried with backoff on that throw, and this subscription,
   * which nothing used. Only the host knows when a session opens, so the view listens to it, asks for the
   * session once (which opens it if nothing has yet), and says why when it cannot open.
   */
  follow(source: SessionSource): { dispose(): void } {
    const opened = source.onDidOpen((session) => this.attach(session));
    source.get().then(
      (session) => this.attach(session),
      (error: unknown) => this.notice('warning', `The Rung session is not open: ${error instanceof Error ? error.message : String(error)}`),
    );
    return opened;
  }

  /** Tells the webview something it cannot learn from the session (why the session did not open). */
  notice(level: 'info' | 'warning' | 'error', message: string): void {
    const notice: HostMessage = { type: 'notice', level, message };
    if (this.ready) this.send(notice);
    // Said before the page listens: kept for its `ready`, or the page would wait for a snapshot forever.
    else this.pendingNotice = notice;
  }

  /** Handles one message from the webview; a message of the wrong shape is logged and dropped. */
  async receive(data: unknown): Promise<void> {
    const parsed = parseViewMessage(data);
    if (!parsed.ok) {
      this.log.warn(`ledger panel: ${parsed.error}`);
      return;
    }
    try {
      await this.handle(parsed.message);
    } catch (error) {
      const message = `ledger panel: ${parsed.message.type} failed: ${error instanceof Error ? error.message : String(error)}`;
      this.log.error(message);
      this.send({ type: 'notice', level: 'error', message });
    }
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.session = undefined;
    this.cancelRefresh?.();
    this.cancelRefresh = undefined;
    this.ready = false;
  }

  private async handle(message: ViewMessage): Promise<void> {
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        this.view = { filter: message.filter, offset: message.offset, limit: message.limit };
        // Without a session yet, the snapshot follows when one is attached.
        if (this.session) this.sendSnapshot();
        else if (this.pendingNotice) this.send(this.pendingNotice);
        this.pendingNotice = undefined;
        return;
      }
      case 'page': {
        const snapshot = this.openSession().snapshot({
          offset: message.offset,
          limit: message.limit,
          filter: toFilter(message.filter),
          ...(message.before !== undefined ? { before: message.before } : {}),
        });
        // The offset the page really starts at: a later snapshot (a reopened session) shows the same rows.
        this.view = { filter: message.filter, offset: snapshot.decisions.offset, limit: message.limit };
        this.send({ type: 'page', decisions: pageWire(snapshot, message.filter) });
        return;
      }
      case 'pin':
        if (this.isKnownModel(message.model, 'pin')) await this.actions.pin(message.model);
        return;
      case 'avoid':
        if (this.isKnownModel(message.model, 'avoid')) await this.actions.avoid(message.model);
        return;
      case 'reset-class':
        if (!(await this.actions.confirmResetClass(message.classKey))) return;
        await this.openSession().resetClass(message.classKey);
        this.log.info(`ledger panel: forgot every rating at ${message.classKey}`);
        this.send({ type: 'notice', level: 'info', message: `Forgot every rating at ${message.classKey}; the decision log is kept.` });
        this.scheduleRefresh();
        return;
      case 'export':
        await this.actions.exportLedger();
        return;
      case 'rejected':
        // The page's console is out of the user's sight; the Rung log is where they look.
        this.log.error(`ledger panel: the page could not show a '${message.message}' message: ${message.error}`);
        return;
      case 'estimate-openers': {
        const estimates = await this.openSession().estimateOpeners();
        this.send({ type: 'opener-estimates', estimates: estimates.map(openerEstimateWire) });
        return;
      }
      default:
        unhandled(message);
    }
  }

  private openSession(): Session {
    if (!this.session) throw new Error('the Rung session is not open yet');
    return this.session;
  }

  private isKnownModel(model: string, action: string): boolean {
    if (this.knownModels.has(model)) return true;
    this.log.warn(`ledger panel: dropped ${action} of '${model}', a model the panel never showed`);
    return false;
  }

  private onSessionChange(change: SessionChange): void {
    if (!this.ready) return;
    switch (change.type) {
      case 'decision-written':
        this.send(this.decisionAdded(change.row));
        this.scheduleRefresh();
        return;
      case 'ledger-changed':
        this.scheduleRefresh();
        return;
      case 'panel-changed': {
        const snapshot = this.openSession().snapshot({ limit: 1 });
        this.send({
          type: 'panel-changed',
          models: this.rememberModels(modelsWire(change.panel, snapshot.prices)),
          providers: providersWire(snapshot),
        });
        return;
      }
      case 'provider-health':
        this.panelStale = true;
        this.scheduleRefresh();
        return;
      case 'notice':
        this.send({ type: 'notice', level: change.level, message: change.message });
        return;
      default:
        unhandled(change);
    }
  }

  /**
   * A row just written, with where it goes in the list the page shows.
   *
   * @remarks
   * The page cannot tell on its own: a late verdict or a later rung is counted with its call, which may
   * sit on a newer page, this one or an older one, and a verdict filter can bring a whole call in. Told
   * only the row, a page showing older rows kept its offset when rows came in above it, so "Older"
   * showed its last call again (and "Newer" skipped one). A row that cannot be placed is sent unplaced:
   * the page shows it on its next request.
   */
  private decisionAdded(row: DecisionRow): HostMessage {
    const filter = this.view.filter;
    let place: { offset: number | null; added: number } = { offset: null, added: 0 };
    try {
      place = this.openSession().placeOf(row, toFilter(filter));
    } catch (error) {
      this.log.error(`ledger panel: could not place a new decision row: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { type: 'decision-added', row: decisionWire(row), filter, offset: place.offset, added: place.added };
  }

  /** Re-reads ratings and spend once for every burst of changes, spaced by what the last re-read cost. */
  private scheduleRefresh(): void {
    if (this.cancelRefresh) return;
    this.cancelRefresh = this.defer(
      () => {
        this.cancelRefresh = undefined;
        if (!this.ready || !this.session) return;
        const started = this.now();
        try {
          // No rows: only ratings and spend are wanted, and the session skips reading the log for a page of 0.
          const snapshot = this.session.snapshot({ offset: 0, limit: 0 });
          for (const rating of snapshot.ratings) this.knownModels.add(rating.model);
          this.send({ type: 'ratings-changed', ratings: snapshot.ratings });
          this.send({ type: 'spend-changed', spend: snapshot.spend });
          if (this.panelStale)
            this.send({
              type: 'panel-changed',
              models: this.rememberModels(modelsWire(snapshot.panel, snapshot.prices)),
              providers: providersWire(snapshot),
            });
          this.panelStale = false;
        } catch (error) {
          this.log.error(`ledger panel: could not refresh ratings and spend: ${error instanceof Error ? error.message : String(error)}`);
        }
        this.lastRefreshMs = this.now() - started;
      },
      Math.max(REFRESH_COALESCE_MS, this.lastRefreshMs * REFRESH_SPACING_FACTOR),
    );
  }

  /** Sends the whole snapshot for the page the webview shows; a snapshot that fails is said (the next session, or the page's next request, asks again). */
  private sendSnapshot(): void {
    const session = this.session;
    if (!session) return;
    try {
      this.send(this.snapshotMessage(session, this.view.filter, this.view.offset, this.view.limit));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.warn(`ledger panel: no snapshot (${reason})`);
      this.send({ type: 'notice', level: 'warning', message: `The ledger could not be read: ${reason}` });
    }
  }

  private snapshotMessage(session: Session, filter: DecisionFilterWire, offset: number, limit: number): HostMessage {
    const snapshot = session.snapshot({ offset, limit, filter: toFilter(filter) });
    for (const rating of snapshot.ratings) this.knownModels.add(rating.model);
    return {
      type: 'snapshot',
      models: this.rememberModels(modelsWire(snapshot.panel, snapshot.prices)),
      ratings: snapshot.ratings,
      decisions: pageWire(snapshot, filter),
      spend: snapshot.spend,
      providers: providersWire(snapshot),
      ledgerPath: snapshot.ledgerPath,
    };
  }

  private rememberModels(models: ModelWire[]): ModelWire[] {
    for (const model of models) this.knownModels.add(model.slug);
    return models;
  }

  /** Posts `message` once the page listens, fitted to the protocol's limits (wireFit.ts). */
  private send(message: HostMessage): void {
    if (!this.ready) return;
    const fitted = fitHostMessage(message, this.log);
    if (fitted) this.post(fitted);
  }
}

function toFilter(filter: DecisionFilterWire): DecisionFilter {
  const out: DecisionFilter = {};
  if (filter.classKey !== undefined) out.classKey = filter.classKey;
  if (filter.model !== undefined) out.model = filter.model;
  if (filter.verdict !== undefined) out.verdict = filter.verdict;
  return out;
}

function pageWire(snapshot: SessionSnapshot, filter: DecisionFilterWire): DecisionPageWire {
  return { rows: snapshot.decisions.rows.map(decisionWire), total: snapshot.decisions.total, offset: snapshot.decisions.offset, filter };
}

/** The fields of a decision row the ledger view shows; the rest (run id, shape, schema version) stay in the log. */
export function decisionWire(row: DecisionRow): DecisionWire {
  return {
    at: row.at,
    call: row.call,
    classKey: row.shape ? `${row.class}/${row.shape}` : row.class,
    candidates: row.candidates,
    rung: row.rung,
    escalation: row.escalation,
    model: row.model,
    resolved: row.resolved,
    explore: row.explore,
    propensity: row.propensity,
    verdict: row.verdict,
    verdictReason: row.verdictReason,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cost: row.cost,
    latencyMs: row.latencyMs,
    reason: row.reason,
    mode: row.mode,
    pruned: row.pruned,
    final: row.final,
    ...(row.source !== undefined ? { source: row.source } : {}),
    ...(row.policy !== undefined ? { policy: row.policy } : {}),
  };
}

/**
 * The panel's models with what the ladder says about each: provider, role, price, local or not. The
 * price is the one the router uses, the panel's or else the catalog's: the ledger said "price unknown"
 * for a model whose catalog price had been fetched and used.
 */
export function modelsWire(
  panel: Panel,
  prices: readonly { model: string; input: number; output: number; from: string }[] = [],
): ModelWire[] {
  return panel.models.map((model) => ({
    slug: model.slug,
    provider: model.provider,
    role: model.role ?? null,
    // The ladder's own rule, so a keyless server on loopback shows as local here as it ranks.
    local: isLocal(panel.providers[model.provider]),
    price: priceWire(model.price ?? prices.find((known) => known.model === model.slug && known.from === 'catalog')),
  }));
}

function priceWire(price: { input: number; output: number } | undefined): ModelWire['price'] {
  return price ? { input: price.input, output: price.output } : null;
}

/** One opener estimate on the wire: every field present, null where the session left it out. */
export function openerEstimateWire(estimate: OpenerEstimate): OpenerEstimateWire {
  const versus = estimate.versusLog;
  return {
    model: estimate.model,
    calls: estimate.calls,
    versusLog: versus
      ? {
          loggedCost: versus.loggedCost,
          loggedSuccess: versus.loggedSuccess,
          costChange: versus.costChange,
          costChangeLow: versus.costChangeLow,
          costChangeHigh: versus.costChangeHigh,
          successChange: versus.successChange,
          successChangeLow: versus.successChangeLow,
          successChangeHigh: versus.successChangeHigh,
        }
      : null,
    refused: versus ? null : (estimate.refused ?? 'too-few'),
    ...(estimate.logCalls !== undefined ? { logCalls: estimate.logCalls } : {}),
    ...(estimate.narrowing ? { narrowing: { calls: estimate.narrowing.calls, floor: estimate.narrowing.floor } } : {}),
  };
}

function providersWire(snapshot: SessionSnapshot): ProviderWire[] {
  return snapshot.providers.map((provider) =>
    provider.reason === undefined ? { name: provider.name, healthy: provider.healthy } : { ...provider },
  );
}
