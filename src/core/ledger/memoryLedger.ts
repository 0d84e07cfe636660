/**
 * A ledger that lives in one process's memory: for tests, for the replay and its benchmark, and for the
 * CLI when no ledger file is named.
 *
 * @remarks
 * It is a {@link LedgerState} that is never saved, so it rates, resolves and counts calls in flight
 * exactly as the workspace ledger does, and its snapshots are as stable (each update replaces the
 * state). One difference: an ended call's record is dropped at once rather than kept for inspection,
 * since nobody else reads this ledger and a long replay would otherwise rank over every call it made.
 */
import type { Observation } from '../ratings';
import { sortEntries, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn } from './ledger';
import { LedgerState, snapshotOf } from './ledgerState';

export class MemoryLedger implements Ledger {
  private state = new LedgerState('');

  snapshot(now: number): LedgerSnapshot {
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    this.state = this.state.applied(observations.map((observation) => ({ kind: 'observe', observation })));
  }

  alias(slug: string, resolved: string): void {
    if (slug !== resolved) this.state = this.state.applied([{ kind: 'alias', slug, resolved }]);
  }

  spawnStarted(spawn: Spawn): void {
    this.state = this.state.applied([{ kind: 'spawn-start', spawn }]);
  }

  spawnEnded(spawnId: string): void {
    const next = this.state.applied([], ['spawns']);
    next.spawns.delete(spawnId);
    this.state = next;
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
