/**
 * How long a model takes at one class of call on this machine: the whole answer, its first token, and
 * how fast it writes — learned from every attempt that brought an answer back, as prices are.
 *
 * @remarks
 * The user waits for a whole answer and its check before a failed one can climb, so the planner reads
 * the mean time of a whole attempt; the first token and the writing speed are shown beside it, because
 * they say why an attempt is slow (a model loading before it writes, or one writing slowly). Speed is a
 * fact about this machine and its servers, not about a model: a teammate's laptop says nothing about
 * this one's, so timings are kept in the workspace's own ledger and never merged or sent to a team.
 */

/** What a model's attempts at one class key took, summed, with older attempts fading (see {@link TIMING_MEMORY_ATTEMPTS}). */
export interface Timing {
  /** Attempts folded in (a decayed count past {@link TIMING_MEMORY_ATTEMPTS}). */
  attempts: number;
  /** Their whole time, request to last token, ms. */
  totalMs: number;
  /** Attempts whose first token's time is known, and that time summed, ms. */
  firstTokenAttempts: number;
  firstTokenMs: number;
  /** Output tokens of the attempts whose writing time is known, and that time (whole less first token) summed, ms. */
  outputTokens: number;
  writingMs: number;
}

/** One attempt's times, queued for the ledger. */
export interface TimingObservation {
  /** The resolved model that served the answer, as ratings are keyed. */
  model: string;
  classKey: string;
  /** Request to last token, ms. */
  totalMs: number;
  /** Request to first token, ms, when the stream said. */
  firstTokenMs?: number;
  /** Output tokens, when the provider said. */
  outputTokens?: number;
}

/**
 * How many recent attempts a timing stands for: past it, each new attempt weighs 1 / this.
 *
 * @remarks
 * A model's speed on one machine changes (a model moved onto the GPU, a laptop on battery, a provider
 * under load), and a plain mean over a thousand calls would not notice for hundreds more. Fifty was a
 * first guess and was not tuned: enough that one model load among them moves the mean by a few percent.
 */
export const TIMING_MEMORY_ATTEMPTS = 50;

/**
 * Attempts at a key before the planner plans a model there at its measured time.
 *
 * @remarks
 * Times vary far less from call to call than pass or fail do, and the first attempt of a session often
 * includes loading the model, so two is the least that is not one load. A first guess, not tuned.
 */
export const MIN_TIMED_ATTEMPTS = 2;

/** `timing` with one attempt folded in; an attempt whose whole time is not a finite non-negative number is left out. */
export function applyTiming(current: Timing | undefined, observation: TimingObservation): Timing {
  const base: Timing = current ?? { attempts: 0, totalMs: 0, firstTokenAttempts: 0, firstTokenMs: 0, outputTokens: 0, writingMs: 0 };
  const finite = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value) && value >= 0;
  if (!finite(observation.totalMs)) return base;
  const first = finite(observation.firstTokenMs) && observation.firstTokenMs <= observation.totalMs ? observation.firstTokenMs : undefined;
  const writing =
    first !== undefined && finite(observation.outputTokens) && observation.totalMs > first ? observation.totalMs - first : undefined;
  const next: Timing = {
    attempts: base.attempts + 1,
    totalMs: base.totalMs + observation.totalMs,
    firstTokenAttempts: base.firstTokenAttempts + (first === undefined ? 0 : 1),
    firstTokenMs: base.firstTokenMs + (first ?? 0),
    outputTokens: base.outputTokens + (writing === undefined ? 0 : (observation.outputTokens as number)),
    writingMs: base.writingMs + (writing ?? 0),
  };
  if (next.attempts <= TIMING_MEMORY_ATTEMPTS) return next;
  const keep = TIMING_MEMORY_ATTEMPTS / next.attempts;
  return {
    attempts: TIMING_MEMORY_ATTEMPTS,
    totalMs: next.totalMs * keep,
    firstTokenAttempts: next.firstTokenAttempts * keep,
    firstTokenMs: next.firstTokenMs * keep,
    outputTokens: next.outputTokens * keep,
    writingMs: next.writingMs * keep,
  };
}

/** A timing as a person reads it: the mean whole attempt, the mean first token and the writing speed where known. */
export interface TimingFigures {
  /** Attempts the means are over (rounded). */
  attempts: number;
  meanMs: number;
  firstTokenMs?: number;
  tokensPerSecond?: number;
}

export function timingFigures(timing: Timing): TimingFigures | undefined {
  if (timing.attempts <= 0) return undefined;
  return {
    attempts: Math.round(timing.attempts),
    meanMs: timing.totalMs / timing.attempts,
    ...(timing.firstTokenAttempts > 0 ? { firstTokenMs: timing.firstTokenMs / timing.firstTokenAttempts } : {}),
    ...(timing.writingMs > 0 && timing.outputTokens > 0 ? { tokensPerSecond: timing.outputTokens / (timing.writingMs / 1000) } : {}),
  };
}

/** The mean whole attempt the planner plans with, ms, or undefined below {@link MIN_TIMED_ATTEMPTS}. */
export function plannedWaitMs(timing: Timing | undefined): number | undefined {
  if (!timing || timing.attempts < MIN_TIMED_ATTEMPTS) return undefined;
  return timing.totalMs / timing.attempts;
}

/** A duration as a user reads it: `850 ms`, `3.1 s`, `42 s`, `2.5 min`. */
export function durationWords(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}
