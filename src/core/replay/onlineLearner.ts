/**
 * The simple online learner: the baseline a routing policy has to beat to be worth its machinery.
 *
 * @remarks
 * A fixed definition, stated before Rung was measured against it and kept exactly, so every replay
 * says whether Rung beats the same simple policy.
 * Per (class, model) it counts passes and tries under the run's own check. A model with at least
 * {@link ONLINE_LEARNER_MIN_TRIES} tries whose smoothed rate `(passes + 0.5) / (tries + 1)` is under
 * {@link ONLINE_LEARNER_SKIP_RATE} is skipped. The rest are tried in order of `price / max(rate, 0.05)`
 * when they have that many tries and of `price` when not (one sort over both keys, ties in panel
 * order), until one passes or the list ends. Every attempt is learned from, whatever rung it was on.
 *
 * Like the router it sees a model's grade only by trying that model on that prompt.
 */
import type { ModelOutcome, OutcomeRow } from './outcomes';

/** Tries a model needs at a class before its rate orders it or skips it: the router's gate of 8. */
export const ONLINE_LEARNER_MIN_TRIES = 8;
/** A model tried that often whose smoothed pass rate is below this is skipped at the class. */
export const ONLINE_LEARNER_SKIP_RATE = 0.1;
/** The rate a price is divided by never goes below this, so one model's bad start does not send it to infinity. */
export const ONLINE_LEARNER_RATE_FLOOR = 0.05;

export interface OnlineLearnerInput {
  /** Prompts in the order they arrive (the replay's shuffled order). */
  rows: readonly OutcomeRow[];
  /** Models with their price for one call, in panel order. */
  models: readonly { slug: string; price: number }[];
  classOf: (row: OutcomeRow) => string;
  /** The run's check: whether this answer passes. */
  verdict: (outcome: ModelOutcome) => boolean;
  /** USD of one attempt. */
  costOf: (slug: string, outcome: ModelOutcome) => number;
  /**
   * USD of reading the answer's confidence beyond the answer call, where the check is the model's own
   * confidence and reading it is a second call: paid on every attempt but the last of the call's list,
   * whose answer stands whatever it says.
   */
  readCostOf?: (outcome: ModelOutcome) => number;
}

export interface OnlineLearnerScore {
  accuracy: number;
  /** USD. */
  cost: number;
  attempts: number;
}

interface Tally {
  passes: number;
  tries: number;
}

/** Runs the simple learner over the prompts once, from nothing known. */
export function runOnlineLearner(input: OnlineLearnerInput): OnlineLearnerScore {
  const tallies = new Map<string, Tally>();
  const tally = (cls: string, slug: string): Tally => {
    const key = `${cls}\u0000${slug}`;
    let entry = tallies.get(key);
    if (!entry) {
      entry = { passes: 0, tries: 0 };
      tallies.set(key, entry);
    }
    return entry;
  };
  let correct = 0;
  let cost = 0;
  let attempts = 0;
  for (const row of input.rows) {
    const cls = input.classOf(row);
    const order = onlineLearnerOrder(input.models, (slug) => tally(cls, slug));
    let last: ModelOutcome | undefined;
    for (const [position, slug] of order.entries()) {
      last = row.m[slug] as ModelOutcome;
      attempts++;
      cost += input.costOf(slug, last);
      if (input.readCostOf && position < order.length - 1) cost += input.readCostOf(last);
      const passed = input.verdict(last);
      const entry = tally(cls, slug);
      entry.tries++;
      if (passed) {
        entry.passes++;
        break;
      }
    }
    if (last?.c === 1) correct++;
  }
  return { accuracy: input.rows.length ? correct / input.rows.length : 0, cost, attempts };
}

/** The learner's order for one call: skipped models left out, the rest by their sort key, ties in panel order. */
export function onlineLearnerOrder(models: readonly { slug: string; price: number }[], tallyOf: (slug: string) => Tally): string[] {
  return models
    .map((model, index) => {
      const { passes, tries } = tallyOf(model.slug);
      const rate = (passes + 0.5) / (tries + 1);
      const tried = tries >= ONLINE_LEARNER_MIN_TRIES;
      return {
        slug: model.slug,
        index,
        skip: tried && rate < ONLINE_LEARNER_SKIP_RATE,
        key: tried ? model.price / Math.max(rate, ONLINE_LEARNER_RATE_FLOOR) : model.price,
      };
    })
    .filter((entry) => !entry.skip)
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map((entry) => entry.slug);
}
