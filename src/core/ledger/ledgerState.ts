/**
 * Everything one ledger file holds, as plain maps, and the operations a writer queues against it.
 *
 * @remarks
 * Writers do not queue resulting ratings, they queue operations (an observation, an alias, a spawn
 * start): at save time the operations are replayed on top of whatever other processes landed since the
 * last read. Queuing a rating instead would overwrite another window's work with a value computed
 * from a state that no longer exists — last writer wins, and observations are silently lost. One
 * `apply` serves both the in-memory view and the save, so the two can never disagree on what an
 * operation means.
 *
 * `apply` never changes an entry object, only replaces it in its map. That is what lets
 * {@link LedgerState.applied} make a new state cheaply, copying only the maps an operation touches and
 * sharing the rest, so a state that snapshots read is never changed under them.
 *
 * The states snapshots read hold only the spawns still in flight ({@link LedgerState.live}): an ended
 * call's row matters to the file (someone inspecting it after an incident), never to a snapshot, and
 * keeping it made every spawn start and end copy a map of every call made since the last save — a
 * `rung replay --ledger` of 5,533 prompts, which saves only at close, went from 1.1 s to 12.2 s.
 */
import type { Database } from 'sql.js';
import { applyObservation, RATING_LIMIT_LOGITS, type Observation } from '../ratings';
import { SIGNAL_SLOTS } from '../signal/promptFeatures';
import { applySignalUpdate, type PromptSignalState, type SignalClassStats, type SignalUpdate } from '../signal/promptSignal';
import { aliasCandidates } from '../aliasCandidates';
import { applyTiming, type TimingObservation } from '../timing';
import { ratingKey, STALE_SPAWN_MS, type LedgerSnapshot, type RatingEntry, type Spawn, type TimingEntry } from './ledger';

/** One spawn row: a start, and its end once the call returned. */
export interface SpawnRecord extends Spawn {
  endedAt: number | null;
}

/** A profile's diversity caps; null is unbounded and never becomes 0. */
export interface ProfileCaps {
  maxConsecutivePerProvider: number | null;
  maxTotalPerProvider: number | null;
}

/** How much of one rating in another ledger has already been folded in. */
export interface MergedCount {
  sourceId: string;
  model: string;
  classKey: string;
  graded: number;
  ok: number;
  mergedAt: number;
}

/**
 * How long spawn rows are kept once they no longer matter, ms.
 *
 * @remarks
 * An ended call stops counting at once and a start with no end stops counting after 30 minutes
 * (STALE_SPAWN_MS); an hour keeps both visible to someone inspecting the file after an incident without
 * letting the table grow by a row per call forever.
 */
export const SPAWN_RETENTION_MS = 60 * 60 * 1000;

export type LedgerOp =
  | { kind: 'observe'; observation: Observation }
  | { kind: 'alias'; slug: string; resolved: string }
  | { kind: 'spawn-start'; spawn: Spawn }
  | { kind: 'spawn-end'; spawnId: string; at: number }
  | { kind: 'caps'; classKey: string; caps: ProfileCaps | null }
  | { kind: 'reset'; classKey: string | null; at: number }
  | { kind: 'merge'; sourceId: string; entries: RatingEntry[]; aliases: [string, string][]; at: number }
  | { kind: 'signal'; update: SignalUpdate }
  /** Increments to the confidence check's counts: sums, so two windows' increments add whatever the order. */
  | { kind: 'confidence'; increments: { key: string; n: number; ok: number }[] }
  /** One attempt's times (timing.ts). */
  | { kind: 'timing'; observation: TimingObservation };

/** Whether a class key belongs to `classKey` as given to reset or a filter: the key itself or one of its shapes. */
export function matchesClass(key: string, classKey: string): boolean {
  return key === classKey || key.startsWith(`${classKey}/`);
}

/**
 * The information a merged rating holds against its prior: the sum of both sides' (the source's in
 * proportion to the observations newly folded), or none when either side never counted it.
 */
function mergedInformation(
  local: RatingEntry | undefined,
  source: RatingEntry,
  newGraded: number,
): Pick<RatingEntry, 'information' | 'followedPrior'> {
  const side = local ?? source;
  const information =
    local === undefined
      ? source.information
      : local.information === undefined || source.information === undefined
        ? undefined
        : local.information + (source.information * newGraded) / Math.max(1, source.graded);
  return {
    ...(information === undefined ? {} : { information }),
    ...(side.followedPrior === undefined ? {} : { followedPrior: side.followedPrior }),
  };
}

/**
 * The signal with one class's record forgotten: it must earn its say there again. The weights are one
 * table for every class (each feature hashed with its class), so they are kept; what a reset class
 * learned of them is outweighed as the class learns again.
 */
function forgetSignalClass(signal: PromptSignalState | undefined, classKey: string): PromptSignalState | undefined {
  if (!signal) return undefined;
  const classes = new Map([...signal.classes].filter(([key]) => !matchesClass(key, classKey)));
  return { ...signal, classes };
}

