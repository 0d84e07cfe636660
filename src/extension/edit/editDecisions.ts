/**
 * What Edit Selection says around an edit waiting for Accept or Reject, and what a notification's
 * button says when it is clicked after its edit was settled another way.
 *
 * @remarks
 * The diff's Accept and Reject are the user's word on the model (graded like a check), and that was
 * said nowhere: a user rejecting an edit for a reason of their own did not know it counted against the
 * model. So the words before and after the click say what each counts as.
 *
 * VS Code gives an extension no way to close a notification it showed (`showInformationMessage`
 * returns only the button chosen, whenever that is), so a toast outlives its edit when the edit is
 * settled from the diff's title bar, a keybinding or the palette, or replaced by a newer edit. Its
 * buttons stayed and did nothing when clicked. A late click now says what became of that edit. No
 * vscode here, so each sentence is unit-tested.
 */

/** An edit as these words name it. */
export interface EditNamed {
  callId: string;
  model: string;
  /** The call's class key (`edit/typescript`): the rating Accept and Reject count in. */
  classKey: string;
  /** The file's name. */
  file: string;
}

/** How an edit left the waiting state. */
export type EditSettlement = 'accepted' | 'rejected' | 'not-applied' | 'superseded';

/**
 * The most settled edits remembered for a late click.
 *
 * @remarks
 * A toast stays in the notification centre until cleared; a few dozen edits is more than a session's
 * worth of toasts anyone scrolls back to, and an older one is still answered, in general words.
 */
const REMEMBERED_EDITS = 50;

/** The notification shown with the diff: the closing line, then what Accept and Reject count as. */
export function decisionPrompt(footer: string, edit: EditNamed): string {
  const line = /[.!?]$/.test(footer) ? footer : `${footer}.`;
  return `Rung: ${line} Accept applies the edit to ${edit.file} and counts as a pass for ${edit.model} in its ${edit.classKey} rating; Reject counts as a failed answer for it.`;
}

/** What is said once an edit is accepted, rejected or left unapplied. */
export function settledMessage(how: Exclude<EditSettlement, 'superseded'>, edit: EditNamed): string {
  switch (how) {
    case 'accepted':
      return `Rung: applied ${edit.model}'s edit to ${edit.file}; counted as a pass for ${edit.model} in its ${edit.classKey} rating.`;
    case 'rejected':
      return `Rung: rejected ${edit.model}'s edit to ${edit.file}; counted as a failed answer for ${edit.model} in its ${edit.classKey} rating.`;
    case 'not-applied':
      return `Rung: ${edit.file} changed while ${edit.model}'s edit waited; it was not applied and counts neither way.`;
  }
}

/** The edits settled lately, by call id, to answer a notification clicked after its edit was settled. */
export class EditDecisions {
  private readonly settledEdits = new Map<string, { edit: EditNamed; how: EditSettlement }>();

  constructor(private readonly remembered = REMEMBERED_EDITS) {}

  /** Remembers how `edit` left the waiting state. */
  settled(edit: EditNamed, how: EditSettlement): void {
    this.settledEdits.delete(edit.callId);
    this.settledEdits.set(edit.callId, { edit, how });
    for (const callId of this.settledEdits.keys()) {
      if (this.settledEdits.size <= this.remembered) break;
      this.settledEdits.delete(callId);
    }
  }

  /** What a notification's Accept or Reject says when its edit is no longer waiting. */
  lateClick(callId: string): string {
    const known = this.settledEdits.get(callId);
    if (!known) return 'Rung: this edit was already settled; this button does nothing now.';
    const { edit, how } = known;
    const named = `${edit.model}'s edit to ${edit.file}`;
    switch (how) {
      case 'accepted':
        return `Rung: ${named} was already accepted (counted as a pass); this button does nothing now.`;
      case 'rejected':
        return `Rung: ${named} was already rejected (counted as a failed answer); this button does nothing now.`;
      case 'not-applied':
        return `Rung: ${named} was not applied: the file changed while it waited; it counts neither way.`;
      case 'superseded':
        return `Rung: a newer edit replaced ${named} before it was accepted or rejected; it counts neither way. Accept or Reject the newer one.`;
    }
  }
}
