import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { parsePanel } from '../../../../src/core/panel';
import { connectProviders } from '../../../../src/core/session/connectProviders';
import {
  contextWindows,
  learnLocalServerFacts,
  LocalServerFactsSource,
  parameterCounts,
  RELEARN_AFTER_MS,
} from '../../../../src/core/providers/localServerFacts';
import { ProviderHealthBoard } from '../../../../src/core/providers/providerHealthBoard';
import { seededRandom } from '../../../../src/core/random';
import { tierOf } from '../../../../src/core/routing/ladder';
import { Router } from '../../../../src/core/routing/router';
import { ContextRefusalError, RungSession } from '../../../../src/core/session/session';
import { FixedClock } from '../../support/FixedClock';
import { endless, fixture, json, replay, vacantAddress, WireServer, type Route } from '../../support/wireServer';
import { MAX_LIST_BYTES } from '../../../../src/core/providers/transport';

/**
 * A local OpenAI-compatible server's context windows, read from the answers vLLM, llama.cpp's server and
 * LM Studio give (test/fixtures/wire/local, sources in SOURCES.md), served from 127.0.0.1.
 */

const servers: WireServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const recorded = (name: string): Route => json(JSON.parse(fixture(`local/${name}`)));

/** Answers with bytes that are not JSON, as a proxy's error page would. */
const notJson: Route = (response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
};

/** LM Studio's plain OpenAI list: ids only, no window. */
const lmStudioPlainList = json({
  object: 'list',
  data: [
    { id: 'qwen2.5-7b-instruct', object: 'model', owned_by: 'organization_owner' },
    { id: 'llama-3.2-3b-instruct', object: 'model', owned_by: 'organization_owner' },
  ],
});

async function serve(server: WireServer): Promise<string> {
  servers.push(server);
  return `${await server.start()}/v1`;
}

function windowsOf(facts: { slug: string; context?: number }[]): Record<string, number | undefined> {
  return Object.fromEntries(facts.map((known) => [known.slug, known.context]));
}

describe('learnLocalServerFacts: each server says its window in its own place', () => {
  it("reads vLLM's max_model_len from /v1/models, and leaves an adapter listed with a null one unknown", async () => {
    const baseUrl = await serve(new WireServer().on('GET', '/v1/models', recorded('vllm-models.json')));
    const learned = await learnLocalServerFacts({ name: 'vllm', baseUrl, slugs: ['already_exists', 'to_remove'] });
    expect(windowsOf(learned.facts)).toEqual({ already_exists: 4096 });
    expect(learned.note).toContain('vllm: the context window of to_remove is unknown (');
    expect(learned.note).toContain('GET /v1/models lists no max_model_len or meta.n_ctx_train for it');
  });

  it("takes llama.cpp's /props n_ctx, the window it was started with, over the trained window, for whatever name the panel uses", async () => {
    const baseUrl = await serve(
      new WireServer().on('GET', '/v1/models', recorded('llamacpp-models.json')).on('GET', '/props', recorded('llamacpp-props.json')),
    );
    const learned = await learnLocalServerFacts({ name: 'llamacpp', baseUrl, slugs: ['llama-3.1-8b-instruct'] });
    expect(windowsOf(learned.facts)).toEqual({ 'llama-3.1-8b-instruct': 1024 });
    expect(learned.note).toBeUndefined();
  });

  it("falls back to llama.cpp's n_ctx_train for the listed model when /props gives nothing", async () => {
    const baseUrl = await serve(new WireServer().on('GET', '/v1/models', recorded('llamacpp-models.json')));
    const listedId = '../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf';
    const learned = await learnLocalServerFacts({ name: 'llamacpp', baseUrl, slugs: [listedId, 'another-name'] });
    expect(windowsOf(learned.facts)).toEqual({ [listedId]: 131072 });
    expect(learned.note).toContain('the context window of another-name is unknown');
    expect(learned.note).toContain('GET /props answered 404');
  });

  it("reads LM Studio's loaded window for a loaded model and its largest for one not loaded", async () => {
    const baseUrl = await serve(
      new WireServer().on('GET', '/v1/models', lmStudioPlainList).on('GET', '/api/v0/models', recorded('lmstudio-api-v0-models.json')),
    );
    const learned = await learnLocalServerFacts({ name: 'lmstudio', baseUrl, slugs: ['qwen2.5-7b-instruct', 'llama-3.2-3b-instruct'] });
    expect(windowsOf(learned.facts)).toEqual({ 'qwen2.5-7b-instruct': 4096, 'llama-3.2-3b-instruct': 131072 });
    expect(learned.note).toBeUndefined();
  });

  it('asks /props and /api/v0 beside the /v1 of the base URL, with the key when one is set', async () => {
    const server = new WireServer().on('GET', '/v1/models', recorded('vllm-models.json'));
    const baseUrl = await serve(server);
    await learnLocalServerFacts({ name: 'vllm', baseUrl, slugs: ['already_exists'], apiKey: 'local-key' });
    expect(server.requests.map((seen) => seen.path).sort()).toEqual(['/api/v0/models', '/props', '/v1/models']);
    expect(server.requests.every((seen) => seen.headers.authorization === 'Bearer local-key')).toBe(true);
  });
});

