import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VIEW_STATE,
  MAX_PAGE_ROWS,
  hostMessageSchema,
  parseHostMessage,
  parseViewMessage,
  parseViewState,
  providerStatus,
  viewMessageSchema,
} from '../../../src/protocol/ledgerProtocol';
import { hostExamples, viewExamples, wireDecision } from '../support/ledgerMessages';

/** What crossing postMessage does to a value: structured clone, which for these plain objects is a JSON round trip. */
function overTheWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function typesOf(schema: { def: { options: readonly { def: { shape: { type: { def: { values: readonly unknown[] } } } } }[] } }): string[] {
  return schema.def.options.map((option) => String(option.def.shape.type.def.values[0])).sort();
}

describe('ledger protocol', () => {
  it('has an example of every message type in both directions', () => {
    expect(Object.keys(hostExamples).sort()).toEqual(typesOf(hostMessageSchema));
    expect(Object.keys(viewExamples).sort()).toEqual(typesOf(viewMessageSchema));
  });

  it.each(Object.values(hostExamples))('round-trips the host message $type', (message) => {
    expect(parseHostMessage(overTheWire(message))).toEqual({ ok: true, message });
  });

  it.each(Object.values(viewExamples))('round-trips the view message $type', (message) => {
    expect(parseViewMessage(overTheWire(message))).toEqual({ ok: true, message });
  });

  const malformedForTheWebview: [string, unknown][] = [
    ['nothing', undefined],
    ['a string', 'snapshot'],
    ['an unknown type', { type: 'delete-everything' }],
    ['a snapshot without ratings', { ...hostExamples.snapshot, ratings: undefined }],
    ['a row whose verdict is not a verdict', { type: 'decision-added', row: { ...wireDecision({ call: 'c' }), verdict: 'maybe' } }],
    ['a row with a propensity above 1', { type: 'decision-added', row: wireDecision({ call: 'c', propensity: 1.5 }) }],
    [
      'a rating with a fractional graded count',
      { type: 'ratings-changed', ratings: [{ ...hostExamples['ratings-changed'].ratings[0], graded: 2.5 }] },
    ],
    [
      'spend on a day that is not a date',
      {
        type: 'spend-changed',
        spend: { ...hostExamples['spend-changed'].spend, byDay: [{ day: 'yesterday', model: 'm', provider: 'p', cost: 1, calls: 1 }] },
      },
    ],
    [
      'a page larger than the page limit',
      {
        type: 'page',
        decisions: {
          rows: Array.from({ length: MAX_PAGE_ROWS + 1 }, (_, index) => wireDecision({ call: `c${index}` })),
          total: MAX_PAGE_ROWS + 1,
          offset: 0,
          filter: {},
        },
      },
    ],
    ['a notice of an unknown level', { type: 'notice', level: 'shout', message: 'hi' }],
    ['opener estimates that are not a list', { type: 'opener-estimates', estimates: hostExamples['opener-estimates'].estimates[0] }],
    [
      'an opener estimate refused for an unknown reason',
      { type: 'opener-estimates', estimates: [{ model: 'm', calls: 3, versusLog: null, refused: 'bored' }] },
    ],
    ['an opener estimate without its comparison', { type: 'opener-estimates', estimates: [{ model: 'm', calls: 3, refused: null }] }],
    [
      'an opener estimate whose change is already words',
      {
        type: 'opener-estimates',
        estimates: [
          {
            ...hostExamples['opener-estimates'].estimates[0],
            versusLog: { ...hostExamples['opener-estimates'].estimates[0]?.versusLog, costChange: '−34%' },
          },
        ],
      },
    ],
    [
      'an opener estimate from a negative count of calls',
      { type: 'opener-estimates', estimates: [{ model: 'm', calls: -1, versusLog: null, refused: 'too-few' }] },
    ],
  ];

  it.each(malformedForTheWebview)('rejects in the webview %s', (_name, data) => {
    const parsed = parseHostMessage(data);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^dropped a malformed/);
  });

  const malformedForTheHost: [string, unknown][] = [
    ['null', null],
    ['an array', [{ type: 'ready' }]],
    ['an unknown type', { type: 'run-shell', command: 'rm -rf /' }],
    ['a ready without its page', { type: 'ready', filter: {} }],
    ['a page asking for the whole log', { type: 'page', filter: {}, offset: 0, limit: 100_000 }],
    ['a page at a negative offset', { type: 'page', filter: {}, offset: -1, limit: 10 }],
    ['a filter by a verdict that does not exist', { type: 'page', filter: { verdict: 'great' }, offset: 0, limit: 10 }],
    ['a pin without a model', { type: 'pin' }],
    ['a pin of an empty slug', { type: 'pin', model: '' }],
    ['an avoid whose model is a number', { type: 'avoid', model: 7 }],
    ['a reset without a class', { type: 'reset-class' }],
    ['an estimate request sent as a bare string', 'estimate-openers'],
    ['an estimate request of a misspelt type', { type: 'estimate-opener' }],
  ];

  it.each(malformedForTheHost)('rejects in the host %s', (_name, data) => {
    const parsed = parseViewMessage(data);
    expect(parsed.ok).toBe(false);
  });

  it("carries a replayed row's source and policy, and a routed row without them", () => {
    const replayed = {
      type: 'decision-added',
      row: wireDecision({ call: 'replay-1a2b3c4d/p1', source: 'replay', policy: 'open=qwen3:14b' }),
      filter: {},
      offset: 0,
      added: 1,
    };
    expect(parseHostMessage(overTheWire(replayed))).toEqual({ ok: true, message: replayed });
    const routed = { type: 'decision-added', row: wireDecision({ call: 'chat-1' }), filter: {}, offset: null, added: 0 };
    expect(parseHostMessage(overTheWire(routed))).toEqual({ ok: true, message: routed });
  });

  it('names the field that was wrong in the rejection', () => {
    const parsed = parseViewMessage({ type: 'page', filter: {}, offset: 0, limit: 100_000 });
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining('limit') });
  });

  it('restores a saved view state and falls back to the defaults for one that no longer parses', () => {
    const saved = { filter: { model: 'qwen3:14b' }, offset: 50, limit: 50 };
    expect(parseViewState(overTheWire(saved))).toEqual(saved);
    expect(parseViewState({ filter: { verdict: 'great' }, offset: 0, limit: 50 })).toEqual(DEFAULT_VIEW_STATE);
    expect(parseViewState(undefined)).toEqual(DEFAULT_VIEW_STATE);
  });
});

describe('provider status', () => {
  it('names a provider once when its reason already starts with its name', () => {
    expect(providerStatus({ name: 'cloud', healthy: false, reason: 'cloud: no API key (run "Rung: Set Provider Key" for cloud)' })).toBe(
      'cloud: no API key (run "Rung: Set Provider Key" for cloud)',
    );
  });

  it('puts the name before a reason that does not carry it, and only the name when healthy', () => {
    expect(providerStatus({ name: 'ollama', healthy: false, reason: 'no server at http://127.0.0.1:9' })).toBe(
      'ollama: no server at http://127.0.0.1:9',
    );
    expect(providerStatus({ name: 'ollama', healthy: false })).toBe('ollama: unavailable');
    expect(providerStatus({ name: 'ollama', healthy: true })).toBe('ollama');
  });
});