/** The local attempts' cost with the source's added in proportion to the observations newly folded (`share`). */
function mergedCost(local: RatingEntry['cost'], source: RatingEntry['cost'], share: number): Pick<RatingEntry, 'cost'> {
  const part = Math.min(1, Math.max(0, share));
  const added = source
    ? { observed: source.observed * part, listed: source.listed * part, attempts: Math.round(source.attempts * part) }
    : undefined;
  if (!local) return added && added.attempts > 0 ? { cost: added } : {};
  if (!added) return { cost: { ...local } };
  return {
    cost: { observed: local.observed + added.observed, listed: local.listed + added.listed, attempts: local.attempts + added.attempts },
  };
}

function mergedKey(sourceId: string, model: string, classKey: string): string {
  return `${sourceId}\u0000${model}\u0000${classKey}`;
}

/**
 * A copy of `map`, entries in the same order.
 *
 * @remarks
 * `forEach` hands each entry over as it is; `new Map(map)` goes through the iterator, which made a
 * `[key, value]` pair and a result object for every entry of every copy.
 */
function copyOf<V>(map: Map<string, V>): Map<string, V> {
  const copy = new Map<string, V>();
  map.forEach((value, key) => copy.set(key, value));
  return copy;
}

type Table = 'ratings' | 'aliases' | 'spawns' | 'caps' | 'merged' | 'confidence' | 'timings';

/** The tables of a ledger file, as the counts of skipped rows name them; `signal` is the per-prompt signal's two tables. */
export type LedgerTable = Table | 'signal';

/** The maps each operation changes: what {@link LedgerState.applied} must copy before applying it. */
const TOUCHES: Record<LedgerOp['kind'], readonly Table[]> = {
  observe: ['ratings'],
  alias: ['aliases'],
  'spawn-start': ['spawns'],
  'spawn-end': ['spawns'],
  caps: ['caps'],
  reset: ['ratings', 'merged', 'confidence', 'timings'],
  merge: ['ratings', 'merged', 'aliases'],
  // The signal's tables are copied by the first step a state takes without owning them (see ownsSignal).
  signal: [],
  confidence: ['confidence'],
  timing: ['timings'],
};

export class LedgerState {
  ledgerId: string;
  // Reassigned only while a state is built (`applied`, `advanced`), before anyone else holds it.
  ratings: Map<string, RatingEntry>;
  aliases: Map<string, string>;
  spawns: Map<string, SpawnRecord>;
  caps: Map<string, ProfileCaps>;
  merged: Map<string, MergedCount>;
  /**
   * What the per-prompt signal has learned; undefined until its first step. Its weight tables are the one
   * part of a state changed in place, by the state that owns them ({@link LedgerState.ownsSignal}).
   */
  signal: PromptSignalState | undefined;
  /**
   * Whether this state alone may step the signal's weight tables in place.
   *
   * @remarks
   * Copying both tables (128 KiB) on every call's step was most of what a routed call allocated with the
   * signal on, and the collector's pauses were the routing overhead's 99th percentile. So ownership passes
   * down the line of states a ledger replaces its own with (`applied` with operations): a state that has
   * handed it on sees later steps in its tables, which only the router reads, at once, when a call starts.
   * A copy taken to be kept apart (`clone`, `live`, a base read from the file) never owns what it shares,
   * and the state it was taken from stops owning them too: whichever of the two steps first copies the
   * tables, so neither sees the other's steps, and the file's state a ledger rebuilds from stays as read.
   */
  private ownsSignal = false;
  /**
   * The maps this state alone holds, by table: copied by it, and shared with no other state or snapshot
   * since. {@link LedgerState.advanced} changes these in place; every other table is copied first.
   *
   * @remarks
   * Kept by the map itself, not a flag, so a map put in a table from outside (a team's read hands its
   * aliases and spawns over whole) is never taken for one this state copied.
   */
  private owned: Partial<Record<Table, Map<string, unknown>>> = {};
  /** Whether a snapshot holds this state (see {@link LedgerState.share}). */
  private read = false;
  /** The confidence check's counts by key (src/core/confidence/confidenceLearner.ts). */
  confidence: Map<string, { n: number; ok: number }>;
  /** How long each model's attempts took at each class key, on this machine (timing.ts); never merged. */
  timings: Map<string, TimingEntry>;
  /** Rows of the file {@link LedgerState.read} left out as unusable, by table; empty for a state built in memory. */
  readonly skipped: Partial<Record<LedgerTable, number>> = {};
  private measured: Set<string> | undefined;

  /**
   * An empty state, or — given `shared` — one holding the same tables as `shared`, owning none of them.
   * (Sharing rather than making seven empty maps to throw away: a state is built for every update.)
   */
  constructor(ledgerId: string, shared?: LedgerState) {
    this.ledgerId = ledgerId;
    this.ratings = shared ? shared.ratings : new Map();
    this.aliases = shared ? shared.aliases : new Map();
    this.spawns = shared ? shared.spawns : new Map();
    this.caps = shared ? shared.caps : new Map();
    this.merged = shared ? shared.merged : new Map();
    this.signal = shared?.signal;
    this.confidence = shared ? shared.confidence : new Map();
    this.timings = shared ? shared.timings : new Map();
    this.measured = shared?.measured;
  }

  /** A copy that can be changed in place without touching this state. */
  clone(): LedgerState {
    return this.applied([], ['ratings', 'aliases', 'spawns', 'caps', 'merged', 'confidence', 'timings']);
  }

