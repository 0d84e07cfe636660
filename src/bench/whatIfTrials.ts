/**
 * The What if bench's trials: a logged run and the truth of each target beside it.
 *
 * How sure the What if can be: estimates of "always open with X" from a logged run, against the truth,
 * by logged-call count and method, on the generated worlds and on the recorded outcomes.
 *
 * @remarks
 * Run: `node scripts/what-if.mjs [--source NAME|FILE]… [--calls 1000,3000,10000,30000] [--seeds K]`.
 * Each seed draws its own stream of calls (a world generated from the seed, or the recorded prompts in
 * shuffled passes), routes it once with exploration on to make a decision log, and runs every target
 * beside each call from the ratings the router held at that moment (`ReplayOptions.alongside`): the
 * truth an estimate from the log aims at. The target replayed after the run from the ratings it ended
 * with (the "warm" truth of the evaluation bench) is printed beside it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemoryDecisionSink } from '../core/decisions/decision';
import { estimatePolicy, type PolicyEstimate } from '../core/evaluation/estimate';
import { promptSizes } from '../core/evaluation/crossFit';
import { readLoggedCalls, type LoggedCall } from '../core/evaluation/loggedCalls';
import { parsePolicy, type RoutingPolicy } from '../core/evaluation/policy';
import { seededRandom, shuffle } from '../core/random';
import { parseOutcomes, type OutcomeRow } from '../core/replay/outcomes';
import { runReplay } from '../core/replay/replay';
import { RecordingLedger } from './recordingLedger';
import { generateWorld, WORLDS } from './worlds';

const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');
/** The logging run's exploration, as the evaluation bench logs: 20% below the gate, a 20% floor on measured rungs. */
export const DEFAULT_EXPLORE = 0.2;
export const DEFAULT_FLOOR = 0.2;

export interface Source {
  name: string;
  models: string[];
  /** `calls` prompts for one seed, in the order they are routed; each seed draws its own. */
  stream(calls: number, seed: number): OutcomeRow[];
}

export function sourceNamed(name: string): Source {
  const world = WORLDS.find((entry) => entry.name === name);
  if (world) {
    const classes = world.classes?.length ?? 3;
    return {
      name,
      models: world.models.map((model) => model.slug),
      stream: (calls, seed) => generateWorld({ ...world, promptsPerClass: Math.ceil(calls / classes) }, seed).slice(0, calls),
    };
  }
  const path = name === 'nine-models' ? DEFAULT_OUTCOMES : resolve(name);
  const { rows, models } = parseOutcomes(readFileSync(path, 'utf8'), path);
  return {
    name: name === 'nine-models' ? 'nine-models' : path,
    models,
    // Shuffled passes over the recorded prompts, each pass its own order, each call its own id.
    stream: (calls, seed) => {
      const random = seededRandom(seed ^ 0x68e31da4);
      const out: OutcomeRow[] = [];
      for (let pass = 0; out.length < calls; pass++) {
        for (const row of shuffle([...rows], random)) {
          if (out.length === calls) break;
          out.push({ ...row, id: `${row.id}~${pass}` });
        }
      }
      return out;
    },
  };
}

/** Four openers spread over the panel's price range: the cheapest, two between, the dearest. */
export function defaultTargets(rows: readonly OutcomeRow[], models: readonly string[]): string[] {
  const mean = (model: string) => rows.reduce((sum, row) => sum + (row.m[model]?.cost ?? 0), 0) / rows.length;
  const byPrice = [...models].sort((a, b) => mean(a) - mean(b));
  const picks = [0, Math.round((byPrice.length - 1) / 3), Math.round((2 * (byPrice.length - 1)) / 3), byPrice.length - 1];
  return [...new Set(picks.map((index) => byPrice[index] as string))].map((model) => `open=${model}`);
}

export interface Truth {
  cost: number;
  success: number;
}

export interface Trial {
  source: string;
  calls: number;
  seed: number;
  target: string;
  alongside: Truth;
  warm: Truth;
  estimate: PolicyEstimate;
  perCallAlongside: number[];
  /**
   * The 95% half-width, relative to the truth, of DR with the best outcome model a call's class and
   * size allow (each call's true cost under the target, averaged over calls of its class and size
   * fifth): what no estimator reading only those can beat.
   */
  bound: number;
  /** The warm replay's cost of each call, by call id. */
  perCallWarm: Map<string, number>;
  log: ReturnType<typeof readLoggedCalls>;
}

