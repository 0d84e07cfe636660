/**
 * The user's own verdict on an answer: the strongest evidence there is, and the slowest to arrive.
 *
 * @remarks
 * It lands after the answer, so the router records it as a second, final row (`Router.settle`).
 * "Retry with a stronger model" is a failure of the model that answered, whatever the answer looked
 * like: the user has judged it not good enough.
 */
import type { Answer, Check, Verifier } from './verifier';

export type UserFeedback = 'thumbs-up' | 'thumbs-down' | 'retry-stronger' | 'edit-accepted' | 'edit-discarded';

/** What each kind of feedback says about the answer. */
export function userVerdict(feedback: UserFeedback): Check {
  switch (feedback) {
    case 'thumbs-up':
      return { verdict: 'pass', reason: 'the user marked the answer helpful' };
    case 'thumbs-down':
      return { verdict: 'fail', reason: 'the user marked the answer unhelpful' };
    case 'retry-stronger':
      return { verdict: 'fail', reason: 'the user asked to retry with a stronger model' };
    case 'edit-accepted':
      return { verdict: 'pass', reason: 'the user accepted the edit' };
    case 'edit-discarded':
      return { verdict: 'fail', reason: 'the user discarded the edit' };
  }
}

/** A verifier that waits for the user's feedback; no feedback is `unverified`. */
export class UserVerdictVerifier implements Verifier {
  readonly name = 'user';
  private readonly ask: (answer: Answer, signal?: AbortSignal) => Promise<UserFeedback | undefined>;

  constructor(options: { feedback: (answer: Answer, signal?: AbortSignal) => Promise<UserFeedback | undefined> }) {
    this.ask = options.feedback;
  }

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    const feedback = await this.ask(answer, signal);
    return feedback ? userVerdict(feedback) : { verdict: 'unverified', reason: 'the user gave no feedback' };
  }
}
