/**
 * Fixed cascades checked by confidence: a chain of models per family, each but the last accepting its
 * answer when its stated confidence reaches a threshold — chosen on one set of prompts, scored on
 * another, or chosen on the prompts it is scored on (a hindsight bound for such chains).
 *
 * @remarks
 * These are the references the learned confidence check is measured against in BENCHMARKS.md. A chain
 * reads every model's answer on a prompt only in hindsight, which is the point of a bound; the replay's
 * policy never does. Thresholds are drawn from quantiles of each model's confidence on the choosing
 * prompts: 16 per model for chains of one or two models, 8 for chains of three (the grid the issue's
 * reference figures were made with, up to the chain length).
 */
import type { ModelOutcome, OutcomeRow } from '../core/replay/outcomes';

/** One chain: models in the order tried, and the confidence each but the last must reach to be accepted. */
export interface ThresholdChain {
  models: readonly number[];
  thresholds: readonly number[];
}

/**
 * A chain's score on some prompts: answers right, and USD spent — the answer calls, and reading the
 * confidence of every model but the last, which is a second call where the source asked the model
 * whether its answer was right (its `cost_src` less the answer's).
 */
export interface ChainScore {
  correct: number;
  cost: number;
}

/** A family's prompts as columns per model, for fast scoring. */
export class FamilyColumns {
  readonly size: number;
  readonly correct: Float64Array[];
  readonly confidence: Float64Array[];
  readonly cost: Float64Array[];
  /** USD of reading each answer's confidence beyond the answer call. */
  readonly read: Float64Array[];

  constructor(rows: readonly OutcomeRow[], models: readonly string[]) {
    this.size = rows.length;
    const column = (read: (outcome: ModelOutcome) => number): Float64Array[] => models.map((model) => Float64Array.from(rows, (row) => read(row.m[model] as ModelOutcome)));
    this.correct = column((outcome) => outcome.c);
    this.confidence = column((outcome) => outcome.conf ?? Number.NEGATIVE_INFINITY);
    this.cost = column((outcome) => outcome.cost);
    this.read = column((outcome) => (outcome.cost_src !== undefined && outcome.cost_src > outcome.cost ? outcome.cost_src - outcome.cost : 0));
  }
}

/** Scores one chain on a family's prompts. */
export function scoreChain(columns: FamilyColumns, chain: ThresholdChain): ChainScore {
  let correct = 0;
  let cost = 0;
  const last = chain.models.length - 1;
  for (let i = 0; i < columns.size; i++) {
    for (let stage = 0; stage <= last; stage++) {
      const model = chain.models[stage] as number;
      cost += (columns.cost[model] as Float64Array)[i] as number;
      if (stage === last) {
        correct += (columns.correct[model] as Float64Array)[i] as number;
        break;
      }
      cost += (columns.read[model] as Float64Array)[i] as number;
      if (((columns.confidence[model] as Float64Array)[i] as number) >= (chain.thresholds[stage] as number)) {
        correct += (columns.correct[model] as Float64Array)[i] as number;
        break;
      }
    }
  }
  return { correct, cost };
}

/** Every chain of up to three distinct models, with thresholds from the quantiles of `columns`. */
export function enumerateChains(columns: FamilyColumns, modelCount: number): ThresholdChain[] {
  const grids = (count: number): number[][] => Array.from({ length: modelCount }, (_, model) => quantiles(columns.confidence[model] as Float64Array, count));
  const fine = grids(16);
  const coarse = grids(8);
  const chains: ThresholdChain[] = [];
  for (let a = 0; a < modelCount; a++) {
    chains.push({ models: [a], thresholds: [] });
    for (let b = 0; b < modelCount; b++) {
      if (b === a) continue;
      for (const t of fine[a] as number[]) chains.push({ models: [a, b], thresholds: [t] });
      for (let c = 0; c < modelCount; c++) {
        if (c === a || c === b) continue;
        for (const ta of coarse[a] as number[]) for (const tb of coarse[b] as number[]) chains.push({ models: [a, b, c], thresholds: [ta, tb] });
      }
    }
  }
  return chains;
}

/** The distinct inner quantiles of a column (finite values only), the thresholds a chain may use. */
export function quantiles(values: Float64Array, count: number): number[] {
  const finite = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return [];
  const result = new Set<number>();
  for (let k = 1; k < count; k++) result.add(finite[Math.min(finite.length - 1, Math.floor((k / count) * finite.length))] as number);
  return [...result].sort((a, b) => a - b);
}

/** One family's chains with their scores where chosen, and the chain itself to score elsewhere. */
export interface ScoredChain extends ChainScore {
  chain: ThresholdChain;
}

/** The chains no other chain beats on both counts (more right for no more cost), cheapest first. */
export function paretoChains(scored: readonly ScoredChain[]): ScoredChain[] {
  const sorted = [...scored].sort((a, b) => a.cost - b.cost || b.correct - a.correct);
  const frontier: ScoredChain[] = [];
  for (const entry of sorted) if (frontier.length === 0 || entry.correct > (frontier[frontier.length - 1] as ScoredChain).correct) frontier.push(entry);
  return frontier;
}

/**
 * The exact frontier of one chain per family: every combination of the families' Pareto chains whose
 * total no other combination beats, as totals (right answers, USD) — a hindsight bound when each
 * family's chains were scored on the prompts they are judged on.
 */
export function combinedFrontier(families: readonly (readonly ChainScore[])[]): ChainScore[] {
  let frontier: ChainScore[] = [{ correct: 0, cost: 0 }];
  for (const options of families) {
    const merged = frontier.flatMap((sum) => options.map((option) => ({ correct: sum.correct + option.correct, cost: sum.cost + option.cost })));
    merged.sort((a, b) => a.cost - b.cost || b.correct - a.correct);
    frontier = [];
    for (const entry of merged) if (frontier.length === 0 || entry.correct > (frontier[frontier.length - 1] as ChainScore).correct + 1e-9) frontier.push(entry);
  }
  return frontier;
}

/**
 * For one exchange rate `lambda` (right answers per USD given up), the chain per family that a chooser
 * who saw only `choose` would pick: the most right answers minus lambda times its cost there.
 */
export function chooseChain(scored: readonly ScoredChain[], lambda: number): ThresholdChain {
  let best: ScoredChain | undefined;
  for (const entry of scored) if (!best || entry.correct - lambda * entry.cost > best.correct - lambda * best.cost) best = entry;
  if (!best) throw new Error('chooseChain: no chains to choose from');
  return best.chain;
}
