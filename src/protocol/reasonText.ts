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
    (ok, graded, cls, shape, own, gate) =>
      `${ok} of ${graded} graded answers passed in ${cls} (${shape} has ${own} of the ${gate} of its own it needs)`,
  ],
  [/^measured (\d+)\/(\d+) success class=(\S+)$/, (ok, graded, cls) => `${ok} of ${graded} graded answers passed in ${cls}`],
  [
    new RegExp(`^below gate (\\d+)/(\\d+) graded class=(\\S+), prior ${TIER}$`),
    (graded, gate, cls, tier, server) =>
      `${graded} of the ${gate} graded answers a rating needs in ${cls}: ${tierText(tier as string, server)}`,
  ],
  [
    /^pruned: measured 0\/(\d+) success class=(\S+), rated ([\d.]+) < ([\d.]+) against the calls' difficulty$/,
    (graded, cls, ability, floor) =>
      `pruned: none of ${graded} graded answers passed in ${cls}, and allowing for how hard those calls were it rates ${ability}, under the ${floor} a model needs`,
  ],
];

/** What a connection failure's code means, in words (transport.ts names these codes). */
const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'the name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};

/**
 * A provider's failure in plain words: `acme: no server at http://host (ECONNREFUSED)` becomes
 * `acme is unreachable (connection refused at http://host)`; any other reason keeps its words, named
 * once after its provider.
 */
export function providerDownText(provider: string, reason: string): string {
  const own = reason.startsWith(`${provider}: `) ? reason.slice(provider.length + 2) : reason;
  const noServer = /^no server at (\S+?)(?: \(([A-Z_]+)\))?$/.exec(own);
  if (noServer) {
    const code = noServer[2];
    return `${provider} is unreachable (${code ? `${CONNECTION_CODES[code] ?? code} at ` : 'nothing answers at '}${noServer[1]})`;
  }
  const cooling = /^cooling down after (429|\d{3}|a provider error) for (\d+) ms(?:: (.*))?$/.exec(own);
  if (cooling) {
    const seconds = Math.max(1, Math.round(Number(cooling[2]) / 1000));
    const after =
      cooling[1] === '429'
        ? 'it said it is busy (429)'
        : cooling[1] === 'a provider error'
          ? `it failed${cooling[3] ? ` (${cooling[3]})` : ''}`
          : `it failed with ${cooling[1]}`;
    return `${provider} is resting for ${seconds} s: ${after}`;
  }
  return `${provider} cannot answer now: ${own}`;
}

const PRESUMED = /, rated on its presumed prior -?[\d.]+ \(its own outcomes say little about it\)$/;

/** One reason of a candidate's, or a pruned model's (rank.ts), in plain words; an unknown one unchanged. */
export function plainReason(reason: string): string {
  // The router's note on an opener the user's wait moved (routing/router.ts, `openedForWaitReason`).
  const forWait = /^(.*); opened past (\S+) for the wait: (.*)$/.exec(reason);
  if (forWait) return `${plainReason(forWait[1] as string)}; opened here rather than on ${forWait[2]} to save your wait: ${forWait[3]}`;
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

/**
 * Whether a provider's health reason says it is down (no server, resting after failures), as against
 * not set up (no key), which the status bar leaves to Pick Model and the first-run message.
 */
export function isProviderDown(reason: string): boolean {
  return /(^|: )no server at |^cooling down after /.test(reason);
}

/** Why a model was left out for the moment (a provider down, the budget spent, a climb), in words. */
const MOMENTARY: [RegExp, (...groups: string[]) => string][] = [
  [/^pruned: provider (\S+) unavailable: (.*)$/, (provider, reason) => `${providerDownText(provider as string, reason as string)}`],
  [
    /^pruned: daily budget (\$[\d.]+) reached \((\$[\d.]+) spent today\)$/,
    (limit, spent) => `today's budget of ${limit} is spent (${spent} so far)`,
  ],
  [
    /^pruned: daily budget (\$[\d.]+) would be crossed: this attempt may cost up to (\$[\d.]+) \((\d+) tokens in, at most (\d+) out\), (\$[\d.]+) spent today$/,
    (limit, worst, input, output, spent) =>
      `it may cost up to ${worst} (${tokens(input)} tokens in, up to ${tokens(output)} out), which would take today's ${spent} past the budget of ${limit}`,
  ],
  [
    /^pruned: answer ceiling (\$[\d.]+) would be crossed: this attempt may cost up to (\$[\d.]+) \((\d+) tokens in, at most (\d+) out\)(?:, (\$[\d.]+) spent on this answer)?$/,
    (ceiling, worst, input, output, spent) =>
      `it may cost up to ${worst} (${tokens(input)} tokens in, up to ${tokens(output)} out)${spent ? ` on top of the ${spent} this answer has cost` : ''}, more than the ${ceiling} one answer may cost`,
  ],
  [
    /^pruned: answer ceiling (\$[\d.]+) reached \((\$[\d.]+) spent on this answer\)$/,
    (ceiling, spent) => `this answer has cost ${spent}, the ${ceiling} one answer may cost`,
  ],
  [/^pruned: not above (.+) on the ladder \(a stronger model was asked for\)$/, (model) => `a model stronger than ${model} was asked for`],
];

/** A token count as a reader reads it: `18,000`. */
function tokens(count: string): string {
  return Number(count).toLocaleString('en-US');
}

/** Whether a pruned model's reason is a spending limit (the daily budget, the ceiling on one answer). */
export function isSpendLimitReason(reason: string): boolean {
  return /^(?:pruned: )?(?:daily budget|answer ceiling) \$[\d.]+ (?:reached|would be crossed)/.test(reason);
}

/**
 * A pruned model's reason for a place that shows what can answer now (Pick Model, the status bar, a
 * refused retry): a provider down, the budget spent or a climb in words, and any other reason as
 * {@link plainReason} says it.
 */
export function plainPrunedReason(reason: string): string {
  for (const [pattern, words] of MOMENTARY) {
    const match = pattern.exec(reason);
    if (match) return words(...match.slice(1).map((group) => group ?? ''));
  }
  return plainReason(reason);
}

/** A share of calls as a whole percent, never rounded to 0% or 100% when it is neither. */
function shareText(share: number): string {
  if (share > 0 && share < 0.01) return 'under 1%';
  if (share < 1 && share > 0.99) return 'over 99%';
  return `${Math.round(share * 100)}%`;
}

/**
 * How a call's first model was chosen, in words, from its decision row's explore flag and propensity
 * (the probability the router had of opening with that model).
 *
 * @remarks
 * The ledger view said "Greedy opener, propensity 1.00", which reads as statistics jargon; a user wants
 * to know whether this was the usual pick and, when the router explores, how often it tries another
 * model to learn about it. The figures are the row's own: a certain opener (propensity 1) is said
 * without one, since "100%" would suggest a draw that never happened.
 */
export function openerChoiceText(explore: boolean, propensity: number): string {
  if (explore)
    return `Explored: tried first to learn how it does, which happens on ${shareText(propensity)} of such calls; the rest open with the usual first choice.`;
  if (propensity >= 1) return 'The first choice for every such call (no exploration).';
  return `The usual first choice, taken on ${shareText(propensity)} of such calls; the other ${shareText(1 - propensity)} try another model to learn about it.`;
}
