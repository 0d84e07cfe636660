import { describe, expect, it } from 'vitest';
import {
  AnswersGiven,
  EDIT_WATCH_MS,
  editTakenBackNotice,
  EditWatch,
  FEEDBACK_VERDICTS,
  FEEDBACK_WEIGHT,
  inlineEditNotice,
  saysWrong,
} from '../../../../src/extension/calls/feedback';

describe('a follow-up that says the answer was wrong', () => {
  it('is read from a short list of openings', () => {
    for (const words of [
      "That's wrong.",
      'No, that is not right',
      'this is incorrect',
      "It doesn't work",
      'That did not compile',
      'Still broken',
      'Wrong answer!',
      'Incorrect.',
      'Your code is wrong',
      'no. it was still wrong',
    ])
      expect(saysWrong(words), words).toBe(true);
  });

  it('is not read into a question, a fault elsewhere, or a word in passing', () => {
    for (const words of [
      'Is this wrong?',
      'The test is wrong, fix it',
      'What is wrong with my code?',
      'Why does it not work on Windows?',
      'Thanks, that works',
      'Nothing is wrong here',
      'wrongly named variable',
    ])
      expect(saysWrong(words), words).toBe(false);
  });

  it('is graded as a failure at a lower weight than a check', () => {
    expect(FEEDBACK_WEIGHT).toBeLessThan(1);
    expect(FEEDBACK_WEIGHT).toBeGreaterThan(0);
    for (const verdict of Object.values(FEEDBACK_VERDICTS)) expect(verdict).toMatchObject({ kind: 'fail', weight: FEEDBACK_WEIGHT });
  });
});

describe('the answers Rung gave', () => {
  it("are found from the turn the editor sends back: with failed rungs' text before it and the closing line after", () => {
    const given = new AnswersGiven();
    given.remember({ callId: 'c1', model: 'tiny', stronger: true }, 'Six times seven is 42.');
    given.remember({ callId: 'c2', model: 'strong', stronger: false }, '{"steps": ["read", "write"]}');
    const shown =
      'Sure! Here is a plan.\n\n---\n*Rung: tiny failed its check (no JSON); strong answers instead.*\n\n{"steps": ["read", "write"]}\n\nRung · strong · rung 2 of 2 · checked: JSON · $0.0002';
    expect(given.find(shown)).toEqual({ callId: 'c2', model: 'strong', stronger: false });
    expect(given.find('Six times seven is 42.\n\nRung · tiny · rung 1 of 2 · unchecked · $0')).toEqual({
      callId: 'c1',
      model: 'tiny',
      stronger: true,
    });
    expect(given.find('Some other answer entirely.')).toBeUndefined();
  });

  it('are not matched on a few characters, which many answers end with', () => {
    const given = new AnswersGiven();
    given.remember({ callId: 'c1', model: 'tiny', stronger: true }, 'Done.');
    expect(given.find('All of it is Done.')).toBeUndefined();
  });
});

describe('an inline edit taken back', () => {
  it('is the file going back to its text before the edit, after the edit arrived', () => {
    let now = 0;
    const watch = new EditWatch(() => now);
    watch.watch('file:///a.ts', 'c1', 'before');
    expect(watch.changed('file:///a.ts', 'before')).toBeUndefined();
    expect(watch.changed('file:///a.ts', 'after, part')).toBeUndefined();
    expect(watch.changed('file:///a.ts', 'after, whole')).toBeUndefined();
    expect(watch.changed('file:///b.ts', 'before')).toBeUndefined();
    now += 1_000;
    expect(watch.changed('file:///a.ts', 'before')).toBe('c1');
    // Once: a second undo to the same text settles nothing more.
    expect(watch.changed('file:///a.ts', 'after, whole')).toBeUndefined();
    expect(watch.changed('file:///a.ts', 'before')).toBeUndefined();
  });

  it('is not read once the watch is over, or for an edit another answer replaced', () => {
    let now = 0;
    const watch = new EditWatch(() => now);
    watch.watch('file:///a.ts', 'c1', 'before');
    watch.changed('file:///a.ts', 'after');
    now += EDIT_WATCH_MS + 1;
    expect(watch.changed('file:///a.ts', 'before')).toBeUndefined();
    watch.watch('file:///a.ts', 'c2', 'before');
    watch.changed('file:///a.ts', 'after');
    watch.watch('file:///a.ts', 'c3', 'after');
    expect(watch.changed('file:///a.ts', 'before')).toBeUndefined();
  });
});

describe('what inline chat says of an edit', () => {
  it('says the short line and what Undo counts as once the edit is in, and what it counted as once taken back', () => {
    expect(inlineEditNotice('Rung · strong · 2nd try, after tiny failed its check · checked: tool call · $0.0005', 'strong')).toBe(
      "Rung · strong · 2nd try, after tiny failed its check · checked: tool call · $0.0005. Undo counts as a failed answer for strong, at half a check's weight.",
    );
    expect(editTakenBackNotice('strong', 'greeting.ts')).toBe(
      "Rung: strong's edit to greeting.ts was taken back; it counts as a failed answer for strong, at half a check's weight.",
    );
  });
});
