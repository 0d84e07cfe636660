/**
 * The kinds of call Rung routes, and the one function that turns a class and a shape into a ledger key.
 *
 * @remarks
 * Two spellings of "how a shape becomes a key" would be two keys for one population, which is the one
 * fault a ledger cannot recover from, so every caller (router, replay, extension) goes through
 * {@link shaped}. Class names are open strings: the replay benchmark uses its data's families
 * (`mmlu`, `gsm8k/…`) as classes, and a user may name their own.
 */
export type CallClass = 'plan' | 'chat' | 'edit' | 'leaf';

export const CALL_CLASSES: readonly CallClass[] = ['plan', 'chat', 'edit', 'leaf'];

/** The ledger key for `cls` divided into the sub-population `shape` (`edit/typescript`). */
export function shaped(cls: string, shape?: string | null): string {
  const base = cls.trim();
  if (!base) throw new Error('a call class must not be empty');
  const sub = shape?.trim();
  return sub ? `${base}/${sub}` : base;
}

/** The class and shape a key was made from; the inverse of {@link shaped}. */
export function splitClassKey(key: string): Readonly<{ cls: string; shape: string | undefined }> {
  let split = SPLITS.get(key);
  if (!split) {
    const slash = key.indexOf('/');
    split = slash < 0 ? { cls: key, shape: undefined } : { cls: key.slice(0, slash), shape: key.slice(slash + 1) };
    if (SPLITS.size >= MAX_SPLITS) SPLITS.clear();
    SPLITS.set(key, split);
  }
  return split;
}

/**
 * The keys {@link splitClassKey} has split, each split once: a routed call asks for the same key's parts
 * a dozen times, and each answer was two new strings and an object. Shared, so never changed; bounded.
 */
const SPLITS = new Map<string, Readonly<{ cls: string; shape: string | undefined }>>();
const MAX_SPLITS = 4_096;

/**
 * Whether calls of this class cascade (try, verify, escalate) or are routed once and pinned.
 *
 * @remarks
 * A `leaf` is a whole multi-turn piece of work whose worth is only known at its end: changing model
 * between its turns would mix two models' work, so escalation for a leaf is running it again.
 */
export function cascades(key: string): boolean {
  return splitClassKey(key).cls !== 'leaf';
}
