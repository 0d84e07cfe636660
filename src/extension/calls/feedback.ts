/**
 * What the user does with an answer, read as evidence about the model that gave it: the Chat view's
 * Retry (the same request sent again), a follow-up that says the answer was wrong, an inline edit
 * taken back. Each becomes a failed verdict on the call at {@link FEEDBACK_WEIGHT}.
 *
 * @remarks
 * Thumbs up and down, "Retry with a stronger model" and Accept or Reject on Edit Selection's diff are
 * the user's word on an answer and are graded like a check. These are not: they are read from what
 * the user did, and each has innocent readings — a Retry may only ask for other words, "that's wrong"
 * may be about the question, an edit may be taken back because the instruction was. So they count,
 * but for less.
 *
 * No vscode here: the front ends hand over text and call ids, so each rule is unit-tested.
 */
import type { VerdictWithReason } from '../../core/session/types';
import { withoutFooter } from './answerLine';

/**
 * How much a verdict read from what the user did moves a rating, against a check's 1.
 *
 * @remarks
 * A half: two such signals that agree move a rating as far as one check, and one alone cannot undo a
 * check that said the opposite. It still counts as one graded answer towards the gate of 8, so a
 * model is not measured on these alone any sooner than on checks — the gate counts answers, and the
 * weight keeps their share of the rating's movement down. Not tuned on data: no recorded outcome says
 * how often a Retry meant "wrong"; docs/vscode.md says which signals count and at what weight.
 */
export const FEEDBACK_WEIGHT = 0.5;

/** The verdicts the three signals settle, in the words the decision log keeps. */
export const FEEDBACK_VERDICTS = {
  askedAgain: { kind: 'fail', reason: "the user asked the same again (the Chat view's Retry)", weight: FEEDBACK_WEIGHT },
  saidWrong: { kind: 'fail', reason: "the user's next message said the answer was wrong", weight: FEEDBACK_WEIGHT },
  editDiscarded: { kind: 'fail', reason: 'the user took back the inline edit', weight: FEEDBACK_WEIGHT },
} as const satisfies Record<string, VerdictWithReason>;

/**
 * A follow-up that opens by saying the previous answer was wrong: "That's wrong", "No, that is not
 * right", "This doesn't work", "Still broken", "Incorrect". Only at the start of the message and only
 * these few: "is this wrong?" asks, and "the test is wrong" speaks of something else.
 */
const SAYS_WRONG =
  /^\s*(?:no[,.!]?\s+)?(?:(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+(?:right|correct|it)|still\s+(?:wrong|broken))|(?:that|this|it)\s+(?:doesn't|does\s+not|didn't|did\s+not|won't|will\s+not)\s+(?:work|compile|run|parse)|(?:wrong|incorrect)(?:\s+answer)?\s*[.!,]|still\s+(?:wrong|broken|fails|failing|not\s+working)|(?:your|the)\s+(?:answer|code|fix)\s+(?:is|was)\s+(?:wrong|incorrect|broken))/i;

/** Whether a follow-up's words say the answer before it was wrong (see {@link SAYS_WRONG}). */
export function saysWrong(words: string): boolean {
  return SAYS_WRONG.test(words);
}

/** An answer Rung gave, as remembered so a follow-up can name it. */
export interface GivenAnswer {
  callId: string;
  model: string;
  /** Whether a rung above that model was eligible then: a follow-up saying it was wrong climbs there. */
  stronger: boolean;
}

/** Answers remembered at most; older ones are forgotten first. */
const REMEMBERED = 50;

/** Answer text, after trimming, shorter than this is not matched: "Done." would match too much. */
const MIN_MATCHED_CHARS = 12;

/**
 * The answers Rung gave lately, found again from the text the editor sends back as an earlier turn.
 *
 * @remarks
 * The editor sends back what was shown: any text of failed rungs, their escalation notes, the answer,
 * Rung's closing line. So an earlier turn is matched by ending with an answer's text once the closing
 * line is off, newest answer first.
 */
export class AnswersGiven {
  private readonly answers: (GivenAnswer & { text: string })[] = [];

  remember(answer: GivenAnswer, text: string): void {
    const trimmed = text.trim();
    if (trimmed.length < MIN_MATCHED_CHARS) return;
    this.answers.push({ ...answer, text: trimmed });
    if (this.answers.length > REMEMBERED) this.answers.shift();
  }

  /** The answer an assistant turn the editor sent back shows, if Rung gave it lately. */
  find(turn: string): GivenAnswer | undefined {
    const shown = withoutFooter(turn).trim();
    for (let index = this.answers.length - 1; index >= 0; index--) {
      const answer = this.answers[index] as GivenAnswer & { text: string };
      if (shown.endsWith(answer.text)) return { callId: answer.callId, model: answer.model, stronger: answer.stronger };
    }
    return undefined;
  }
}

/**
 * Inline edits Rung's answers made, watched until the file either moves on or goes back to what it was
 * before the edit — the user took it back (inline chat's Undo, or an undo in the editor).
 *
 * @remarks
 * Compared by the whole text, not by the edit's arguments: the edit tools differ (a string replaced, a
 * patch, code with "existing code" markers), and a file back to its exact earlier text is the one sure
 * sign the edit is gone. An edit may arrive in several changes, so later changes do not end the watch;
 * it ends when the file is back, when another inline answer edits the file, or after {@link EDIT_WATCH_MS}.
 */
export class EditWatch {
  private readonly watched = new Map<string, { callId: string; before: string; applied: boolean; since: number }>();

  constructor(private readonly now: () => number) {}

  /** Starts watching `document` (a URI) for the edit of `callId`, the file then holding `before`. */
  watch(document: string, callId: string, before: string): void {
    this.watched.set(document, { callId, before, applied: false, since: this.now() });
  }

  /** The file now holds `text`: the call whose edit was taken back, if this change did that. */
  changed(document: string, text: string): string | undefined {
    const watch = this.watched.get(document);
    if (!watch) return undefined;
    if (this.now() - watch.since > EDIT_WATCH_MS) {
      this.watched.delete(document);
      return undefined;
    }
    if (!watch.applied) {
      // The first change away from the text before is the edit arriving.
      watch.applied = text !== watch.before;
      return undefined;
    }
    if (text !== watch.before) return undefined;
    this.watched.delete(document);
    return watch.callId;
  }
}

/** How long an inline edit is watched for being taken back, ms: the time a user reviews an edit in place. */
export const EDIT_WATCH_MS = 10 * 60_000;

/** A weight of feedback in words: "half a check's weight". */
function weightWords(weight: number): string {
  return weight === 0.5 ? "half a check's weight" : `${weight} of a check's weight`;
}

/**
 * What inline chat's user is told once Rung's edit is in the file: the short line (the model, the try,
 * the checks, the cost), and that Undo counts against the model.
 *
 * @remarks
 * Inline chat shows none of a provider's text beside an edit it applies, so the short line never
 * reached the widget, and taking the edit back failed the model without a word. A notification is the
 * one place beside the widget an extension can say it.
 */
export function inlineEditNotice(footer: string, model: string): string {
  return `${footer}. Undo counts as a failed answer for ${model}, at ${weightWords(FEEDBACK_WEIGHT)}.`;
}

/** What inline chat's user is told once they took Rung's edit back. */
export function editTakenBackNotice(model: string, file: string): string {
  return `Rung: ${model}'s edit to ${file} was taken back; it counts as a failed answer for ${model}, at ${weightWords(FEEDBACK_WEIGHT)}.`;
}
