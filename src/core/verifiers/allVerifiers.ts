/**
 * Several checks on one answer read as one: any failure fails it, any pass with no failure passes it,
 * and only when none of them could judge is it `unverified`.
 *
 * @remarks
 * A schema check that passed and a test command that timed out still make a checked answer: one
 * verifier saw it and found it good. The reasons are joined, each after the check's name in words, so
 * the decision log shows every check; and the checks that judged (passed or failed: a check that could
 * not judge did not) are listed, so a front end can say "checked: JSON" or "unchecked" without knowing
 * which verifiers ran.
 */
import type { Answer, Check, Verifier } from './verifier';

export class AllVerifiers implements Verifier {
  readonly name: string;
  /** Each check that judges a text answer, in words, in the order they run: what a front end names before the text arrives. */
  readonly labels: string[];
  private readonly verifiers: readonly Verifier[];

  constructor(options: { verifiers: readonly Verifier[] }) {
    this.verifiers = options.verifiers;
    this.name = options.verifiers.map((verifier) => verifier.name).join('+') || 'none';
    this.labels = options.verifiers.filter((verifier) => verifier.judgesText !== false).map((verifier) => verifier.label ?? verifier.name);
  }

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    if (this.verifiers.length === 0) return { verdict: 'unverified', reason: 'no verifier configured', checks: [] };
    const checks: { verifier: Verifier; check: Check }[] = [];
    for (const verifier of this.verifiers) {
      const check = await verifier.verify(answer, signal);
      checks.push({ verifier, check });
      // A failure is already the verdict; a slow test command need not run after a broken schema.
      if (check.verdict === 'fail') break;
    }
    const failed = checks.find((entry) => entry.check.verdict === 'fail');
    const verdict = failed ? 'fail' : checks.some((entry) => entry.check.verdict === 'pass') ? 'pass' : 'unverified';
    const reason =
      this.verifiers.length === 1
        ? (checks[0] as { check: Check }).check.reason
        : checks.map((entry) => `${words(entry).join(', ')}: ${entry.check.reason}`).join('; ');
    return { verdict, reason, checks: [...new Set(checks.flatMap((entry) => (entry.check.verdict === 'unverified' ? [] : words(entry))))] };
  }
}

/** What a check is called in words: what it says judged the answer, else its label, else its name. */
function words({ verifier, check }: { verifier: Verifier; check: Check }): string[] {
  return check.checks ?? [verifier.label ?? verifier.name];
}
