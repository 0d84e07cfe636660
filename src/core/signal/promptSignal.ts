/**
 * The per-prompt signal: how hard this prompt is, and how likely nobody can answer it, learned online
 * from the same graded outcomes as the ratings.
 *
 * @remarks
 * The ratings say how able a model is on an average call of a class; the planner then reads each call's
 * difficulty off the failures so far, starting from the class prior (N(0, 1.5²) logits with 5% nobody
 * answers; ../difficulty.ts). The signal moves that starting point per prompt: a linear model over
 * the prompt's hashed features ({@link promptFeatures}) gives the prior's centre, and a logistic one its
 * share of "nobody answers". Both are fitted to what the call's graded outcomes imply: after a call, the
 * posterior over its difficulty under the prompt's own prior gives the targets, and each weight takes a
 * step towards them — Fisher's identity again, so the steps climb the marginal likelihood of the
 * outcomes, as the ratings' do. A prompt whose weights are all 0 gets the class prior exactly, so a
 * signal that has learned nothing plans as Rung did without one.
 *
 * A signal only speaks where it has earned it: before each update it scores the call's outcomes under
 * its own prior and under the class prior, and keeps, per class, a running mean of the difference (the
 * log-likelihood gain, nats per call). The planner uses the prompt's prior only while that mean stands
 * {@link SIGNAL_GAIN_STANDARD_ERRORS} standard errors above 0, after {@link SIGNAL_MIN_CALLS} calls. That is what keeps a signal that
 * has nothing to say from moving the plan: on the recorded benchmark prompts even a predictor fitted
 * with every answer known moved the cost along the same curve and no further (BENCHMARKS.md).
 */
import { classPrior, evidence, priorWeights, summarise, type PairedOutcome } from '../difficulty';
import { DIFFICULTY_SD_LOGITS, logistic, UNANSWERABLE_SHARE } from '../ratings';
import { SIGNAL_SLOTS, type PromptFeatures } from './promptFeatures';

/** Step size for the difficulty weights, per logit the posterior mean stood from the prompt's prior. */
export const SIGNAL_MEAN_STEP = 0.2;
/** Step size for the "nobody answers" weights, per unit the posterior share stood from the prompt's prior. */
export const SIGNAL_UNANSWERABLE_STEP = 0.5;
/** Calls at a class before the signal may speak there. */
export const SIGNAL_MIN_CALLS = 200;
/**
 * How many standard errors above 0 the running mean gain must stand before the signal speaks.
 *
 * @remarks
 * A fixed floor on the mean gain let a signal that knew nothing speak now and then: on prompts that all
 * read the same, its running gain over 200 calls wandered past 0.01 nats and moved a few calls. Judged
 * against its own spread, a gain that is noise stays silent.
 */
export const SIGNAL_GAIN_STANDARD_ERRORS = 1;
/** How many recent calls the running gain mostly remembers: each call enters with weight 1 / this. */
export const SIGNAL_MEMORY_CALLS = 200;
/** The prompt's difficulty shift is kept within ±this, logits: the class prior's 2 sd. */
export const SIGNAL_MAX_SHIFT_LOGITS = 3;

/** What the signal has learned at one class key. */
export interface SignalClassStats {
  /** Calls learned from. */
  calls: number;
  /** Running mean of the log-likelihood the prompt's prior gained over the class prior, nats per call. */
  gain: number;
  /** Running mean of its square, for its spread. */
  gainSquare: number;
  /** Running means of the raw difficulty shift and "nobody answers" log-odds the weights gave this class's prompts: what readings are centred on. */
  shift: number;
  odds: number;
}

/** Everything the signal knows: one table of weights for all classes, and each class's record. */
export interface PromptSignalState {
  /** Per slot: the weight towards a harder prompt, logits per unit of feature. */
  mean: Float32Array;
  /** Per slot: the weight towards "nobody answers", log-odds per unit of feature. */
  unanswerable: Float32Array;
  classes: ReadonlyMap<string, SignalClassStats>;
}

/** What the signal says about one prompt. */
export interface SignalReading {
  /** The prompt's difficulty shift from its class's average, logits. */
  mean: number;
  /** The prompt's prior share of "nobody answers". */
  unanswerable: number;
  /** The weights' raw outputs before centring, which the class's running means learn from. */
  raw: { shift: number; odds: number };
  /** Whether the planner should plan on it (see {@link SIGNAL_GAIN_STANDARD_ERRORS}). */
  speaks: boolean;
  stats: SignalClassStats;
}

/** One call's step for the signal: queued in the ledger like an observation, applied to whatever weights it meets. */
export interface SignalUpdate {
  classKey: string;
  slots: number[];
  values: number[];
  meanStep: number;
  unanswerableStep: number;
  /** This call's log-likelihood gain over the class prior, nats. */
  gain: number;
  /** The weights' raw outputs for this prompt, for the class's running means. */
  raw: { shift: number; odds: number };
}

const NO_STATS: SignalClassStats = { calls: 0, gain: 0, gainSquare: 0, shift: 0, odds: 0 };
const BASE_LOG_ODDS = Math.log(UNANSWERABLE_SHARE / (1 - UNANSWERABLE_SHARE));

export function emptySignal(): PromptSignalState {
  return { mean: new Float32Array(SIGNAL_SLOTS), unanswerable: new Float32Array(SIGNAL_SLOTS), classes: new Map() };
}

