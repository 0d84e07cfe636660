/**
 * The confidence check as a verifier: reads the answering model's confidence in its answer and holds
 * it to the threshold learned for that model and class, in the call's plan.
 *
 * @remarks
 * The session adds it only where nothing else can judge (no schema, no JSON asked for, no tools, no
 * code check, no command): any of those is a better witness than the model's own word, so where one
 * applies this one stays out. Its verdict is marked as its own: the reason starts with "confidence",
 * names the learned threshold and says the check is the model's word weighed, so a front end can say
 * "checked: confidence" and never pass it off as a test.
 *
 * It asks only where the answer could change the call: the plan's top rung (nothing above to climb
 * to), or an answer it would accept whatever it said, stands unread and unjudged, and a read that costs a
 * second call is asked only where what it can change is worth that price ({@link ConfidencePlan.reads}).
 *
 * It never blocks an answer it cannot weigh. A confidence that cannot be read (the server gives no
 * log-probabilities, the question failed, the field was malformed) says "no confidence from <model>";
 * a confidence read for a model whose grades at the class are still below
 * {@link MIN_CONFIDENCE_GRADED} is kept on the answer, for the grade that will teach the learner, and
 * the answer stands unverified: a threshold learned from nothing would climb away from answers, or
 * pass them, on what the model merely states.
 */
import type { Answer, Check, Verifier } from '../verifiers/verifier';
import { judgeConfidence, formatLogprob } from './confidenceClimb';
import { MIN_CONFIDENCE_GRADED, type ConfidencePlan, type ReadDecision } from './confidenceLearner';
import type { SelfCheck } from './selfCheck';

/** Where the verifier gets what it judges with: the call's plan, and the model's confidence in one answer. */
export interface ConfidenceSource {
  /** The call's plan, once the router has ranked the call; undefined before. */
  plan(): ConfidencePlan | undefined;
  /** Reads `answer.model`'s confidence in `answer`. */
  read(answer: Answer, signal?: AbortSignal): Promise<SelfCheck>;
  /** Told when the plan takes `model`'s answer without reading its confidence, so a later grade can teach what such answers are worth. */
  unread?(model: string): void;
}

/**
 * Why an answer stands without its confidence read: nothing the read could say would change the call,
 * or what it could change is worth less than the second call it takes.
 */
export function unreadReason(model: string, decision: ReadDecision): string {
  const why =
    decision.readValue + decision.readCost <= decision.unread + 1e-12
      ? 'nothing it could say would change the call'
      : `what it could change is worth ${(decision.readValue + decision.readCost - decision.unread).toFixed(3)} of a wrong answer, less than the ${decision.readCost.toFixed(3)} the question costs`;
  return `confidence not read for ${model}: ${why} (P(right) ${decision.unread.toFixed(2)} unread)`;
}

export class ConfidenceVerifier implements Verifier {
  readonly name = 'confidence';
  /** What an answer it judged says: "checked: confidence", never passed off as a test. */
  readonly label = 'confidence';

  constructor(private readonly source: ConfidenceSource) {}

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    const planned = this.source.plan();
    if (planned && planned.graded(answer.model) >= MIN_CONFIDENCE_GRADED) {
      const decision = planned.reads(answer.model);
      if (!decision.read) {
        this.source.unread?.(answer.model);
        return { verdict: 'unverified', reason: unreadReason(answer.model, decision), spent: { inputTokens: null, outputTokens: null } };
      }
    }
    const read = await this.source.read(answer, signal);
    const spent = {
      inputTokens: read.inputTokens,
      outputTokens: read.outputTokens,
      ...(read.cost !== undefined ? { cost: read.cost } : {}),
      ...(read.catalogCost !== undefined ? { catalogCost: read.catalogCost } : {}),
    };
    if (read.logprob === null)
      return {
        verdict: 'unverified',
        reason: `no confidence from ${answer.model}: ${read.silentBecause ?? 'no log-probabilities'}`,
        spent,
      };
    const confidence = read.logprob;
    const plan = this.source.plan();
    if (!plan)
      return {
        verdict: 'unverified',
        reason: `confidence ${formatLogprob(confidence)} read, not judged: the call has no plan to judge it by`,
        confidence,
        spent,
      };
    // Judged either way, so the plan's account of the call (and what the learner is told) holds this answer.
    const check = judgeConfidence(plan, answer.model, confidence);
    const graded = plan.graded(answer.model);
    if (graded < MIN_CONFIDENCE_GRADED) {
      const reason = `confidence ${formatLogprob(confidence)} read, not judged: no learned threshold yet for ${answer.model} in ${plan.classKey} (${graded} of ${MIN_CONFIDENCE_GRADED} graded answers)`;
      return { verdict: 'unverified', reason, confidence, spent };
    }
    return { verdict: check.verdict, reason: check.reason, confidence, spent, selfJudged: true };
  }
}
