import type { AttemptContext, AttemptFn, AttemptOutcome, Candidate } from '../../../src/core/routing/types';

/** What one scripted attempt does: return an outcome, or throw (a provider failure). */
export type ScriptedStep = AttemptOutcome | (() => AttemptOutcome);

/**
 * An attempt function that answers from a script per model: a queue of steps, the last one repeated,
 * and a log of every model it was asked to call, in order.
 */
export class ScriptedAttempts {
  readonly calls: { model: string; attempt: number; escalation: string[] }[] = [];
  private readonly script = new Map<string, ScriptedStep[]>();

  /** Scripts `model`; the last step repeats once the queue runs out. */
  on(model: string, ...steps: ScriptedStep[]): this {
    this.script.set(model, steps);
    return this;
  }

  /** Models called so far, in order. */
  models(): string[] {
    return this.calls.map((call) => call.model);
  }

  readonly fn: AttemptFn<unknown> = async (candidate: Candidate, context: AttemptContext) => {
    this.calls.push({ model: candidate.slug, attempt: context.attempt, escalation: [...context.escalation] });
    const steps = this.script.get(candidate.slug);
    if (!steps || steps.length === 0) throw new Error(`ScriptedAttempts: no script for ${candidate.slug}`);
    const step = (steps.length > 1 ? steps.shift() : steps[0]) as ScriptedStep;
    return typeof step === 'function' ? step() : step;
  };
}

export const PASS: AttemptOutcome = { verdict: 'pass', verdictReason: 'check passed' };
export const FAIL: AttemptOutcome = { verdict: 'fail', verdictReason: 'check failed' };
export const UNVERIFIED: AttemptOutcome = { verdict: 'unverified' };
