/**
 * What a user reads about a finished call: the model that answered, its rung, the check or that there
 * was none, the cost — as a summary, as the answer's closing line, and as the Rung log's line.
 *
 * @remarks
 * One place, because each front end wrote its own words about a result and they drifted: Rung Auto
 * said "no model produced an answer" where `@rung` said "No answer stands" and named the models left
 * out. Every feature now summarises a result here and renders the summary; nothing here decides
 * anything, every figure comes from the session's result.
 */
import { toolsDominate, toolsShareText, type ToolsSent } from '../../core/providers/tokens';
import { aboveOnLadder } from '../../core/routing/rank';
import type { OpenedForWait, Ranking } from '../../core/routing/types';
import type { SessionChatResult, VerdictWithReason } from '../../core/session/types';
import { plainPrunedReason, plainReason } from '../../protocol/reasonText';
import { formatUsd, openedForWaitText, verdictPhrase } from '../describe';

/** One attempt as the closing line names it: the model and how its answer ended. */
export interface AttemptOutcome {
  model: string;
  verdict: VerdictWithReason;
}

/** What a finished call came to, in the terms a user reads it in. */
export type AnswerSummary = AnsweredSummary | NoAnswerSummary | StoppedSummary;

interface SummaryBase {
  callId: string;
  classKey: string;
  /** The models the ranking offered, in the order tried. */
  candidates: string[];
  /** USD over every attempt that reported a cost. */
  cost: number;
  /** The model the call climbed past (a retry, or the same request asked again). */
  above?: string;
  /** The call climbed past `above` because the user's follow-up said its answer was wrong. */
  saidWrong?: boolean;
  /** What the tool schemas took of the input, when the request offered tools. */
  tools?: ToolsSent;
  /** USD every call from this window's features has cost, this one included: the session's cost. */
  sessionCost?: number;
}

export interface AnsweredSummary extends SummaryBase {
  kind: 'answered';
  model: string;
  provider: string;
  /** The rung it answered on, from 1, of `rungs` in the call's chain. */
  rung: number;
  rungs: number;
  exploring: boolean;
  /** Why the ranking put it there, in plain words; undefined when the ranking no longer lists it. */
  why: string | undefined;
  /** The attempts before it, in order. */
  triedBefore: AttemptOutcome[];
  /** What the check said of the answer that stood. */
  check: VerdictWithReason;
  /** Whether a check judged the answer (pass or fail); false when nothing could (`unverified`). */
  checked: boolean;
  /** The session's words for the checks that judged it: `checked: JSON`, or `unchecked`. */
  checkedLine: string;
  /** Whether the ladder held an eligible rung above it, so a retry has somewhere to climb. */
  stronger: boolean;
  /** The model the call opened on, and why the user's wait moved it there, when it did. */
  openedForWait?: { opener: string; note: OpenedForWait };
}

export interface NoAnswerSummary extends SummaryBase {
  kind: 'no-answer';
  /** The last attempt and how it ended; undefined when no rung could take the call at all. */
  last: AttemptOutcome | undefined;
  /** The models the ranking left out of the call, with why. */
  leftOut: { model: string; reason: string }[];
}

export interface StoppedSummary extends SummaryBase {
  kind: 'stopped';
}

/**
 * A finished call as a summary; `above` is the model the call climbed past, when it did, and
 * `saidWrong` that it did because the user said that model's answer was wrong.
 */
export function summarizeAnswer(
  result: SessionChatResult,
  options: { above?: string; saidWrong?: boolean; sessionCost?: number } = {},
): AnswerSummary {
  const base: SummaryBase = {
    callId: result.callId,
    classKey: result.classKey,
    candidates: result.ranking.candidates.map((candidate) => candidate.slug),
    cost: result.cost,
    ...(options.above !== undefined ? { above: options.above } : {}),
    ...(options.sessionCost !== undefined ? { sessionCost: options.sessionCost } : {}),
    ...(options.above !== undefined && options.saidWrong ? { saidWrong: true } : {}),
    ...(result.tools ? { tools: result.tools } : {}),
  };
  const at = result.answer ? result.attempts.map((attempt) => attempt.model).lastIndexOf(result.answer.model) : -1;
  const answered = at >= 0 ? result.attempts[at] : undefined;
  if (!answered) {
    if (result.stopped) return { ...base, kind: 'stopped' };
    const last = result.attempts.at(-1);
    return {
      ...base,
      kind: 'no-answer',
      last: last ? { model: last.model, verdict: last.verdict } : undefined,
      leftOut: result.ranking.pruned.map((entry) => ({ model: entry.model, reason: plainPrunedReason(entry.reason) })),
    };
  }
  const candidate = result.ranking.candidates.find((entry) => entry.slug === answered.model);
  const opener = result.attempts[0];
  return {
    ...(opener?.openedForWait ? { openedForWait: { opener: opener.model, note: opener.openedForWait } } : {}),
    ...base,
    kind: 'answered',
    model: answered.model,
    provider: answered.provider,
    rung: answered.rung + 1,
    rungs: result.ranking.candidates.length,
    exploring: answered.explore,
    why: candidate ? plainReason(candidate.reason) : undefined,
    triedBefore: result.attempts.slice(0, at).map((attempt) => ({ model: attempt.model, verdict: attempt.verdict })),
    check: answered.verdict,
    checked: answered.verdict.kind === 'pass' || answered.verdict.kind === 'fail',
    checkedLine: result.checked,
    stronger: hasStrongerRung(result),
  };
}

