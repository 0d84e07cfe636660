import { describe, expect, it } from 'vitest';
import { feedbackVerdict, followupsFor, readMetadata, RETRY_VERDICT } from '../../../../src/extension/chat/chatMetadata';

describe('chat metadata', () => {
  it('reads back the metadata Rung wrote on an answer', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'edit', model: 'qwen3:14b', prompt: 'p', answer: 'a' })).toEqual({
      callId: 'c1',
      classKey: 'edit',
      model: 'qwen3:14b',
      prompt: 'p',
      answer: 'a',
    });
  });

  it('remembers whether the answer had a stronger rung above it, and leaves it unknown on older answers', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: false })?.stronger).toBe(false);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: true })?.stronger).toBe(true);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: 'yes' })).not.toHaveProperty('stronger');
  });

  it('ignores metadata of another shape instead of settling a call it cannot name', () => {
    expect(readMetadata(undefined)).toBeUndefined();
    expect(readMetadata({ callId: 7, classKey: 'edit', prompt: 'p' })).toBeUndefined();
    expect(readMetadata({ callId: 'c1', classKey: 'edit', prompt: 'p', model: 3 })).toEqual({
      callId: 'c1',
      classKey: 'edit',
      model: undefined,
      prompt: 'p',
      answer: '',
    });
  });

  it("reads back where an /edit's answer goes, so a retry checks it in its file, and drops a target of another shape", () => {
    const edit = { uri: 'file:///w/a.ts', digest: 'abc', start: 0, end: 10, languageId: 'typescript' };
    expect(readMetadata({ callId: 'c1', classKey: 'edit', prompt: 'p', edit })?.edit).toEqual(edit);
    expect(readMetadata({ callId: 'c1', classKey: 'edit', prompt: 'p', edit: { ...edit, end: -1 } })).not.toHaveProperty('edit');
    expect(readMetadata({ callId: 'c1', classKey: 'edit', prompt: 'p', edit: 'a.ts' })).not.toHaveProperty('edit');
  });

  it('turns thumbs up into a pass and thumbs down into a fail, saying it was the user', () => {
    expect(feedbackVerdict(true)).toEqual({ kind: 'pass', reason: 'the user marked the answer helpful' });
    expect(feedbackVerdict(false)).toEqual({ kind: 'fail', reason: 'the user marked the answer unhelpful' });
    expect(RETRY_VERDICT.kind).toBe('fail');
  });
});

describe('what is offered under an @rung answer', () => {
  const answered = { callId: 'c1', classKey: 'chat', model: 'tiny', prompt: 'p', answer: 'a', stronger: true };

  it("offers a stronger model's verdict for an unchecked answer, beside the graded retry", () => {
    expect(followupsFor({ ...answered, checked: false })).toEqual([
      { command: 'check', label: 'Have a stronger model judge this answer' },
      { command: 'retry', label: 'Retry with a stronger model than tiny' },
    ]);
  });

  it('offers only the retry for a checked answer, and nothing without a stronger rung or an answer', () => {
    expect(followupsFor({ ...answered, checked: true })).toEqual([{ command: 'retry', label: 'Retry with a stronger model than tiny' }]);
    expect(followupsFor({ ...answered, checked: false, stronger: false })).toEqual([]);
    expect(followupsFor({ ...answered, model: undefined })).toEqual([]);
    expect(followupsFor(undefined)).toEqual([]);
  });

  it("offers the stronger model's own answer only after a verdict of wrong", () => {
    expect(followupsFor({ ...answered, checked: true, judged: 'wrong' })).toEqual([
      { command: 'retry', label: 'Ask a model stronger than tiny for its answer' },
    ]);
    expect(followupsFor({ ...answered, checked: true, judged: 'right' })).toEqual([]);
    expect(readMetadata({ ...answered, judged: 'wrong' })?.judged).toBe('wrong');
    expect(readMetadata({ ...answered, judged: 'maybe' })).not.toHaveProperty('judged');
  });

  it('reads back whether the answer was checked and the system message it was sent with', () => {
    expect(readMetadata({ ...answered, checked: false, system: 'You edit code.' })).toMatchObject({
      checked: false,
      system: 'You edit code.',
    });
    expect(readMetadata({ ...answered, checked: 'no', system: 3 })).not.toHaveProperty('checked');
  });
});