  /**
   * A new state for snapshots to read: `ops` applied, and the spawns they end dropped. This one is left as it was.
   *
   * @remarks
   * Only the maps the operations touch are copied (once, however many operations touch them), and the
   * entries are shared, since `apply` replaces entries rather than changing them. An observation thus
   * costs one copy of the ratings map, a few hundred entries in a large workspace, not a copy of the ledger.
   * A spawn start or end copies the spawns map, which stays as small as the calls in flight because an
   * ended spawn leaves it here (see {@link LedgerState.live}); the file keeps the end through `apply`.
   */
  applied(ops: readonly LedgerOp[], copy: readonly Table[] = []): LedgerState {
    const next = new LedgerState(this.ledgerId, this);
    // Whatever the copy is for, this state no longer owns the tables it now shares: its next step copies
    // them, so a clone or a live view taken of it is never changed by its later steps.
    next.ownsSignal = ops.length > 0 && this.ownsSignal;
    this.ownsSignal = false;
    this.owned = {};
    for (const table of copy) next.own(table);
    next.applyAll(ops);
    return next;
  }

  /**
   * The state a ledger replaces its own with: {@link LedgerState.applied}'s, but each table this state
   * owns is changed in place and handed on, not copied, and while no snapshot holds this state it is
   * changed and returned itself. For a ledger's current state only: this one is not to be read again
   * but through the snapshots already taken of it, whose tables it never changes.
   *
   * @remarks
   * Copying the ratings and timings maps on every observation, and the spawns map on every start and
   * end, was a third of what a routed call allocated in the replay: several maps of every model and
   * class per call, each garbage the moment the next update came, and kept long enough by the router's
   * snapshots to reach the old generation. Taking a snapshot ({@link snapshotOf}) gives up every table
   * it can read, so the first update after it copies what it touches, as before, and later ones change
   * that copy in place: a call copies each table it updates once, however many attempts it makes.
   */
  advanced(ops: readonly LedgerOp[]): LedgerState {
    // No snapshot holds this state: it is the ledger's alone, and becomes the next one itself.
    if (!this.read) {
      this.applyAll(ops);
      return this;
    }
    const next = new LedgerState(this.ledgerId, this);
    next.owned = this.owned;
    this.owned = {};
    next.ownsSignal = ops.length > 0 && this.ownsSignal;
    this.ownsSignal = false;
    next.applyAll(ops);
    return next;
  }

  /**
   * Gives up every table, and this state itself, to a snapshot that reads them live ({@link snapshotOf}):
   * the next update builds a new state, and copies each table before changing it.
   */
  share(): void {
    this.owned = {};
    this.read = true;
  }

  /** `ops` applied in turn, each table copied before its first change unless owned; the spawns they end dropped. */
  private applyAll(ops: readonly LedgerOp[]): void {
    for (const op of ops) {
      for (const table of TOUCHES[op.kind]) this.own(table);
      this.apply(op);
      if (op.kind === 'spawn-end') this.spawns.delete(op.spawnId);
    }
  }

  /** Makes `table` this state's own: copied, unless this state copied it itself and has shared it with nothing since. */
  private own(table: Table): void {
    switch (table) {
      case 'ratings':
        if (this.owned.ratings !== this.ratings) this.owned.ratings = this.ratings = copyOf(this.ratings);
        return;
      case 'aliases':
        if (this.owned.aliases !== this.aliases) this.owned.aliases = this.aliases = copyOf(this.aliases);
        return;
      case 'spawns':
        if (this.owned.spawns !== this.spawns) this.owned.spawns = this.spawns = copyOf(this.spawns);
        return;
      case 'caps':
        if (this.owned.caps !== this.caps) this.owned.caps = this.caps = copyOf(this.caps);
        return;
      case 'merged':
        if (this.owned.merged !== this.merged) this.owned.merged = this.merged = copyOf(this.merged);
        return;
      case 'confidence':
        if (this.owned.confidence !== this.confidence) this.owned.confidence = this.confidence = copyOf(this.confidence);
        return;
      case 'timings':
        if (this.owned.timings !== this.timings) this.owned.timings = this.timings = copyOf(this.timings);
        return;
    }
  }

  /**
   * This state as snapshots need it: the same, less the spawn rows that have ended.
   *
   * @remarks
   * A snapshot counts only spawns with no end, so the view is the same, and the map every spawn start
   * and end copies stays as small as the calls in flight rather than an hour of the file's history.
   */
  live(): LedgerState {
    const next = this.applied([]);
    const inFlight = [...this.spawns].filter(([, spawn]) => spawn.endedAt === null);
    if (inFlight.length < this.spawns.size) next.spawns = new Map(inFlight);
    return next;
  }

  /** Class keys with at least one graded observation. */
  measuredClasses(): Set<string> {
    if (!this.measured) {
      this.measured = new Set();
      for (const entry of this.ratings.values()) if (entry.graded > 0) this.measured.add(entry.classKey);
    }
    return this.measured;
  }

