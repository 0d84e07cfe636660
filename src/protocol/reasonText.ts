/**
 * The router's reasons in plain words, for the places a user reads them in passing: the chat's progress
 * and closing lines, the model picker, the ledger view's "Why the opener".
 *
 * @remarks
 * The router writes its reasons in the SPEC's terse vocabulary (`no-measured-profiles tier1`, `measured
 * 12/13 success class=edit`), and those strings stay as they are in the decision log, the Rung log and
 * Explain Last Decision: they are the record, and a log reader greps them. Read in a chat footer they looked like
 * an internal error code, so the front ends say the same facts in words and keep the record's wording
 * where the user can reach it (the ledger view's tooltip). A reason this does not know is returned unchanged,
 * so a new reason is never hidden, only left terse.
 */

/** What each tier of the ladder is (routing/ladder.ts, `tierOf`). */
const TIERS: Record<string, string> = {
  '1': 'a small local model',
  '2': 'a mid-sized local model',
  '3': 'a large local model',
  '4': 'a cloud model',
};

/** `tier2` or `tier1 (local server 127.0.0.1:11434)` as words. */
function tierText(tier: string, server: string | undefined): string {
  const what = TIERS[tier];
  if (!what) return `ladder tier ${tier}`;
  return `${what}${server ? ` on ${server}` : ''} (ladder tier ${tier})`;
}

const TIER = String.raw`tier(\d+)(?: \(local server ([^)]+)\))?`;
const PATTERNS: [RegExp, (...groups: string[]) => string][] = [
  [new RegExp(`^no-measured-profiles ${TIER}$`), (tier, server) => `not yet graded in this class: ${tierText(tier as string, server)}`],
  [
    /^measured (\d+)\/(\d+) success class=(\S+) \((\S+): (\d+)\/(\d+) graded\)$/,
    (ok, graded, cls, shape, own, gate) => `${ok} of ${graded} graded answers passed in ${cls} (${shape} has ${own} of the ${gate} of its own it needs)`,
  ],
  [/^measured (\d+)\/(\d+) success class=(\S+)$/, (ok, graded, cls) => `${ok} of ${graded} graded answers passed in ${cls}`],
  [
    new RegExp(`^below gate (\\d+)/(\\d+) graded class=(\\S+), prior ${TIER}$`),
    (graded, gate, cls, tier, server) => `${graded} of the ${gate} graded answers a rating needs in ${cls}: ${tierText(tier as string, server)}`,
  ],
  [
    /^pruned: measured 0\/(\d+) success class=(\S+), rated ([\d.]+) < ([\d.]+) against the calls' difficulty$/,
    (graded, cls, ability, floor) => `pruned: none of ${graded} graded answers passed in ${cls}, and allowing for how hard those calls were it rates ${ability}, under the ${floor} a model needs`,
  ],
];

const PRESUMED = /, rated on its presumed prior -?[\d.]+ \(its own outcomes say little about it\)$/;

/** One reason of a candidate's, or a pruned model's (rank.ts), in plain words; an unknown one unchanged. */
export function plainReason(reason: string): string {
  const pinned = /^pinned by the user; (.*)$/.exec(reason);
  if (pinned) return `pinned by you; ${plainReason(pinned[1] as string)}`;
  const avoided = /^(.*); moved off the opener \(avoid\)$/.exec(reason);
  if (avoided) return `${plainReason(avoided[1] as string)}; moved off the opener because you avoid it`;
  const presumed = PRESUMED.exec(reason);
  const core = presumed ? reason.slice(0, presumed.index) : reason;
  const after = presumed ? ', rated as able as the best cheaper model until its own answers say more' : '';
  for (const [pattern, words] of PATTERNS) {
    const match = pattern.exec(core);
    if (match) return `${words(...match.slice(1).map((group) => group ?? ''))}${after}`;
  }
  return reason;
}
