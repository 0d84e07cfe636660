/**
 * A ledger that lives in one process's memory: for tests, for the replay and its benchmark, and for the
 * CLI when no ledger file is named.
 *
 * @remarks
 * It is a {@link LedgerState} that is never saved, so it rates, resolves and counts calls in flight
 * exactly as the workspace ledger does, and its snapshots are as stable (each update replaces the
 * state, copying a table a snapshot has read before changing it: LedgerState.advanced). As in the workspace ledger's memory, an ended call's record is dropped at once: a long replay
 * would otherwise rank over, and copy on every start, every call it made.
 */
import type { Observation } from '../ratings';
import type { SignalUpdate } from '../signal/promptSignal';
import type { TimingObservation } from '../timing';
import { sortEntries, sortTimings, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn, type TimingEntry } from './ledger';
import { LedgerState, snapshotOf } from './ledgerState';

export class MemoryLedger implements Ledger {
  private state = new LedgerState('');

  snapshot(now: number): LedgerSnapshot {
    return snapshotOf(this.state, now);
  }

  observe(observations: readonly Observation[]): void {
    if (observations.length === 0) return;
    this.state = this.state.advanced(observations.map((observation) => ({ kind: 'observe', observation })));
  }

  learnSignal(update: SignalUpdate): void {
    this.state = this.state.advanced([{ kind: 'signal', update }]);
  }

  confidenceCounts(): [string, { n: number; ok: number }][] {
    return [...this.state.confidence].map(([key, count]) => [key, { ...count }]);
  }

  countConfidence(increments: readonly { key: string; n: number; ok: number }[]): void {
    if (increments.length) this.state = this.state.advanced([{ kind: 'confidence', increments: [...increments] }]);
  }

  observeTiming(observations: readonly TimingObservation[]): void {
    if (observations.length) this.state = this.state.advanced(observations.map((observation) => ({ kind: 'timing', observation })));
  }

  timings(): TimingEntry[] {
    return sortTimings([...this.state.timings.values()].map((entry) => ({ ...entry })));
  }

  alias(slug: string, resolved: string): void {
    if (slug !== resolved) this.state = this.state.advanced([{ kind: 'alias', slug, resolved }]);
  }

  spawnStarted(spawn: Spawn): void {
    this.state = this.state.advanced([{ kind: 'spawn-start', spawn }]);
  }

  spawnEnded(spawnId: string): void {
    // The end time only matters to a saved row, and this ledger drops the record with it.
    this.state = this.state.advanced([{ kind: 'spawn-end', spawnId, at: 0 }]);
  }

  /** Forgets every rating, or those of one class and its shapes; returns how many went. */
  async reset(classKey?: string): Promise<number> {
    const before = this.state.ratings.size;
    this.state = this.state.advanced([{ kind: 'reset', classKey: classKey ?? null, at: 0 }]);
    return before - this.state.ratings.size;
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.state.ratings.values()].map((entry) => ({ ...entry })));
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