/** How many left-out models a no-answer line names before it only counts the rest. */
const LEFT_OUT_NAMED = 3;

/**
 * The closing line of an answer, in Markdown: who answered, on which rung, why, what was tried before
 * it and how that ended, what the check said, what it cost.
 *
 * @remarks
 * The climb is also shown as it happens, but the Chat view folds what streamed before the answer into
 * "Completed N steps" once the response ends (1.139), so the closing line says it again, and says when
 * the call was a question asked again above a model (a retry, or the same request again).
 *
 * A call no rung answered names the models the ranking left out, with why: a stronger model skipped
 * for a missing key is often the way to an answer, and the last attempt alone does not say it was there.
 */
export function answerLine(summary: AnswerSummary): string {
  switch (summary.kind) {
    case 'stopped':
      return 'Stopped.';
    case 'no-answer': {
      const last = summary.last
        ? `No answer stands: the last attempt, ${summary.last.model}, ended ${verdictPhrase(summary.last.verdict)}.`
        : `No rung could take this ${summary.classKey} call.`;
      if (summary.leftOut.length === 0) return last;
      const named = summary.leftOut.slice(0, LEFT_OUT_NAMED).map((entry) => `${entry.model} (${entry.reason})`);
      const more = summary.leftOut.length - named.length;
      return `${last} Left out of this call: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
    }
    case 'answered': {
      const why = summary.why ? ` — ${summary.why}` : '';
      const explore = summary.exploring ? ' (exploring)' : '';
      const before = summary.triedBefore.map((attempt) => `${attempt.model} (${verdictPhrase(attempt.verdict)})`);
      const climbed = before.length ? ` Tried before it: ${before.join('; ')}.` : '';
      const asked =
        summary.above === undefined
          ? ''
          : summary.saidWrong
            ? ` You said ${summary.above}'s answer was wrong, so it was asked again above it: the rungs at or below it were left out.`
            : ` Asked again above ${summary.above}: the rungs at or below it were left out.`;
      return `Answered by **${summary.model}** (${summary.provider}) for \`${summary.classKey}\`${explore}${why}.${asked}${climbed}\n\n${answerFooter(summary)}`;
    }
  }
}