describe('learnLocalServerFacts: a server that gives no window loses nothing', () => {
  it('leaves the window unknown when no endpoint answers, with one note naming each answer', async () => {
    const baseUrl = await serve(new WireServer());
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['my-model'] });
    expect(learned.facts).toEqual([]);
    expect(learned.note).toBe(
      'local: the context window of my-model is unknown (GET /v1/models answered 404; GET /props answered 404; GET /api/v0/models answered 404), ' +
        'so a prompt too long for it is not pruned; give the model a "context" in the panel to set one',
    );
  });

  it('leaves the window unknown when the bodies are malformed, and says how', async () => {
    const baseUrl = await serve(
      new WireServer()
        .on('GET', '/v1/models', notJson)
        .on('GET', '/props', json({ default_generation_settings: { n_ctx: '4096' } }))
        .on('GET', '/api/v0/models', json({ data: 'qwen2.5-7b-instruct' })),
    );
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['qwen2.5-7b-instruct'] });
    expect(learned.facts).toEqual([]);
    expect(learned.note).toContain('GET /v1/models answered something that is not JSON');
    expect(learned.note).toContain('GET /props gave no default_generation_settings.n_ctx');
    expect(learned.note).toContain('GET /api/v0/models answered something that is not a model list');
  });

  it('reads no list past its size limit: one that never ends, and one whose length says it is too long', async () => {
    const body = endless({
      contentType: 'application/json',
      head: '{"object":"list","data":[',
      piece: '{"id":"x","object":"model","max_model_len":4096},'.repeat(200),
    });
    const declared: Route = (response: ServerResponse) => {
      // Says 900 MB are coming and sends a few bytes: refused on its word, before any is read.
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(900 * 1024 * 1024) });
      response.write('{"default_generation_settings":');
    };
    const baseUrl = await serve(
      new WireServer().on('GET', '/v1/models', body.route).on('GET', '/props', declared).on('GET', '/api/v0/models', notJson),
    );
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['x'], timeoutMs: 120_000 });
    expect(learned.facts).toEqual([]);
    expect(learned.note).toContain(
      'GET /v1/models answered more than 16 MiB, far more than a model list (a fixed limit), and was not read',
    );
    expect(learned.note).toContain('GET /props answered more than 16 MiB, far more than a model list (a fixed limit), and was not read');
    await body.closed;
    expect(body.sent).toBeLessThan(MAX_LIST_BYTES + 8 * 1024 * 1024);
  });

  it('leaves the window unknown when nothing listens, saying so once', async () => {
    const server = new WireServer();
    const baseUrl = await serve(server);
    await server.close();
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['a', 'b'] });
    expect(learned.facts).toEqual([]);
    expect(learned.note).toBe(
      `local: the context window of a, b are unknown (no server at ${baseUrl.replace(/\/v1$/, '')} (ECONNREFUSED)), ` +
        'so a prompt too long for them is not pruned; give the model a "context" in the panel to set one',
    );
  });

  it('gives up on a server that never answers once its timeout has passed', async () => {
    const silent: Route = () => undefined;
    const baseUrl = await serve(
      new WireServer().on('GET', '/v1/models', silent).on('GET', '/props', silent).on('GET', '/api/v0/models', silent),
    );
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['my-model'], timeoutMs: 50 });
    expect(learned.facts).toEqual([]);
    expect(learned.note).toContain(`(no answer from ${baseUrl.replace(/\/v1$/, '')} within 50 ms)`);
  });

  it('says nothing about a look-up the caller stopped', async () => {
    const stop = new AbortController();
    const baseUrl = await serve(new WireServer().on('GET', '/v1/models', () => stop.abort()));
    const learned = await learnLocalServerFacts({ name: 'local', baseUrl, slugs: ['my-model'], signal: stop.signal });
    expect(learned).toEqual({ facts: [] });
  });
});

