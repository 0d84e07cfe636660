import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../../../src/core/providers/catalog';
import { providerAttempt } from '../../../../src/core/chat/providerAttempt';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { parsePanel, type Price } from '../../../../src/core/panel';
import { OllamaAdapter } from '../../../../src/core/providers/ollamaAdapter';
import { OpenAiCompatibleAdapter } from '../../../../src/core/providers/openAiCompatibleAdapter';
import { ProviderHealthBoard } from '../../../../src/core/providers/providerHealthBoard';
import { ProviderFailure, type ProviderAdapter, type StreamPart } from '../../../../src/core/providers/provider';
import { seededRandom } from '../../../../src/core/random';
import { Router } from '../../../../src/core/routing/router';
import type { Candidate } from '../../../../src/core/routing/types';
import { StructuredOutputVerifier } from '../../../../src/core/verifiers/structuredOutputVerifier';
import { FixedClock } from '../../support/FixedClock';
import { fixture, json, recordedStatus, replay, WireServer, type Route } from '../../support/wireServer';

const KEY = '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';
const schema = {
  type: 'object',
  required: ['city', 'population'],
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
};
const messages = [{ role: 'user' as const, content: 'Give me Paris as JSON with city and population.' }];
const servers: WireServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * Both providers on local servers, a two-rung panel (local base, cloud top), and a router over them.
 * The cloud stand-in is keyed (`key: "required"`), which is what keeps a server on loopback a cloud rung.
 */
async function cascade(ollamaChat: Route, cloudChat: Route) {
  const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', ollamaChat);
  const cloud = new WireServer().on('POST', '/api/v1/chat/completions', cloudChat);
  servers.push(ollama, cloud);
  const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
  const clock = new FixedClock();
  const panel = parsePanel(
    {
      models: [
        { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 } },
      ],
      routing: { explore: 0 },
      providers: {
        ollama: { kind: 'ollama', baseUrl: ollamaUrl },
        openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
      },
    },
    'test panel',
  );
  const adapters = new Map<string, ProviderAdapter>([
    ['ollama', new OllamaAdapter({ baseUrl: ollamaUrl, clock })],
    ['openrouter', new OpenAiCompatibleAdapter({ name: 'openrouter', baseUrl: `${cloudUrl}/api/v1`, clock, apiKey: KEY })],
  ]);
  const sink = new MemoryDecisionSink();
  const ledger = new MemoryLedger();
  const health = new ProviderHealthBoard({ clock });
  const router = new Router({ panel, ledger, clock, sink, random: seededRandom(1), health });
  const streamed: [string, StreamPart][] = [];
  const attempt = providerAttempt({
    adapters,
    messages,
    tools: [],
    verifier: new StructuredOutputVerifier({ schema }),
    onPart: (model, part) => streamed.push([model, part]),
    clock,
    health,
  });
  return { router, attempt, sink, ledger, health, streamed, clock, cloud };
}

const request = { callId: 'call-1', runId: 'run-1', classKey: 'plan', verifiable: true };

