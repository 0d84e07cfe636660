/**
 * The features the per-prompt signal reads: what Rung can tell about a prompt in microseconds, with no
 * model to download — its length and shape, whether it holds code, its script, its words and word pairs,
 * its character trigrams, and the tools and attachments the request carries.
 *
 * @remarks
 * Every feature is hashed into {@link SIGNAL_SLOTS} slots together with the call's class key, so one
 * table of weights serves every class without one class's words speaking for another's: "anatomy" says
 * something different about a medical exam than about a trivia quiz. The text is never kept: a slot
 * number is all that leaves this function, and only the weights learned over many calls are stored.
 *
 * Three groups (the shape, the words, the trigrams) are each scaled to length 1 and the whole to length
 * 1, so a 20,000-character prompt does not take bigger learning steps than a one-line question, and no
 * group drowns another by its count. Only the first and last {@link SIGNAL_WINDOW_CHARS} characters are
 * read: a long prompt's instructions and question sit at its ends, and reading all of a pasted file
 * would cost a long prompt more than the routing budget of a millisecond (`npm run bench`).
 */

/** Slots the features are hashed into: 16,384, so two features of one class rarely share one. */
export const SIGNAL_SLOTS = 1 << 14;
/** Characters read from each end of the prompt's text. */
export const SIGNAL_WINDOW_CHARS = 2_000;

/** What the signal may read of a request: its text, and what it carries besides. */
export interface PromptText {
  /** The prompt as the models receive it: system and user text, one after the other. */
  text: string;
  /** Names of the tools the request offers. */
  tools?: readonly string[];
  /** Files or images attached to the request. */
  attachments?: number;
}

/** A sparse feature vector of unit length: parallel lists of slots and values. */
export interface PromptFeatures {
  slots: number[];
  values: number[];
}

/** The hashed features of one prompt at one class key. */
export function promptFeatures(prompt: PromptText, classKey: string): PromptFeatures {
  const salt = hashString(classKey, FNV_OFFSET);
  const text =
    prompt.text.length > 2 * SIGNAL_WINDOW_CHARS
      ? `${prompt.text.slice(0, SIGNAL_WINDOW_CHARS)}\n${prompt.text.slice(-SIGNAL_WINDOW_CHARS)}`
      : prompt.text;
  const [shape, words, trigrams] = [SHAPE, WORDS, TRIGRAMS];
  const add = (group: Group, hash: number): void => group.add(mix(hash, salt));

  add(shape, hashString('bias', FNV_OFFSET));
  add(shape, hashString(`chars:${Math.round(2 * Math.log2(1 + prompt.text.length))}`, FNV_OFFSET));
  let lines = 1;
  let digits = 0;
  let codeMarks = 0;
  let fences = 0;
  const scripts = { latin: 0, cyrillic: 0, cjk: 0, arabic: 0, other: 0 };
  let word = FNV_OFFSET;
  let wordLength = 0;
  let previousWord = 0;
  let wordCount = 0;
  let c1 = 0;
  let c2 = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    if (code === 10) lines++;
    if (code === 96 && text.charCodeAt(i + 1) === 96 && text.charCodeAt(i + 2) === 96) fences++;
    if (CODE_MARKS.has(code)) codeMarks++;
    const isDigit = code >= 48 && code <= 57;
    if (isDigit) digits++;
    const isLetter = (code >= 97 && code <= 122) || code > 127;
    if (isLetter) scripts[scriptOf(code)]++;
    if (isLetter || isDigit) {
      word = Math.imul(word ^ code, FNV_PRIME);
      wordLength++;
    } else if (wordLength > 0) {
      add(words, word);
      if (wordCount > 0) add(words, Math.imul(previousWord ^ 0x2f, FNV_PRIME) ^ word);
      previousWord = word;
      wordCount++;
      word = FNV_OFFSET;
      wordLength = 0;
    }
    if (i >= 2) add(trigrams, Math.imul(Math.imul(Math.imul(FNV_OFFSET ^ c1, FNV_PRIME) ^ c2, FNV_PRIME) ^ code, FNV_PRIME));
    c1 = c2;
    c2 = code;
  }
  if (wordLength > 0) {
    add(words, word);
    if (wordCount > 0) add(words, Math.imul(previousWord ^ 0x2f, FNV_PRIME) ^ word);
    wordCount++;
  }
  const letters = scripts.latin + scripts.cyrillic + scripts.cjk + scripts.arabic + scripts.other;
  const script = letters === 0 ? 'none' : (Object.entries(scripts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'none');
  add(shape, hashString(`script:${script}`, FNV_OFFSET));
  add(shape, hashString(`words:${Math.round(2 * Math.log2(1 + wordCount))}`, FNV_OFFSET));
  add(shape, hashString(`lines:${Math.round(Math.log2(lines))}`, FNV_OFFSET));
  add(shape, hashString(`digits:${Math.min(5, Math.round((20 * digits) / Math.max(1, text.length)))}`, FNV_OFFSET));
  const code = fences > 0 || codeMarks > CODE_SHARE * text.length;
  add(shape, hashString(code ? 'code' : 'prose', FNV_OFFSET));
  const tools = prompt.tools ?? [];
  add(shape, hashString(`tools:${Math.min(4, tools.length)}`, FNV_OFFSET));
  for (const tool of tools) add(shape, hashString(`tool:${tool}`, FNV_OFFSET));
  add(shape, hashString(`attachments:${Math.min(4, prompt.attachments ?? 0)}`, FNV_OFFSET));

  const groups = [shape, words, trigrams].filter((group) => group.size > 0);
  const merged = MERGED;
  for (const group of groups) {
    const scale = 1 / (Math.sqrt(group.squaredNorm()) * Math.sqrt(groups.length));
    group.drainInto(merged, scale);
  }
  return merged.drain();
}

