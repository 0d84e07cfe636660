import { MemoryDecisionSink } from '../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../src/core/ledger/memoryLedger';
import type { Panel } from '../../../src/core/panel';
import type { ProviderHealth } from '../../../src/core/providers/health';
import { seededRandom } from '../../../src/core/random';
import { Router } from '../../../src/core/routing/router';
import type { RouteRequest } from '../../../src/core/routing/types';
import { FixedClock } from './FixedClock';

/** A router over a memory ledger, a memory decision sink, a fixed clock and a seeded random source. */
export class RouterHarness {
  readonly ledger = new MemoryLedger();
  readonly sink = new MemoryDecisionSink();
  readonly clock = new FixedClock();
  readonly router: Router;

  constructor(panel: Panel, options: { seed?: number; health?: ProviderHealth } = {}) {
    this.router = new Router({
      panel,
      ledger: this.ledger,
      clock: this.clock,
      sink: this.sink,
      random: seededRandom(options.seed ?? 1),
      health: options.health,
    });
  }
}

let next = 0;

/** A verifiable plan-class request with a fresh call id. */
export function request(extra: Partial<RouteRequest> = {}): RouteRequest {
  next++;
  return { callId: `call-${next}`, classKey: 'plan', verifiable: true, ...extra };
}
