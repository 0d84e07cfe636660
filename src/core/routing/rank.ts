/**
 * Ranking: one walk over one eligible chain, with a reason for every candidate kept and every one dropped.
 *
 * @remarks
 * `rank` is pure. It reads a snapshot of the ledger and the panel, changes nothing, calls no model and
 * never waits on disk or network. The chain is built once and every violator is dropped *in the walk*
 * — never pre-filtered — so a provider that is capped or down still appears in the decision log with
 * the reason it was passed over. The origin system's diversity caps broke exactly when an
 * implementation filtered providers out before ordering: the reasons vanished with them.
 */
import { modelOwners, ownAlias, type ModelOwners } from './ownAlias';
import { capsFor, type ModelSpec, type Panel } from '../panel';
import type { ModelFacts } from '../providers/provider';
import type { ProviderHealth } from '../providers/health';
import type { LedgerSnapshot } from '../ledger/ledger';
import { ability, MIN_GRADED, rolePrior } from '../ratings';
import { hasEvidence, standing, type Standing } from './standing';
import type { PrunedCandidate } from '../decisions/decision';
import { isLocal, localServerHost } from '../providers/locality';
import { tierOf } from './ladder';
import { knownPrice, type CallPricer } from './pricing';
import { spendLimitCause } from './spendLimits';
import type { Candidate, RankedOut, Ranking, RouteRequest } from './types';

export interface RankInput {
  request: RouteRequest;
  panel: Panel;
  snapshot: LedgerSnapshot;
  health: ProviderHealth;
  /** ms since the epoch; decides provider cool-downs. */
  now: number;
  /** What providers said about their models (parameter sizes, catalog prices, context windows). */
  facts: ReadonlyMap<string, ModelFacts>;
  pricer: CallPricer;
  /** Providers that served the earlier calls of this request's scope (its run id), oldest first. */
  history: readonly string[];
}

/** A request that cannot be routed at all, for a reason the user can act on. */
export class RoutingError extends Error {
  constructor(
    message: string,
    readonly pruned: PrunedCandidate[] = [],
  ) {
    super(message);
    this.name = 'RoutingError';
  }
}

/**
 * A model with no success in a class is excluded only when its rating, which scores each failure against
 * how hard the call proved for every rung that tried it, also says it cannot do the work: below this
 * chance of success on a call of average difficulty.
 *
 * @remarks
 * Zero successes alone came from a router that escalated between runs, where a model's 8 calls were
 * ordinary ones. In a cascade a dear model sees only calls every cheaper rung failed; on the recorded
 * test split llama3.1-405b failed its first 8 truthfulqa calls that way and was never tried again,
 * though it answers 69% of that family. Its rating after those failures was −0.26 (ability 0.44): the
 * paired evidence knew those calls were hard. A model that opens 8 calls and fails each one the next
 * rung passes is rated −1.34 (ability 0.21) and is still excluded after its 8th failure.
 */
export const INCAPABLE_ABILITY = 0.25;

interface Scored extends Candidate {
  index: number;
  sortCost: number;
}

export function rank(input: RankInput): Ranking {
  const { request, panel, snapshot } = input;
  const classKey = request.classKey;
  const models = chainModels(panel, request.pinned);
  const coldStart = !hasEvidence(snapshot, classKey);

  // Who else claims a model matters only where a slug resolved to another name: worked out then, once.
  let owners: ModelOwners | undefined;
  const ownersOf = (): ModelOwners => (owners ??= modelOwners(panel, snapshot));
  const scored = models.map((spec, index) => score(spec, index, input, coldStart, ownersOf));
  // The ladder keeps ordering until some rating has passed the gate: switching to expected cost on the
  // first graded observation would let one outcome, pass or fail, reorder the whole class.
  scored.sort(scored.some((candidate) => candidate.measured) ? byExpectedCost : byLadder);
  const ordered = placePreferences(scored, request);

  const strict = panel.routing.requireEvidence && ordered.some((candidate) => candidate.measured);
  const caps = capsFor(panel, classKey);
  // A model off the panel has no place on its ladder, so there is nothing to climb past.
  const floor = request.above === undefined ? undefined : scored.find((candidate) => candidate.slug === request.above);
  const candidates: Candidate[] = [];
  const pruned: RankedOut[] = [];
  for (const candidate of ordered) {
    const cause =
      pruneCause(candidate, input, caps, strict) ??
      (floor && !aboveOnLadder(candidate, floor) ? `not above ${floor.slug} on the ladder (a stronger model was asked for)` : null);
    // The logged reason keeps the SPEC's vocabulary (`pruned: needs tools`); the cause alone is for
    // front ends that already say "pruned".
    if (cause) pruned.push({ model: candidate.slug, reason: `pruned: ${cause}`, cause });
    else candidates.push(strip(candidate));
  }
  return { classKey, candidates, pruned };
}