/** The closing line without Markdown and on one line, for a notification or an error message. */
export function plainAnswerLine(summary: AnswerSummary): string {
  return answerLine(summary)
    .replace(/\*\*|`/g, '')
    .replace(/\s*\n+\s*/g, ' ');
}

/** How the short line begins: Rung's own, and what {@link withoutFooter} looks for. */
const FOOTER_START = 'Rung · ';

/**
 * The short line every answer ends with, on every path: the model, where it answered, the checks that
 * judged the answer or `unchecked`, the cost — `Rung · qwen3:14b · rung 1 of 2 · unchecked · $0`, or
 * after a climb `Rung · gpt-4o · 2nd try, after qwen3:14b failed its check · checked: JSON · $0.0004`.
 *
 * @remarks
 * Plain text, no Markdown: Rung Auto's line reaches the Chat view as the model's own text, and inline
 * chat shows that text as it is. `retryClimbs` is for a front end whose one click to a stronger model is
 * the editor's own Retry (Rung Auto: a language model provider's text is rendered as untrusted Markdown,
 * so a command link in it would not run); an unchecked answer with a rung above it then says so.
 *
 * A first try says its place on the call's ladder. After a climb the line says which try answered and
 * how each before it ended: the same request asked again above a model is a call whose ranking holds
 * only the rungs above it, and its "rung 1 of 1" read as if nothing had been climbed.
 */
export function answerFooter(summary: AnsweredSummary, options: { retryClimbs?: boolean } = {}): string {
  const retry = options.retryClimbs && !summary.checked && summary.stronger ? ' · Retry asks a stronger model' : '';
  // Tool schemas most of the input (Agent mode's dozens): the figure that explains the cost.
  const tools = summary.tools && toolsDominate(summary.tools) ? ` · ${toolsShareText(summary.tools)}` : '';
  // The session's cost beside the answer's, once there is more to it than this answer.
  const session =
    summary.sessionCost !== undefined && summary.sessionCost > summary.cost ? ` · session ${formatUsd(summary.sessionCost)}` : '';
  // The wait moved the opener off the model money alone would open with: the line says why, once.
  const opened = summary.openedForWait
    ? ` · opened on ${summary.openedForWait.opener}: ${openedForWaitText(summary.openedForWait.note)}`
    : '';
  return `${FOOTER_START}${summary.model} · ${placeText(summary)} · ${summary.checkedLine} · ${formatUsd(summary.cost)}${session}${tools}${opened}${retry}`;
}

/** Where the answer came from: its rung on a first try, else the try and what happened before it. */
function placeText(summary: AnsweredSummary): string {
  const above =
    summary.above === undefined
      ? undefined
      : summary.saidWrong
        ? `asked again after you said ${summary.above} was wrong`
        : `asked again above ${summary.above}`;
  if (summary.triedBefore.length === 0) return above ?? `rung ${summary.rung} of ${summary.rungs}`;
  const before = summary.triedBefore.map((attempt) => `${attempt.model} ${attemptFate(attempt.verdict)}`);
  const tries = `${ordinal(summary.triedBefore.length + 1)} try, after ${joinWords(before)}`;
  return above ? `${above}; ${tries}` : tries;
}

/** How an attempt the call climbed past ended, as a verb phrase after its model. */
function attemptFate(verdict: VerdictWithReason): string {
  switch (verdict.kind) {
    case 'fail':
      return 'failed its check';
    case 'provider-error':
      return 'had a provider error';
    case 'unverified':
      return 'was left unchecked';
    case 'stopped':
      return 'was stopped';
    case 'interrupted':
      return 'was cut off when Rung shut down';
    case 'refused':
      return 'was refused';
    case 'pass':
      return 'passed';
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** `a`, `a and b`, `a, b and c`. */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * The short line Rung put at an answer's end, in any wording it has had: `Rung · <model> · <where> ·
 * <checks> · <cost>`, perhaps with the tool schemas' share and the Retry hint.
 */
const FOOTER_LINE =
  /^Rung · .+ · (?:checked: .+|unchecked) · \$(?:[\d.]+|\?)(?: · session \$(?:[\d.]+|\?))?(?: · \d+ tools? ≈ [\d.]+k? of [\d.]+k? input tokens)?(?: · opened on .+ passed \d+ of \d+ .+)?(?: · Retry asks a stronger model)?$/;

/**
 * An assistant message without the short line Rung put at its end, for a conversation the editor sends
 * back: the next model reads the answer, not Rung's bookkeeping, and does not learn to write such lines.
 */
export function withoutFooter(text: string): string {
  const trimmed = text.replace(/\s+$/, '');
  const start = trimmed.lastIndexOf('\n') + 1;
  const last = trimmed.slice(start);
  if (!last.startsWith(FOOTER_START) || !FOOTER_LINE.test(last)) return text;
  return trimmed.slice(0, start).replace(/\s+$/, '');
}

/**
 * The Rung log's one line for a call a feature made: which feature, the call, its class and chain, how
 * it ended, and `note` (why it climbed, when it did). The attempts' own lines (`decision …`) carry each
 * rung's verdict and reason; this line ties them to the feature that asked.
 */
export function callLogLine(feature: string, summary: AnswerSummary, note?: string): string {
  const chain = `[${summary.candidates.join(', ')}]`;
  let outcome: string;
  switch (summary.kind) {
    case 'stopped':
      outcome = 'stopped by the user';
      break;
    case 'no-answer':
      outcome = summary.last
        ? `no answer stands (last: ${summary.last.model}, ${verdictPhrase(summary.last.verdict)})`
        : 'no rung could take it';
      break;
    case 'answered': {
      const before = summary.triedBefore.length ? ` after ${summary.triedBefore.map((attempt) => attempt.model).join(', ')}` : '';
      outcome = `answered by ${summary.model} on rung ${summary.rung} of ${summary.rungs}${before}, ${summary.checked ? verdictPhrase(summary.check) : `unchecked (${verdictPhrase(summary.check)})`}`;
      break;
    }
  }
  return `${feature} ${summary.callId} ${summary.classKey} over ${chain}: ${outcome}, ${formatUsd(summary.cost)}${note ? `; ${note}` : ''}`;
}

/** Whether the call's ranking holds an eligible rung the ladder puts above the model that answered. */
export function hasStrongerRung(result: { answer: { model: string } | undefined; ranking: Ranking }): boolean {
  const answered = result.ranking.candidates.find((candidate) => candidate.slug === result.answer?.model);
  return answered !== undefined && result.ranking.candidates.some((candidate) => aboveOnLadder(candidate, answered));
}
