/**
 * The confidence check's side of a call: the climb its plan chooses, and the verdict it gives an answer.
 *
 * @remarks
 * Kept apart from the learner so the replay and the editor bind a plan to a call the same way: the
 * router asks the strategy where to go, the check asks the same plan whether to accept, and the two
 * can never disagree about an answer.
 */
import type { AttemptRecord, ClimbStrategy, Ranking } from '../routing/types';
import type { ConfidenceJudgement, ConfidencePlan } from './confidenceLearner';

/** What the confidence check says about one answer, with a reason that names the learned threshold. */
export interface ConfidenceCheck {
  verdict: 'pass' | 'fail';
  reason: string;
  judgement: ConfidenceJudgement;
}

/**
 * Judges one answer by the plan: pass when its calibrated chance of being right is at least what
 * climbing on would buy.
 *
 * @remarks
 * The reason opens with "confidence", so a front end can say "checked: confidence" and a reader of the
 * decision log can tell this verdict from a schema's or a test's: it is the model's own word, weighed.
 */
export function judgeConfidence(plan: ConfidencePlan, model: string, logprob: number): ConfidenceCheck {
  const judgement = plan.judge(model, logprob);
  const threshold =
    judgement.threshold === null ? 'no learned threshold (never accepted)' : `learned threshold ${formatLogprob(judgement.threshold)}`;
  const where = `for ${model} in ${plan.classKey}`;
  const odds = `P(right) ${judgement.probability.toFixed(2)}${judgement.next === null ? ', nothing above to climb to' : ` against ${Math.max(0, judgement.climbValue).toFixed(2)} climbing to ${judgement.next}`}`;
  const relation = judgement.accept ? '≥' : '<';
  return {
    verdict: judgement.accept ? 'pass' : 'fail',
    reason: `confidence ${formatLogprob(logprob)} ${relation} ${threshold} ${where} (${odds})`,
    judgement,
  };
}

/**
 * The router's climb for a call the confidence check judges: open where the plan opens, climb where the
 * judgement of the last answer points, and past a rung that gave nothing to judge as the plan would
 * from the last answer it did judge.
 */
export function confidenceClimb(plan: ConfidencePlan, ranking: Ranking): ClimbStrategy {
  const slugs = ranking.candidates.map((candidate) => candidate.slug);
  const indexOf = (slug: string | null): number | null => {
    if (slug === null) return null;
    const index = slugs.indexOf(slug);
    return index < 0 ? null : index;
  };
  return {
    opener: indexOf(plan.opener) ?? 0,
    next(record: AttemptRecord, tried: readonly number[]) {
      const triedSlugs = new Set(tried.map((index) => slugs[index] as string));
      if (record.verdict === 'fail' && record.confidence !== undefined) {
        const next = plan.judge(record.model, record.confidence).next;
        if (next !== null && !triedSlugs.has(next)) return { index: indexOf(next), reason: 'the confidence plan climbs no further' };
      }
      const index = indexOf(plan.fallback(triedSlugs));
      return { index, reason: index === null ? 'no rung above is worth its price to the confidence plan' : '' };
    },
  };
}

/** A log-probability as the reasons print it: −0.020, −3.0e−5, 0. */
export function formatLogprob(logprob: number): string {
  if (logprob === 0) return '0';
  if (!Number.isFinite(logprob)) return logprob < 0 ? '−∞' : '∞';
  const text = Math.abs(logprob) >= 0.001 ? logprob.toFixed(3) : logprob.toExponential(1);
  return text.replace('-', '−');
}
