/**
 * Worlds the recorded outcomes do not cover, made up to test the routing policy where the data cannot.
 *
 * @remarks
 * The recorded panel spans 30× in price, its cheapest models are weak everywhere and its accuracy
 * mostly rises with price, and nothing in it changes over time. A policy tuned there can fail on a
 * panel that differs in any of those ways, so each world here breaks one of them. Every world has
 * three classes of 1,000 prompts; each prompt has one difficulty that all models share (so failures
 * are correlated, as in real data), drawn from N(0, 1.5²) in logits, and 3% of prompts no model can
 * answer. A model's ability at a class is set so that its accuracy there is the world's figure. The
 * rows are in time order (`--in-order` keeps it) and carry everything `rung replay` reads; the same
 * seed gives the same bytes.
 */
import { seededRandom, type Random } from '../core/random';
import type { OutcomeRow } from '../core/replay/outcomes';

/** Prompts per class. */
export const WORLD_PROMPTS_PER_CLASS = 1_000;
/** Share of prompts no model answers. */
export const WORLD_UNANSWERABLE_SHARE = 0.03;
/** Spread of prompt difficulty, logits. */
export const WORLD_DIFFICULTY_SD_LOGITS = 1.5;

export interface WorldModel {
  slug: string;
  /** USD per million tokens, input and output alike. */
  price: number;
  /** Accuracy per class, 0–1. */
  accuracy: Record<string, number>;
  /** From this share of the run on (0–1), the accuracy at these classes instead: a slug whose model was swapped. */
  drift?: { from: number; accuracy: Record<string, number> };
}

export interface World {
  name: string;
  /** What the world tests. */
  about: string;
  models: WorldModel[];
}

const CLASSES = ['alpha', 'beta', 'gamma'];

function perClass(alpha: number, beta: number, gamma: number): Record<string, number> {
  return { alpha, beta, gamma };
}

export const WORLDS: World[] = [
  {
    name: 'spread-100x',
    about: 'six models priced 100× apart (the recorded panel spans 30×), accuracy rising with price',
    models: [
      { slug: 'p0.10', price: 0.1, accuracy: perClass(0.45, 0.6, 0.3) },
      { slug: 'p0.25', price: 0.25, accuracy: perClass(0.55, 0.7, 0.4) },
      { slug: 'p0.63', price: 0.63, accuracy: perClass(0.65, 0.75, 0.55) },
      { slug: 'p1.6', price: 1.6, accuracy: perClass(0.75, 0.8, 0.65) },
      { slug: 'p4.0', price: 4, accuracy: perClass(0.82, 0.85, 0.75) },
      { slug: 'p10', price: 10, accuracy: perClass(0.88, 0.9, 0.85) },
    ],
  },
  {
    name: 'cheap-specialist',
    about: 'the cheapest model is useless in one class (2%) and excellent in another (92%)',
    models: [
      { slug: 'cheap', price: 0.1, accuracy: perClass(0.02, 0.92, 0.5) },
      { slug: 'small', price: 0.3, accuracy: perClass(0.55, 0.6, 0.55) },
      { slug: 'mid', price: 1, accuracy: perClass(0.7, 0.75, 0.7) },
      { slug: 'large', price: 3, accuracy: perClass(0.85, 0.88, 0.85) },
    ],
  },
  {
    name: 'dominant-mid',
    about: 'a mid-priced model beats every cheaper one everywhere (90%+); the dearer ones are no better',
    models: [
      { slug: 'c1', price: 0.1, accuracy: perClass(0.35, 0.45, 0.3) },
      { slug: 'c2', price: 0.2, accuracy: perClass(0.45, 0.5, 0.4) },
      { slug: 'c3', price: 0.4, accuracy: perClass(0.5, 0.6, 0.45) },
      { slug: 'mid', price: 0.8, accuracy: perClass(0.92, 0.93, 0.9) },
      { slug: 'd1', price: 1.6, accuracy: perClass(0.88, 0.9, 0.86) },
      { slug: 'd2', price: 3, accuracy: perClass(0.9, 0.92, 0.89) },
    ],
  },
  {
    name: 'drift',
    about: 'the second-cheapest model, excellent at alpha, drops to 2% there halfway through the run',
    models: [
      { slug: 'cheap', price: 0.1, accuracy: perClass(0.15, 0.4, 0.35) },
      { slug: 'swapped', price: 0.25, accuracy: perClass(0.9, 0.6, 0.55), drift: { from: 0.5, accuracy: { alpha: 0.02 } } },
      { slug: 'mid', price: 0.8, accuracy: perClass(0.75, 0.75, 0.7) },
      { slug: 'large', price: 3, accuracy: perClass(0.88, 0.88, 0.86) },
    ],
  },
  {
    name: 'no-drift',
    about: 'the drift world with nothing swapped: what detecting drift must not cost',
    models: [
      { slug: 'cheap', price: 0.1, accuracy: perClass(0.15, 0.4, 0.35) },
      { slug: 'swapped', price: 0.25, accuracy: perClass(0.9, 0.6, 0.55) },
      { slug: 'mid', price: 0.8, accuracy: perClass(0.75, 0.75, 0.7) },
      { slug: 'large', price: 3, accuracy: perClass(0.88, 0.88, 0.86) },
    ],
  },
];

