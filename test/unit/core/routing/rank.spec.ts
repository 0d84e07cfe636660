import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { STALE_SPAWN_MS } from '../../../../src/core/ledger/ledger';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import { ability } from '../../../../src/core/ratings';
import { aboveOnLadder, RoutingError } from '../../../../src/core/routing/rank';
import { NOW, rankOn, record, prunedReasons, slugs } from '../../support/rankInput';
import { StaticHealth } from '../../support/StaticHealth';

function panelOf(json: Record<string, unknown>): Panel {
  return parsePanel({ routing: { explore: 0 }, ...json }, 'test panel');
}

const ladderPanel = panelOf({
  models: [
    { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, context: 128000, tools: true },
    { slug: 'qwen3.6:27b', provider: 'ollama' },
    { slug: 'qwen3:14b', provider: 'ollama' },
    { slug: 'bignum', provider: 'ollama' },
    { slug: 'qwen2.5:3b', provider: 'ollama' },
    { slug: 'llama3.1:70b', provider: 'ollama', role: 'base' },
  ],
});

describe('rank at cold start', () => {
  it('follows the capability ladder with a no-measured-profiles reason naming each tier', () => {
    const ranking = rankOn(ladderPanel, {}, { facts: [{ slug: 'bignum', parameterBillions: 14 }] });
    expect(ranking.candidates.map((c) => [c.slug, c.reason])).toEqual([
      ['qwen2.5:3b', 'no-measured-profiles tier1'],
      // The role says base: it overrides the 70b in the slug.
      ['llama3.1:70b', 'no-measured-profiles tier1'],
      ['qwen3:14b', 'no-measured-profiles tier2'],
      // Ollama's parameter size places a slug that names none.
      ['bignum', 'no-measured-profiles tier2'],
      ['qwen3.6:27b', 'no-measured-profiles tier3'],
      ['openai/gpt-4o-mini', 'no-measured-profiles tier4'],
    ]);
    expect(ranking.pruned).toEqual([]);
  });

  it("prefers Ollama's parameter size to the size written in the slug", () => {
    const ranking = rankOn(ladderPanel, {}, { facts: [{ slug: 'qwen3.6:27b', parameterBillions: 4 }] });
    expect(ranking.candidates.find((c) => c.slug === 'qwen3.6:27b')?.tier).toBe(1);
  });

  it('orders cloud models of one tier by price, then by panel order', () => {
    const panel = panelOf({
      models: [
        { slug: 'dear', provider: 'openrouter', price: { input: 3, output: 3 } },
        { slug: 'cheap-b', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
        { slug: 'cheap-a', provider: 'openai', price: { input: 0.1, output: 0.1 } },
      ],
    });
    expect(slugs(rankOn(panel, {}))).toEqual(['cheap-b', 'cheap-a', 'dear']);
  });
});

describe('rank of a model on an OpenAI-compatible server on loopback', () => {
  const CLOUD = { slug: 'openai/gpt-4o-mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 }, tools: true };
  const LMSTUDIO = { lmstudio: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' } };

  it('ranks a keyless local server as a free mid local rung ahead of a cloud model the panel lists first', () => {
    const panel = panelOf({ models: [CLOUD, { slug: 'local-model', provider: 'lmstudio' }], providers: LMSTUDIO });
    const ranking = rankOn(panel, {});
    expect(ranking.candidates.map((c) => [c.slug, c.tier, c.local, c.cost, c.reason])).toEqual([
      ['local-model', 2, true, 0, 'no-measured-profiles tier2 (local server 127.0.0.1:1234)'],
      ['openai/gpt-4o-mini', 4, false, (0.15 * 1000 + 0.6 * 400) / 1e6, 'no-measured-profiles tier4'],
    ]);
  });

  it('reads the tier from a size in the model id, among Ollama models of the same sizes', () => {
    const panel = panelOf({
      models: [
        CLOUD,
        { slug: 'qwen2.5-32b-instruct', provider: 'vllm' },
        { slug: 'qwen3:14b', provider: 'ollama' },
        { slug: 'Qwen2.5-Coder-7B-Instruct', provider: 'llamacpp' },
      ],
      providers: {
        vllm: { kind: 'openai-compatible', baseUrl: 'http://localhost:8000/v1' },
        llamacpp: { kind: 'openai-compatible', baseUrl: 'http://[::1]:8080/v1' },
      },
    });
    expect(rankOn(panel, {}).candidates.map((c) => [c.slug, c.reason])).toEqual([
      ['Qwen2.5-Coder-7B-Instruct', 'no-measured-profiles tier1 (local server [::1]:8080)'],
      ['qwen3:14b', 'no-measured-profiles tier2'],
      ['qwen2.5-32b-instruct', 'no-measured-profiles tier3 (local server localhost:8000)'],
      ['openai/gpt-4o-mini', 'no-measured-profiles tier4'],
    ]);
  });

  it("follows the panel's role over the size in the id", () => {
    const panel = panelOf({
      models: [
        { slug: 'qwen2.5-3b-instruct', provider: 'lmstudio', role: 'top' },
        { slug: 'llama-3.3-70b-instruct', provider: 'lmstudio', role: 'base' },
        { slug: 'qwen3:14b', provider: 'ollama' },
      ],
      providers: LMSTUDIO,
    });
    expect(rankOn(panel, {}).candidates.map((c) => [c.slug, c.tier])).toEqual([
      ['llama-3.3-70b-instruct', 1],
      ['qwen3:14b', 2],
      ['qwen2.5-3b-instruct', 3],
    ]);
  });

  it("prices a local server at the panel's price when the panel gives one", () => {
    const panel = panelOf({ models: [{ slug: 'local-model', provider: 'lmstudio', price: { input: 1, output: 2 } }], providers: LMSTUDIO });
    const [only] = rankOn(panel, {}).candidates;
    expect([only?.local, only?.cost]).toEqual([true, (1 * 1000 + 2 * 400) / 1e6]);
  });

  it('keeps a server elsewhere on the network, or a keyed one on loopback, a cloud rung', () => {
    const panel = panelOf({
      models: [
        { slug: 'lan-model-7b', provider: 'lan' },
        { slug: 'proxied-7b', provider: 'proxy' },
        { slug: 'qwen3.6:27b', provider: 'ollama' },
      ],
      providers: {
        // A keyless box on the local network is reachable without a key but is not this machine.
        lan: { kind: 'openai-compatible', baseUrl: 'http://192.168.1.20:1234/v1', key: 'none' },
        // A keyed server on loopback is how the panel marks a proxy to a paid API.
        proxy: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:4000/v1', key: 'required' },
      },
    });
    expect(rankOn(panel, {}).candidates.map((c) => [c.slug, c.tier, c.local, c.cost, c.reason])).toEqual([
      ['qwen3.6:27b', 3, true, 0, 'no-measured-profiles tier3'],
      ['lan-model-7b', 4, false, null, 'no-measured-profiles tier4'],
      ['proxied-7b', 4, false, null, 'no-measured-profiles tier4'],
    ]);
  });

  it('names the local server in the prior reason below the gate, and prunes it for tools it was not given', () => {
    const panel = panelOf({ models: [CLOUD, { slug: 'local-model', provider: 'lmstudio' }], providers: LMSTUDIO });
    const ledger = new MemoryLedger();
    record(ledger, 'openai/gpt-4o-mini', 'plan', 1, 1);
    expect(rankOn(panel, {}, { ledger }).candidates.map((c) => [c.slug, c.reason])).toEqual([
      ['local-model', 'below gate 0/8 graded class=plan, prior tier2 (local server 127.0.0.1:1234)'],
      ['openai/gpt-4o-mini', 'below gate 2/8 graded class=plan, prior tier4'],
    ]);
    const withTools = rankOn(panel, { needsTools: true });
    expect(slugs(withTools)).toEqual(['openai/gpt-4o-mini']);
    expect(prunedReasons(withTools)).toEqual({ 'local-model': 'pruned: needs tools' });
  });
});

describe('rank with measurements', () => {
  const panel = panelOf({
    models: [
      { slug: 'cheap', provider: 'openrouter', price: { input: 1, output: 1 } },
      { slug: 'dear', provider: 'openai', price: { input: 2, output: 2 } },
    ],
  });

  it('orders by expected cost of a verified success: price over ability', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'cheap', 'plan', 1, 9);
    record(ledger, 'dear', 'plan', 10, 0);
    const ranking = rankOn(panel, {}, { ledger });
    const [first, second] = ranking.candidates;
    expect(slugs(ranking)).toEqual(['dear', 'cheap']);
    // The order is the one cost / ability gives, computed here from what the ledger holds.
    const snapshot = ledger.snapshot(NOW);
    const expectedCost = (model: string, cost: number) => cost / ability(snapshot.rating(model, 'plan')?.rating ?? 0);
    expect(expectedCost('dear', first?.cost ?? 0)).toBeLessThan(expectedCost('cheap', second?.cost ?? 0));
    expect(first?.reason).toBe('measured 10/10 success class=plan');
    expect(second?.reason).toBe('measured 1/10 success class=plan');
  });

  it('keeps the price order when the cheap model is as able', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'cheap', 'plan', 10, 0);
    record(ledger, 'dear', 'plan', 10, 0);
    expect(slugs(rankOn(panel, {}, { ledger }))).toEqual(['cheap', 'dear']);
  });

  it('falls back to the prior below 8 graded observations and says so', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'cheap', 'plan', 0, 7);
    const ranking = rankOn(panel, {}, { ledger });
    expect(slugs(ranking)).toEqual(['cheap', 'dear']);
    expect(ranking.candidates[0]).toMatchObject({ measured: false, graded: 7, ability: 0.5 });
    expect(ranking.candidates[0]?.reason).toBe('below gate 7/8 graded class=plan, prior tier4');
  });

  it('puts a local model before a paid one at equal evidence, whatever the panel order', () => {
    const mixed = panelOf({
      models: [
        { slug: 'free-cloud', provider: 'openrouter', price: { input: 0, output: 0 } },
        { slug: 'local', provider: 'ollama', role: 'top' },
      ],
    });
    const ledger = new MemoryLedger();
    record(ledger, 'free-cloud', 'plan', 8, 0);
    record(ledger, 'local', 'plan', 8, 0);
    expect(slugs(rankOn(mixed, {}, { ledger }))).toEqual(['local', 'free-cloud']);
  });

  it('breaks the last tie by panel order', () => {
    const models = [
      { slug: 'one', provider: 'openrouter', price: { input: 1, output: 1 } },
      { slug: 'two', provider: 'openai', price: { input: 1, output: 1 } },
    ];
    const ledger = new MemoryLedger();
    record(ledger, 'one', 'plan', 8, 0);
    record(ledger, 'two', 'plan', 8, 0);
    expect(slugs(rankOn(panelOf({ models }), {}, { ledger }))).toEqual(['one', 'two']);
    expect(slugs(rankOn(panelOf({ models: [...models].reverse() }), {}, { ledger }))).toEqual(['two', 'one']);
  });

  it('excludes a model with 8 graded failures and no success, naming the evidence', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'cheap', 'plan', 0, 8);
    const ranking = rankOn(panel, {}, { ledger });
    expect(slugs(ranking)).toEqual(['dear']);
    expect(prunedReasons(ranking)).toEqual({
      cheap: "pruned: measured 0/8 success class=plan, rated 0.21 < 0.25 against the calls' difficulty",
    });
  });

  it('keeps ratings of one class out of another', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'cheap', 'chat', 0, 8);
    const ranking = rankOn(panel, { classKey: 'plan' }, { ledger });
    expect(slugs(ranking)).toEqual(['cheap', 'dear']);
    expect(ranking.candidates[0]?.reason).toBe('no-measured-profiles tier4');
  });
});

