import type { DecisionRow } from '../../../src/core/decisions/decision';
import { parsePanel, type Panel } from '../../../src/core/panel';
import type { Ranking } from '../../../src/core/routing/types';
import type {
  DecisionFilter,
  DecisionPlace,
  OpenerEstimate,
  RatingView,
  Session,
  SessionChange,
  SessionChatResult,
  SessionSnapshot,
  SpendView,
} from '../../../src/core/session/types';

/**
 * A session that holds a decision log, ratings and spend in memory, for the ledger panel's specs.
 *
 * @remarks
 * It answers `snapshot` as the contract says (newest first, filtered, paged) and records what the panel
 * asked of it. Routing is not what these specs exercise, so `chat` and `rank` refuse.
 */
export class MemorySession implements Session {
  /** Oldest first, as the log holds them. */
  rows: DecisionRow[] = [];
  ratings: RatingView[] = [];
  spend: SpendView = { byDay: [], total: 0, today: 0, strongestModel: null, strongestEstimate: null, toolSchemas: 0 };
  panel: Panel = parsePanel(
    {
      models: [
        { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
        { slug: 'qwen3:14b', provider: 'ollama', role: 'mid' },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 } },
      ],
    },
    'memory session',
  );
  readonly snapshots: { offset?: number; limit?: number; filter?: DecisionFilter }[] = [];
  /** The filter of every {@link placeOf} asked. */
  readonly placeFilters: DecisionFilter[] = [];
  readonly resets: string[] = [];
  /** What {@link estimateOpeners} answers, and how many times it was asked. */
  openerEstimates: OpenerEstimate[] = [];
  estimateRequests = 0;
  private readonly listeners = new Set<(change: SessionChange) => void>();

  emit(change: SessionChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Appends a row and tells listeners, as the real session does when a decision is written. */
  write(row: DecisionRow): void {
    this.rows.push(row);
    this.emit({ type: 'decision-written', row });
  }

  private matching(filter: DecisionFilter): DecisionRow[] {
    return this.rows
      .filter(
        (row) =>
          (filter.classKey === undefined || row.class === filter.classKey) &&
          (filter.model === undefined || row.model === filter.model) &&
          (filter.verdict === undefined || row.verdict === filter.verdict),
      )
      .reverse();
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  snapshot(options: { offset?: number; limit?: number; filter?: DecisionFilter } = {}): SessionSnapshot {
    this.snapshots.push(options);
    const matching = this.matching(options.filter ?? {});
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 50;
    return {
      panel: this.panel,
      ratings: this.ratings,
      decisions: { rows: matching.slice(offset, offset + limit), total: matching.length, offset },
      spend: this.spend,
      providers: [
        { name: 'ollama', healthy: true },
        { name: 'openrouter', healthy: false, reason: 'no key' },
      ],
      prices: [],
      ledgerPath: null,
    };
  }

  async resetClass(classKey: string): Promise<void> {
    this.resets.push(classKey);
    this.ratings = this.ratings.filter((rating) => rating.classKey !== classKey);
  }

  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  chat(): Promise<SessionChatResult> {
    return Promise.reject(new Error('MemorySession does not route'));
  }

  rank(): Ranking {
    throw new Error('MemorySession does not rank');
  }

  settle(): boolean {
    return false;
  }

  async checkProviders(): Promise<void> {}

  /** Where a written row goes: its own place among the matching rows, newest first (this double keeps calls in log order). */
  placeOf(row: DecisionRow, filter: DecisionFilter = {}): DecisionPlace {
    this.placeFilters.push(filter);
    const offset = this.matching(filter).indexOf(row);
    return offset < 0 ? { offset: null, added: 0 } : { offset, added: 1 };
  }

  explain(callId: string): DecisionRow[] {
    return this.rows.filter((row) => row.call === callId);
  }

  async estimateOpeners(): Promise<OpenerEstimate[]> {
    this.estimateRequests++;
    return this.openerEstimates;
  }

  async resetLedger(): Promise<void> {
    this.ratings = [];
  }

  async exportLedger(): Promise<string> {
    return JSON.stringify({ ratings: this.ratings });
  }

  async setPanel(panel: Panel): Promise<void> {
    this.panel = panel;
    this.emit({ type: 'panel-changed', panel });
  }

  async dispose(): Promise<void> {
    this.listeners.clear();
  }
}
