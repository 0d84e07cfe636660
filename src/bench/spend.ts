/**
 * Where a run's money went against the simple learner's: by class and model, and by what each paid
 * attempt bought.
 *
 * @remarks
 * Rung's attempts are read off its decision rows; the learner is run again on the same prompts in the
 * same order (perfect check, priced at each model's mean recorded cost, as the replay prices it) with
 * its tries kept per model. An attempt's cost falls in one of four verdicts: it passed, it failed on a
 * prompt a later attempt passed, it failed on a prompt no model answers, or it failed on an answerable
 * prompt the policy gave up on.
 */
import { onlineLearnerOrder } from '../core/replay/onlineLearner';
import type { OutcomeRow } from '../core/replay/outcomes';

export interface Spend {
  tries: number;
  passes: number;
  /** USD. */
  cost: number;
}

/** USD by what the attempt bought. */
export interface VerdictSpend {
  passed: number;
  failedBeforePass: number;
  nobodyAnswers: number;
  gaveUp: number;
}

export interface SpendBreakdown {
  /** Keyed `class model`. */
  byModel: Map<string, { rung: Spend; learner: Spend }>;
  rung: VerdictSpend;
  learner: VerdictSpend;
}

/** Reads Rung's graded attempts from its decision rows and replays the learner, both per prompt. */
export function spendBreakdown(rows: readonly OutcomeRow[], models: readonly string[], decisions: readonly { call: string; model: string; verdict: string; final?: boolean }[]): SpendBreakdown {
  const rungAttempts = new Map<string, string[]>();
  for (const decision of decisions) {
    if (decision.final || (decision.verdict !== 'pass' && decision.verdict !== 'fail')) continue;
    rungAttempts.set(decision.call, [...(rungAttempts.get(decision.call) ?? []), decision.model]);
  }
  const learnerAttempts = learnerTries(rows, models);
  const byModel = new Map<string, { rung: Spend; learner: Spend }>();
  const rung = emptyVerdicts();
  const learner = emptyVerdicts();
  rows.forEach((row, index) => {
    for (const [who, attempts, verdicts] of [
      ['rung', rungAttempts.get(row.id) ?? [], rung],
      ['learner', learnerAttempts[index] ?? [], learner],
    ] as const) {
      const answered = attempts.some((model) => row.m[model]?.c === 1);
      const nobody = models.every((model) => row.m[model]?.c !== 1);
      for (const model of attempts) {
        const outcome = row.m[model];
        if (!outcome) continue;
        const key = `${row.family} ${model}`;
        const entry = byModel.get(key) ?? { rung: emptySpend(), learner: emptySpend() };
        entry[who].tries++;
        entry[who].cost += outcome.cost;
        if (outcome.c === 1) entry[who].passes++;
        byModel.set(key, entry);
        if (outcome.c === 1) verdicts.passed += outcome.cost;
        else if (answered) verdicts.failedBeforePass += outcome.cost;
        else if (nobody) verdicts.nobodyAnswers += outcome.cost;
        else verdicts.gaveUp += outcome.cost;
      }
    }
  });
  return { byModel, rung, learner };
}

/** The simple learner's tries per prompt, in order, under a perfect check. */
function learnerTries(rows: readonly OutcomeRow[], models: readonly string[]): string[][] {
  const priced = models.map((slug) => ({ slug, price: rows.reduce((sum, row) => sum + (row.m[slug]?.cost ?? 0), 0) / rows.length }));
  const tallies = new Map<string, { passes: number; tries: number }>();
  const tally = (cls: string, slug: string) => {
    const key = `${cls}\u0000${slug}`;
    const entry = tallies.get(key) ?? { passes: 0, tries: 0 };
    tallies.set(key, entry);
    return entry;
  };
  return rows.map((row) => {
    const tried: string[] = [];
    for (const slug of onlineLearnerOrder(priced, (model) => tally(row.family, model))) {
      tried.push(slug);
      const entry = tally(row.family, slug);
      entry.tries++;
      if (row.m[slug]?.c === 1) {
        entry.passes++;
        break;
      }
    }
    return tried;
  });
}

function emptySpend(): Spend {
  return { tries: 0, passes: 0, cost: 0 };
}

function emptyVerdicts(): VerdictSpend {
  return { passed: 0, failedBeforePass: 0, nobodyAnswers: 0, gaveUp: 0 };
}
