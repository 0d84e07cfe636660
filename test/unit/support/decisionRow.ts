/** A complete decision row with sensible defaults, for specs that care about a few fields. */
import type { DecisionRow } from '../../../src/core/decisions/decision';

export function decisionRow(fields: Partial<DecisionRow> & { call: string }): DecisionRow {
  return {
    v: 1,
    at: 0,
    run: 'run-1',
    class: 'plan',
    shape: null,
    candidates: ['qwen2.5:3b', 'qwen3:14b'],
    rung: 0,
    escalation: [],
    model: 'qwen2.5:3b',
    resolved: 'qwen2.5:3b',
    explore: false,
    propensity: 1,
    verdict: 'pass',
    verdictReason: null,
    inputTokens: 120,
    outputTokens: 40,
    cost: 0,
    latencyMs: 850,
    reason: 'no-measured-profiles tier1',
    mode: 'local',
    pruned: [],
    final: false,
    ...fields,
  };
}