describe('rank prunes in the walk, with a reason for each', () => {
  const panel = panelOf({
    models: [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', context: 32768 },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', context: 32768, tools: true, maxConcurrent: 1 },
      { slug: 'opus', provider: 'openrouter', role: 'top', price: { input: 15, output: 75 }, context: 200000, tools: true },
      { slug: 'mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, context: 128000, tools: true },
      { slug: 'unpriced', provider: 'openai', tools: true },
    ],
    maxOutputPrice: 20,
  });

  it('drops a model without tools when the call needs them', () => {
    const ranking = rankOn(panel, { needsTools: true });
    expect(prunedReasons(ranking)['qwen2.5:3b']).toBe('pruned: needs tools');
    expect(slugs(ranking)).not.toContain('qwen2.5:3b');
  });

  it('drops a model whose context is too small', () => {
    const ranking = rankOn(panel, { contextTokens: 50000 });
    expect(prunedReasons(ranking)).toMatchObject({
      'qwen2.5:3b': 'pruned: needs context 50000 > 32768',
      'qwen3:14b': 'pruned: needs context 50000 > 32768',
    });
    expect(slugs(ranking)).toEqual(['mini', 'unpriced']);
  });

  it('drops a model priced over the output cap and keeps one whose price is unknown', () => {
    const ranking = rankOn(panel, {});
    expect(prunedReasons(ranking)).toEqual({ opus: 'pruned: output price 75.00 > cap 20.00' });
    expect(slugs(ranking)).toContain('unpriced');
  });

  it('applies the output cap to a catalog price when the panel gives none', () => {
    const ranking = rankOn(panel, {}, { facts: [{ slug: 'unpriced', price: { input: 10, output: 30 } }] });
    expect(prunedReasons(ranking).unpriced).toBe('pruned: output price 30.00 > cap 20.00');
  });

  it("drops every model of an unavailable provider with the provider's reason", () => {
    const ranking = rankOn(panel, {}, { health: new StaticHealth({ openrouter: 'no key set' }) });
    expect(prunedReasons(ranking)).toMatchObject({ mini: 'pruned: provider openrouter unavailable: no key set' });
    expect(slugs(ranking)).toEqual(['qwen2.5:3b', 'qwen3:14b', 'unpriced']);
  });

  it('drops a model with all its concurrent slots taken by spawns in the ledger', () => {
    const ledger = new MemoryLedger();
    ledger.spawnStarted({ spawnId: 'other-window#0', traceId: 'run-9', model: 'qwen3:14b', startedAt: NOW - 60_000 });
    const ranking = rankOn(panel, {}, { ledger });
    expect(prunedReasons(ranking)['qwen3:14b']).toBe('pruned: busy qwen3:14b 1/1 in flight');
  });

  it('frees the slot when the spawn ends', () => {
    const ledger = new MemoryLedger();
    ledger.spawnStarted({ spawnId: 's', traceId: 'run-9', model: 'qwen3:14b', startedAt: NOW - 60_000 });
    ledger.spawnEnded('s');
    expect(slugs(rankOn(panel, {}, { ledger }))).toContain('qwen3:14b');
  });

  it('ignores a spawn with no end older than 30 minutes', () => {
    const ledger = new MemoryLedger();
    ledger.spawnStarted({ spawnId: 's', traceId: 'crashed-window', model: 'qwen3:14b', startedAt: NOW });
    expect(prunedReasons(rankOn(panel, {}, { ledger, now: NOW + STALE_SPAWN_MS - 1 }))['qwen3:14b']).toMatch(/^pruned: busy/);
    expect(slugs(rankOn(panel, {}, { ledger, now: NOW + STALE_SPAWN_MS + 1 }))).toContain('qwen3:14b');
  });

  it('keeps a provider at its total cap in the chain and drops it in the walk', () => {
    const capped = panelOf({ models: panel.models, maxOutputPrice: 20, diversity: { maxTotalPerProvider: 2 } });
    const ranking = rankOn(capped, {}, { history: ['openrouter', 'ollama', 'openrouter'] });
    expect(prunedReasons(ranking)).toMatchObject({ mini: 'pruned: maxTotalPerProvider=2 reached for openrouter' });
    expect(slugs(ranking)).toEqual(['qwen2.5:3b', 'qwen3:14b', 'unpriced']);
  });

  it('drops a provider at its consecutive cap only while its run lasts', () => {
    const capped = panelOf({ models: panel.models, diversity: { maxConsecutivePerProvider: 2 } });
    const running = rankOn(capped, {}, { history: ['openai', 'ollama', 'ollama'] });
    expect(prunedReasons(running)).toEqual({
      'qwen2.5:3b': 'pruned: maxConsecutivePerProvider=2 reached for ollama',
      'qwen3:14b': 'pruned: maxConsecutivePerProvider=2 reached for ollama',
    });
    const broken = rankOn(capped, {}, { history: ['ollama', 'ollama', 'openai'] });
    expect(broken.pruned).toEqual([]);
  });

  it('accounts for every panel model exactly once, as a candidate or as pruned', () => {
    const capped = panelOf({ models: panel.models, maxOutputPrice: 20, diversity: { maxTotalPerProvider: 1 } });
    const ledger = new MemoryLedger();
    ledger.spawnStarted({ spawnId: 's', traceId: 't', model: 'qwen3:14b', startedAt: NOW });
    const ranking = rankOn(capped, { needsTools: true }, { ledger, history: ['openai'], health: new StaticHealth({ openrouter: 'down' }) });
    const seen = [...slugs(ranking), ...ranking.pruned.map((p) => p.model)].sort();
    expect(seen).toEqual(panel.models.map((m) => m.slug).sort());
    expect(ranking.pruned.every((p) => p.reason.startsWith('pruned: '))).toBe(true);
  });
});

