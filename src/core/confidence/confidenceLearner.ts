/**
 * The confidence learner: what a model's own confidence (a log-probability that its answer is right)
 * is worth, per model and class, learned online from graded outcomes — and the climb it implies.
 *
 * @remarks
 * A model's confidence is not a probability anyone should believe as stated: on the recorded outcomes
 * gpt-4o-mini says "certain" (log-probability 0) on 41% of medmcqa questions and is right on 89% of
 * them, while llama3.2-1b says 0.5–0.8 on 91% of them and is right on 31%. So each model's stated
 * confidence is mapped to the share of its answers that were right at that confidence, per class
 * (calibration: counts per confidence bin, smoothed towards the model's table pooled across classes,
 * which is smoothed towards the stated probability, and kept monotone).
 *
 * One threshold for every model is the wrong check. Whether to accept an answer depends on what
 * climbing would buy instead, and that depends on this very answer's confidence: several models'
 * confidences on one prompt move together (the data's source, Zellinger & Thomson, "Rational Tuning of
 * LLM Cascades", models that with a copula). When gpt-4o-mini is unsure of a medmcqa answer gpt-4o is
 * right on 65% of those questions; when it is certain, on 92%. The learner keeps, per class, how a
 * model's confidence follows the state the answer before it left the call in (a Markov chain over the
 * models tried, the source's own simplification), and how right a model is at each confidence after
 * each such state; it plans each call by dynamic programming: accept an answer when its calibrated
 * chance of being right is at least what the best climb from here is expected to deliver, net of its
 * price. A model's learned threshold is where that flips. Two simpler checks were measured first and
 * lost (`test`, BENCHMARKS.md): every model calibrated against one global bar, climbing the router's
 * planner, spent 76% of gpt-4o's cost for 0.823, because the planner prices a failed check as a wrong
 * answer and so climbed through every cheap model; and a bar set from what the climbs after a rung had
 * delivered settled where every rung accepted at the accuracy of the weak climbs after it (0.76 at 14%).
 *
 * Everything is learned from what was paid for: confidences of the models a call tried (`observeReads`)
 * and grades of answers someone checked (`observeGrade`). Nothing here can read a model's outcome on a
 * prompt it was not asked. The counts are plain sums, so the ledger keeps them as increments that
 * merge like any other observation; the tables are derived.
 */
import { MIN_GRADED } from '../ratings';

/**
 * Edges of the confidence bins, log-probabilities; a bin holds [edge below, edge above).
 *
 * @remarks
 * Fine near 0, because that is where the strong models live: gpt-4o-mini's answers at −1e−6 and at
 * exactly 0 differ by three points of accuracy on mmlu, and a model's "sure" spans six orders of
 * magnitude of 1 − p. Thirteen bins, not the 29 first tried: with about 1,000 prompts a class, the
 * finer grid learned no better.
 */
export const CONFIDENCE_BIN_EDGES: readonly number[] = [-2, -1, -0.5, -0.25, -0.1, -0.03, -0.01, -1e-3, -1e-4, -1e-5, -1e-6, -1e-7];
const BINS = CONFIDENCE_BIN_EDGES.length + 1;

/** Edges of the states an answer leaves a call in: its calibrated chance of being right. */
export const CONFIDENCE_STATE_EDGES: readonly number[] = [0.4, 0.55, 0.7, 0.8, 0.9];
const STATES = CONFIDENCE_STATE_EDGES.length + 1;

/**
 * Pseudo-observations a calibration table's prior is worth in each bin (the model's table for its table
 * after an incoming state, the pooled table for a class's, the stated probability for the pooled one).
 * 2 and 8 measured no better on `train` (BENCHMARKS.md).
 */
export const CALIBRATION_PRIOR_WEIGHT = 4;
/**
 * How far the pooled table's prior believes the stated probability, against the model's pooled rate of
 * right answers. Chosen on `train` from 0.25, 0.5, 0.75 and 1 by one rule (the most `train` accuracy
 * less 0.1 × its cost share, over multiples 10 and 20; BENCHMARKS.md). It was 0.75 while a confidence
 * read cost nothing in the replay; charged for reads that are a second call, believing what a model
 * states sent calls to cheap models that say they are sure and paid to read them, and 0.25 scores best
 * (0.8205 against 0.8141, 0.8125 and 0.8071).
 */
export const STATED_PRIOR_SHARE = 0.25;
/** The rate of right answers assumed before any grade, and what it is worth in observations. */
export const RATE_PRIOR = 0.6;
export const RATE_PRIOR_WEIGHT = 2;
/** Pseudo-observations behind each model's confidence spread (pooled, then the pooled one per class); 1 and 10 measured no better on `train`. */
export const SEEN_PRIOR_WEIGHT = 4;
/**
 * Pseudo-observations behind the rate of right answers a model's unread answers had after each state,
 * in front of what its calibration and confidence spread imply: the same weight as a calibration bin's.
 */
