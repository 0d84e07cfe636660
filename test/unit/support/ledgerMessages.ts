/** One well-formed example of every ledger panel message, for the protocol and panel specs. */
import type { DecisionWire, HostMessage, RatingWire, SpendWire, ViewMessage } from '../../../src/protocol/ledgerProtocol';

export function wireDecision(fields: Partial<DecisionWire> & { call: string }): DecisionWire {
  return {
    at: Date.UTC(2026, 0, 1, 12),
    classKey: 'plan',
    candidates: ['qwen2.5:3b', 'qwen3:14b', 'openai/gpt-4o-mini'],
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
    pruned: [{ model: 'qwen3.6:27b', reason: 'busy qwen3.6:27b 1/1 in flight' }],
    final: false,
    ...fields,
  };
}

export function wireRating(fields: Partial<RatingWire> & { model: string }): RatingWire {
  return {
    classKey: 'plan',
    rating: 0.4,
    ability: 0.6,
    uncertainty: 0.5,
    graded: 9,
    ok: 6,
    measured: true,
    gate: 8,
    updatedAt: 0,
    ...fields,
  };
}

export const exampleSpend: SpendWire = {
  byDay: [
    { day: '2026-01-01', model: 'openai/gpt-4o-mini', provider: 'openrouter', cost: 0.02, calls: 3 },
    { day: '2026-01-02', model: 'openai/gpt-4o-mini', provider: 'openrouter', cost: 0.01, calls: 1 },
    { day: '2026-01-02', model: 'qwen3:14b', provider: 'ollama', cost: 0, calls: 5 },
  ],
  total: 0.03,
  today: 0.01,
  strongestModel: 'openai/gpt-4o-mini',
  strongestEstimate: 0.09,
};

/** Keyed by type, so a message type added to the protocol and not here is a type error in this file. */
export const hostExamples: { [K in HostMessage['type']]: Extract<HostMessage, { type: K }> } = {
  snapshot: {
    type: 'snapshot',
    models: [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', local: true, price: null },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', local: false, price: { input: 0.15, output: 0.6 } },
    ],
    ratings: [wireRating({ model: 'qwen2.5:3b' })],
    decisions: { rows: [wireDecision({ call: 'c1' })], total: 1, offset: 0, filter: { classKey: 'plan' } },
    spend: exampleSpend,
    providers: [
      { name: 'ollama', healthy: true },
      { name: 'openrouter', healthy: false, reason: 'no key' },
    ],
    ledgerPath: '/work/.rung/ledger.sqlite',
  },
  page: { type: 'page', decisions: { rows: [], total: 0, offset: 50, filter: { verdict: 'fail', model: 'qwen3:14b' } } },
  'decision-added': {
    type: 'decision-added',
    row: wireDecision({ call: 'c2', verdict: 'fail', verdictReason: 'schema: missing "steps"' }),
    filter: {},
    offset: 0,
    added: 1,
  },
  'ratings-changed': {
    type: 'ratings-changed',
    ratings: [wireRating({ model: 'qwen3:14b', uncertainty: null, graded: 0, ok: 0, measured: false })],
  },
  'spend-changed': { type: 'spend-changed', spend: { ...exampleSpend, strongestModel: null, strongestEstimate: null } },
  'panel-changed': { type: 'panel-changed', models: [], providers: [] },
  notice: { type: 'notice', level: 'warning', message: 'ollama is not answering' },
  'opener-estimates': {
    type: 'opener-estimates',
    estimates: [
      {
        model: 'qwen2.5:3b',
        calls: 1240,
        versusLog: {
          loggedCost: 0.002,
          loggedSuccess: 0.8,
          costChange: -0.34,
          costChangeLow: -0.42,
          costChangeHigh: -0.26,
          successChange: -0.02,
          successChangeLow: -0.05,
          successChangeHigh: 0.01,
        },
        refused: null,
      },
      { model: 'openai/gpt-4o-mini', calls: 1240, versusLog: null, refused: 'too-few' },
    ],
  },
};

export const viewExamples: { [K in ViewMessage['type']]: Extract<ViewMessage, { type: K }> } = {
  ready: { type: 'ready', filter: {}, offset: 0, limit: 50 },
  page: { type: 'page', filter: { classKey: 'edit/typescript', model: 'qwen3:14b', verdict: 'pass' }, offset: 100, limit: 50 },
  pin: { type: 'pin', model: 'qwen3:14b' },
  avoid: { type: 'avoid', model: 'qwen2.5:3b' },
  'reset-class': { type: 'reset-class', classKey: 'plan' },
  export: { type: 'export' },
  'estimate-openers': { type: 'estimate-openers' },
  rejected: {
    type: 'rejected',
    message: 'snapshot',
    error: "dropped a malformed 'snapshot' message: decisions.rows.0.verdictReason: too_big",
  },
};
