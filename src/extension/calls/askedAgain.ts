/**
 * Recognises a request the editor sends again unchanged, so Rung Auto and @rung can climb past the
 * model whose answer the user set aside.
 *
 * @remarks
 * Under a Rung Auto or an @rung answer the Chat view offers its own Retry, which sends the very same
 * request again: in VS Code 1.139 the two bodies Rung's model server received were byte for byte the
 * same (the browser checks "the Chat view's own Retry under…"). Neither API says anything else about
 * it, so the request itself is the signal. Asking the same thing again
 * means the answer did not serve, and the router's answer to that is a stronger rung, as `@rung /retry`
 * gives; unlike `/retry` it grades nobody, because a Retry may also mean "say it differently".
 *
 * No vscode here: the front end gives it the core's messages and a clock.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock';
import type { ChatMessage, ToolSpec } from '../../core/providers/provider';

/**
 * How long after an answer the same request counts as asked again, ms.
 *
 * @remarks
 * Long enough to read an answer, try it and come back; short enough that a question asked afresh the
 * next morning is routed afresh.
 */
export const ASKED_AGAIN_WITHIN_MS = 15 * 60_000;

/** Answers remembered at most; older ones are forgotten first. */
const REMEMBERED = 50;

/** An answer to a request, as remembered for the next time the same request comes. */
export interface RememberedAnswer {
  callId: string;
  /** The model whose answer stood. */
  model: string;
  /** Whether a rung above that model was eligible then: without one, there is nothing to climb to. */
  stronger: boolean;
  at: number;
}

export class AskedAgain {
  private readonly answers = new Map<string, RememberedAnswer>();

  constructor(private readonly clock: Clock) {}

  /** The answer this same request got last, when it was answered within {@link ASKED_AGAIN_WITHIN_MS}. */
  previous(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): RememberedAnswer | undefined {
    const key = fingerprint(messages, tools);
    const answer = this.answers.get(key);
    if (!answer) return undefined;
    if (this.clock.now() - answer.at > ASKED_AGAIN_WITHIN_MS) {
      this.answers.delete(key);
      return undefined;
    }
    return answer;
  }

  /** Remembers the answer a request got; a later answer to the same request replaces it. */
  answered(messages: readonly ChatMessage[], tools: readonly ToolSpec[], answer: Omit<RememberedAnswer, 'at'>): void {
    const key = fingerprint(messages, tools);
    this.answers.delete(key);
    this.answers.set(key, { ...answer, at: this.clock.now() });
    while (this.answers.size > REMEMBERED) this.answers.delete(this.answers.keys().next().value as string);
  }
}

/**
 * What the same request asked again leads to: the model to climb past, when a stronger rung was
 * eligible, and the log's sentence for it. One rule for every front end that asks.
 */
export function climbAfter(previous: RememberedAnswer): { above: string | undefined; note: string } {
  const above = previous.stronger ? previous.model : undefined;
  const climb = above ? `climbing past ${previous.model}` : `no eligible model sits above ${previous.model}, so it is routed as before`;
  return { above, note: `the same request again, after ${previous.model} answered it (${previous.callId}): ${climb}` };
}

/** The request as a digest: its messages in order and the tools it offered (by name and schema). */
function fingerprint(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): string {
  return createHash('sha256')
    .update(JSON.stringify([messages, tools]))
    .digest('hex');
}