export const UNREAD_PRIOR_WEIGHT = CALIBRATION_PRIOR_WEIGHT;

/**
 * Pseudo-observations behind each step of the chain: what the next model's confidence is, given the
 * state before it. Each step leans on the same step pooled across classes, which leans on the step
 * from any model in that state at the class, which leans on the next model's plain spread; 3 and 20
 * measured no better on `train`.
 */
export const FOLLOW_PRIOR_WEIGHT = 8;

/**
 * What a wrong answer costs under the confidence check, in calls to the dearest rung, per tradeoff.
 *
 * @remarks
 * The plan maximises P(right) − price / (multiple × dearest price). Chosen on `train` by rules stated
 * before the `test` run (BENCHMARKS.md): `quality` is the multiple of the grid 5, 10, 20, 40, 80 with
 * the best `train` accuracy (40 and 80 tie within 0.001; the smaller wins), `economy` the smallest
 * whose `train` accuracy is within a point of quality's.
 */
export const CONFIDENCE_FAILURE_MULTIPLE: Record<'quality' | 'economy', number> = { quality: 40, economy: 10 };

/**
 * Graded answers a model needs at a class before the live check judges its answers there.
 *
 * @remarks
 * Below it the calibration table is the prior (what the model states, leaned towards an assumed rate
 * of right answers), which is no learned threshold: gpt-4o-mini states certainty on 41% of medmcqa
 * and is wrong on 11% of those, so a check that believed it before any grade would pass answers
 * nobody has weighed. The gate is the one a rating passes before it overrides its prior; until a
 * model × class has that many grades the check reads and keeps the confidence, and says it did not judge.
 */
export const MIN_CONFIDENCE_GRADED = MIN_GRADED;

/**
 * Graded answers a rung cheaper than a plan's chosen opener needs at a class before the plan stops
 * opening with it instead.
 *
 * @remarks
 * The plan believes its priors about a rung it has never tried, and a plan that opens with a dear rung
 * never learns the cheap ones: from an empty ledger one early run of lucky grades for qwen2.5-72b made it
 * every class's opener, accepted unread, and gpt-4o-mini (cheaper, and on triviaqa better once checked)
 * was never asked again. So each cheaper rung opens a class's calls, cheapest first, until it has this
 * many grades there; its answers are then judged and climbed from as the plan says, so an exploring call
 * costs a cheap answer (and its read) more, not a wrong one. Chosen on `train` from 0, 3, 10, 20 and 40 by
 * the mean of the accuracy at 40% and at 55% of the best model's cost over seeds 1–20 (BENCHMARKS.md).
 */
export const EXPLORE_OPENINGS = 20;

/** Stands for every model as the one before, in the chain's pooled counts (never a slug: slugs are not empty). */
const ANY_MODEL = '';

/** Prefix of every count key: a later bin layout gets a new one, and old counts are left unread, never misread. */
const KEY_VERSION = 'v1';
const SEP = '\u0000';

/** One stored count: observations, and how many of them were right (0 for counts that are not grades). */
export interface ConfidenceCount {
  n: number;
  ok: number;
}

/** One rung a plan may climb: its slug and the price of this call on it (USD; null when unknown). */
export interface PlanRung {
  slug: string;
  price: number | null;
  /** USD for this call at the rung's list price, where {@link PlanRung.price} is another (what its answers at the class cost): a wrong answer is priced from the dearest list price. */
  listed?: number | null;
  /**
   * USD for reading this rung's confidence in its answer beyond the answer call: 0 (or absent) where the
   * confidence comes with the answer (its own token's log-probability), a second call's price where the
   * model must be asked (the self-check). The plan reads an answer only where that is worth its price.
   */
  readPrice?: number | null;
  /**
   * Whether the check will judge this rung's answer (true when absent). The plan opens with a cheaper
   * rung to learn it ({@link EXPLORE_OPENINGS}) only where its answer is judged, so that exploring never
   * lets a cheap answer stand unchecked.
   */
  judged?: boolean;
}

/** What the plan says about one answer. */
export interface ConfidenceJudgement {
  accept: boolean;
  /** The answer's calibrated chance of being right. */
  probability: number;
  /** What the best climb from here is worth, in the same units (−∞ when nothing is left to climb to). */
  climbValue: number;
  /** The lowest log-probability this model's answers are accepted at in this plan, after the same incoming state; null when never. */
  threshold: number | null;
  /** The rung to climb to when the answer is not accepted; null when there is none. */
  next: string | null;
}

export interface ConfidenceLearnerOptions {
  /** Counts to start from (the ledger's). */
  counts?: Iterable<readonly [string, ConfidenceCount]>;
  /** Told every increment as it is counted, for the ledger to keep. */
  onCount?: (increments: readonly { key: string; n: number; ok: number }[]) => void;
  /** Overrides {@link EXPLORE_OPENINGS}; 0 opens where the plan's values say from the first call. */
  exploreOpenings?: number;
}