describe('contextWindows', () => {
  it("does not lend llama.cpp's /props window to every name when the server lists several models (router mode)", () => {
    const props = JSON.parse(fixture('local/llamacpp-props.json')) as unknown;
    const models = { object: 'list', data: [{ id: 'small' }, { id: 'large', meta: { n_ctx_train: 32768 } }] };
    const windows = contextWindows({ models, props }, ['small', 'large']);
    expect(Object.fromEntries([...windows].map(([slug, learned]) => [slug, learned.context]))).toEqual({ large: 32768 });
  });

  it('skips a malformed entry and reads the well-formed ones beside it', () => {
    const lmStudio = {
      data: [{ id: null, max_context_length: 1 }, 'garbage', { id: 'real-model', max_context_length: -1, loaded_context_length: 8192 }],
    };
    expect(contextWindows({ lmStudio }, ['real-model']).get('real-model')).toEqual({ context: 8192, source: 'LM Studio' });
  });
});

describe('a local server window in the ranking', () => {
  async function lmStudioPanel(models: { slug: string; context?: number }[]) {
    const lmStudio = new WireServer()
      .on('GET', '/v1/models', lmStudioPlainList)
      .on('GET', '/api/v0/models', recorded('lmstudio-api-v0-models.json'));
    const baseUrl = await serve(lmStudio);
    const panel = parsePanel(
      {
        models: models.map((model) => ({ ...model, provider: 'lmstudio' })),
        routing: { explore: 0 },
        providers: { lmstudio: { kind: 'openai-compatible', baseUrl } },
      },
      'test panel',
    );
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    const connected = await connectProviders({ panel, clock, health, keyFor: () => undefined });
    const router = new Router({
      panel,
      ledger: new MemoryLedger(),
      clock,
      sink: new MemoryDecisionSink(),
      random: seededRandom(1),
      health,
      facts: connected.facts,
    });
    return { router, lmStudio, notes: connected.notes };
  }

  it('prunes the local model a prompt is too long for, with the context reason, and opens with the next rung', async () => {
    const { router, notes } = await lmStudioPanel([{ slug: 'qwen2.5-7b-instruct' }, { slug: 'llama-3.2-3b-instruct' }]);
    const ranking = router.rank({ callId: 'call-1', classKey: 'chat', verifiable: false, contextTokens: 5000 });
    expect(ranking.pruned).toEqual([
      { model: 'qwen2.5-7b-instruct', reason: 'pruned: needs context 5000 > 4096', cause: 'needs context 5000 > 4096' },
    ]);
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['llama-3.2-3b-instruct']);
    expect(notes).toEqual([]);
  });

  it("lets the panel's context win over the server's, and learns the server's for a model that states none", async () => {
    const { router, lmStudio } = await lmStudioPanel([{ slug: 'qwen2.5-7b-instruct', context: 8192 }, { slug: 'llama-3.2-3b-instruct' }]);
    const ranking = router.rank({ callId: 'call-1', classKey: 'chat', verifiable: false, contextTokens: 200_000 });
    expect(ranking.pruned.map((entry) => entry.reason)).toEqual([
      'pruned: needs context 200000 > 8192',
      'pruned: needs context 200000 > 131072',
    ]);
    expect(lmStudio.requests.map((seen) => seen.path).sort()).toEqual(['/api/v0/models', '/props', '/v1/models']);
  });
});

