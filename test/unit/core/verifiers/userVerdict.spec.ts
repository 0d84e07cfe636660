import { describe, expect, it } from 'vitest';
import { AllVerifiers } from '../../../../src/core/verifiers/allVerifiers';
import { userVerdict, UserVerdictVerifier, type UserFeedback } from '../../../../src/core/verifiers/userVerdict';
import type { Answer, Check, Verifier } from '../../../../src/core/verifiers/verifier';

const answer: Answer = { text: 'an edit', toolCalls: [], model: 'qwen3:14b' };

/** A verifier that says what it is told to. */
class FixedVerifier implements Verifier {
  calls = 0;
  constructor(
    readonly name: string,
    private readonly check: Check,
    readonly label?: string,
  ) {}
  async verify(): Promise<Check> {
    this.calls++;
    return this.check;
  }
}

describe('userVerdict', () => {
  it('reads thumbs down, retry-stronger and a discarded edit as failures, an accepted edit as a pass', () => {
    const verdicts = (['thumbs-down', 'retry-stronger', 'edit-discarded', 'edit-accepted', 'thumbs-up'] as UserFeedback[]).map(
      (feedback) => userVerdict(feedback).verdict,
    );
    expect(verdicts).toEqual(['fail', 'fail', 'fail', 'pass', 'pass']);
    expect(userVerdict('retry-stronger').reason).toBe('the user asked to retry with a stronger model');
  });

  it('calls an answer the user said nothing about unverified', async () => {
    const verifier = new UserVerdictVerifier({ feedback: async () => undefined });
    expect(await verifier.verify(answer)).toEqual({ verdict: 'unverified', reason: 'the user gave no feedback' });
    const stronger = new UserVerdictVerifier({ feedback: async () => 'retry-stronger' });
    expect((await stronger.verify(answer)).verdict).toBe('fail');
  });
});

describe('AllVerifiers', () => {
  it('fails on the first failure and does not run the checks after it', async () => {
    const later = new FixedVerifier('command', { verdict: 'pass', reason: 'exited 0' });
    const check = await new AllVerifiers({
      verifiers: [new FixedVerifier('structured-output', { verdict: 'fail', reason: 'no JSON' }), later],
    }).verify(answer);
    expect(check).toEqual({ verdict: 'fail', reason: 'structured-output: no JSON', checks: ['structured-output'] });
    expect(later.calls).toBe(0);
  });

  it('passes when one check passed and the others could not judge', async () => {
    const check = await new AllVerifiers({
      verifiers: [
        new FixedVerifier('structured-output', { verdict: 'pass', reason: 'matches' }),
        new FixedVerifier('command', { verdict: 'unverified', reason: 'timed out' }),
      ],
    }).verify(answer);
    expect(check).toEqual({ verdict: 'pass', reason: 'structured-output: matches; command: timed out', checks: ['structured-output'] });
  });

  it('calls an answer with no verifier unverified', async () => {
    expect(await new AllVerifiers({ verifiers: [] }).verify(answer)).toEqual({
      verdict: 'unverified',
      reason: 'no verifier configured',
      checks: [],
    });
  });

  it('names in words the checks that judged the answer, by what each said judged it, else its label, and leaves out those that could not judge', async () => {
    const check = await new AllVerifiers({
      verifiers: [
        new FixedVerifier('json', { verdict: 'pass', reason: 'valid JSON (the whole answer)' }, 'JSON'),
        new FixedVerifier(
          'code-syntax',
          { verdict: 'pass', reason: '2 code blocks parse', checks: ['TypeScript syntax', 'JSON syntax'] },
          'code syntax',
        ),
        new FixedVerifier('command', { verdict: 'unverified', reason: 'timed out' }, 'workspace command `npm test`'),
        new FixedVerifier('again', { verdict: 'pass', reason: 'still valid' }, 'JSON'),
      ],
    }).verify(answer);
    expect(check).toEqual({
      verdict: 'pass',
      reason:
        'JSON: valid JSON (the whole answer); TypeScript syntax, JSON syntax: 2 code blocks parse; workspace command `npm test`: timed out; JSON: still valid',
      checks: ['JSON', 'TypeScript syntax', 'JSON syntax'],
    });
  });

  it('names no check when none could judge', async () => {
    const check = await new AllVerifiers({
      verifiers: [new FixedVerifier('code-syntax', { verdict: 'unverified', reason: 'no block' }, 'code syntax')],
    }).verify(answer);
    expect(check).toEqual({ verdict: 'unverified', reason: 'no block', checks: [] });
  });
});