/** The bin a log-probability falls in; NaN and −∞ fall in the lowest, anything ≥ −1e−7 (0 included) in the highest. */
export function confidenceBin(logprob: number): number {
  let bin = 0;
  while (bin < CONFIDENCE_BIN_EDGES.length && logprob >= (CONFIDENCE_BIN_EDGES[bin] as number)) bin++;
  return bin;
}

/** The lower edge of a bin, as a log-probability (−∞ for the lowest). */
export function binFloor(bin: number): number {
  return bin === 0 ? Number.NEGATIVE_INFINITY : (CONFIDENCE_BIN_EDGES[bin - 1] as number);
}

function stateOf(probability: number): number {
  let state = 0;
  while (state < CONFIDENCE_STATE_EDGES.length && probability >= (CONFIDENCE_STATE_EDGES[state] as number)) state++;
  return state;
}

/** What a model says it believes in a bin: the probability at the bin's lower edge (e^−5 for the lowest), the cautious end. */
const STATED = Array.from({ length: BINS }, (_, bin) => Math.exp(Math.max(-5, binFloor(bin))));

/** Pool-adjacent-violators: the weighted least-squares non-decreasing fit, for calibration tables. */
export function isotonic(values: readonly number[], weights: readonly number[]): number[] {
  const blocks: { value: number; weight: number; count: number }[] = [];
  values.forEach((value, i) => {
    blocks.push({ value, weight: weights[i] as number, count: 1 });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as { value: number; weight: number; count: number };
      const before = blocks[blocks.length - 2] as { value: number; weight: number; count: number };
      if (before.value <= last.value) break;
      blocks.splice(blocks.length - 2, 2, {
        value: (before.value * before.weight + last.value * last.weight) / (before.weight + last.weight),
        weight: before.weight + last.weight,
        count: before.count + last.count,
      });
    }
  });
  return blocks.flatMap((block) => new Array<number>(block.count).fill(block.value));
}

/** The counts of one model at one class (or pooled over classes), or of its answers after one incoming state. */
class ModelCounts {
  readonly ok = new Float64Array(BINS);
  readonly graded = new Float64Array(BINS);
  readonly seen = new Float64Array(BINS);
}

/**
 * The state a call is in before an answer: the state the previous answer left it in, or
 * {@link OPENING} when this is the call's first answer.
 */
export const OPENING = STATES;

/** One class's counts, or the pool of all classes: per model, per model after each incoming state, and per step of the chain. */
class Table {
  readonly models = new Map<string, ModelCounts>();
  readonly follows = new Map<string, Float64Array>();
  /** Graded answers accepted without reading their confidence, by model and the state before them: answers and right ones. */
  readonly unread = new Map<string, ConfidenceCount>();
  private readonly calibrations = new Map<string, number[]>();

  /** Counts of `slug`, or of its answers after `incoming` when given. */
  model(slug: string, incoming?: number): ModelCounts {
    const key = incoming === undefined ? slug : `${slug}${SEP}${incoming}`;
    let counts = this.models.get(key);
    if (!counts) {
      counts = new ModelCounts();
      this.models.set(key, counts);
    }
    return counts;
  }

  peekModel(slug: string, incoming?: number): ModelCounts | undefined {
    return this.models.get(incoming === undefined ? slug : `${slug}${SEP}${incoming}`);
  }

  follow(from: string, state: number, to: string): Float64Array {
    const key = `${from}${SEP}${state}${SEP}${to}`;
    let counts = this.follows.get(key);
    if (!counts) {
      counts = new Float64Array(BINS);
      this.follows.set(key, counts);
    }
    return counts;
  }

  peekFollow(from: string, state: number, to: string): Float64Array | undefined {
    return this.follows.get(`${from}${SEP}${state}${SEP}${to}`);
  }

  /** A calibration table, memoised until its counts change; `prior` gives each bin's prior. */
  calibration(slug: string, incoming: number | undefined, prior: (bin: number) => number): number[] {
    const key = incoming === undefined ? slug : `${slug}${SEP}${incoming}`;
    const known = this.calibrations.get(key);
    if (known) return known;
    const counts = this.models.get(key);
    const values: number[] = [];
    const weights: number[] = [];
    for (let bin = 0; bin < BINS; bin++) {
      const graded = counts?.graded[bin] ?? 0;
      values.push(((counts?.ok[bin] ?? 0) + prior(bin) * CALIBRATION_PRIOR_WEIGHT) / (graded + CALIBRATION_PRIOR_WEIGHT));
      weights.push(graded + CALIBRATION_PRIOR_WEIGHT);
    }
    const table = isotonic(values, weights);
    this.calibrations.set(key, table);
    return table;
  }

