/**
 * What the router needs from a ledger: a snapshot to rank from, and places to put what it learns.
 *
 * @remarks
 * Ranking reads a snapshot and never waits on disk or network; observations, aliases and spawn records
 * are handed over and land later, in batches. The in-memory ledger below is complete for one process;
 * the workspace ledger (sql.js) implements the same interface for many.
 */
import type { Observation, Rating } from '../ratings';
import type { PromptSignalState, SignalUpdate } from '../signal/promptSignal';
import type { Timing, TimingObservation } from '../timing';

/** Calls still running past this are presumed dead (a crashed window) and no longer make a model busy. */
export const STALE_SPAWN_MS = 30 * 60 * 1000;

/** One model's rating at one class key, for listing. */
export interface RatingEntry extends Rating {
  model: string;
  classKey: string;
  /** When the last observation landed, ms since the epoch. */
  updatedAt: number;
}

/** One call in flight: a start row, and later an end row with the same id. */
export interface Spawn {
  /** Unique per attempt; the end row names it. */
  spawnId: string;
  /** The conversation or run the attempt belongs to. */
  traceId: string;
  /** The configured slug: concurrency limits are on what the user configured. */
  model: string;
  startedAt: number;
}

/** A consistent, read-only view of the ledger at one instant. */
export interface LedgerSnapshot {
  /** The rating of a resolved model at a class key, or undefined when nothing was observed. */
  rating(model: string, classKey: string): Rating | undefined;
  /** The snapshot a configured slug last resolved to (itself when unknown). */
  resolve(slug: string): string;
  /** Calls in flight for a configured slug, ignoring starts older than {@link STALE_SPAWN_MS}. */
  inFlight(model: string): number;
  /** When each of those calls started, ms since the epoch, oldest first; absent on a snapshot that cannot say. */
  inFlightStarts?(model: string): number[];
  /** Whether any model has a graded observation at this class key. */
  hasMeasurements(classKey: string): boolean;
  /** What the per-prompt signal has learned; absent on a ledger that keeps no signal. */
  signal?(): PromptSignalState | undefined;
  /** How long a resolved model's attempts at a class key took on this machine; absent on a ledger that keeps no timings. */
  timing?(model: string, classKey: string): Timing | undefined;
}

/** One model's timing at one class key, for listing. */
export interface TimingEntry extends Timing {
  model: string;
  classKey: string;
}

export interface Ledger {
  /** A view as of `now` (which decides what counts as a stale spawn). */
  snapshot(now: number): LedgerSnapshot;
  /** Folds graded observations in; visible to the next snapshot at once, durable after the next flush. */
  observe(observations: readonly Observation[]): void;
  /**
   * Folds one call's step into the per-prompt signal; visible to the next snapshot at once. Absent on a
   * ledger that keeps no signal: a team's server takes nothing derived from prompts.
   */
  learnSignal?(update: SignalUpdate): void;
  /** Records which snapshot a configured slug actually served. */
  alias(slug: string, resolved: string): void;
  spawnStarted(spawn: Spawn): void;
  spawnEnded(spawnId: string, at: number): void;
  /** Every rating, strongest first within a class, classes alphabetically. */
  entries(): RatingEntry[];
  /** Lands everything queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * The confidence check's learned counts (src/core/confidence), to start its learner from; absent from
   * a ledger that keeps none (a team's), whose windows then learn them afresh each time.
   */
  confidenceCounts?(): [string, { n: number; ok: number }][];
  /** Adds increments to the confidence check's counts; they land with the next flush, as observations do. */
  countConfidence?(increments: readonly { key: string; n: number; ok: number }[]): void;
  /**
   * Folds attempts' times in (timing.ts); visible to the next snapshot at once, durable after the next
   * flush where the ledger keeps them. Absent from a ledger that keeps none.
   */
  observeTiming?(observations: readonly TimingObservation[]): void;
  /** Every timing, by class and then model. */
  timings?(): TimingEntry[];
}

export function ratingKey(model: string, classKey: string): string {
  let byClass = RATING_KEYS.get(model);
  if (!byClass) {
    if (RATING_KEYS.size >= MAX_KEYED_MODELS) RATING_KEYS.clear();
    RATING_KEYS.set(model, (byClass = new Map()));
  }
  let key = byClass.get(classKey);
  if (key === undefined) {
    key = `${model}\u0000${classKey}`;
    if (byClass.size < MAX_KEYED_CLASSES) byClass.set(classKey, key);
  }
  return key;
}

/**
 * The keys {@link ratingKey} has made, by model and class, so a lookup finds the one it made before.
 *
 * @remarks
 * A routed call looks up some forty ratings and timings; spelling each key out again made a new string
 * for every lookup, which the map then had to flatten and hash. Bounded, so a process that meets
 * endless class keys keeps a few thousand at most.
 */
const RATING_KEYS = new Map<string, Map<string, string>>();
const MAX_KEYED_MODELS = 256;
const MAX_KEYED_CLASSES = 256;

export function sortEntries(entries: RatingEntry[]): RatingEntry[] {
  return entries.sort((a, b) => a.classKey.localeCompare(b.classKey) || b.rating - a.rating || a.model.localeCompare(b.model));
}

export function sortTimings(entries: TimingEntry[]): TimingEntry[] {
  return entries.sort((a, b) => a.classKey.localeCompare(b.classKey) || a.model.localeCompare(b.model));
}
