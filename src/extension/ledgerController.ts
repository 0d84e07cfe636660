/**
 * The ledger panel's host side without `vscode`: it answers the webview's messages from the session
 * and forwards the session's changes as deltas.
 *
 * @remarks
 * Kept apart from `ledgerPanel.ts` (the webview glue) so its rules — parse before acting, never send
 * a whole log, coalesce a burst of changes into one refresh — are checked by unit tests against a
 * session double, without an editor. It posts only after the webview said `ready`: a delta sent
 * before the page listens would be lost, and the snapshot that answers `ready` already holds it.
 */
import type { DecisionRow } from '../core/decisions/decision';
import type { Panel } from '../core/panel';
import type { DecisionFilter, Session, SessionChange, SessionSnapshot } from '../core/session/types';
import {
  type DecisionFilterWire,
  type DecisionPageWire,
  type DecisionWire,
  type HostMessage,
  type ModelWire,
  type ProviderWire,
  type ViewMessage,
  parseViewMessage,
  unhandled,
} from '../protocol/ledgerProtocol';

/**
 * How long ratings and spend wait before being re-read after a change, ms.
 *
 * @remarks
 * An escalating call writes a row per rung and the ledger flushes about once a second; re-reading
 * ratings and spend for each would snapshot the session several times for one call. A quarter
 * second still looks immediate to a reader.
 */
export const REFRESH_COALESCE_MS = 250;

/** What the panel asks the rest of the extension to do; the editor's commands and dialogs in the real host. */
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
  session: Session;
  post: (message: HostMessage) => void;
  actions: LedgerActions;
  log: LedgerLog;
  defer?: Defer;
}

export class LedgerController {
  private readonly session: Session;
  private readonly post: (message: HostMessage) => void;
  private readonly actions: LedgerActions;
  private readonly log: LedgerLog;
  private readonly defer: Defer;
  private readonly unsubscribe: () => void;
  private ready = false;
  private cancelRefresh: (() => void) | undefined;
  private panelStale = false;
  /** Models the webview was shown, the only ones a pin or avoid from it may name. */
  private knownModels = new Set<string>();

  constructor(options: LedgerControllerOptions) {
    this.session = options.session;
    this.post = options.post;
    this.actions = options.actions;
    this.log = options.log;
    this.defer = options.defer ?? timerDefer;
    this.unsubscribe = this.session.onChange((change) => this.onSessionChange(change));
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
    this.unsubscribe();
    this.cancelRefresh?.();
    this.cancelRefresh = undefined;
    this.ready = false;
  }

  private async handle(message: ViewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.send(this.snapshotMessage(message.filter, message.offset, message.limit));
        return;
      case 'page': {
        const snapshot = this.session.snapshot({ offset: message.offset, limit: message.limit, filter: toFilter(message.filter) });
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
        await this.session.resetClass(message.classKey);
        this.log.info(`ledger panel: forgot every rating at ${message.classKey}`);
        this.send({ type: 'notice', level: 'info', message: `Forgot every rating at ${message.classKey}; the decision log is kept.` });
        this.scheduleRefresh();
        return;
      case 'export':
        await this.actions.exportLedger();
        return;
      default:
        unhandled(message);
    }
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
        this.send({ type: 'decision-added', row: decisionWire(change.row) });
        this.scheduleRefresh();
        return;
      case 'ledger-changed':
        this.scheduleRefresh();
        return;
      case 'panel-changed':
        this.send({ type: 'panel-changed', models: this.rememberModels(modelsWire(change.panel)), providers: providersWire(this.session.snapshot({ limit: 1 })) });
        return;
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

  /** Re-reads ratings and spend once, however many changes arrive within {@link REFRESH_COALESCE_MS}. */
  private scheduleRefresh(): void {
    if (this.cancelRefresh) return;
    this.cancelRefresh = this.defer(() => {
      this.cancelRefresh = undefined;
      if (!this.ready) return;
      try {
        // One row, not none: the page is thrown away, and a limit of 0 may read as "the default".
        const snapshot = this.session.snapshot({ offset: 0, limit: 1 });
        for (const rating of snapshot.ratings) this.knownModels.add(rating.model);
        this.send({ type: 'ratings-changed', ratings: snapshot.ratings });
        this.send({ type: 'spend-changed', spend: snapshot.spend });
        if (this.panelStale) this.send({ type: 'panel-changed', models: this.rememberModels(modelsWire(snapshot.panel)), providers: providersWire(snapshot) });
        this.panelStale = false;
      } catch (error) {
        this.log.error(`ledger panel: could not refresh ratings and spend: ${error instanceof Error ? error.message : String(error)}`);
      }
    }, REFRESH_COALESCE_MS);
  }

  private snapshotMessage(filter: DecisionFilterWire, offset: number, limit: number): HostMessage {
    const snapshot = this.session.snapshot({ offset, limit, filter: toFilter(filter) });
    for (const rating of snapshot.ratings) this.knownModels.add(rating.model);
    return {
      type: 'snapshot',
      models: this.rememberModels(modelsWire(snapshot.panel)),
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

  private send(message: HostMessage): void {
    if (this.ready) this.post(message);
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

/** The fields of a decision row the panel shows; the rest (run id, shape, schema version) stay in the log. */
export function decisionWire(row: DecisionRow): DecisionWire {
  return {
    at: row.at,
    call: row.call,
    class: row.class,
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
  };
}

/** The panel's models with what the ladder says about each: provider, role, list price, local or not. */
export function modelsWire(panel: Panel): ModelWire[] {
  return panel.models.map((model) => ({
    slug: model.slug,
    provider: model.provider,
    role: model.role ?? null,
    local: panel.providers[model.provider]?.kind === 'ollama',
    price: model.price ? { input: model.price.input, output: model.price.output } : null,
  }));
}

function providersWire(snapshot: SessionSnapshot): ProviderWire[] {
  return snapshot.providers.map((provider) => (provider.reason === undefined ? { name: provider.name, healthy: provider.healthy } : { ...provider }));
}