describe('rank with requireEvidence', () => {
  const panel = panelOf({
    models: [
      { slug: 'a', provider: 'openrouter', price: { input: 1, output: 1 } },
      { slug: 'b', provider: 'openai', price: { input: 2, output: 2 } },
    ],
    routing: { explore: 0, requireEvidence: true },
  });

  it('ranks every model while nothing is measured', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'a', 'plan', 1, 1);
    expect(slugs(rankOn(panel, {}, { ledger }))).toEqual(['a', 'b']);
  });

  it('ranks only measured models once one is measured', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'b', 'plan', 6, 2);
    record(ledger, 'a', 'plan', 3, 0);
    const ranking = rankOn(panel, {}, { ledger });
    expect(slugs(ranking)).toEqual(['b']);
    expect(prunedReasons(ranking)).toEqual({ a: 'pruned: requireEvidence and only 3/8 graded class=plan' });
  });
});

describe('rank with user preferences', () => {
  const panel = panelOf({
    models: [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid' },
      { slug: 'mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 } },
    ],
  });

  it('opens with a pinned model and keeps the others as fallbacks in their order', () => {
    const ranking = rankOn(panel, { pinned: 'mini' });
    expect(slugs(ranking)).toEqual(['mini', 'qwen2.5:3b', 'qwen3:14b']);
    expect(ranking.candidates[0]?.reason).toBe('pinned by the user; no-measured-profiles tier4');
  });

  it('adds a pinned spec that is not on the panel, ahead of the panel', () => {
    const ranking = rankOn(panel, { pinned: { slug: 'anthropic/claude-sonnet', provider: 'openrouter', price: { input: 3, output: 15 } } });
    expect(slugs(ranking)).toEqual(['anthropic/claude-sonnet', 'qwen2.5:3b', 'qwen3:14b', 'mini']);
  });

  it('refuses a pinned slug that names no panel model', () => {
    expect(() => rankOn(panel, { pinned: 'nowhere' })).toThrow(RoutingError);
  });

  it('moves an avoided model off the opener but keeps it next', () => {
    const ranking = rankOn(panel, { avoid: 'qwen2.5:3b' });
    expect(slugs(ranking)).toEqual(['qwen3:14b', 'qwen2.5:3b', 'mini']);
    expect(ranking.candidates[1]?.reason).toBe('no-measured-profiles tier1; moved off the opener (avoid)');
  });

  it('leaves the order alone when the avoided model is not the opener', () => {
    expect(slugs(rankOn(panel, { avoid: 'mini' }))).toEqual(['qwen2.5:3b', 'qwen3:14b', 'mini']);
  });

  it('climbs past a model the user asked to go above, pruning it and every rung below it with the reason', () => {
    const ranking = rankOn(panel, { above: 'qwen3:14b' });
    expect(slugs(ranking)).toEqual(['mini']);
    expect(prunedReasons(ranking)).toEqual({
      'qwen2.5:3b': 'pruned: not above qwen3:14b on the ladder (a stronger model was asked for)',
      'qwen3:14b': 'pruned: not above qwen3:14b on the ladder (a stronger model was asked for)',
    });
  });

  it("leaves no rung when the model to go above is the ladder's top, and ignores one off the panel", () => {
    expect(slugs(rankOn(panel, { above: 'mini' }))).toEqual([]);
    expect(slugs(rankOn(panel, { above: 'nowhere' }))).toEqual(['qwen2.5:3b', 'qwen3:14b', 'mini']);
  });

  it('puts a dearer model of the same tier above a cheaper one, and an equal one not above', () => {
    expect(aboveOnLadder({ tier: 4, cost: 0.002 }, { tier: 4, cost: 0.001 })).toBe(true);
    expect(aboveOnLadder({ tier: 4, cost: 0.001 }, { tier: 4, cost: 0.001 })).toBe(false);
    expect(aboveOnLadder({ tier: 4, cost: null }, { tier: 4, cost: 0.001 })).toBe(true);
    expect(aboveOnLadder({ tier: 2, cost: 0 }, { tier: 4, cost: 0.001 })).toBe(false);
  });
});

describe('rank with floating aliases', () => {
  it('reads the rating of the snapshot a tilde alias resolved to, from the slug without its tilde', () => {
    const panel = panelOf({ models: [{ slug: 'vendor/model-latest', provider: 'openrouter', price: { input: 1, output: 1 } }] });
    const ledger = new MemoryLedger();
    ledger.alias('~vendor/model-latest', 'vendor/model-2026-01');
    record(ledger, 'vendor/model-2026-01', 'plan', 8, 1);
    const [candidate] = rankOn(panel, {}, { ledger }).candidates;
    expect(candidate).toMatchObject({ resolved: 'vendor/model-2026-01', measured: true, graded: 9, ok: 8 });
  });

  it('reads the rating of the snapshot a bare alias resolved to, from the slug with its tilde', () => {
    const panel = panelOf({ models: [{ slug: '~vendor/model-latest', provider: 'openrouter', price: { input: 1, output: 1 } }] });
    const ledger = new MemoryLedger();
    ledger.alias('vendor/model-latest', 'vendor/model-2026-01');
    record(ledger, 'vendor/model-2026-01', 'plan', 8, 1);
    expect(rankOn(panel, {}, { ledger }).candidates[0]).toMatchObject({ resolved: 'vendor/model-2026-01', graded: 9 });
  });

  it('resolves a slug with no alias to itself', () => {
    const panel = panelOf({ models: [{ slug: 'vendor/model', provider: 'openrouter' }] });
    expect(rankOn(panel, {}).candidates[0]?.resolved).toBe('vendor/model');
  });
});

describe('rank is pure', () => {
  it('changes nothing in the ledger and gives the same answer twice', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'qwen3:14b', 'plan', 4, 4);
    const before = JSON.stringify(ledger.entries());
    const first = rankOn(ladderPanel, {}, { ledger });
    const second = rankOn(ladderPanel, {}, { ledger });
    expect(second).toEqual(first);
    expect(JSON.stringify(ledger.entries())).toBe(before);
  });
});