export function worldNamed(name: string): World {
  const world = WORLDS.find((entry) => entry.name === name);
  if (!world) throw new Error(`no world named "${name}" (worlds: ${WORLDS.map((entry) => entry.name).join(', ')})`);
  return world;
}

/**
 * The world's prompts, in time order: the classes interleaved at random, every model graded on each.
 *
 * @remarks
 * A drifting model's accuracy changes at a position in this order, so the drift happens halfway
 * through a replay only when the replay keeps the order (`--in-order`).
 */
export function generateWorld(world: World, seed: number): OutcomeRow[] {
  const random = seededRandom(seed);
  const classes = shuffleClasses(random);
  const abilities = new Map<string, number>();
  const abilityFor = (accuracy: number): number => {
    const key = accuracy.toFixed(6);
    let value = abilities.get(key);
    if (value === undefined) {
      value = abilityForAccuracy(accuracy);
      abilities.set(key, value);
    }
    return value;
  };
  const total = classes.length;
  return classes.map((cls, index) => {
    const unanswerable = random() < WORLD_UNANSWERABLE_SHARE;
    const difficulty = normal(random) * WORLD_DIFFICULTY_SD_LOGITS;
    const inputTokens = 300 + Math.floor(random() * 400);
    const outputTokens = 50 + Math.floor(random() * 150);
    const m: OutcomeRow['m'] = {};
    for (const model of world.models) {
      const drifted = model.drift && index >= model.drift.from * total ? model.drift.accuracy[cls] : undefined;
      const accuracy = drifted ?? model.accuracy[cls] ?? 0;
      const right = !unanswerable && random() < logistic(abilityFor(accuracy) - difficulty);
      const cost = ((inputTokens + outputTokens) * model.price) / 1e6;
      m[model.slug] = { c: right ? 1 : 0, cost, ti: inputTokens, to: outputTokens };
    }
    return { id: `${world.name}-${index}`, family: cls, split_src: 'world', m };
  });
}

/** Each class WORLD_PROMPTS_PER_CLASS times, in a random interleaving. */
function shuffleClasses(random: Random): string[] {
  const list = CLASSES.flatMap((cls) => Array.from({ length: WORLD_PROMPTS_PER_CLASS }, () => cls));
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j] as string, list[i] as string];
  }
  return list;
}

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** A standard normal draw (Box–Muller). */
function normal(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * The ability (logits) whose accuracy over the world's prompts, unanswerable ones included, is `accuracy`.
 *
 * @remarks
 * Bisection on the mean of logistic(ability − difficulty) over a grid of the difficulty normal.
 */
export function abilityForAccuracy(accuracy: number): number {
  const answerable = Math.min(0.999, accuracy / (1 - WORLD_UNANSWERABLE_SHARE));
  const mean = (ability: number): number => {
    let total = 0;
    let weight = 0;
    for (let z = -5; z <= 5; z += 0.05) {
      const w = Math.exp(-0.5 * z * z);
      total += w * logistic(ability - z * WORLD_DIFFICULTY_SD_LOGITS);
      weight += w;
    }
    return total / weight;
  };
  let low = -15;
  let high = 15;
  for (let i = 0; i < 60; i++) {
    const middle = (low + high) / 2;
    if (mean(middle) < answerable) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}