  /** Applies one operation in place; for a state nobody else reads (see {@link LedgerState.applied}). */
  apply(op: LedgerOp): void {
    // An observation only ever adds its class to the measured ones (it leaves a graded entry there); a
    // reset or a merge may change any, so the set is worked out again when next asked for.
    if (op.kind !== 'observe' && TOUCHES[op.kind].includes('ratings')) this.measured = undefined;
    switch (op.kind) {
      case 'observe': {
        const { observation } = op;
        const key = ratingKey(observation.model, observation.classKey);
        const next = applyObservation(this.ratings.get(key), observation);
        this.ratings.set(
          key,
          withinRanges({ ...next, model: observation.model, classKey: observation.classKey, updatedAt: observation.at }),
        );
        // Copied rather than added to: other states and their snapshots may hold this set.
        if (this.measured && next.graded > 0 && !this.measured.has(observation.classKey))
          this.measured = new Set(this.measured).add(observation.classKey);
        return;
      }
      case 'alias':
        if (op.slug !== op.resolved) this.aliases.set(op.slug, op.resolved);
        return;
      case 'spawn-start':
        this.spawns.set(op.spawn.spawnId, { ...op.spawn, endedAt: null });
        return;
      case 'spawn-end': {
        const spawn = this.spawns.get(op.spawnId);
        if (spawn) this.spawns.set(op.spawnId, { ...spawn, endedAt: op.at });
        return;
      }
      case 'caps':
        if (op.caps) this.caps.set(op.classKey, { ...op.caps });
        else this.caps.delete(op.classKey);
        return;
      case 'reset':
        // A reset ledger has learned nothing, from this workspace or from a teammate: merged counts go too,
        // so merging the teammate's file again brings their evidence back.
        for (const [key, entry] of this.ratings)
          if (op.classKey === null || matchesClass(entry.classKey, op.classKey)) this.ratings.delete(key);
        for (const [key, count] of this.merged)
          if (op.classKey === null || matchesClass(count.classKey, op.classKey)) this.merged.delete(key);
        this.signal = op.classKey === null ? undefined : forgetSignalClass(this.signal, op.classKey);
        // The confidence counts' keys carry their class third (`v1␀grade␀chat␀model␀bin`).
        for (const key of this.confidence.keys())
          if (op.classKey === null || matchesClass(key.split('\u0000')[2] ?? '', op.classKey)) this.confidence.delete(key);
        // A reset starts the class over; how long its calls took is part of what was learned there.
        for (const [key, timing] of this.timings)
          if (op.classKey === null || matchesClass(timing.classKey, op.classKey)) this.timings.delete(key);
        return;
      case 'timing': {
        const { observation } = op;
        const key = ratingKey(observation.model, observation.classKey);
        const next = applyTiming(this.timings.get(key), observation);
        this.timings.set(key, { ...next, model: observation.model, classKey: observation.classKey });
        return;
      }
      case 'confidence':
        for (const increment of op.increments) {
          const count = this.confidence.get(increment.key) ?? { n: 0, ok: 0 };
          const n = Math.min(MAX_LEDGER_COUNT, count.n + increment.n);
          this.confidence.set(increment.key, { n, ok: Math.min(n, count.ok + increment.ok) });
        }
        return;
      case 'merge':
        this.applyMerge(op);
        return;
      case 'signal':
        this.signal = applySignalUpdate(this.signal, op.update, this.ownsSignal);
        this.ownsSignal = true;
        return;
    }
  }

  /**
   * Folds in the part of another ledger's ratings not folded before.
   *
   * @remarks
   * Graded counts add. The rating moves to the count-weighted mean of the local rating and the source's,
   * the source weighted by the new evidence only: it is the closest a one-number summary of each side
   * gets to having seen both sets of observations. The counts already folded are recorded per source
   * ledger id, so merging the same file twice, or a later copy of it, adds only the difference. A source
   * whose counts went down (it was reset) adds nothing until it passes what was folded before.
   */
  private applyMerge(op: Extract<LedgerOp, { kind: 'merge' }>): void {
    for (const source of op.entries) {
      const key = mergedKey(op.sourceId, source.model, source.classKey);
      const folded = this.merged.get(key);
      const newGraded = source.graded - (folded?.graded ?? 0);
      if (newGraded > 0) {
        const newOk = Math.min(newGraded, Math.max(0, source.ok - (folded?.ok ?? 0)));
        const local = this.ratings.get(ratingKey(source.model, source.classKey));
        const graded = (local?.graded ?? 0) + newGraded;
        const rating = local ? (local.rating * local.graded + source.rating * newGraded) / graded : source.rating;
        // The drift detector's state is about one sequence of outcomes: the local one where there is one.
        const drift = local ?? source;
        this.ratings.set(
          ratingKey(source.model, source.classKey),
          withinRanges({
            model: source.model,
            classKey: source.classKey,
            rating,
            graded,
            ok: (local?.ok ?? 0) + newOk,
            updatedAt: Math.max(local?.updatedAt ?? 0, source.updatedAt),
            ...(drift.surprise === undefined ? {} : { surprise: drift.surprise }),
            ...(drift.sinceDrift === undefined ? {} : { sinceDrift: drift.sinceDrift }),
            ...mergedInformation(local, source, newGraded),
            // Prices are one model's at one class wherever they were paid: the attempts add.
            ...mergedCost(local?.cost, source.cost, newGraded / Math.max(1, source.graded)),
          }),
        );
      }
      this.merged.set(key, {
        sourceId: op.sourceId,
        model: source.model,
        classKey: source.classKey,
        graded: Math.max(folded?.graded ?? 0, source.graded),
        ok: Math.max(folded?.ok ?? 0, source.ok),
        mergedAt: op.at,
      });
    }
    for (const [slug, resolved] of op.aliases) if (!this.aliases.has(slug)) this.aliases.set(slug, resolved);
  }