  /** Drops every memoised table of `slug`: its counts, or the pooled ones its tables lean on, moved. */
  forget(slug: string): void {
    for (const key of [...this.calibrations.keys()]) if (key === slug || key.startsWith(`${slug}${SEP}`)) this.calibrations.delete(key);
  }
}

/** Whether to read a model's confidence before taking its answer, and what its answer is worth either way. */
export interface ReadDecision {
  read: boolean;
  /** The answer's expected chance of being right if accepted unread, after the call's state. */
  unread: number;
  /** What reading is worth: the better of accepting and climbing, bin by bin, less the read's price (same units). */
  readValue: number;
  /** The read's price as a share of a wrong answer's cost. */
  readCost: number;
}

/** One answer of a call as a plan judged it: the model, its confidence, the state the call was in before it and the state it left. */
export interface JudgedAnswer {
  model: string;
  logprob: number;
  incoming: number;
  state: number;
}

/** Learns what each model's confidence is worth per class, and plans calls from it. */
export class ConfidenceLearner {
  private readonly classes = new Map<string, Table>();
  private readonly pool = new Table();
  private readonly onCount: ConfidenceLearnerOptions['onCount'];
  /** {@link EXPLORE_OPENINGS}, or the override. */
  readonly exploreOpenings: number;

  constructor(options: ConfidenceLearnerOptions = {}) {
    this.onCount = options.onCount;
    this.exploreOpenings = options.exploreOpenings ?? EXPLORE_OPENINGS;
    for (const [key, count] of options.counts ?? []) this.load(key, count);
  }

  /**
   * Notes the answers one call's plan judged, in the order its models were tried: each model's spread
   * of confidence, and how each followed the state of the one before it.
   *
   * @remarks
   * No grade is needed for these, so every confidence-checked call teaches them, graded or not. The
   * states are the plan's, as it saw them during the call.
   */
  observeReads(classKey: string, answers: readonly JudgedAnswer[]): void {
    const increments: { key: string; n: number; ok: number }[] = [];
    answers.forEach((answer, i) => {
      const bin = confidenceBin(answer.logprob);
      increments.push({ key: seenKey(classKey, answer.model, bin), n: 1, ok: 0 });
      const before = answers[i - 1];
      if (before) increments.push({ key: followKey(classKey, before.model, before.state, answer.model, bin), n: 1, ok: 0 });
    });
    this.count(increments);
  }

  /**
   * Notes one graded answer: the model's confidence in it, whether it was right, and the state the call
   * was in before it ({@link OPENING} for a call's first answer).
   *
   * @remarks
   * The grade counts twice: in the model's table, and in its table after that incoming state. The
   * second is where the dependence between models shows: gpt-4o answering after gpt-4o-mini was unsure
   * is right less often at the same stated confidence than gpt-4o answering first.
   */
  observeGrade(classKey: string, model: string, logprob: number, correct: boolean, incoming: number = OPENING): void {
    const bin = confidenceBin(logprob);
    const ok = correct ? 1 : 0;
    const after =
      Number.isInteger(incoming) && incoming >= 0 && incoming <= OPENING
        ? [{ key: gradeAfterKey(classKey, model, incoming, bin), n: 1, ok }]
        : [];
    this.count([{ key: gradeKey(classKey, model, bin), n: 1, ok }, ...after]);
  }

  /**
   * Notes one graded answer that was accepted without reading its confidence, and the state the call was
   * in before it: what such answers are worth, learned from the grades themselves.
   *
   * @remarks
   * The plan does not read the top rung's answer (nothing above it to climb to) or one it would accept
   * at any confidence, so their calibration stops being taught; what climbing to them is worth must
   * still be learned, and these grades are where it shows.
   */
  observeUnread(classKey: string, model: string, correct: boolean, incoming: number = OPENING): void {
    if (!Number.isInteger(incoming) || incoming < 0 || incoming > OPENING) return;
    this.count([{ key: unreadKey(classKey, model, incoming), n: 1, ok: correct ? 1 : 0 }]);
  }

  /**
   * The chance an answer of `model` accepted unread after `incoming` is right: its unread grades at the
   * class, leaning on `expected` (what its calibration and confidence spread say) with
   * {@link UNREAD_PRIOR_WEIGHT}.
   */
  unreadRate(classKey: string, model: string, incoming: number, expected: number): number {
    const counts = this.classes.get(classKey)?.unread.get(`${model}${SEP}${incoming}`);
    return ((counts?.ok ?? 0) + UNREAD_PRIOR_WEIGHT * expected) / ((counts?.n ?? 0) + UNREAD_PRIOR_WEIGHT);
  }

