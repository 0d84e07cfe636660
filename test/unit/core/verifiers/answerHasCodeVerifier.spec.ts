import { describe, expect, it } from 'vitest';
import { AnswerHasCodeVerifier } from '../../../../src/core/verifiers/answerHasCodeVerifier';

const answer = (text: string, toolCalls: { id: string; name: string; arguments: string }[] = []) => ({
  text,
  toolCalls,
  model: 'qwen2.5:3b',
});

describe('AnswerHasCodeVerifier', () => {
  it('fails an edit answered in prose', async () => {
    expect(await new AnswerHasCodeVerifier().verify(answer('You could rename the variable to `total`.'))).toEqual({
      verdict: 'fail',
      reason: 'the edit has neither a code block nor a tool call',
    });
  });

  it('passes an edit with a code block of any language, or made with a tool call', async () => {
    expect((await new AnswerHasCodeVerifier().verify(answer('```python\ntotal = 0\n```'))).verdict).toBe('pass');
    expect(
      (await new AnswerHasCodeVerifier().verify(answer('', [{ id: 'c1', name: 'replace_string_in_file', arguments: '{}' }]))).verdict,
    ).toBe('pass');
  });
});
