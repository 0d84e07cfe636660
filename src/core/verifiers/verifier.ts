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
}

export interface Verifier {
  readonly name: string;
  verify(answer: Answer, signal?: AbortSignal): Promise<Check>;
}
