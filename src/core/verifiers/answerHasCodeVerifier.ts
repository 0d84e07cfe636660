/**
 * The check that an edit came with an edit: the answer holds a fenced code block or a tool call.
 *
 * @remarks
 * `@rung /edit` once showed a prose answer ("You could rename the variable…") as the edit, and the
 * syntax check, finding no block it could read, called it unverified: an edit with no code is a failed
 * edit, whatever its language. A block of any language counts, since the syntax check judges the ones
 * it can read and says nothing of the others. The session leaves this check out where a turn's tool
 * calls already made the change (an agent summing up), and where the front end checks the edit in its
 * file (Edit Selection), whose own check finds no code to apply.
 */
import { fencedBlocks } from './structuredOutputVerifier';
import type { Answer, Check, Verifier } from './verifier';

export class AnswerHasCodeVerifier implements Verifier {
  readonly name = 'has-code';
  readonly label = 'code in the answer';

  async verify(answer: Answer): Promise<Check> {
    if (answer.toolCalls.length > 0) return { verdict: 'pass', reason: 'the edit came as a tool call' };
    if (fencedBlocks(answer.text).length > 0) return { verdict: 'pass', reason: 'the answer holds a code block' };
    return { verdict: 'fail', reason: 'the edit has neither a code block nor a tool call' };
  }
}