  /**
   * Drops spawn rows that can no longer make anything busy (see {@link SPAWN_RETENTION_MS}), and those
   * that start after now.
   *
   * @remarks
   * Every writer of one file stamps its starts with the same machine's clock before it writes them, so a
   * start after now was not written by one: kept while within the retention either side of now, a start
   * 50 minutes ahead became a call in flight when its time came and made its model busy for half an hour
   * more.
   */
  pruneSpawns(now: number): void {
    for (const [id, spawn] of this.spawns) {
      const last = spawn.endedAt ?? spawn.startedAt;
      if (spawn.startedAt > now || Math.abs(now - last) > SPAWN_RETENTION_MS) this.spawns.delete(id);
    }
  }

  /**
   * Reads a database already migrated to the current schema, skipping (and counting in
   * {@link LedgerState.skipped}) every row whose values Rung could not have written.
   *
   * @remarks
   * SQLite keeps whatever a cell is given, and a file can come from anywhere (a cloned folder, a
   * teammate's copy to merge), so each row is held to the ranges Rung writes, as a team's rows are
   * (teamRows.ts): numbers finite, counts whole and within {@link MAX_LEDGER_COUNT}, ok no more than
   * graded, a rating within ±{@link RATING_LIMIT_LOGITS}. Read with `Number()` alone, a rating of
   * −Infinity crashed every later call in the planner, a NaN rating or signal weight became NULL on the
   * next save and failed it for good ("NOT NULL constraint failed"), and a merge carried 1e18 graded
   * answers into the user's ledger. A bad row is left out rather than mended: no value in it can be
   * trusted, and the rest of the file is still the user's evidence.
   */
  static read(db: Database): LedgerState {
    const id = db.exec(`SELECT value FROM meta WHERE key = 'ledger_id'`)[0]?.values[0]?.[0];
    const state = new LedgerState(String(id ?? ''));
    const skip = (table: LedgerTable): void => {
      state.skipped[table] = (state.skipped[table] ?? 0) + 1;
    };
    forEachRow(
      db,
      'SELECT model, class_key, rating, graded, ok, updated_at, drift_surprise, drift_since, information, followed_prior, cost_observed, cost_listed, cost_attempts FROM ratings',
      (row) => {
        const entry = ratingRow(row);
        if (entry) state.ratings.set(ratingKey(entry.model, entry.classKey), entry);
        else skip('ratings');
      },
    );
    forEachRow(db, 'SELECT slug, resolved FROM aliases', (row) => {
      if (isName(row[0]) && isName(row[1])) state.aliases.set(row[0], row[1]);
      else skip('aliases');
    });
    forEachRow(db, 'SELECT spawn_id, trace_id, model, started_at, ended_at FROM spawns', (row) => {
      const [spawnId, traceId, model, startedAt, endedAt] = row;
      if (
        !isName(spawnId) ||
        typeof traceId !== 'string' ||
        !isName(model) ||
        !isTime(startedAt) ||
        !(endedAt === null || isTime(endedAt))
      ) {
        skip('spawns');
        return;
      }
      state.spawns.set(spawnId, { spawnId, traceId, model, startedAt, endedAt });
    });
    forEachRow(db, 'SELECT class_key, max_consecutive_per_provider, max_total_per_provider FROM profile_caps', (row) => {
      const [classKey, consecutive, total] = row;
      const cap = (cell: Cell | undefined): cell is number | null => cell === null || isCount(cell, 1);
      if (typeof classKey === 'string' && cap(consecutive) && cap(total))
        state.caps.set(classKey, { maxConsecutivePerProvider: consecutive, maxTotalPerProvider: total });
      else skip('caps');
    });
    forEachRow(db, 'SELECT key, n, ok FROM confidence_counts', (row) => {
      const [key, n, ok] = row;
      if (typeof key === 'string' && isAmount(n) && n <= MAX_LEDGER_COUNT && isAmount(ok) && ok <= n) state.confidence.set(key, { n, ok });
      else skip('confidence');
    });
    forEachRow(
      db,
      'SELECT model, class_key, attempts, total_ms, first_token_attempts, first_token_ms, output_tokens, writing_ms FROM timings',
      (row) => {
        const [model, classKey, attempts, totalMs, firstTokenAttempts, firstTokenMs, outputTokens, writingMs] = row;
        if (
          !isName(model) ||
          typeof classKey !== 'string' ||
          !isAmount(attempts) ||
          attempts > MAX_LEDGER_COUNT ||
          ![totalMs, firstTokenAttempts, firstTokenMs, outputTokens, writingMs].every(isAmount)
        ) {
          skip('timings');
          return;
        }
        const entry: TimingEntry = {
          model,
          classKey,
          attempts,
          totalMs: totalMs as number,
          firstTokenAttempts: firstTokenAttempts as number,
          firstTokenMs: firstTokenMs as number,
          outputTokens: outputTokens as number,
          writingMs: writingMs as number,
        };
        state.timings.set(ratingKey(entry.model, entry.classKey), entry);
      },
    );
    forEachRow(db, 'SELECT source_id, model, class_key, graded, ok, merged_at FROM merged_sources', (row) => {
      const [sourceId, model, classKey, graded, ok, mergedAt] = row;
      if (!isName(sourceId) || !isName(model) || typeof classKey !== 'string' || !isCount(graded) || !isCount(ok) || !isTime(mergedAt)) {
        skip('merged');
        return;
      }
      const count: MergedCount = { sourceId, model, classKey, graded, ok, mergedAt };
      state.merged.set(mergedKey(count.sourceId, count.model, count.classKey), count);
    });
    state.signal = readSignalTables(db, skip);
    return state;
  }

