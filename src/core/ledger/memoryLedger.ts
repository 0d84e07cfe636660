/**
 * A ledger that lives in one process's memory: for tests, for the replay benchmark, and as the
 * in-memory state the workspace ledger keeps between saves.
 */
import { applyObservation, type Observation, type Rating } from '../ratings';
import { aliasCandidates, ratingKey, sortEntries, STALE_SPAWN_MS, type Ledger, type LedgerSnapshot, type RatingEntry, type Spawn } from './ledger';

export class MemoryLedger implements Ledger {
  private readonly ratings = new Map<string, RatingEntry>();
  private readonly measuredClasses = new Set<string>();
  private readonly aliases = new Map<string, string>();
  private readonly spawns = new Map<string, Spawn>();

  snapshot(now: number): LedgerSnapshot {
    // The maps are only changed by the methods below, never during a rank, so a live view is a
    // consistent snapshot for the length of one synchronous ranking and copies nothing.
    return {
      rating: (model, classKey) => this.ratings.get(ratingKey(model, classKey)),
      resolve: (slug) => this.resolve(slug),
      inFlight: (model) => this.inFlight(model, now),
      hasMeasurements: (classKey) => this.measuredClasses.has(classKey),
    };
  }

  observe(observations: readonly Observation[]): void {
    for (const observation of observations) {
      const key = ratingKey(observation.model, observation.classKey);
      const next: Rating = applyObservation(this.ratings.get(key), observation);
      this.ratings.set(key, { ...next, model: observation.model, classKey: observation.classKey, updatedAt: observation.at });
      this.measuredClasses.add(observation.classKey);
    }
  }

  alias(slug: string, resolved: string): void {
    if (slug !== resolved) this.aliases.set(slug, resolved);
  }

  spawnStarted(spawn: Spawn): void {
    this.spawns.set(spawn.spawnId, spawn);
  }

  spawnEnded(spawnId: string): void {
    this.spawns.delete(spawnId);
  }

  entries(): RatingEntry[] {
    return sortEntries([...this.ratings.values()].map((entry) => ({ ...entry })));
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}

  private resolve(slug: string): string {
    for (const candidate of aliasCandidates(slug)) {
      const resolved = this.aliases.get(candidate);
      if (resolved) return resolved;
    }
    return slug;
  }

  private inFlight(model: string, now: number): number {
    let count = 0;
    for (const spawn of this.spawns.values()) {
      if (spawn.model === model && now - spawn.startedAt < STALE_SPAWN_MS) count++;
    }
    return count;
  }
}
