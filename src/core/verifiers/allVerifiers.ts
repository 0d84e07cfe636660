/**
 * Several checks on one answer read as one: any failure fails it, any pass with no failure passes it,
 * and only when none of them could judge is it `unverified`.
 *
 * @remarks
 * A schema check that passed and a test command that timed out still make a checked answer: one
 * verifier saw it and found it good. The reasons are joined so the decision log shows every check.
 */
import type { Answer, Check, Verifier } from './verifier';

export class AllVerifiers implements Verifier {
  readonly name: string;
  private readonly verifiers: readonly Verifier[];

  constructor(options: { verifiers: readonly Verifier[] }) {
    this.verifiers = options.verifiers;
    this.name = options.verifiers.map((verifier) => verifier.name).join('+') || 'none';
  }

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    if (this.verifiers.length === 0) return { verdict: 'unverified', reason: 'no verifier configured' };
    const checks: { name: string; check: Check }[] = [];
    for (const verifier of this.verifiers) {
      const check = await verifier.verify(answer, signal);
      checks.push({ name: verifier.name, check });
      // A failure is already the verdict; a slow test command need not run after a broken schema.
      if (check.verdict === 'fail') break;
    }
    const failed = checks.find((entry) => entry.check.verdict === 'fail');
    const verdict = failed ? 'fail' : checks.some((entry) => entry.check.verdict === 'pass') ? 'pass' : 'unverified';
    const reason = this.verifiers.length === 1 ? (checks[0] as { check: Check }).check.reason : checks.map((entry) => `${entry.name}: ${entry.check.reason}`).join('; ');
    return { verdict, reason };
  }
}
