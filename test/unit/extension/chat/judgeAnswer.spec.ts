import { describe, expect, it } from 'vitest';
import { JUDGE_WEIGHT, judgedVerdict, judgeMessages, judgementMarkdown, readJudgement } from '../../../../src/extension/chat/judgeAnswer';

describe('a stronger model judging an answer', () => {
  it('is shown the question and the answer, and asked for a verdict rather than an answer of its own', () => {
    const [system, user] = judgeMessages('What is six times seven?', 'Six times seven is 48.');
    expect(system?.content).toMatch(/Do not write an answer of your own/);
    expect(user?.content).toBe('<question>\nWhat is six times seven?\n</question>\n\n<answer>\nSix times seven is 48.\n</answer>');
    expect(judgeMessages('q', 'a', 'You edit code.')[1]?.content).toMatch(
      /^The assistant was instructed:\n<instructions>\nYou edit code\./,
    );
  });

  it('reads the verdict from JSON, alone or in a fence, and nothing else', () => {
    expect(readJudgement('{"verdict": "wrong", "reason": "6 × 7 is 42, not 48."}')).toEqual({
      right: false,
      reason: '6 × 7 is 42, not 48.',
    });
    expect(readJudgement('```json\n{"verdict":"right","reason":"It is 42."}\n```')).toEqual({ right: true, reason: 'It is 42.' });
    expect(readJudgement('{"verdict": "maybe"}')).toBeUndefined();
    expect(readJudgement('It looks right to me.')).toBeUndefined();
  });

  it('grades the judged answer at the stated weight, naming the judge and why', () => {
    expect(judgedVerdict({ right: false, reason: '6 × 7 is 42.' }, 'test/strong-model')).toEqual({
      kind: 'fail',
      reason: 'judged wrong by test/strong-model: 6 × 7 is 42.',
      weight: JUDGE_WEIGHT,
    });
    expect(JUDGE_WEIGHT).toBe(0.75);
  });

  it('says what the verdict did, and offers the stronger answer only for a wrong one', () => {
    expect(judgementMarkdown({ right: false, reason: '6 × 7 is 42.' }, 'test/strong-model', 'tiny-coder:1b')).toBe(
      "**Judged wrong** by test/strong-model: 6 × 7 is 42.\n\ntiny-coder:1b's answer counts as failed at weight 0.75. Ask test/strong-model for its own answer below.",
    );
    expect(judgementMarkdown({ right: true, reason: 'It is 42.' }, 'test/strong-model', 'tiny-coder:1b')).toBe(
      "**Judged right** by test/strong-model: It is 42.\n\ntiny-coder:1b's answer counts as passed at weight 0.75; nothing more to ask.",
    );
  });
});
