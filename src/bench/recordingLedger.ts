/**
 * A memory ledger that keeps what it was told, so a policy replayed after a run can start from the
 * ratings that run ended with (a fresh ledger told the same things in the same order holds the same state).
 */
import type { Ledger, LedgerSnapshot, RatingEntry, Spawn } from '../core/ledger/ledger';
import { MemoryLedger } from '../core/ledger/memoryLedger';
import type { Observation } from '../core/ratings';

export class RecordingLedger implements Ledger {
  private readonly inner = new MemoryLedger();
  private readonly told: ({ observations: Observation[] } | { slug: string; resolved: string })[] = [];
  snapshot(now: number): LedgerSnapshot {
    return this.inner.snapshot(now);
  }
  observe(observations: readonly Observation[]): void {
    this.told.push({ observations: [...observations] });
    this.inner.observe(observations);
  }
  alias(slug: string, resolved: string): void {
    this.told.push({ slug, resolved });
    this.inner.alias(slug, resolved);
  }
  spawnStarted(spawn: Spawn): void {
    this.inner.spawnStarted(spawn);
  }
  spawnEnded(spawnId: string): void {
    this.inner.spawnEnded(spawnId);
  }
  entries(): RatingEntry[] {
    return this.inner.entries();
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
  /** A new ledger holding the same ratings. */
  copy(): MemoryLedger {
    const fresh = new MemoryLedger();
    for (const entry of this.told) {
      if ('observations' in entry) fresh.observe(entry.observations);
      else fresh.alias(entry.slug, entry.resolved);
    }
    return fresh;
  }
}
