import { describe, expect, it } from 'vitest';
import {
  applyTiming,
  durationWords,
  MIN_TIMED_ATTEMPTS,
  plannedWaitMs,
  TIMING_MEMORY_ATTEMPTS,
  timingFigures,
  type Timing,
} from '../../../src/core/timing';

const one = { model: 'm', classKey: 'edit' };

describe('timings', () => {
  it('reads the mean whole answer, the first token and the writing speed from the attempts folded in', () => {
    let timing: Timing | undefined;
    timing = applyTiming(timing, { ...one, totalMs: 3000, firstTokenMs: 1000, outputTokens: 100 });
    timing = applyTiming(timing, { ...one, totalMs: 5000, firstTokenMs: 1000, outputTokens: 300 });
    expect(timingFigures(timing)).toEqual({ attempts: 2, meanMs: 4000, firstTokenMs: 1000, tokensPerSecond: 400 / 6 });
  });

  it('times an answer whose stream said nothing of its first token by its whole time alone', () => {
    const timing = applyTiming(undefined, { ...one, totalMs: 2500 });
    expect(timingFigures(timing)).toEqual({ attempts: 1, meanMs: 2500 });
  });

  it('leaves out a time that is not a finite figure, and a first token said to come after the end', () => {
    const base = applyTiming(undefined, { ...one, totalMs: 1000 });
    expect(applyTiming(base, { ...one, totalMs: Number.NaN })).toEqual(base);
    expect(applyTiming(base, { ...one, totalMs: -5 })).toEqual(base);
    expect(applyTiming(base, { ...one, totalMs: 1000, firstTokenMs: 2000, outputTokens: 10 })).toMatchObject({
      firstTokenAttempts: 0,
      writingMs: 0,
    });
  });

  it(`plans a model at its mean only from ${MIN_TIMED_ATTEMPTS} attempts, so one model load alone does not set it`, () => {
    const once = applyTiming(undefined, { ...one, totalMs: 20_000 });
    expect(plannedWaitMs(once)).toBeUndefined();
    expect(plannedWaitMs(applyTiming(once, { ...one, totalMs: 2000 }))).toBe(11_000);
  });

  it(`stands for the last ${TIMING_MEMORY_ATTEMPTS} attempts or so, so a model that got faster is seen to`, () => {
    let timing: Timing | undefined;
    for (let i = 0; i < 200; i++) timing = applyTiming(timing, { ...one, totalMs: 10_000 });
    for (let i = 0; i < 100; i++) timing = applyTiming(timing, { ...one, totalMs: 1000 });
    expect(timing?.attempts).toBe(TIMING_MEMORY_ATTEMPTS);
    // A plain mean over the 300 would still say 7 s.
    expect(plannedWaitMs(timing)).toBeLessThan(2500);
  });

  it('says a duration the way a person reads one', () => {
    expect([durationWords(850), durationWords(3140), durationWords(42_400), durationWords(150_000)]).toEqual([
      '850 ms',
      '3.1 s',
      '42 s',
      '2.5 min',
    ]);
  });
});