  /** Replaces the contents of every table in `db` with this state, in one transaction. */
  write(db: Database): void {
    db.run('BEGIN');
    try {
      for (const table of [
        'ratings',
        'aliases',
        'spawns',
        'profile_caps',
        'merged_sources',
        'prompt_signal_weights',
        'prompt_signal_classes',
        'confidence_counts',
        'timings',
      ])
        db.run(`DELETE FROM ${table}`);
      insertAll(
        db,
        'INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at, drift_surprise, drift_since, information, followed_prior, cost_observed, cost_listed, cost_attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [...this.ratings.values()].map((e) => [
          e.model,
          e.classKey,
          e.rating,
          e.graded,
          e.ok,
          e.updatedAt,
          e.surprise ?? 0,
          e.sinceDrift ?? null,
          e.information ?? null,
          e.followedPrior ?? null,
          e.cost?.observed ?? 0,
          e.cost?.listed ?? 0,
          e.cost?.attempts ?? 0,
        ]),
      );
      insertAll(db, 'INSERT INTO aliases VALUES (?, ?)', [...this.aliases]);
      insertAll(
        db,
        'INSERT INTO spawns VALUES (?, ?, ?, ?, ?)',
        [...this.spawns.values()].map((s) => [s.spawnId, s.traceId, s.model, s.startedAt, s.endedAt]),
      );
      insertAll(
        db,
        'INSERT INTO profile_caps VALUES (?, ?, ?)',
        [...this.caps].map(([key, caps]) => [key, caps.maxConsecutivePerProvider, caps.maxTotalPerProvider]),
      );
      insertAll(
        db,
        'INSERT INTO merged_sources VALUES (?, ?, ?, ?, ?, ?)',
        [...this.merged.values()].map((m) => [m.sourceId, m.model, m.classKey, m.graded, m.ok, m.mergedAt]),
      );
      if (this.signal) writeSignalTables(db, this.signal);
      insertAll(
        db,
        'INSERT INTO confidence_counts VALUES (?, ?, ?)',
        [...this.confidence].map(([key, count]) => [key, count.n, count.ok]),
      );
      insertAll(
        db,
        'INSERT INTO timings VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [...this.timings.values()].map((t) => [
          t.model,
          t.classKey,
          t.attempts,
          t.totalMs,
          t.firstTokenAttempts,
          t.firstTokenMs,
          t.outputTokens,
          t.writingMs,
        ]),
      );
      db.run('COMMIT');
    } catch (error) {
      db.run('ROLLBACK');
      throw error;
    }
  }
}

/**
 * The router's view of `state` as of `now`; it reads `state` live, so `state` must not change while the
 * view is in use (every ledger here replaces its state rather than changing it; see {@link LedgerState.applied}).
 * The one exception is the signal's weights, which a view of a state since replaced may see take later
 * steps: the router reads them once, as a call starts.
 */
export function snapshotOf(state: LedgerState, now: number): LedgerSnapshot {
  // The view reads the state's tables live: from now on they are shared, and any update copies them first.
  state.share();
  const measured = state.measuredClasses();
  return {
    // Built whole, a field left undefined where the entry has none, rather than spread from parts: a call
    // reads some thirty ratings, and each spread made objects to throw away.
    rating: (model, classKey) => {
      const entry = state.ratings.get(ratingKey(model, classKey));
      if (!entry) return undefined;
      return {
        rating: entry.rating,
        graded: entry.graded,
        ok: entry.ok,
        information: entry.information,
        followedPrior: entry.followedPrior,
        cost: entry.cost,
      };
    },
    resolve: (slug) => {
      // Most ledgers hold no alias: then there is nothing to spell out and look up.
      if (state.aliases.size === 0) return slug;
      for (const candidate of aliasCandidates(slug)) {
        const resolved = state.aliases.get(candidate);
        if (resolved) return resolved;
      }
      return slug;
    },
    inFlight: (model) => {
      let count = 0;
      for (const spawn of state.spawns.values()) {
        // A start dated after now was not made by a clock this ledger shares (every writer of one file
        // reads the same machine's clock): counted, it would keep its model busy until long after then.
        const age = now - spawn.startedAt;
        if (spawn.model === model && spawn.endedAt === null && age >= 0 && age < STALE_SPAWN_MS) count++;
      }
      return count;
    },
    inFlightStarts: (model) => {
      const starts: number[] = [];
      for (const spawn of state.spawns.values()) {
        // As in inFlight: a start dated after now queued a whole call ahead of every local rung on its provider.
        const age = now - spawn.startedAt;
        if (spawn.model === model && spawn.endedAt === null && age >= 0 && age < STALE_SPAWN_MS) starts.push(spawn.startedAt);
      }
      return starts.sort((a, b) => a - b);
    },
    hasMeasurements: (classKey) => measured.has(classKey),
    signal: () => state.signal,
    timing: (model, classKey) => {
      const entry = state.timings.get(ratingKey(model, classKey));
      if (!entry) return undefined;
      return {
        attempts: entry.attempts,
        totalMs: entry.totalMs,
        firstTokenAttempts: entry.firstTokenAttempts,
        firstTokenMs: entry.firstTokenMs,
        outputTokens: entry.outputTokens,
        writingMs: entry.writingMs,
      };
    },
  };
}

