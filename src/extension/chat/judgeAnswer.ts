/**
 * `@rung /check`: a stronger model judges the answer before it, rather than answering again.
 *
 * @remarks
 * "Check with a stronger model" used to send the question to the rungs above and show a second answer:
 * the user was left to compare two answers themselves, paid for a whole second answer, and learned
 * nothing about the first. Now the stronger model is shown the question and the answer and asked for a
 * verdict and one sentence of why (an LLM judge, the way a cascade that escalates on a stronger model's
 * review does). The verdict grades the first answer at {@link JUDGE_WEIGHT}; only an answer judged
 * wrong is followed by the offer to ask the stronger model for its own answer.
 *
 * No vscode here: the participant hands over the texts, so the prompt, the reading of the verdict and
 * its words are unit-tested.
 */
import type { ChatMessage } from '../../core/providers/provider';
import type { VerdictWithReason } from '../../core/session/types';

/**
 * How much a judge's verdict moves the judged model's rating, against a check's 1.
 *
 * @remarks
 * More than a signal read from what the user did (0.5, feedback.ts), which has innocent readings; less
 * than a check, because a judge is a model and can be wrong: strong models judging answers agree with
 * human graders about as often as two humans agree with each other, about four times in five in the
 * published comparisons, not always. Not tuned on data: no recorded outcome here says how often a
 * judge on this panel is right. docs/vscode.md states it.
 */
export const JUDGE_WEIGHT = 0.75;

/** The class a judging call is routed and rated as: a structured answer, checked against its schema. */
export const JUDGE_CLASS = 'plan/judge';

/** The verdict a judge answers with. */
export const JUDGE_SCHEMA = {
  type: 'object',
  required: ['verdict', 'reason'],
  properties: {
    verdict: { enum: ['right', 'wrong'] },
    reason: { type: 'string' },
  },
};

/** The most characters of the judged answer and of the question put before the judge. */
const MAX_JUDGED_CHARS = 24_000;

/** What a judge said of an answer. */
export interface Judgement {
  right: boolean;
  reason: string;
}

/** The messages that ask a judge for its verdict on `answer` to `question` (with the system message the question was asked under, if any). */
export function judgeMessages(question: string, answer: string, system?: string): ChatMessage[] {
  const context = system ? `The assistant was instructed:\n<instructions>\n${clip(system)}\n</instructions>\n\n` : '';
  return [
    {
      role: 'system',
      content:
        "You review another assistant's answer to a developer's question. Decide whether the answer is right: correct, " +
        'complete enough to act on, and answering what was asked. Do not write an answer of your own. Reply with JSON only: ' +
        '{"verdict": "right" or "wrong", "reason": one sentence saying why}.',
    },
    {
      role: 'user',
      content: `${context}<question>\n${clip(question)}\n</question>\n\n<answer>\n${clip(answer)}\n</answer>`,
    },
  ];
}

function clip(text: string): string {
  return text.length > MAX_JUDGED_CHARS ? `${text.slice(0, MAX_JUDGED_CHARS)}\n[… cut at ${MAX_JUDGED_CHARS} characters]` : text;
}

/** The verdict in a judge's answer, or undefined when it holds none (the answer passed the schema check, so this is a safeguard). */
export function readJudgement(text: string): Judgement | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    if (typeof value !== 'object' || value === null) return undefined;
    const { verdict, reason } = value as Record<string, unknown>;
    if (verdict !== 'right' && verdict !== 'wrong') return undefined;
    return { right: verdict === 'right', reason: typeof reason === 'string' ? reason.trim() : '' };
  } catch {
    return undefined;
  }
}

/** The verdict the judged answer is settled with, in the words the decision log keeps. */
export function judgedVerdict(judgement: Judgement, judge: string): VerdictWithReason {
  const why = judgement.reason ? `: ${judgement.reason}` : '';
  return {
    kind: judgement.right ? 'pass' : 'fail',
    reason: `judged ${judgement.right ? 'right' : 'wrong'} by ${judge}${why}`,
    weight: JUDGE_WEIGHT,
  };
}

/** What the user reads: the verdict, who gave it and why, and what it did to the judged model's record. */
export function judgementMarkdown(judgement: Judgement, judge: string, judged: string): string {
  const why = judgement.reason ? `: ${judgement.reason.replace(/\s+/g, ' ')}` : '.';
  const counted = `${judged}'s answer counts as ${judgement.right ? 'passed' : 'failed'} at weight ${JUDGE_WEIGHT}`;
  return judgement.right
    ? `**Judged right** by ${judge}${why}\n\n${counted}; nothing more to ask.`
    : `**Judged wrong** by ${judge}${why}\n\n${counted}. Ask ${judge} for its own answer below.`;
}