function chainModels(panel: Panel, pinned: RouteRequest['pinned']): ModelSpec[] {
  if (pinned === undefined) return panel.models;
  if (typeof pinned === 'string') {
    if (!panel.models.some((model) => model.slug === pinned)) {
      throw new RoutingError(`the pinned model "${pinned}" is not on the panel; pick it from a provider's list to add it`);
    }
    return panel.models;
  }
  // A pinned model joins the panel when absent, so a picker may name any model and keep the panel's
  // later rungs as fallbacks.
  return panel.models.some((model) => model.slug === pinned.slug) ? panel.models : [...panel.models, pinned];
}

/** The reason's note that a measured rating stands on the prior presumed from the cheaper rungs, or nothing. */
function onPrior(presumed: Standing['presumed']): string {
  return presumed === undefined ? '' : `, rated on its presumed prior ${presumed.prior.toFixed(2)} (its own outcomes say little about it)`;
}

function score(spec: ModelSpec, index: number, input: RankInput, coldStart: boolean, owners: () => ModelOwners): Scored {
  const { snapshot, panel, request } = input;
  const config = panel.providers[spec.provider];
  const facts = input.facts.get(spec.slug);
  const local = isLocal(config);
  const tier = tierOf(spec, config, facts);
  // A local server's tier is why it opens ahead of the cloud, so the reason names the server it stands on.
  const server = localServerHost(config);
  const onTier = server === undefined ? `tier${tier}` : `tier${tier} (local server ${server})`;
  // An alias another provider's model holds (one a provider claimed before this was checked) is not this slug's.
  const claimed = snapshot.resolve(spec.slug);
  const resolved = claimed === spec.slug ? claimed : ownAlias(spec.slug, spec.provider, claimed, owners());
  const { rating, graded, ok, measured, key, ownGraded, presumed } = standing(snapshot, resolved, request.classKey);
  // Below the gate the prior orders, whatever the rating says: five failures on one oversized task once
  // rerouted a whole panel.
  const p = ability(measured && rating !== undefined ? rating : rolePrior(spec.role));
  const cost = input.pricer(spec, local, request);
  let reason: string;
  if (coldStart) reason = `no-measured-profiles ${onTier}`;
  else if (measured && key === request.classKey) reason = `measured ${ok}/${graded} success class=${key}${onPrior(presumed)}`;
  else if (measured)
    reason = `measured ${ok}/${graded} success class=${key} (${request.classKey}: ${ownGraded}/${MIN_GRADED} graded)${onPrior(presumed)}`;
  else reason = `below gate ${graded}/${MIN_GRADED} graded class=${request.classKey}, prior ${onTier}`;
  return {
    slug: spec.slug,
    provider: spec.provider,
    spec,
    tier,
    local,
    resolved,
    ability: p,
    graded,
    ok,
    measured,
    cost,
    reason,
    index,
    // An unknown price sorts after every known one; it is not a reason to drop the model.
    sortCost: cost === null ? Number.POSITIVE_INFINITY : cost / p,
  };
}

function byLadder(a: Scored, b: Scored): number {
  return a.tier - b.tier || compareCost(a.cost, b.cost) || a.index - b.index;
}

/**
 * Whether the ladder puts `candidate` above `than`: a higher tier, or a dearer model of the same tier
 * (an unknown price counts as the dearest, as the ladder sorts it).
 */
export function aboveOnLadder(candidate: Pick<Candidate, 'tier' | 'cost'>, than: Pick<Candidate, 'tier' | 'cost'>): boolean {
  return candidate.tier > than.tier || (candidate.tier === than.tier && compareCost(candidate.cost, than.cost) > 0);
}

