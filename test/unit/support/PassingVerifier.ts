import type { Answer, Check, Verifier } from '../../../src/core/verifiers/verifier';

/** A verifier that would pass anything, and keeps every answer it was asked about: whether a check was asked at all is what the attempt specs assert. */
export class PassingVerifier implements Verifier {
  readonly name = 'passing';
  asked: Answer[] = [];

  async verify(answer: Answer): Promise<Check> {
    this.asked.push(answer);
    return { verdict: 'pass', reason: 'anything passes' };
  }
}