  /** The chance an answer of `model` at this confidence is right, after `incoming`, as the graded answers of the class say. */
  probability(classKey: string, model: string, logprob: number, incoming: number = OPENING): number {
    return this.calibration(classKey, model, incoming)[confidenceBin(logprob)] as number;
  }

  /** How many graded answers of `model` at `classKey` the learner holds (its own, not those pooled from other classes). */
  graded(classKey: string, model: string): number {
    const counts = this.classes.get(classKey)?.peekModel(model);
    let graded = 0;
    for (let bin = 0; bin < BINS; bin++) graded += counts?.graded[bin] ?? 0;
    return graded;
  }

  /** Every count, as the ledger stores them. */
  counts(): [string, ConfidenceCount][] {
    const result: [string, ConfidenceCount][] = [];
    for (const [classKey, table] of this.classes) {
      for (const [key, counts] of table.models) {
        const [model, incoming] = key.split(SEP) as [string, string | undefined];
        for (let bin = 0; bin < BINS; bin++) {
          const graded = counts.graded[bin] as number;
          if (graded > 0)
            result.push([
              incoming === undefined ? gradeKey(classKey, model, bin) : gradeAfterKey(classKey, model, Number(incoming), bin),
              { n: graded, ok: counts.ok[bin] as number },
            ]);
          if ((counts.seen[bin] as number) > 0) result.push([seenKey(classKey, model, bin), { n: counts.seen[bin] as number, ok: 0 }]);
        }
      }
      for (const [key, count] of table.unread) {
        const [model, incoming] = key.split(SEP) as [string, string];
        result.push([unreadKey(classKey, model, Number(incoming)), { n: count.n, ok: count.ok }]);
      }
      for (const [key, counts] of table.follows) {
        const [from, state, to] = key.split(SEP) as [string, string, string];
        if (from === ANY_MODEL) continue;
        for (let bin = 0; bin < BINS; bin++)
          if ((counts[bin] as number) > 0)
            result.push([followKey(classKey, from, Number(state), to, bin), { n: counts[bin] as number, ok: 0 }]);
      }
    }
    return result;
  }

  /**
   * The plan for one call over these rungs: which to open with, which answers to accept, where to
   * climb from the rest.
   *
   * @remarks
   * `multiple` prices a wrong or missing answer in calls to the dearest rung, as the router's planner
   * does: the plan maximises P(right) − price / (multiple × dearest price). Rungs are climbed in order
   * of price (ties in the order given), never down: a cheaper model tried after a dearer one was not
   * what the user was promised, and the recorded cascades never measured it.
   */
  plan(classKey: string, rungs: readonly PlanRung[], multiple: number): ConfidencePlan {
    return new ConfidencePlan(this, classKey, rungs, multiple);
  }

  /**
   * The calibration table of a model at a class, after an incoming state: smoothed towards the model's
   * table at the class, which is smoothed towards its table pooled over classes, which is smoothed
   * towards what it states and its pooled rate of right answers.
   */
  calibration(classKey: string, model: string, incoming: number = OPENING): number[] {
    const pooled = this.pool.calibration(model, undefined, (bin) => {
      const counts = this.pool.peekModel(model);
      let graded = 0;
      let ok = 0;
      for (let b = 0; b < BINS; b++) {
        graded += counts?.graded[b] ?? 0;
        ok += counts?.ok[b] ?? 0;
      }
      const rate = (ok + RATE_PRIOR * RATE_PRIOR_WEIGHT) / (graded + RATE_PRIOR_WEIGHT);
      return STATED_PRIOR_SHARE * (STATED[bin] as number) + (1 - STATED_PRIOR_SHARE) * rate;
    });
    const table = this.table(classKey);
    const plain = table.calibration(model, undefined, (bin) => pooled[bin] as number);
    return table.calibration(model, incoming, (bin) => plain[bin] as number);
  }

  /** The spread of a model's confidence at a class, as shares of its bins. */
  seen(classKey: string, model: string): number[] {
    const pooled = smoothed(this.pool.peekModel(model)?.seen, () => 1 / BINS, SEEN_PRIOR_WEIGHT);
    return smoothed(this.classes.get(classKey)?.peekModel(model)?.seen, (bin) => pooled[bin] as number, SEEN_PRIOR_WEIGHT);
  }

  /** The spread of `to`'s confidence at a class when it follows `from` in `state`. */
  follows(classKey: string, from: string, state: number, to: string): number[] {
    const marginal = this.seen(classKey, to);
    const anyFrom = smoothed(
      this.classes.get(classKey)?.peekFollow(ANY_MODEL, state, to),
      (bin) => marginal[bin] as number,
      FOLLOW_PRIOR_WEIGHT,
    );
    const pooled = smoothed(this.pool.peekFollow(from, state, to), (bin) => anyFrom[bin] as number, FOLLOW_PRIOR_WEIGHT);
    return smoothed(this.classes.get(classKey)?.peekFollow(from, state, to), (bin) => pooled[bin] as number, FOLLOW_PRIOR_WEIGHT);
  }