/** What `llama-server` answers, from its README (test/fixtures/wire/local): one model of 8,030,261,312 parameters, started with a window of 1024. */
function llamaServer(): WireServer {
  return new WireServer()
    .on('GET', '/v1/models', recorded('llamacpp-models.json'))
    .on('GET', '/props', recorded('llamacpp-props.json'))
    .on('POST', '/v1/chat/completions', replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }));
}

const lookUps = (server: WireServer) =>
  server.requests
    .filter((seen) => seen.method === 'GET')
    .map((seen) => seen.path)
    .sort();

describe("learnLocalServerFacts: llama.cpp's parameter count", () => {
  it("reads meta.n_params from llama.cpp's /v1/models for whatever name the panel uses, in billions", async () => {
    const baseUrl = await serve(llamaServer());
    const learned = await learnLocalServerFacts({ name: 'llamacpp', baseUrl, slugs: ['my-model'], sizeSlugs: ['my-model'] });
    expect(learned.facts).toEqual([{ slug: 'my-model', context: 1024, parameterBillions: 8.030261312 }]);
  });

  it('asks /v1/models alone when only sizes are wanted (every window stated in the panel)', async () => {
    const server = llamaServer();
    const baseUrl = await serve(server);
    const learned = await learnLocalServerFacts({ name: 'llamacpp', baseUrl, slugs: [], sizeSlugs: ['my-model'] });
    expect(learned).toEqual({ facts: [{ slug: 'my-model', parameterBillions: 8.030261312 }] });
    expect(lookUps(server)).toEqual(['/v1/models']);
  });
});

describe('parameterCounts', () => {
  it('gives a sizeless id the tier its parameter count says, and a role still overrides it', () => {
    const models = { object: 'list', data: [{ id: 'house-model', meta: { n_params: 3_212_749_824 } }] };
    const counts = parameterCounts(models, ['house-model']);
    expect(counts).toEqual(new Map([['house-model', 3.212749824]]));
    const config = { kind: 'openai-compatible' as const, baseUrl: 'http://127.0.0.1:8080/v1' };
    const facts = { slug: 'house-model', parameterBillions: counts.get('house-model') as number };
    expect(tierOf({ slug: 'house-model', provider: 'llamacpp' }, config, facts)).toBe(1);
    expect(tierOf({ slug: 'house-model', provider: 'llamacpp' }, config, undefined)).toBe(2);
    expect(tierOf({ slug: 'house-model', provider: 'llamacpp', role: 'top' }, config, facts)).toBe(3);
  });

  it('matches by id in a list of several (router mode), and reads nothing from lists without meta or with a malformed count', () => {
    const models = {
      data: [
        { id: 'small', meta: { n_params: 1_500_000_000 } },
        { id: 'large', meta: { n_params: 32_763_876_352 } },
        { id: 'odd', meta: { n_params: '7B' } },
      ],
    };
    expect(parameterCounts(models, ['large', 'odd', 'elsewhere'])).toEqual(new Map([['large', 32.763876352]]));
    expect(parameterCounts(JSON.parse(fixture('local/vllm-models.json')), ['already_exists'])).toEqual(new Map());
  });
});