export async function runTrials(
  source: Source,
  calls: number,
  seed: number,
  targets: readonly string[],
  logging: { explore: number; floor: number; warm?: boolean },
): Promise<Trial[]> {
  const rows = source.stream(calls, seed);
  const policies: RoutingPolicy[] = targets.map((spec) => parsePolicy(spec));
  const costs = policies.map(() => [] as number[]);
  const passes = policies.map(() => [] as boolean[]);
  const sink = new MemoryDecisionSink();
  const ledger = new RecordingLedger();
  await runReplay({
    rows,
    models: source.models,
    verifier: { kind: 'perfect' },
    classKey: 'family',
    seed,
    inOrder: true,
    sink,
    ledger,
    explore: logging.explore,
    exploreMeasured: logging.floor,
    alongside: {
      policies,
      record: (policy, cost, firstPassed) => {
        costs[policy]?.push(cost);
        passes[policy]?.push(firstPassed);
      },
    },
  });
  const log = readLoggedCalls(sink.rows.map((row) => JSON.stringify(row)).join('\n'));
  const trials: Trial[] = [];
  for (const [index, policy] of policies.entries()) {
    const replayed = new MemoryDecisionSink();
    // The warm truth is a whole replay per target: asked for (`--warm`), not run by default.
    if (logging.warm) {
      await runReplay({ rows, models: source.models, verifier: { kind: 'perfect' }, classKey: 'family', seed, inOrder: true, sink: replayed, ledger: ledger.copy(), policy });
    }
    const warmCalls = readLoggedCalls(replayed.rows.map((row) => JSON.stringify(row)).join('\n')).calls;
    const cost = costs[index] as number[];
    const pass = passes[index] as boolean[];
    trials.push({
      source: source.name,
      calls,
      seed,
      target: targets[index] as string,
      alongside: { cost: mean(cost), success: pass.filter(Boolean).length / pass.length },
      warm: logging.warm
        ? { cost: mean(warmCalls.map((call) => call.cost)), success: warmCalls.filter((call) => call.firstSuccess).length / warmCalls.length }
        : { cost: Number.NaN, success: Number.NaN },
      estimate: estimatePolicy(log, policy, { variants: true }),
      bound: efficiencyBound(log.calls, policy.open as string, new Map(rows.map((row, at) => [row.id, cost[at] as number]))),
      perCallAlongside: cost,
      perCallWarm: new Map(warmCalls.map((call) => [call.call, call.cost])),
      log,
    });
  }
  return trials;
}

/**
 * The half-width of the efficiency bound ({@link Trial.bound}): DR's terms with the prediction set to the
 * true mean cost of the call's stratum (class, fifth of prompt size), their spread over √n.
 *
 * @remarks
 * The variance of DR with the true conditional mean as its outcome model, Var(μ(x)) + E[σ²(x)/π(x)],
 * is the semiparametric efficiency bound for an estimate from (x, opener, its outcome) with known
 * propensities: no estimator that reads x alone does better, however its outcome model is fitted.
 */
export function efficiencyBound(calls: readonly LoggedCall[], target: string, truthOf: ReadonlyMap<string, number>): number {
  const supported = calls.filter((call) => call.candidates.length === 0 || call.candidates.includes(target)).map((call) => ({ call, truth: truthOf.get(call.call) as number }));
  const sizes = promptSizes(supported.map(({ call }) => call));
  const sorted = [...sizes].sort((a, b) => a - b);
  const fifth = (size: number) => [1, 2, 3, 4].filter((k) => size >= (sorted[Math.floor((k * sorted.length) / 5)] as number)).length;
  const key = (at: number) => `${supported[at]?.call.classKey}\u0000${fifth(sizes[at] as number)}`;
  const sums = new Map<string, { sum: number; count: number }>();
  supported.forEach(({ truth }, at) => {
    const entry = sums.get(key(at)) ?? { sum: 0, count: 0 };
    entry.sum += truth;
    entry.count++;
    sums.set(key(at), entry);
  });
  const terms = supported.map(({ call, truth }, at) => {
    const entry = sums.get(key(at)) as { sum: number; count: number };
    const q = entry.sum / entry.count;
    return q + (call.opener === target ? 1 / call.propensity : 0) * (truth - q);
  });
  const m = mean(terms);
  const variance = terms.reduce((s, t) => s + (t - m) ** 2, 0) / Math.max(1, terms.length - 1);
  const truthMean = mean(supported.map(({ truth }) => truth));
  return (1.959963984540054 * Math.sqrt(variance / terms.length)) / truthMean;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
}