/**
 * The per-prompt signal as the file holds it, or undefined when it holds none (a file from before v6,
 * or weights hashed into another number of slots than this version's, which would be misread).
 *
 * @remarks
 * A table of weights with a value that is not finite is left out whole, as is the signal with it: one
 * NaN weight makes every reading NaN. A class's record that does not fit is left out alone (that class
 * learns its record again).
 */
function readSignalTables(db: Database, skip: (table: LedgerTable) => void): PromptSignalState | undefined {
  const weights = new Map<string, Float32Array>();
  forEachRow(db, 'SELECT name, slots, weights FROM prompt_signal_weights', (row) => {
    const bytes = row[2];
    if (Number(row[1]) !== SIGNAL_SLOTS || !(bytes instanceof Uint8Array) || bytes.byteLength !== 4 * SIGNAL_SLOTS) return;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const table = Float32Array.from({ length: SIGNAL_SLOTS }, (_, i) => view.getFloat32(4 * i, true));
    if (table.every(Number.isFinite)) weights.set(String(row[0]), table);
    else skip('signal');
  });
  const mean = weights.get('mean');
  const unanswerable = weights.get('unanswerable');
  if (!mean || !unanswerable) return undefined;
  const classes = new Map<string, SignalClassStats>();
  forEachRow(db, 'SELECT class_key, calls, gain, gain_square, shift, odds FROM prompt_signal_classes', (row) => {
    const [classKey, calls, gain, gainSquare, shift, odds] = row;
    if (typeof classKey === 'string' && isCount(calls) && isFinite(gain) && isAmount(gainSquare) && isFinite(shift) && isFinite(odds))
      classes.set(classKey, { calls, gain, gainSquare, shift, odds });
    else skip('signal');
  });
  return { mean, unanswerable, classes };
}

function writeSignalTables(db: Database, signal: PromptSignalState): void {
  const bytesOf = (weights: Float32Array): Uint8Array => {
    const bytes = new Uint8Array(4 * weights.length);
    const view = new DataView(bytes.buffer);
    weights.forEach((weight, i) => view.setFloat32(4 * i, weight, true));
    return bytes;
  };
  insertAll(db, 'INSERT INTO prompt_signal_weights VALUES (?, ?, ?)', [
    ['mean', SIGNAL_SLOTS, bytesOf(signal.mean)],
    ['unanswerable', SIGNAL_SLOTS, bytesOf(signal.unanswerable)],
  ]);
  insertAll(
    db,
    'INSERT INTO prompt_signal_classes VALUES (?, ?, ?, ?, ?, ?)',
    [...signal.classes].map(([key, stats]) => [key, stats.calls, stats.gain, stats.gainSquare, stats.shift, stats.odds]),
  );
}

type Cell = number | string | Uint8Array | null;

function forEachRow(db: Database, sql: string, each: (row: Cell[]) => void): void {
  const statement = db.prepare(sql);
  try {
    while (statement.step()) each(statement.get());
  } finally {
    statement.free();
  }
}

function insertAll(db: Database, sql: string, rows: Cell[][]): void {
  if (rows.length === 0) return;
  const statement = db.prepare(sql);
  try {
    for (const row of rows) statement.run(row);
  } finally {
    statement.free();
  }
}

