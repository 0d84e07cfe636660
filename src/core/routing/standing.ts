/**
 * A model's standing at a class key: the rating the router may trust for it, and whose evidence that is.
 *
 * @remarks
 * A shaped key (`edit/typescript`, `mmlu/anatomy`) splits a class into sub-populations, each of which
 * starts with no evidence. Until a shape has its own 8 graded observations, the class's rating stands
 * in for it when the class has passed the gate: what a model does at `edit` is better evidence about
 * `edit/typescript` than a role written in a panel file. Every graded outcome is recorded under both
 * keys, so the class keeps learning while its shapes fill in. On the recorded outcomes (5 seeds),
 * subfamily keys without this fallback reached 0.9591 at 24.2% of the best single model's cost — 116
 * small classes each paying for their own cold start — and 0.9541 at 22.6% with it; plain families
 * give 0.9555 at 22.7%.
 */
import { splitClassKey } from '../classKey';
import type { LedgerSnapshot } from '../ledger/ledger';
import { MIN_GRADED, type Rating } from '../ratings';

export interface Standing {
  /** Logits, or undefined when nothing has been observed at either key. */
  rating: number | undefined;
  graded: number;
  ok: number;
  /** Whether the rating has passed the gate (at its own key or its class's). */
  measured: boolean;
  /** The key whose evidence `rating` is: the shaped key itself, or its class. */
  key: string;
  /** Graded observations at the shaped key itself, when the class stands in for it. */
  ownGraded: number;
  /** Whether `rating` stands on the prior it followed rather than on its own evidence (see {@link standsOnPrior}). */
  presumed?: { prior: number };
}

export function standing(snapshot: LedgerSnapshot, model: string, classKey: string): Standing {
  const own = snapshot.rating(model, classKey);
  const ownGraded = own?.graded ?? 0;
  if (own && own.graded >= MIN_GRADED)
    return { rating: own.rating, graded: own.graded, ok: own.ok, measured: true, key: classKey, ownGraded, presumed: standsOnPrior(own) };
  const { cls, shape } = splitClassKey(classKey);
  if (shape !== undefined) {
    const parent = snapshot.rating(model, cls);
    if (parent && parent.graded >= MIN_GRADED)
      return {
        rating: parent.rating,
        graded: parent.graded,
        ok: parent.ok,
        measured: true,
        key: cls,
        ownGraded,
        presumed: standsOnPrior(parent),
      };
  }
  return { rating: own?.rating, graded: ownGraded, ok: own?.ok ?? 0, measured: false, key: classKey, ownGraded };
}

/**
 * Below this Fisher information (logits⁻²), a rating that sits within {@link PRESUMED_WITHIN_LOGITS} of
 * the prior it followed is said to stand on that prior.
 *
 * @remarks
 * A dear rung climbed to only on calls every cheaper rung failed passes the gate of 8 with failures that
 * say almost nothing about it, and is rated near the best cheaper rung (ratings.ts, `applyObservation`):
 * `measured 1/31 success` beside a high ability reads as a contradiction unless the reason says why.
 * Thirty such failures hold about 0.05; eight ordinary outcomes about 1. Low information alone is not
 * enough: ten successes in a row also hold little (about 1) yet moved the rating well away from its prior.
 */
export const PRESUMED_BELOW_INFORMATION = 0.5;
export const PRESUMED_WITHIN_LOGITS = 0.5;

function standsOnPrior(rating: Rating): Standing['presumed'] {
  const { information, followedPrior } = rating;
  if (information === undefined || followedPrior === undefined) return undefined;
  const onPrior = information < PRESUMED_BELOW_INFORMATION && Math.abs(rating.rating - followedPrior) < PRESUMED_WITHIN_LOGITS;
  return onPrior ? { prior: followedPrior } : undefined;
}

/** The keys a graded outcome at `classKey` is recorded under: the key, and its class when it is shaped. */
export function learningKeys(classKey: string): readonly string[] {
  let keys = LEARNING_KEYS.get(classKey);
  if (!keys) {
    const { cls, shape } = splitClassKey(classKey);
    keys = Object.freeze(shape === undefined ? [classKey] : [classKey, cls]);
    if (LEARNING_KEYS.size >= MAX_LEARNING_KEYS) LEARNING_KEYS.clear();
    LEARNING_KEYS.set(classKey, keys);
  }
  return keys;
}

/** The lists {@link learningKeys} has made, one per class key and shared (frozen), since a call asks for them at every step; bounded. */
const LEARNING_KEYS = new Map<string, readonly string[]>();
const MAX_LEARNING_KEYS = 4_096;

/** Whether anything at this key, or at its class, has been graded. */
export function hasEvidence(snapshot: LedgerSnapshot, classKey: string): boolean {
  return learningKeys(classKey).some((key) => snapshot.hasMeasurements(key));
}
