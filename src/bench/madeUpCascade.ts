/**
 * A made-up cascade whose every outcome is known: prompts each answered (or not) by three rungs, a
 * logging policy that opens with the cheap rung or, with a floor's chance, any rung, and a climb that
 * gives up after two failures before the dear rung, as the planner does on a call that looks
 * unanswerable. The decision log is what the router would write; the truth of "always open with X" is
 * worked out from the same prompts, so an estimate from the log can be checked against it.
 */
import { DECISION_ROW_VERSION, type DecisionRow } from '../core/decisions/decision';
import { seededRandom, type Random } from '../core/random';

export const RUNGS = ['cheap', 'mid', 'dear'] as const;
export type Rung = (typeof RUNGS)[number];
/** USD per call of average size. */
const PRICES: Record<Rung, number> = { cheap: 1, mid: 4, dear: 30 };
/** Logits against a prompt's difficulty. */
const ABILITIES: Record<Rung, number> = { cheap: -0.5, mid: 0.8, dear: 2 };

export interface CascadeOptions {
  calls: number;
  seed: number;
  /** The exploration floor: the chance a call opens with a rung drawn uniformly. */
  floor?: number;
  /** Share of prompts no rung answers. */
  unanswerable?: number;
}

interface Prompt {
  size: number;
  passes: Record<Rung, boolean>;
}

function prompt(random: Random, unanswerable: number): Prompt {
  const hopeless = random() < unanswerable;
  // A normal draw (Box–Muller) for the difficulty every rung shares.
  const difficulty = 1.5 * Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  const size = 0.5 + random();
  const passes = Object.fromEntries(
    RUNGS.map((rung) => [rung, !hopeless && random() < 1 / (1 + Math.exp(difficulty - ABILITIES[rung]))]),
  ) as Record<Rung, boolean>;
  return { size, passes };
}

/** The climb from `opener`: the others in price order, giving up before the dear rung once two rungs have failed. */
export function climb(opener: Rung, passes: Record<Rung, boolean>): Rung[] {
  const tried: Rung[] = [];
  for (const rung of [opener, ...RUNGS.filter((each) => each !== opener)]) {
    if (rung === 'dear' && tried.length >= 2) break;
    tried.push(rung);
    if (passes[rung]) break;
  }
  return tried;
}

/** The log's rows and, per target, the true mean cost and first-try success of always opening with it. */
export function cascadeLog(options: CascadeOptions): { rows: DecisionRow[]; truth: Record<Rung, { cost: number; success: number }> } {
  const random = seededRandom(options.seed);
  const floor = options.floor ?? 0.3;
  const rows: DecisionRow[] = [];
  const totals = Object.fromEntries(RUNGS.map((rung) => [rung, { cost: 0, success: 0 }])) as Record<
    Rung,
    { cost: number; success: number }
  >;
  for (let index = 0; index < options.calls; index++) {
    const { size, passes } = prompt(random, options.unanswerable ?? 0.15);
    const cost = (rung: Rung) => PRICES[rung] * size;
    for (const rung of RUNGS) {
      totals[rung].cost += climb(rung, passes).reduce((sum, each) => sum + cost(each), 0);
      totals[rung].success += passes[rung] ? 1 : 0;
    }
    const drawn = random() < floor;
    const opener: Rung = drawn ? (RUNGS[Math.min(2, Math.floor(random() * 3))] as Rung) : 'cheap';
    const propensity = floor / 3 + (opener === 'cheap' ? 1 - floor : 0);
    const tried = climb(opener, passes);
    tried.forEach((rung, at) =>
      rows.push({
        v: DECISION_ROW_VERSION,
        at: index,
        call: `call-${index}`,
        run: null,
        class: 'qa',
        shape: null,
        candidates: [...RUNGS],
        rung: RUNGS.indexOf(rung),
        escalation: tried.slice(0, at),
        model: rung,
        resolved: rung,
        explore: at === 0 && drawn && opener !== 'cheap',
        propensity: at === 0 ? propensity : 1,
        verdict: passes[rung] ? 'pass' : 'fail',
        verdictReason: null,
        inputTokens: Math.round(1000 * size),
        outputTokens: 50,
        cost: cost(rung),
        latencyMs: null,
        reason: '',
        mode: 'cloud',
        pruned: [],
        final: false,
      }),
    );
  }
  const truth = Object.fromEntries(
    RUNGS.map((rung) => [rung, { cost: totals[rung].cost / options.calls, success: totals[rung].success / options.calls }]),
  ) as Record<Rung, { cost: number; success: number }>;
  return { rows, truth };
}
