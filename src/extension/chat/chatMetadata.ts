/**
 * What a `@rung` answer remembers about itself (in `ChatResult.metadata`), and how the user's verdict
 * on it becomes the session's.
 *
 * @remarks
 * The editor hands the metadata back untyped with feedback and with every later turn's history, from
 * whatever version of Rung wrote it, so it is read by shape and anything else is ignored rather than
 * trusted. Kept free of `vscode` so it is tested without an editor.
 */
import type { VerdictWithReason } from '../../core/session/types';

export interface RungChatMetadata {
  callId: string;
  classKey: string;
  /** The model whose answer stood. */
  model: string | undefined;
  /** The user's prompt as sent (with references, and for `/edit` the code), so a retry asks the same question. */
  prompt: string;
  /** The system message the call was sent with (`/edit`'s), so a retry sends it too. */
  system?: string;
  /** The answer's text, for the next turn's history without the closing line. */
  answer: string;
  /**
   * Whether the call's ladder held an eligible rung above `model`, so a retry has somewhere to climb;
   * unknown for an answer written before Rung remembered it.
   */
  stronger?: boolean;
  /** Whether a check judged the answer; false offers a stronger model's verdict (`/check`). Unknown for older answers. */
  checked?: boolean;
  /** Set on a `/check` turn: what the stronger model judged the answer it checked (whose call this metadata names). */
  judged?: 'right' | 'wrong';
  /**
   * For `/edit` of code in a file: the file's URI, a digest of its text then, the code replaced (as
   * offsets) and its language, so a retry checks its answer in the file again while the file is unchanged.
   */
  edit?: { uri: string; digest: string; start: number; end: number; languageId: string };
}

/** The metadata of a result, or undefined when it is not one Rung wrote. */
export function readMetadata(metadata: unknown): RungChatMetadata | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const value = metadata as Record<string, unknown>;
  if (typeof value.callId !== 'string' || typeof value.classKey !== 'string' || typeof value.prompt !== 'string') return undefined;
  return {
    callId: value.callId,
    classKey: value.classKey,
    model: typeof value.model === 'string' ? value.model : undefined,
    prompt: value.prompt,
    answer: typeof value.answer === 'string' ? value.answer : '',
    ...(typeof value.stronger === 'boolean' ? { stronger: value.stronger } : {}),
    ...(typeof value.checked === 'boolean' ? { checked: value.checked } : {}),
    ...(typeof value.system === 'string' ? { system: value.system } : {}),
    ...(value.judged === 'right' || value.judged === 'wrong' ? { judged: value.judged } : {}),
    ...(isEditTarget(value.edit) ? { edit: value.edit } : {}),
  };
}

function isEditTarget(value: unknown): value is RungChatMetadata['edit'] {
  if (typeof value !== 'object' || value === null) return false;
  const edit = value as Record<string, unknown>;
  return (
    typeof edit.uri === 'string' &&
    typeof edit.digest === 'string' &&
    typeof edit.languageId === 'string' &&
    Number.isSafeInteger(edit.start) &&
    Number.isSafeInteger(edit.end) &&
    (edit.start as number) >= 0 &&
    (edit.end as number) >= (edit.start as number)
  );
}

/** Thumbs up is a pass and thumbs down a fail: the user's word on the answer, graded like a check. */
export function feedbackVerdict(helpful: boolean): VerdictWithReason {
  return helpful
    ? { kind: 'pass', reason: 'the user marked the answer helpful' }
    : { kind: 'fail', reason: 'the user marked the answer unhelpful' };
}

/** "Retry with a stronger model": the answer failed in the user's eyes, a graded failure like a check's. */
export const RETRY_VERDICT: VerdictWithReason = { kind: 'fail', reason: 'the user asked for a stronger model' };

/** A one-click follow-up under an @rung answer: the slash command it sends and its label. */
export interface RungFollowup {
  command: 'check' | 'retry';
  label: string;
}

/**
 * What is offered under an answer, only where a stronger rung is eligible (past the ladder's top a
 * climb could only go down): "Have a stronger model judge this answer" for an answer no check judged,
 * whose verdict grades it (judgeAnswer.ts), and "Retry with a stronger model than X", which marks the
 * answer failed and asks again. Under a verdict, only one of "wrong" offers the stronger answer.
 */
export function followupsFor(metadata: RungChatMetadata | undefined): RungFollowup[] {
  if (!metadata?.model || metadata.stronger === false) return [];
  // After a judge's verdict: an answer judged right needs nothing more; one judged wrong, the stronger answer.
  if (metadata.judged === 'right') return [];
  if (metadata.judged === 'wrong') return [{ command: 'retry', label: `Ask a model stronger than ${metadata.model} for its answer` }];
  const retry: RungFollowup = { command: 'retry', label: `Retry with a stronger model than ${metadata.model}` };
  return metadata.checked === false ? [{ command: 'check', label: 'Have a stronger model judge this answer' }, retry] : [retry];
}