/** What the signal says about a prompt with these features at this class. */
export function readSignal(state: PromptSignalState | undefined, features: PromptFeatures, classKey: string): SignalReading {
  const stats = state?.classes.get(classKey) ?? NO_STATS;
  let shift = 0;
  let odds = 0;
  if (state) {
    for (let i = 0; i < features.slots.length; i++) {
      const slot = features.slots[i] as number;
      const value = features.values[i] as number;
      shift += (state.mean[slot] as number) * value;
      odds += (state.unanswerable[slot] as number) * value;
    }
  }
  // The planner reads the prompt's prior centred on the class's own average: the signal spreads a
  // class's prompts around the class prior and never moves the prior itself. Uncentred, it learned each
  // class's share of calls nobody answers (under the 5% assumed), and planning on that made Rung climb
  // more and spend more on every split — the same as learning that share per class, tried before
  // (BENCHMARKS.md). It learns uncentred (see {@link signalUpdate}).
  const centredOdds = odds - stats.odds;
  return {
    mean: clampShift(shift - stats.shift),
    unanswerable: centredOdds === 0 ? UNANSWERABLE_SHARE : clampShare(logistic(BASE_LOG_ODDS + centredOdds)),
    raw: { shift, odds },
    speaks: stats.calls >= SIGNAL_MIN_CALLS && stats.gain > SIGNAL_GAIN_STANDARD_ERRORS * standardError(stats),
    stats,
  };
}

/** The difficulty prior a reading gives the planner. */
export function signalPrior(reading: Pick<SignalReading, 'mean' | 'unanswerable'>): Float64Array {
  return priorWeights(DIFFICULTY_SD_LOGITS, reading.unanswerable, reading.mean);
}

/**
 * The step one call's graded outcomes ask of the signal, scored against the prompt's prior before the
 * step (so the gain it records is out of sample for that call).
 */
export function signalUpdate(
  reading: SignalReading,
  features: PromptFeatures,
  classKey: string,
  outcomes: readonly PairedOutcome[],
): SignalUpdate {
  // The weights learn the whole prior, class level included, so each step moves them towards what the
  // outcomes imply and no further: learning only the centred part, which never sees the class level, left
  // a gradient towards it that no step could close, and the weights grew without end.
  const raw = { mean: clampShift(reading.raw.shift), unanswerable: clampShare(logistic(BASE_LOG_ODDS + reading.raw.odds)) };
  const after = summarise(evidence(signalPrior(raw), outcomes).weights);
  const nobody = after.unanswerable ?? 0;
  return {
    classKey,
    slots: features.slots,
    values: features.values,
    meanStep: SIGNAL_MEAN_STEP * (1 - nobody) * (after.mean - raw.mean),
    unanswerableStep: SIGNAL_UNANSWERABLE_STEP * (nobody - raw.unanswerable),
    // What the planner would have gained from the centred prior it reads, against the class prior.
    gain: evidence(signalPrior(reading), outcomes).logLikelihood - evidence(classPrior(), outcomes).logLikelihood,
    raw: reading.raw,
  };
}

/** The standard error of the running mean gain: its spread over the calls it mostly remembers. */
function standardError(stats: SignalClassStats): number {
  const variance = Math.max(0, stats.gainSquare - stats.gain * stats.gain);
  return Math.sqrt(variance / Math.min(Math.max(1, stats.calls), SIGNAL_MEMORY_CALLS));
}

function clampShift(shift: number): number {
  return Math.max(-SIGNAL_MAX_SHIFT_LOGITS, Math.min(SIGNAL_MAX_SHIFT_LOGITS, shift));
}

function clampShare(share: number): number {
  return Math.max(0.001, Math.min(0.95, share));
}

/**
 * The signal after one call's step: `state` is left as it was, unless `inPlace`, where its weight tables
 * take the step themselves.
 *
 * @remarks
 * `inPlace` is for a caller that alone holds the tables (ledgerState.ts): copying both, 128 KiB a call,
 * was most of what a routed call allocated with the signal on, and the collector's pauses it brought were
 * the routing overhead's 99th percentile (BENCHMARKS.md, "Routing overhead").
 */
export function applySignalUpdate(state: PromptSignalState | undefined, update: SignalUpdate, inPlace = false): PromptSignalState {
  const current = state ?? emptySignal();
  const mean = inPlace && state ? current.mean : current.mean.slice();
  const unanswerable = inPlace && state ? current.unanswerable : current.unanswerable.slice();
  for (let i = 0; i < update.slots.length; i++) {
    const slot = update.slots[i] as number;
    if (slot < 0 || slot >= SIGNAL_SLOTS) continue;
    const value = update.values[i] as number;
    mean[slot] = (mean[slot] as number) + update.meanStep * value;
    unanswerable[slot] = (unanswerable[slot] as number) + update.unanswerableStep * value;
  }
  const stats = current.classes.get(update.classKey) ?? NO_STATS;
  const memory = 1 / Math.min(stats.calls + 1, SIGNAL_MEMORY_CALLS);
  const classes = new Map(current.classes);
  const blend = (old: number, now: number): number => (1 - memory) * old + memory * now;
  classes.set(update.classKey, {
    calls: stats.calls + 1,
    gain: blend(stats.gain, update.gain),
    gainSquare: blend(stats.gainSquare, update.gain * update.gain),
    shift: blend(stats.shift, update.raw.shift),
    odds: blend(stats.odds, update.raw.odds),
  });
  return { mean, unanswerable, classes };
}