  private table(classKey: string): Table {
    let table = this.classes.get(classKey);
    if (!table) {
      table = new Table();
      this.classes.set(classKey, table);
    }
    return table;
  }

  private count(increments: readonly { key: string; n: number; ok: number }[]): void {
    if (increments.length === 0) return;
    for (const increment of increments) this.load(increment.key, increment);
    this.onCount?.(increments);
  }

  /** Adds one stored count to its class's table and the pool; a key of another layout or version is skipped. */
  private load(key: string, count: ConfidenceCount): void {
    const parts = key.split(SEP);
    if (parts[0] !== KEY_VERSION || !(count.n > 0)) return;
    const [kind, classKey] = [parts[1], parts[2] as string];
    const tables = (): Table[] => [this.table(classKey), this.pool];
    if (kind === 'follow' && parts.length === 7) {
      const [from, state, to, bin] = [parts[3] as string, Number(parts[4]), parts[5] as string, Number(parts[6])];
      if (!validBin(bin) || !validState(state, STATES - 1)) return;
      for (const table of tables()) {
        for (const source of [from, ANY_MODEL]) {
          const counts = table.follow(source, state, to);
          counts[bin] = (counts[bin] as number) + count.n;
        }
      }
      return;
    }
    const model = parts[3] as string;
    if (kind === 'unread' && parts.length === 5) {
      const incoming = Number(parts[4]);
      if (!validState(incoming, OPENING)) return;
      // Kept per class only: what an unread answer is worth after a state is the class's own figure.
      const table = this.table(classKey);
      const key = `${model}${SEP}${incoming}`;
      const known = table.unread.get(key) ?? { n: 0, ok: 0 };
      table.unread.set(key, { n: known.n + count.n, ok: known.ok + Math.min(count.ok, count.n) });
      return;
    }
    const bin = Number(parts[parts.length - 1]);
    if (!validBin(bin)) return;
    const ok = Math.min(count.ok, count.n);
    if (kind === 'seen' && parts.length === 5) {
      for (const table of tables()) {
        const counts = table.model(model);
        counts.seen[bin] = (counts.seen[bin] as number) + count.n;
      }
      return;
    }
    let incoming: number | undefined;
    if (kind === 'grade-after' && parts.length === 6) {
      incoming = Number(parts[4]);
      if (!validState(incoming, OPENING)) return;
    } else if (kind !== 'grade' || parts.length !== 5) return;
    for (const table of tables()) {
      const counts = table.model(model, incoming);
      counts.graded[bin] = (counts.graded[bin] as number) + count.n;
      counts.ok[bin] = (counts.ok[bin] as number) + ok;
    }
    // Every class's tables of this model lean on the pooled one, which just moved.
    for (const table of [this.pool, ...this.classes.values()]) table.forget(model);
  }
}

/**
 * One call's plan, solved once when the call starts: for every rung, incoming state and confidence
 * bin, what the answer is worth, what climbing on is worth and where to. It also remembers the
 * answers it judged, so the check and the router's climb read one account of the call.
 *
 * @remarks
 * Backward induction from the dearest rung down, over the learned chain: the value of "rung k answered
 * in bin b after state s" is the larger of the answer's calibrated chance (after s) and the best climb
 * from the state that answer leaves — the next rung's expected value over the bins its confidence
 * follows with, less its price. Nine rungs, seven incoming states and thirteen bins make it a few
 * thousand sums, so every call gets a fresh plan from everything learned so far.
 */
export class ConfidencePlan {
  readonly classKey: string;
  /** The rung to open with. */
  readonly opener: string;
  /** Rungs in climbing order (by price), with the price of its answer and of reading its confidence as shares of a wrong answer's cost. */
  private readonly order: { slug: string; cost: number; read: number; judged: boolean }[];
  /** Per rung: [incoming state][bin] → value of that answer state, once read. */
  private readonly value = new Map<string, number[][]>();
  /** Per rung: [incoming state][bin] → the answer's calibrated chance of being right. */
  private readonly chances = new Map<string, number[][]>();
  /** Per rung: [outgoing state] → the best climb from it. */
  private readonly climbs = new Map<string, { value: number; next: string | null }[]>();
  private readonly learner: ConfidenceLearner;
  private readonly judged: JudgedAnswer[] = [];

