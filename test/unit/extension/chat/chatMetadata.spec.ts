import { describe, expect, it } from 'vitest';
import type { Candidate, Tier } from '../../../../src/core/routing/types';
import { feedbackVerdict, hasStrongerRung, readMetadata, RETRY_VERDICT } from '../../../../src/extension/chat/chatMetadata';

function candidate(slug: string, tier: Tier, cost: number | null): Candidate {
  const local = tier < 4;
  return { slug, provider: local ? 'ollama' : 'cloud', spec: { slug, provider: local ? 'ollama' : 'cloud' }, tier, local, resolved: slug, ability: 0.5, graded: 0, ok: 0, measured: false, cost, reason: '' };
}

function answeredBy(model: string, candidates: Candidate[]): Parameters<typeof hasStrongerRung>[0] {
  return { answer: { text: 'a', reasoning: '', toolCalls: [], model, resolvedModel: model }, ranking: { classKey: 'chat', candidates, pruned: [] } };
}

describe('chat metadata', () => {
  it('reads back the metadata Rung wrote on an answer', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'edit', model: 'qwen3:14b', prompt: 'p', answer: 'a' })).toEqual({ callId: 'c1', classKey: 'edit', model: 'qwen3:14b', prompt: 'p', answer: 'a' });
  });

  it('remembers whether the answer had a stronger rung above it, and leaves it unknown on older answers', () => {
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: false })?.stronger).toBe(false);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: true })?.stronger).toBe(true);
    expect(readMetadata({ callId: 'c1', classKey: 'chat', model: 'mini', prompt: 'p', stronger: 'yes' })).not.toHaveProperty('stronger');
  });

  it('finds a stronger rung only where the ladder puts an eligible one above the answering model', () => {
    const ladder = [candidate('small', 1, 0), candidate('mid', 2, 0), candidate('cloud', 4, 0.002)];
    expect(hasStrongerRung(answeredBy('small', ladder))).toBe(true);
    expect(hasStrongerRung(answeredBy('cloud', ladder))).toBe(false);
    // The order of the ranking is not the ladder: a retry's ranking may put the top first.
    expect(hasStrongerRung(answeredBy('cloud', [ladder[2] as Candidate, ladder[0] as Candidate]))).toBe(false);
    expect(hasStrongerRung({ answer: undefined, ranking: { classKey: 'chat', candidates: ladder, pruned: [] } })).toBe(false);
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
