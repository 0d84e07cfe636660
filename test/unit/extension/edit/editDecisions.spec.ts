import { describe, expect, it } from 'vitest';
import { decisionPrompt, EditDecisions, settledMessage } from '../../../../src/extension/edit/editDecisions';

const EDIT = { callId: 'c1', model: 'qwen3:14b', classKey: 'edit/typescript', file: 'a.ts' };

describe('the words around an edit waiting for Accept or Reject', () => {
  it('say before the click that Accept counts as a pass and Reject as a failed answer for the model in its rating', () => {
    expect(decisionPrompt('Rung · qwen3:14b · rung 1 of 2 · checked: TypeScript syntax · $0', EDIT)).toBe(
      'Rung: Rung · qwen3:14b · rung 1 of 2 · checked: TypeScript syntax · $0. Accept applies the edit to a.ts and counts as a pass for qwen3:14b in its edit/typescript rating; Reject counts as a failed answer for it.',
    );
  });

  it('say after the click what was counted', () => {
    expect(settledMessage('accepted', EDIT)).toBe(
      "Rung: applied qwen3:14b's edit to a.ts; counted as a pass for qwen3:14b in its edit/typescript rating.",
    );
    expect(settledMessage('rejected', EDIT)).toBe(
      "Rung: rejected qwen3:14b's edit to a.ts; counted as a failed answer for qwen3:14b in its edit/typescript rating.",
    );
    expect(settledMessage('not-applied', EDIT)).toBe(
      "Rung: a.ts changed while qwen3:14b's edit waited; it was not applied and counts neither way.",
    );
  });
});

describe('a toast clicked after its edit was settled another way', () => {
  it('is told the edit was already accepted, and settles nothing', () => {
    const decisions = new EditDecisions();
    decisions.settled(EDIT, 'accepted');
    expect(decisions.lateClick(EDIT.callId)).toBe(
      "Rung: qwen3:14b's edit to a.ts was already accepted (counted as a pass); this button does nothing now.",
    );
  });

  it('is told the edit was already rejected', () => {
    const decisions = new EditDecisions();
    decisions.settled(EDIT, 'rejected');
    expect(decisions.lateClick(EDIT.callId)).toBe(
      "Rung: qwen3:14b's edit to a.ts was already rejected (counted as a failed answer); this button does nothing now.",
    );
  });

  it('is told a newer edit replaced it, undecided and counted neither way', () => {
    const decisions = new EditDecisions();
    decisions.settled(EDIT, 'superseded');
    expect(decisions.lateClick(EDIT.callId)).toBe(
      "Rung: a newer edit replaced qwen3:14b's edit to a.ts before it was accepted or rejected; it counts neither way. Accept or Reject the newer one.",
    );
  });

  it('is told the edit was not applied when its file changed', () => {
    const decisions = new EditDecisions();
    decisions.settled(EDIT, 'not-applied');
    expect(decisions.lateClick(EDIT.callId)).toBe(
      "Rung: qwen3:14b's edit to a.ts was not applied: the file changed while it waited; it counts neither way.",
    );
  });

  it('says plainly when the edit is no longer known', () => {
    expect(new EditDecisions().lateClick('unknown')).toBe('Rung: this edit was already settled; this button does nothing now.');
  });

  it('keeps only the most recent edits it was told of', () => {
    const decisions = new EditDecisions(2);
    decisions.settled({ ...EDIT, callId: 'c1' }, 'accepted');
    decisions.settled({ ...EDIT, callId: 'c2' }, 'rejected');
    decisions.settled({ ...EDIT, callId: 'c3' }, 'rejected');
    expect(decisions.lateClick('c1')).toBe('Rung: this edit was already settled; this button does nothing now.');
    expect(decisions.lateClick('c3')).toMatch(/already rejected/);
  });
});