  constructor(learner: ConfidenceLearner, classKey: string, rungs: readonly PlanRung[], multiple: number) {
    if (rungs.length === 0) throw new Error('a confidence plan needs at least one rung');
    this.learner = learner;
    this.classKey = classKey;
    const known = rungs.map((rung) => rung.price).filter((price): price is number => price !== null && Number.isFinite(price));
    const dearest = known.length ? Math.max(...known) : 0;
    // What a wrong answer costs does not grow with how long the class's answers run (as in routing/planner.ts).
    const listed = rungs
      .map((rung) => (rung.listed === undefined ? rung.price : rung.listed))
      .filter((price): price is number => price !== null && Number.isFinite(price));
    const dearestListed = listed.length ? Math.max(...listed) : dearest;
    // A wrong answer costs `multiple` calls to the dearest rung; a free panel (local models only) has
    // nothing to trade, and climbs while the next rung is worth more.
    const scale = dearestListed > 0 && multiple > 0 ? 1 / (multiple * dearestListed) : 0;
    this.order = rungs
      .map((rung, index) => ({
        slug: rung.slug,
        index,
        price: rung.price ?? dearest,
        read: Math.max(0, rung.readPrice ?? 0),
        judged: rung.judged ?? true,
      }))
      .sort((a, b) => a.price - b.price || a.index - b.index)
      .map((rung) => ({ slug: rung.slug, cost: rung.price * scale, read: rung.read * scale, judged: rung.judged }));
    for (let k = this.order.length - 1; k >= 0; k--) this.solve(k);
    const greedy = this.bestStart(new Set()) ?? (this.order[0] as { slug: string }).slug;
    // A cheaper rung the class has too few grades of opens instead, so what it is worth gets learned.
    this.opener = this.untried(greedy) ?? greedy;
  }

  /**
   * Whether to accept an answer of `model` with this confidence, and where to climb if not. The call's
   * state before it is the state of the answer judged before it; judging the same answer twice (the
   * check, then the router's climb) reads it the same way.
   */
  judge(model: string, logprob: number): ConfidenceJudgement {
    const last = this.judged[this.judged.length - 1];
    const again = last !== undefined && last.model === model && last.logprob === logprob;
    const incoming = again ? last.incoming : (last?.state ?? OPENING);
    const probability = this.learner.probability(this.classKey, model, logprob, incoming);
    const state = stateOf(probability);
    if (!again) this.judged.push({ model, logprob, incoming, state });
    const step = this.climbs.get(model)?.[state] ?? { value: Number.NEGATIVE_INFINITY, next: null };
    return {
      accept: step.next === null || probability >= step.value,
      probability,
      climbValue: step.value,
      threshold: this.threshold(model, incoming),
      next: step.next,
    };
  }

  /**
   * Whether to read `model`'s confidence in its answer, at the call's state now: only when what the
   * read can change (accept or climb, and where to) is worth more than its price. The top rung's answer
   * needs none (nothing above to climb to), nor one the plan would accept whatever it said.
   */
  reads(model: string): ReadDecision {
    const last = this.judged[this.judged.length - 1];
    const incoming = last?.state ?? OPENING;
    const spread = last ? this.learner.follows(this.classKey, last.model, last.state, model) : this.learner.seen(this.classKey, model);
    const rung = this.order.find((each) => each.slug === model);
    if (!rung) return { read: true, unread: 0, readValue: 0, readCost: 0 };
    return this.arrival(rung, spread, incoming);
  }

  /** How many graded answers of `model` at this plan's class the learner held when asked. */
  graded(model: string): number {
    return this.learner.graded(this.classKey, model);
  }

  /** The answers judged so far, in order: what the learner is told once the call is over. */
  answers(): readonly JudgedAnswer[] {
    return this.judged;
  }

  /**
   * Where to go when a rung gave no answer to judge (a provider error, no confidence): the best climb
   * from the last judged answer, or the best start, among the rungs not yet tried.
   */
  fallback(tried: ReadonlySet<string>): string | null {
    const last = this.judged[this.judged.length - 1];
    const position = last ? this.order.findIndex((rung) => rung.slug === last.model) : -1;
    if (!last || position < 0) return this.bestStart(tried);
    return this.bestClimb(position, last.state, tried).next;
  }

  /** The lowest log-probability at which `model`'s answers after `incoming` are accepted (every bin above it too); null when never. */
  threshold(model: string, incoming: number = OPENING): number | null {
    const steps = this.climbs.get(model);
    if (!steps) return null;
    const table = this.learner.calibration(this.classKey, model, incoming);
    let lowest: number | null = null;
    for (let bin = BINS - 1; bin >= 0; bin--) {
      const probability = table[bin] as number;
      const step = steps[stateOf(probability)] as { value: number; next: string | null };
      if (step.next !== null && probability < step.value) break;
      lowest = bin;
    }
    return lowest === null ? null : binFloor(lowest);
  }

  /** Fills the climbs and values of rung `k` from the rungs above it, already solved. */
  private solve(k: number): void {
    const { slug } = this.order[k] as { slug: string };
    const climbs = Array.from({ length: STATES }, (_, state) => this.bestClimb(k, state, new Set()));
    const values: number[][] = [];
    const chances: number[][] = [];
    for (let incoming = 0; incoming <= OPENING; incoming++) {
      const table = this.learner.calibration(this.classKey, slug, incoming);
      chances.push(table);
      values.push(table.map((probability) => Math.max(probability, (climbs[stateOf(probability)] as { value: number }).value)));
    }
    this.climbs.set(slug, climbs);
    this.value.set(slug, values);
    this.chances.set(slug, chances);
  }

