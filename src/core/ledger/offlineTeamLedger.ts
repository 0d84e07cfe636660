/**
 * The workspace ledger a session learns into when the team's server could not be used, which keeps the
 * decision rows its member shares in the team's outbox.
 *
 * @remarks
 * A member who opted in to share decision rows (`--share-decisions`, `rung.teamLedger.shareDecisions`)
 * and opened while the server was away would otherwise share nothing from that session: its evidence
 * reaches the team later through the workspace file (see store/openStore.ts), but a decision row has no
 * place in that file. So the rows go where a team ledger keeps the rows it could not send: the outbox
 * (see TeamOutbox), under this member, which the next team ledger that reaches the server sends and
 * the server stores once. They are written on the ledger's own flush (about once a second, with the
 * observations) and at close, so an exit keeps them.
 */
import type { DecisionRow } from '../decisions/decision';
import { loadSqlJs } from './sqlJs';
import { TeamOutbox, type OutboxDecision } from './teamOutbox';
import { WorkspaceLedger, type OpenLedgerOptions, type WorkspaceLedgerOptions } from './workspaceLedger';

export interface OfflineTeamOptions {
  /** The team's outbox file, as the team ledger would use it (teamOutboxPath). */
  outboxPath: string;
  /** Who shares the rows: the server's key names them. */
  memberId: string;
  /** Told when the outbox cannot be written; the rows stay queued for the next flush. */
  onOutboxProblem?: (message: string) => void;
}

export class OfflineTeamLedger extends WorkspaceLedger {
  private readonly outbox: TeamOutbox;
  private readonly memberId: string;
  private readonly onOutboxProblem: ((message: string) => void) | undefined;
  /** Rows shared since the last write to the outbox. */
  private shared: OutboxDecision[] = [];
  private kept = 0;

  constructor(options: WorkspaceLedgerOptions, offline: OfflineTeamOptions) {
    super(options);
    this.outbox = new TeamOutbox({ path: offline.outboxPath, clock: options.clock });
    this.memberId = offline.memberId;
    this.onOutboxProblem = offline.onOutboxProblem;
  }

  /** Opens the workspace file as {@link WorkspaceLedger.open} does. */
  static async openOffline(options: OpenLedgerOptions, offline: OfflineTeamOptions): Promise<OfflineTeamLedger> {
    const sql = options.sql ?? (await loadSqlJs(options));
    return WorkspaceLedger.started(new OfflineTeamLedger({ ...options, sql }, offline));
  }

  /** The outbox the shared rows wait in. */
  get outboxPath(): string {
    return this.outbox.path;
  }

  /** Shared rows written to the outbox so far. */
  get keptDecisions(): number {
    return this.kept;
  }

  /** Queues a decision row for the team; it reaches the outbox with the next flush. */
  shareDecision(row: DecisionRow): void {
    this.shared.push({ member: this.memberId, decision: row });
  }

  override async flush(): Promise<void> {
    await super.flush();
    await this.keepShared();
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      await this.keepShared();
    }
  }

  private async keepShared(): Promise<void> {
    if (this.shared.length === 0) return;
    const moving = this.shared;
    this.shared = [];
    try {
      await this.outbox.addDecisions(moving);
      this.kept += moving.length;
    } catch (error) {
      this.shared = [...moving, ...this.shared];
      this.onOutboxProblem?.(
        `could not write the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); ${moving.length} shared decision rows stay in this workspace's decision log only for now`,
      );
    }
  }
}