describe('the chat cascade over real wire protocols', () => {
  it('escalates from a cheap model whose answer fails the JSON check to the next rung, and logs both attempts', async () => {
    const { router, attempt, sink, ledger, streamed } = await cascade(
      replay(fixture('ollama/chat-prose-instead-of-json.ndjson')),
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    const result = await router.route(request, attempt);

    expect(result.attempts.map((a) => [a.model, a.verdict])).toEqual([
      ['qwen2.5:3b', 'fail'],
      ['openai/gpt-4o-mini', 'pass'],
    ]);
    expect(JSON.parse(result.answer?.value?.text ?? '')).toEqual({ city: 'Paris', population: 2102650 });

    expect(sink.rows).toHaveLength(2);
    const [first, second] = sink.rows;
    expect(first).toMatchObject({
      call: 'call-1',
      model: 'qwen2.5:3b',
      resolved: 'qwen2.5:3b',
      rung: 0,
      verdict: 'fail',
      verdictReason: 'no JSON found in the answer (neither bare nor in a ```json fence)',
      inputTokens: 38,
      outputTokens: 11,
      cost: 0,
      mode: 'local',
      escalation: [],
    });
    expect(second).toMatchObject({
      call: 'call-1',
      model: 'openai/gpt-4o-mini',
      resolved: 'openai/gpt-4o-mini',
      rung: 1,
      verdict: 'pass',
      verdictReason: 'JSON matches the schema (bare)',
      inputTokens: 41,
      outputTokens: 14,
      cost: 0.00001455,
      mode: 'cloud',
      escalation: ['qwen2.5:3b'],
    });
    expect(first?.candidates).toEqual(['qwen2.5:3b', 'openai/gpt-4o-mini']);

    // Both graded outcomes are evidence; the parts reached the caller tagged with their model.
    expect(ledger.entries().map((entry) => [entry.model, entry.graded, entry.ok])).toEqual(
      expect.arrayContaining([
        ['qwen2.5:3b', 1, 0],
        ['openai/gpt-4o-mini', 1, 1],
      ]),
    );
    expect(new Set(streamed.map(([model]) => model))).toEqual(new Set(['qwen2.5:3b', 'openai/gpt-4o-mini']));
  });

  it('skips a rung whose provider errs without grading its model, and cools the provider down', async () => {
    const { router, attempt, sink, ledger, health, clock } = await cascade(
      recordedStatus('ollama/chat-500-server-error.json'),
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    const result = await router.route(request, attempt);
    expect(sink.rows.map((row) => [row.model, row.verdict])).toEqual([
      ['qwen2.5:3b', 'provider-error'],
      ['openai/gpt-4o-mini', 'pass'],
    ]);
    expect(sink.rows[0]?.verdictReason).toMatch(/^provider-error: ollama: server error \(500\)/);
    expect(result.answer?.model).toBe('openai/gpt-4o-mini');
    expect(ledger.entries().map((entry) => entry.model)).toEqual(['openai/gpt-4o-mini']);
    expect(health.unavailableReason('ollama', clock.now())).toBe('cooling down after 500 for 30000 ms');
    expect(router.rank(request).pruned.map((p) => p.model)).toContain('qwen2.5:3b');
  });

  it('treats a cut stream and a rejected key as provider faults that grade nobody and leak no key', async () => {
    const { router, attempt, sink, ledger } = await cascade(
      replay(fixture('ollama/chat-cut-mid-stream.ndjson')),
      recordedStatus('openai/401-key-rejected.json', { KEY }),
    );
    const result = await router.route(request, attempt);
    expect(sink.rows.map((row) => row.verdict)).toEqual(['provider-error', 'provider-error']);
    expect(sink.rows[1]?.verdictReason).toBe('unavailable: openrouter: the API key was rejected (401)');
    expect(JSON.stringify(sink.rows)).not.toContain(KEY);
    expect(result.answer).toBeUndefined();
    expect(ledger.entries()).toEqual([]);
  });

  it('ends the call as stopped when the user aborts, without trying the next rung', async () => {
    const { router, attempt, sink, cloud } = await cascade(
      replay(fixture('ollama/chat-normal.ndjson'), { delayMs: 5_000 }),
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await router.route(request, attempt, controller.signal);
    expect(sink.rows.map((row) => [row.model, row.verdict])).toEqual([['qwen2.5:3b', 'stopped']]);
    expect(cloud.requests).toHaveLength(0);
  });
});

describe('providerAttempt', () => {
  const candidate = (provider: string): Candidate => ({
    slug: 'qwen3:14b',
    provider,
    spec: { slug: 'qwen3:14b', provider },
    tier: 2,
    local: true,
    resolved: 'qwen3:14b',
    ability: 0.5,
    graded: 0,
    ok: 0,
    measured: false,
    cost: 0,
    reason: 'no-measured-profiles tier2',
  });

  it('throws unavailable for a provider it has no adapter for', async () => {
    const attempt = providerAttempt({
      adapters: new Map(),
      messages,
      tools: [],
      verifier: new StructuredOutputVerifier(),
      clock: new FixedClock(),
    });
    const error = await attempt(candidate('vscode-lm'), { attempt: 0, escalation: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderFailure);
    expect((error as ProviderFailure).kind).toBe('unavailable');
  });

  it('reports the verdict, tokens, cost and resolved model of a whole answer', async () => {
    const server = new WireServer()
      .on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))))
      .on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson')));
    servers.push(server);
    const clock = new FixedClock();
    const adapters = new Map<string, ProviderAdapter>([['ollama', new OllamaAdapter({ baseUrl: await server.start(), clock })]]);
    const attempt = providerAttempt({ adapters, messages, tools: [], verifier: new StructuredOutputVerifier({ schema }), clock });
    const outcome = await attempt(candidate('ollama'), { attempt: 0, escalation: [] });
    expect(outcome).toMatchObject({
      verdict: 'pass',
      resolvedModel: 'qwen3:14b',
      inputTokens: 38,
      outputTokens: 17,
      cost: 0,
      latencyMs: 0,
    });
    expect(outcome.value?.finishReason).toBe('stop');
  });

  it("records the provider's reported cost first, then the panel's price, then the catalog's", async () => {
    const clock = new FixedClock();
    // The no-cost stream reports 1M input and 2M output tokens and no cost; the normal one reports its cost.
    const catalog = new Catalog([{ slug: 'gpt-4o-mini', price: { input: 0.15, output: 0.6 }, advertised: [] }], 0, 'cache');
    const costOf = async (stream: string, price?: Price, local = false): Promise<number | undefined> => {
      const server = new WireServer().on('POST', '/v1/chat/completions', replay(fixture(stream), { contentType: 'text/event-stream' }));
      servers.push(server);
      const adapter = new OpenAiCompatibleAdapter({ name: 'openai', baseUrl: `${await server.start()}/v1`, clock, apiKey: KEY, catalog });
      const attempt = providerAttempt({
        adapters: new Map([['openai', adapter]]),
        messages,
        tools: [],
        verifier: new StructuredOutputVerifier(),
        clock,
      });
      const spec = { slug: 'gpt-4o-mini', provider: 'openai', ...(price ? { price } : {}) };
      return (
        await attempt(
          { ...candidate('openai'), slug: 'gpt-4o-mini', spec, tier: local ? 2 : 4, local, resolved: 'gpt-4o-mini' },
          { attempt: 0, escalation: [] },
        )
      ).cost;
    };
    expect(await costOf('openai/chat-normal.sse', { input: 1, output: 2 })).toBe(0.00001455);
    expect(await costOf('openai/chat-openai-no-cost.sse', { input: 1, output: 2 })).toBeCloseTo(5, 10);
    expect(await costOf('openai/chat-openai-no-cost.sse')).toBeCloseTo(1.35, 10);
    // A local server (LM Studio on loopback) costs nothing unless the panel prices it; then the price
    // the ranking used is the one recorded.
    expect(await costOf('openai/chat-openai-no-cost.sse', undefined, true)).toBe(0);
    expect(await costOf('openai/chat-openai-no-cost.sse', { input: 1, output: 2 }, true)).toBeCloseTo(5, 10);
  });
});