/**
 * Counts per slot for one group of features, in a table reused from call to call: a Map per group cost
 * about 90 µs a prompt on the recorded benchmark's prompts, most of a routing decision's budget; typed
 * arrays and a list of the slots touched cost a fraction of it. Single-threaded, so one set of tables
 * serves every call; each is left zeroed when drained.
 */
class Group {
  private readonly counts = new Float64Array(SIGNAL_SLOTS);
  private readonly touched = new Int32Array(SIGNAL_SLOTS);
  size = 0;

  add(slot: number, amount = 1): void {
    if (this.counts[slot] === 0) this.touched[this.size++] = slot;
    this.counts[slot] = (this.counts[slot] as number) + amount;
  }

  squaredNorm(): number {
    let total = 0;
    for (let i = 0; i < this.size; i++) {
      const count = this.counts[this.touched[i] as number] as number;
      total += count * count;
    }
    return total;
  }

  /** Adds this group, scaled, into `into`, and zeroes this one. */
  drainInto(into: Group, scale: number): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.touched[i] as number;
      into.add(slot, (this.counts[slot] as number) * scale);
      this.counts[slot] = 0;
    }
    this.size = 0;
  }

  /** This group as a vector of length 1, and zeroes it. */
  drain(): PromptFeatures {
    const scale = 1 / Math.sqrt(this.squaredNorm());
    const slots = new Array<number>(this.size);
    const values = new Array<number>(this.size);
    for (let i = 0; i < this.size; i++) {
      const slot = this.touched[i] as number;
      slots[i] = slot;
      values[i] = (this.counts[slot] as number) * scale;
      this.counts[slot] = 0;
    }
    this.size = 0;
    return { slots, values };
  }
}

const SHAPE = new Group();
const WORDS = new Group();
const TRIGRAMS = new Group();
const MERGED = new Group();

/** Share of characters that are code punctuation (`{}();=<>[]`) above which a prompt without a fence counts as code. */
const CODE_SHARE = 0.03;
const CODE_MARKS = new Set([...'{}();=<>[]'].map((char) => char.charCodeAt(0)));

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashString(text: string, seed: number): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}

/** A feature's slot at a class: the two hashes mixed (murmur3's finaliser) and reduced to {@link SIGNAL_SLOTS}. */
function mix(hash: number, salt: number): number {
  let h = (hash ^ Math.imul(salt, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % SIGNAL_SLOTS;
}

function scriptOf(code: number): 'latin' | 'cyrillic' | 'cjk' | 'arabic' | 'other' {
  if (code <= 0x24f) return 'latin';
  if (code >= 0x400 && code <= 0x4ff) return 'cyrillic';
  if ((code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3040 && code <= 0x30ff) || (code >= 0xac00 && code <= 0xd7af)) return 'cjk';
  if (code >= 0x600 && code <= 0x6ff) return 'arabic';
  return 'other';
}