  /**
   * What arriving at `rung` after `incoming` is worth, its confidence spread as `spread`: the better of
   * reading its confidence (then accepting or climbing as the bin says, less the read's price) and
   * taking its answer unread (its unread answers' rate after that state, leaning on what the
   * calibration says). Climbing past an answer unread is never planned: it would pay for the answer and
   * learn nothing from it.
   */
  private arrival(rung: { slug: string; read: number }, spread: readonly number[], incoming: number): ReadDecision {
    const values = (this.value.get(rung.slug) as number[][])[incoming] as number[];
    const chances = (this.chances.get(rung.slug) as number[][])[incoming] as number[];
    const readValue = expected(spread, values) - rung.read;
    const unread = this.learner.unreadRate(this.classKey, rung.slug, incoming, expected(spread, chances));
    return { read: readValue > unread + 1e-12, unread, readValue, readCost: rung.read };
  }

  /** The best rung above position `k` to climb to from `state`, and what it is worth; none: −∞. */
  private bestClimb(k: number, state: number, tried: ReadonlySet<string>): { value: number; next: string | null } {
    const from = (this.order[k] as { slug: string }).slug;
    let best = { value: Number.NEGATIVE_INFINITY, next: null as string | null };
    for (let j = k + 1; j < this.order.length; j++) {
      const rung = this.order[j] as { slug: string; cost: number; read: number };
      if (tried.has(rung.slug)) continue;
      const arrived = this.arrival(rung, this.learner.follows(this.classKey, from, state, rung.slug), state);
      const value = Math.max(arrived.readValue, arrived.unread) - rung.cost;
      if (value > best.value) best = { value, next: rung.slug };
    }
    return best;
  }

  /**
   * The cheapest rung below `greedy` whose answers are judged and that has fewer than the learner's
   * {@link ConfidenceLearner.exploreOpenings} graded answers at the class; null when there is none.
   */
  private untried(greedy: string): string | null {
    for (const rung of this.order) {
      if (rung.slug === greedy) return null;
      if (rung.judged && this.learner.graded(this.classKey, rung.slug) < this.learner.exploreOpenings) return rung.slug;
    }
    return null;
  }

  /** The best rung to start with among those not tried: the most expected value, net of price. */
  private bestStart(tried: ReadonlySet<string>): string | null {
    let best: { value: number; slug: string } | null = null;
    for (const rung of this.order) {
      if (tried.has(rung.slug)) continue;
      const arrived = this.arrival(rung, this.learner.seen(this.classKey, rung.slug), OPENING);
      const value = Math.max(arrived.readValue, arrived.unread) - rung.cost;
      if (!best || value > best.value) best = { value, slug: rung.slug };
    }
    return best?.slug ?? null;
  }
}

function expected(shares: readonly number[], values: readonly number[]): number {
  let sum = 0;
  for (let bin = 0; bin < BINS; bin++) sum += (shares[bin] as number) * (values[bin] as number);
  return sum;
}

/** Counts plus `weight` pseudo-counts spread as `prior`, as shares. */
function smoothed(counts: Float64Array | undefined, prior: (bin: number) => number, weight: number): number[] {
  const shares: number[] = [];
  let total = 0;
  for (let bin = 0; bin < BINS; bin++) {
    const value = (counts?.[bin] ?? 0) + weight * prior(bin);
    shares.push(value);
    total += value;
  }
  return shares.map((value) => value / total);
}

function validBin(bin: number): boolean {
  return Number.isInteger(bin) && bin >= 0 && bin < BINS;
}

function validState(state: number, highest: number): boolean {
  return Number.isInteger(state) && state >= 0 && state <= highest;
}

function gradeKey(classKey: string, model: string, bin: number): string {
  return [KEY_VERSION, 'grade', classKey, model, bin].join(SEP);
}

function gradeAfterKey(classKey: string, model: string, incoming: number, bin: number): string {
  return [KEY_VERSION, 'grade-after', classKey, model, incoming, bin].join(SEP);
}

function seenKey(classKey: string, model: string, bin: number): string {
  return [KEY_VERSION, 'seen', classKey, model, bin].join(SEP);
}

function unreadKey(classKey: string, model: string, incoming: number): string {
  return [KEY_VERSION, 'unread', classKey, model, incoming].join(SEP);
}

function followKey(classKey: string, from: string, state: number, to: string, bin: number): string {
  return [KEY_VERSION, 'follow', classKey, from, state, to, bin].join(SEP);
}
