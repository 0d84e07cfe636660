/**
 * A check on one answer. Verifiers are the centre of the design: the cascade escalates only on a
 * verified failure, and only a checked answer is evidence about a model.
 */
import type { ToolCall } from '../providers/provider';

export interface Answer {
  text: string;
  toolCalls: ToolCall[];
  /** The configured slug that produced it. */
  model: string;
}

export interface Check {
  verdict: 'pass' | 'fail' | 'unverified';
  /** Why, in words a user can act on ("JSON parse error at 1:14", "npm test exited 1"). */
  reason: string;
  /**
   * What judged the answer, in words a user reads ("TypeScript syntax"), when it depends on the answer;
   * absent: the verifier's {@link Verifier.label}. Read only from a `pass` or a `fail`.
   */
  checks?: string[];
  /** The answer's confidence as the model stated it (a log-probability), when the check read one: the confidence check's climb plans from it. */
  confidence?: number;
  /**
   * The verdict is the answering model's own word about its answer (the confidence check): it decides
   * the climb, but the ratings do not count it as a graded answer (see AttemptOutcome.selfJudged).
   */
  selfJudged?: boolean;
  /**
   * What the check spent on a model of its own (the confidence check's question), for the attempt's
   * cost: the provider's figure, else its tokens at the panel's price, else the catalog's.
   */
  spent?: { cost?: number; catalogCost?: number; inputTokens: number | null; outputTokens: number | null };
}

export interface Verifier {
  /** A short identifier, used to tell several checks' reasons apart (`structured-output: …`). */
  readonly name: string;
  /**
   * What the check is, in words a user reads ("JSON", "workspace command `npm test`"), for the line
   * that says which checks judged an answer; absent: the {@link name}.
   */
  readonly label?: string;
  /**
   * False for a check that judges nothing of an answer in text (the arguments of tool calls, when none
   * is required): it is not named before a text answer as one that will check it. True when absent.
   */
  readonly judgesText?: boolean;
  verify(answer: Answer, signal?: AbortSignal): Promise<Check>;
}
