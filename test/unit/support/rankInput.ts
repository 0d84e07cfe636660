import { MemoryLedger } from '../../../src/core/ledger/memoryLedger';
import type { Panel } from '../../../src/core/panel';
import type { ModelFacts } from '../../../src/core/providers/provider';
import type { ProviderHealth } from '../../../src/core/providers/health';
import { rolePrior } from '../../../src/core/ratings';
import { rank } from '../../../src/core/routing/rank';
import { tokenPricer } from '../../../src/core/routing/pricing';
import type { Ranking, RouteRequest } from '../../../src/core/routing/types';
import { StaticHealth } from './StaticHealth';

export const NOW = Date.UTC(2026, 0, 1);

export interface RankSetup {
  ledger?: MemoryLedger;
  health?: ProviderHealth;
  facts?: ModelFacts[];
  history?: string[];
  now?: number;
}

/** Ranks `request` against `panel` the way the router would, with the given ledger, health and history. */
export function rankOn(panel: Panel, request: Partial<RouteRequest>, setup: RankSetup = {}): Ranking {
  const now = setup.now ?? NOW;
  const facts = new Map((setup.facts ?? []).map((fact) => [fact.slug, fact]));
  return rank({
    request: { callId: 'c1', classKey: 'plan', verifiable: true, ...request },
    panel,
    snapshot: (setup.ledger ?? new MemoryLedger()).snapshot(now),
    health: setup.health ?? new StaticHealth(),
    now,
    facts,
    pricer: tokenPricer(facts),
    history: setup.history ?? [],
  });
}

/** Folds `passes` passes and `fails` failures of `model` at `classKey` into `ledger`, against the class prior. */
export function record(ledger: MemoryLedger, model: string, classKey: string, passes: number, fails: number): void {
  const outcomes = [...Array<boolean>(passes).fill(true), ...Array<boolean>(fails).fill(false)];
  ledger.observe(outcomes.map((success) => ({ model, classKey, success, prior: rolePrior(undefined), at: NOW })));
}

export const slugs = (ranking: Ranking): string[] => ranking.candidates.map((candidate) => candidate.slug);
export const prunedReasons = (ranking: Ranking): Record<string, string> =>
  Object.fromEntries(ranking.pruned.map((p) => [p.model, p.reason]));