function byExpectedCost(a: Scored, b: Scored): number {
  return compareNumbers(a.sortCost, b.sortCost) || Number(b.local) - Number(a.local) || a.tier - b.tier || a.index - b.index;
}

function compareCost(a: number | null, b: number | null): number {
  return compareNumbers(a ?? Number.POSITIVE_INFINITY, b ?? Number.POSITIVE_INFINITY);
}

function compareNumbers(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** A pinned model opens; an avoided model steps off the opener position but stays a fallback. */
function placePreferences(ordered: Scored[], request: RouteRequest): Scored[] {
  let result = ordered;
  const pinned = typeof request.pinned === 'string' ? request.pinned : request.pinned?.slug;
  if (pinned) {
    const at = result.findIndex((candidate) => candidate.slug === pinned);
    const [chosen] = result.splice(at, 1);
    if (chosen) result = [{ ...chosen, reason: `pinned by the user; ${chosen.reason}` }, ...result];
  }
  if (request.avoid && result[0]?.slug === request.avoid && result.length > 1 && !pinned) {
    const [avoided, next, ...rest] = result;
    if (avoided && next) result = [next, { ...avoided, reason: `${avoided.reason}; moved off the opener (avoid)` }, ...rest];
  }
  return result;
}

/** Why `candidate` is left out of this call, without the `pruned: ` its logged reason opens with; null when it stays. */
function pruneCause(candidate: Scored, input: RankInput, caps: ReturnType<typeof capsFor>, strict: boolean): string | null {
  const { request, panel, snapshot } = input;
  const spec = candidate.spec;
  if (request.needsTools && spec.tools !== true) return 'needs tools';
  const context = spec.context ?? input.facts.get(spec.slug)?.context;
  if (request.contextTokens !== undefined && context !== undefined && request.contextTokens > context) {
    return `needs context ${request.contextTokens} > ${context}`;
  }
  const price = knownPrice(spec, candidate.local, input.facts.get(spec.slug));
  if (panel.maxOutputPrice !== null && price && price.output > panel.maxOutputPrice) {
    return `output price ${price.output.toFixed(2)} > cap ${panel.maxOutputPrice.toFixed(2)}`;
  }
  const overLimit = spendLimitCause(spec, candidate.local, input.facts.get(spec.slug), request);
  if (overLimit) return overLimit;
  const down = input.health.unavailableReason(spec.provider, input.now);
  if (down) return `provider ${spec.provider} unavailable: ${down}`;
  if (spec.maxConcurrent !== undefined) {
    const inFlight = snapshot.inFlight(spec.slug);
    if (inFlight >= spec.maxConcurrent) return `busy ${spec.slug} ${inFlight}/${spec.maxConcurrent} in flight`;
  }
  if (caps.maxConsecutivePerProvider !== null && trailingRun(input.history, spec.provider) >= caps.maxConsecutivePerProvider) {
    return `maxConsecutivePerProvider=${caps.maxConsecutivePerProvider} reached for ${spec.provider}`;
  }
  if (caps.maxTotalPerProvider !== null && count(input.history, spec.provider) >= caps.maxTotalPerProvider) {
    return `maxTotalPerProvider=${caps.maxTotalPerProvider} reached for ${spec.provider}`;
  }
  if (candidate.measured && candidate.ok === 0 && candidate.ability < INCAPABLE_ABILITY) {
    const { key } = standing(snapshot, candidate.resolved, request.classKey);
    return `measured 0/${candidate.graded} success class=${key}, rated ${candidate.ability.toFixed(2)} < ${INCAPABLE_ABILITY} against the calls' difficulty`;
  }
  if (strict && !candidate.measured) {
    return `requireEvidence and only ${candidate.graded}/${MIN_GRADED} graded class=${request.classKey}`;
  }
  return null;
}

function trailingRun(history: readonly string[], provider: string): number {
  let run = 0;
  for (let i = history.length - 1; i >= 0 && history[i] === provider; i--) run++;
  return run;
}

function count(history: readonly string[], provider: string): number {
  return history.reduce((n, entry) => n + (entry === provider ? 1 : 0), 0);
}

function strip(candidate: Scored): Candidate {
  const { index: _index, sortCost: _sortCost, ...rest } = candidate;
  return rest;
}
