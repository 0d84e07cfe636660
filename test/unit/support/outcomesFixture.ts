import type { OutcomeRow } from '../../../src/core/replay/outcomes';

/** A model of the fixture: what one answer costs (USD) and how often it is right, per family. */
export interface FixtureModel {
  slug: string;
  cost: number;
  accuracy: Record<string, number>;
}

export const FIXTURE_MODELS: FixtureModel[] = [
  { slug: 'tiny', cost: 0.00001, accuracy: { arith: 0.3, facts: 0.6, code: 0.1 } },
  { slug: 'small', cost: 0.00004, accuracy: { arith: 0.6, facts: 0.7, code: 0.4 } },
  { slug: 'mid', cost: 0.0003, accuracy: { arith: 0.8, facts: 0.75, code: 0.7 } },
  { slug: 'large', cost: 0.002, accuracy: { arith: 0.95, facts: 0.85, code: 0.9 } },
];

/** A small deterministic generator (an LCG), separate from the code under test. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/**
 * Recorded outcomes made up for the tests: `perFamily` prompts in each family, each graded for every
 * model. A prompt's difficulty is shared by the models, as in real data; costs vary a little per prompt.
 */
export function makeOutcomes(perFamily = 67, models: FixtureModel[] = FIXTURE_MODELS, seed = 42): OutcomeRow[] {
  const random = lcg(seed);
  const rows: OutcomeRow[] = [];
  const families = Object.keys(models[0]?.accuracy ?? {});
  for (const family of families) {
    for (let i = 0; i < perFamily; i++) {
      const hardness = random();
      const m: OutcomeRow['m'] = {};
      for (const model of models) {
        const accuracy = model.accuracy[family] ?? 0;
        const right = (hardness + 0.8 * random()) / 1.8 < accuracy;
        const to = 80 + Math.floor(random() * 40);
        m[model.slug] = {
          c: right ? 1 : 0,
          cost: model.cost * (0.9 + 0.2 * random()),
          ti: 100,
          to,
          conf: right ? -0.05 : -0.8,
          lat_ms: 500,
        };
      }
      rows.push({ id: `${family}-${i}`, family, subfamily: i % 2 ? 'odd' : 'even', m });
    }
  }
  return rows;
}

/** The rows as the JSON-lines text `rung replay` reads. */
export function toJsonLines(rows: readonly OutcomeRow[]): string {
  return rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
}