describe('a local server whose window is unknown is asked again', () => {
  it('asks again only once RELEARN_AFTER_MS have passed since the last look-up, then learns from a server started since', async () => {
    const { url, port } = await vacantAddress();
    const clock = new FixedClock();
    const source = new LocalServerFactsSource({
      name: 'llamacpp',
      baseUrl: `${url}/v1`,
      clock,
      slugs: ['my-model'],
      sizeSlugs: ['my-model'],
    });
    const first = await source.learn();
    expect(first.facts).toEqual([]);
    expect(first.note).toContain(`no server at ${url} (ECONNREFUSED)`);
    const server = llamaServer();
    servers.push(server);
    await server.start(port);
    clock.advance(RELEARN_AFTER_MS - 1);
    expect(await source.relearn()).toBeUndefined();
    expect(server.requests).toEqual([]);
    clock.advance(1);
    expect(await source.relearn()).toEqual({
      facts: [{ slug: 'my-model', context: 1024, parameterBillions: 8.030261312 }],
      note: 'llamacpp: the server now gives the context window of my-model (1024), so a prompt too long for it is pruned',
    });
    expect(lookUps(server)).toEqual(['/api/v0/models', '/props', '/v1/models']);
    // Nothing is unknown any more: nothing is asked, however long it has been.
    clock.advance(10 * RELEARN_AFTER_MS);
    expect(await source.relearn()).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it('keeps asking a server that gives no window, once per interval, and says nothing new', async () => {
    const server = new WireServer().on('GET', '/v1/models', lmStudioPlainList);
    const baseUrl = await serve(server);
    const clock = new FixedClock();
    const source = new LocalServerFactsSource({
      name: 'lmstudio',
      baseUrl,
      clock,
      slugs: ['qwen2.5-7b-instruct'],
      sizeSlugs: ['qwen2.5-7b-instruct'],
    });
    await source.learn();
    clock.advance(RELEARN_AFTER_MS);
    expect(await source.relearn()).toEqual({ facts: [] });
    expect(await source.relearn()).toBeUndefined();
    expect(server.requests).toHaveLength(6);
  });

  it('does not ask again while a look-up is under way, and lets a stopped one be asked again at once', async () => {
    const stop = new AbortController();
    // The first look-up is answered, the second is stopped by the caller while the server waits, the third answered.
    const server = new WireServer().on('GET', '/v1/models', lmStudioPlainList, () => stop.abort(), lmStudioPlainList);
    const baseUrl = await serve(server);
    const clock = new FixedClock();
    const source = new LocalServerFactsSource({ name: 'local', baseUrl, clock, slugs: ['my-model'] });
    await source.learn();
    clock.advance(RELEARN_AFTER_MS);
    const stopped = source.relearn(stop.signal);
    expect(await source.relearn()).toBeUndefined();
    expect(await stopped).toEqual({ facts: [] });
    expect(server.requests.filter((seen) => seen.path === '/v1/models')).toHaveLength(2);
    expect(await source.relearn()).toEqual({ facts: [] });
    expect(server.requests.filter((seen) => seen.path === '/v1/models')).toHaveLength(3);
  });

  it('gives up on a silent server after the look-up timeout, as the first look-up does', async () => {
    const silent: Route = () => undefined;
    const baseUrl = await serve(
      new WireServer().on('GET', '/v1/models', silent).on('GET', '/props', silent).on('GET', '/api/v0/models', silent),
    );
    const clock = new FixedClock();
    const source = new LocalServerFactsSource({ name: 'local', baseUrl, clock, slugs: ['my-model'], timeoutMs: 50 });
    expect((await source.learn()).note).toContain('within 50 ms');
    clock.advance(RELEARN_AFTER_MS);
    expect(await source.relearn()).toEqual({ facts: [] });
  });
});

describe('a local server started after Rung connected', () => {
  /** About 5,000 tokens at 4 characters a token: more than the 1024 llama-server was started with. */
  const LONG_PROMPT = `Summarise this log. ${'line of a long build log '.repeat(800)}`;

  it('prunes by the window the session learns on the first call RELEARN_AFTER_MS after connecting, and says so', async () => {
    const { url, port } = await vacantAddress();
    const panel = parsePanel(
      {
        models: [{ slug: 'my-model', provider: 'llamacpp' }],
        routing: { explore: 0 },
        providers: { llamacpp: { kind: 'openai-compatible', baseUrl: `${url}/v1` } },
      },
      'test panel',
    );
    const clock = new FixedClock();
    const said: string[] = [];
    const session = await RungSession.open({ panel, clock, keys: async () => undefined, log: (_level, message) => said.push(message) });
    try {
      expect(said.filter((line) => line.includes('context window'))).toEqual([
        `llamacpp: the context window of my-model is unknown (no server at ${url} (ECONNREFUSED)), so a prompt too long for it is not pruned; give the model a "context" in the panel to set one`,
      ]);
      const server = llamaServer();
      servers.push(server);
      await server.start(port);
      // Before the interval is out, the call goes as before: the window is still unknown, and not asked for.
      clock.advance(RELEARN_AFTER_MS - 1);
      const sent = await session.chat({ messages: [{ role: 'user', content: LONG_PROMPT }] });
      expect(sent.answer?.model).toBe('my-model');
      expect(lookUps(server)).toEqual([]);
      clock.advance(1);
      const refused = await session.chat({ messages: [{ role: 'user', content: LONG_PROMPT }] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ContextRefusalError);
      expect((refused as ContextRefusalError).refusal).toMatchObject({ largestContext: 1024, largestModel: 'my-model' });
      expect(lookUps(server)).toEqual(['/api/v0/models', '/props', '/v1/models']);
      // The one answer (and the confidence check's question about it); the refused call sent nothing.
      expect(
        server.requests.filter(
          (seen) => seen.method === 'POST' && !seen.body.includes('judge whether a proposed answer to a request is correct'),
        ),
      ).toHaveLength(1);
      expect(said).toContain('llamacpp: the server now gives the context window of my-model (1024), so a prompt too long for it is pruned');
      expect(session.rank({ classKey: 'chat' }).candidates[0]?.reason).toBe(
        'no-measured-profiles tier2 (local server ' + new URL(url).host + ')',
      );
    } finally {
      await session.dispose();
    }
  });
});

describe("llama.cpp's parameter count in the ranking", () => {
  it('learns the count when the providers connect, even for a model whose window the panel states, and a role overrides its tier', async () => {
    const server = llamaServer();
    const baseUrl = await serve(server);
    const panel = parsePanel(
      {
        models: [
          { slug: 'my-model', provider: 'llamacpp', context: 4096 },
          { slug: 'my-model-as-base', provider: 'llamacpp', role: 'base', context: 4096 },
        ],
        routing: { explore: 0 },
        providers: { llamacpp: { kind: 'openai-compatible', baseUrl } },
      },
      'test panel',
    );
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    const connected = await connectProviders({ panel, clock, health, keyFor: () => undefined });
    expect(connected.facts.get('my-model')).toEqual({ slug: 'my-model', parameterBillions: 8.030261312 });
    expect(lookUps(server)).toEqual(['/v1/models']);
    const router = new Router({
      panel,
      ledger: new MemoryLedger(),
      clock,
      sink: new MemoryDecisionSink(),
      random: seededRandom(1),
      health,
      facts: connected.facts,
    });
    const host = new URL(baseUrl).host;
    expect(
      router
        .rank({ callId: 'call-1', classKey: 'chat', verifiable: false })
        .candidates.map((candidate) => [candidate.slug, candidate.reason]),
    ).toEqual([
      ['my-model-as-base', `no-measured-profiles tier1 (local server ${host})`],
      ['my-model', `no-measured-profiles tier2 (local server ${host})`],
    ]);
  });
});