/** Rows {@link LedgerState.read} left out, as one clause (`2 ratings and 1 call in flight`); undefined when none were. */
export function describeSkippedRows(skipped: Readonly<Partial<Record<LedgerTable, number>>>): string | undefined {
  const names: Record<LedgerTable, [string, string]> = {
    ratings: ['rating', 'ratings'],
    aliases: ['alias', 'aliases'],
    spawns: ['call in flight', 'calls in flight'],
    caps: ['profile cap', 'profile caps'],
    merged: ['merged-source count', 'merged-source counts'],
    confidence: ['confidence count', 'confidence counts'],
    signal: ['per-prompt signal row', 'per-prompt signal rows'],
    timings: ['timing', 'timings'],
  };
  const parts = (Object.keys(names) as LedgerTable[])
    .filter((table) => (skipped[table] ?? 0) > 0)
    .map((table) => {
      const count = skipped[table] as number;
      return `${count} ${names[table][count === 1 ? 0 : 1]}`;
    });
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) as string}`;
}

/** Why a row is left out, for the messages that say so. */
export const SKIPPED_ROWS_REASON = 'a value not finite, not whole, or out of the range Rung writes';

/**
 * The largest count a ledger row may hold (graded answers, attempts, calls): a billion, some thirty years
 * of one graded call a second at one model and class. A count past it was not counted by Rung; it only
 * drowns every real observation merged beside it.
 */
export const MAX_LEDGER_COUNT = 1_000_000_000;

/**
 * `entry` held to the ranges {@link LedgerState.read} accepts: counts at most {@link MAX_LEDGER_COUNT},
 * no more passes than graded answers, amounts finite. The same entry when it already is (almost always).
 *
 * @remarks
 * Every value a file may hold is read, so sums of them must stay readable too: a rating read at a billion
 * graded answers took one more call to 1,000,000,001, and a teammate's file at the limits merged onto the
 * user's own summed the counts past it and the information and costs to Infinity. Written so, the next
 * read left those ratings out and the save after it dropped them: a file that opened whole made the user
 * lose their own evidence. A count at the limit stays there, its passes scaled with it; a thousand million
 * answers say no less.
 */
function withinRanges(entry: RatingEntry): RatingEntry {
  const { graded, ok, sinceDrift, information, cost } = entry;
  if (
    graded <= MAX_LEDGER_COUNT &&
    ok <= graded &&
    (sinceDrift === undefined || sinceDrift <= MAX_LEDGER_COUNT) &&
    (information === undefined || information <= Number.MAX_VALUE) &&
    (cost === undefined || (cost.observed <= Number.MAX_VALUE && cost.listed <= Number.MAX_VALUE && cost.attempts <= MAX_LEDGER_COUNT))
  )
    return entry;
  const held = Math.min(graded, MAX_LEDGER_COUNT);
  return {
    ...entry,
    graded: held,
    // Scaled with the count rather than cut, so a record held at the limit keeps its share of passes.
    ok: Math.min(held, graded > held ? Math.round((ok * held) / graded) : ok),
    ...(sinceDrift === undefined ? {} : { sinceDrift: Math.min(sinceDrift, MAX_LEDGER_COUNT) }),
    ...(information === undefined ? {} : { information: Math.min(information, Number.MAX_VALUE) }),
    ...(cost === undefined
      ? {}
      : {
          cost: {
            observed: Math.min(cost.observed, Number.MAX_VALUE),
            listed: Math.min(cost.listed, Number.MAX_VALUE),
            attempts: Math.min(cost.attempts, MAX_LEDGER_COUNT),
          },
        }),
  };
}

/** One ratings row as Rung writes it, or undefined when any cell is not (see {@link LedgerState.read}). */
function ratingRow(row: readonly Cell[]): RatingEntry | undefined {
  const [
    model,
    classKey,
    rating,
    graded,
    ok,
    updatedAt,
    surprise,
    since,
    information,
    followedPrior,
    costObserved,
    costListed,
    costAttempts,
  ] = row;
  if (!isName(model) || typeof classKey !== 'string') return undefined;
  if (!isFinite(rating) || Math.abs(rating) > RATING_LIMIT_LOGITS) return undefined;
  if (!isCount(graded) || !isCount(ok) || ok > graded || !isTime(updatedAt)) return undefined;
  // The drift detector's surprise is a running mean of differences of probabilities.
  if (!isFinite(surprise) || Math.abs(surprise) > 1) return undefined;
  if (!(since === null || isCount(since))) return undefined;
  if (!(information === null || isAmount(information)) || !(followedPrior === null || isFinite(followedPrior))) return undefined;
  if (!isAmount(costObserved) || !isAmount(costListed) || !isCount(costAttempts)) return undefined;
  return {
    model,
    classKey,
    rating,
    graded,
    ok,
    updatedAt,
    surprise,
    ...(since === null ? {} : { sinceDrift: since }),
    ...(information === null ? {} : { information }),
    ...(followedPrior === null ? {} : { followedPrior }),
    ...(costAttempts > 0 ? { cost: { observed: costObserved, listed: costListed, attempts: costAttempts } } : {}),
  };
}

function isFinite(cell: Cell | undefined): cell is number {
  return typeof cell === 'number' && Number.isFinite(cell);
}

/** A finite amount of at least 0: a cost, an information, a weighted count. */
function isAmount(cell: Cell | undefined): cell is number {
  return isFinite(cell) && cell >= 0;
}

/** A whole count from `min` to {@link MAX_LEDGER_COUNT}. */
function isCount(cell: Cell | undefined, min = 0): cell is number {
  return isFinite(cell) && Number.isInteger(cell) && cell >= min && cell <= MAX_LEDGER_COUNT;
}

/** A time in ms since the epoch: whole, not negative, within what a Date can hold. */
function isTime(cell: Cell | undefined): cell is number {
  return Number.isSafeInteger(cell) && (cell as number) >= 0 && (cell as number) <= MAX_DATE_MS;
}

/** The latest instant a JavaScript Date can hold, ms since the epoch. */
const MAX_DATE_MS = 8.64e15;

/** A non-empty text: a model, a slug, an id. */
function isName(cell: Cell | undefined): cell is string {
  return typeof cell === 'string' && cell.length > 0;
}
