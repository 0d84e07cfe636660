import { describe, expect, it } from 'vitest';
import { feedbackVerdict, readMetadata, RETRY_VERDICT } from '../../../../src/extension/chat/chatMetadata';

describe('chat metadata', () => {
  it('reads back the metadata Rung wrote on an answer', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'edit', model: 'qwen3:14b', prompt: 'p', answer: 'a' })).toEqual({ callId: 'c1', classKey: 'edit', model: 'qwen3:14b', prompt: 'p', answer: 'a' });
  });

  it('remembers whether the answer had a stronger rung above it, and leaves it unknown on older answers', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: false })?.stronger).toBe(false);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: true })?.stronger).toBe(true);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: 'yes' })).not.toHaveProperty('stronger');
  });

  it('ignores metadata of another shape instead of settling a call it cannot name', () => {
    expect(readMetadata(undefined)).toBeUndefined();
    expect(readMetadata({ callId: 7, classKey: 'edit', prompt: 'p' })).toBeUndefined();
    expect(readMetadata({ callId: 'c1', classKey: 'edit', prompt: 'p', model: 3 })).toEqual({ callId: 'c1', classKey: 'edit', model: undefined, prompt: 'p', answer: '' });
  });

  it('turns thumbs up into a pass and thumbs down into a fail, saying it was the user', () => {
    expect(feedbackVerdict(true)).toEqual({ kind: 'pass', reason: 'the user marked the answer helpful' });
    expect(feedbackVerdict(false)).toEqual({ kind: 'fail', reason: 'the user marked the answer unhelpful' });
    expect(RETRY_VERDICT.kind).toBe('fail');
  });
});
