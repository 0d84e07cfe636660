import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import { connectProviders } from '../../../../src/core/session/connectProviders';
import { PROBE_CACHE_MS } from '../../../../src/core/providers/ollamaAdapter';
import { ProviderUnavailable } from '../../../../src/core/providers/provider';
import { ProviderHealthBoard } from '../../../../src/core/providers/providerHealthBoard';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { seededRandom } from '../../../../src/core/random';
import { Router } from '../../../../src/core/routing/router';
import { FixedClock } from '../../support/FixedClock';
import { collect, fixture, json, recordedStatus, replay, WireServer } from '../../support/wireServer';

const servers: WireServer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('connectProviders', () => {
  it('probes each provider once, takes Ollama sizes and catalog prices as facts, and marks what cannot be reached', async () => {
    const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))));
    const cloud = new WireServer().on('GET', '/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
    servers.push(ollama, cloud);
    const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
    const dir = mkdtempSync(join(tmpdir(), 'rung-connect-'));
    dirs.push(dir);
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen3:14b', provider: 'ollama' },
          { slug: '~deepseek/deepseek-v4-flash-latest', provider: 'router' },
          { slug: 'copilot-gpt-4o', provider: 'editor' },
          { slug: 'openai/gpt-4o-mini', provider: 'keyless' },
        ],
        providers: {
          ollama: { kind: 'ollama', baseUrl: ollamaUrl },
          router: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/v1` },
          // On loopback, like every server here, so it says it wants a key, as a cloud one does.
          keyless: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/v1`, key: 'required' },
          editor: { kind: 'vscode-lm' },
        },
      },
      'test panel',
    );
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    const { adapters, facts } = await connectProviders({
      panel,
      clock,
      health,
      keyFor: (provider) => (provider === 'router' ? 'sk-test-router' : undefined),
      keyHint: (provider) => `set RUNG_${provider.toUpperCase()}_API_KEY`,
      catalogPath: (provider) => join(dir, `catalog-${provider}.json`),
    });
    expect([...adapters.keys()].sort()).toEqual(['keyless', 'ollama', 'router']);
    expect(facts.get('qwen3:14b')?.parameterBillions).toBe(14.8);
    expect(facts.get('~deepseek/deepseek-v4-flash-latest')?.price).toEqual({ input: 0.27, output: 1.1 });
    expect(health.unavailableReason('ollama', clock.now())).toBeNull();
    expect(health.unavailableReason('router', clock.now())).toBeNull();
    expect(health.unavailableReason('keyless', clock.now())).toBe('keyless: no API key (set RUNG_KEYLESS_API_KEY)');
    expect(health.unavailableReason('editor', clock.now())).toBe('provider kind vscode-lm has no adapter here');
    expect(ollama.requests.filter((request) => request.path === '/api/tags')).toHaveLength(1);
  });

  it('says in one line for the log, naming the provider, when its catalog could not be fetched and what was used instead', async () => {
    const cloud = new WireServer().on('GET', '/v1/models', recordedStatus('openai/500-server-error.json'));
    servers.push(cloud);
    const baseUrl = `${await cloud.start()}/v1`;
    const dir = mkdtempSync(join(tmpdir(), 'rung-connect-'));
    dirs.push(dir);
    const panel = parsePanel(
      {
        models: [{ slug: 'openai/gpt-4o-mini', provider: 'router' }],
        providers: { router: { kind: 'openai-compatible', baseUrl, key: 'required' } },
      },
      'test panel',
    );
    const clock = new FixedClock(Date.UTC(2026, 0, 10));
    const connect = () =>
      connectProviders({
        panel,
        clock,
        health: new ProviderHealthBoard({ clock }),
        keyFor: () => 'sk-test-router',
        catalogPath: (provider) => join(dir, `catalog-${provider}.json`),
      });
    expect((await connect()).notes).toEqual(["router's catalog: fetch failed (HTTP 500) and there is no cache"]);
    writeFileSync(
      join(dir, 'catalog-router.json'),
      JSON.stringify({
        version: 1,
        fetchedAt: Date.UTC(2026, 0, 1),
        models: [{ slug: 'openai/gpt-4o-mini', price: { input: 0.15, output: 0.6 }, advertised: [] }],
      }),
    );
    const connected = await connect();
    expect(connected.notes).toEqual(["router's catalog: fetch failed (HTTP 500); using the cache from 2026-01-01T00:00:00.000Z"]);
    expect(connected.facts.get('openai/gpt-4o-mini')?.price).toEqual({ input: 0.15, output: 0.6 });
  });

  it('says nothing of a catalog fetch the caller stopped', async () => {
    const stop = new AbortController();
    const cloud = new WireServer().on('GET', '/v1/models', () => stop.abort());
    servers.push(cloud);
    const panel = parsePanel(
      {
        models: [{ slug: 'openai/gpt-4o-mini', provider: 'router' }],
        providers: { router: { kind: 'openai-compatible', baseUrl: `${await cloud.start()}/v1`, key: 'required' } },
      },
      'test panel',
    );
    const dir = mkdtempSync(join(tmpdir(), 'rung-connect-'));
    dirs.push(dir);
    const clock = new FixedClock();
    const connected = await connectProviders({
      panel,
      clock,
      health: new ProviderHealthBoard({ clock }),
      keyFor: () => 'sk-test-router',
      catalogPath: () => join(dir, 'catalog.json'),
      signal: stop.signal,
    });
    expect(cloud.requests.map((seen) => seen.path)).toEqual(['/v1/models']);
    expect(connected.notes).toEqual([]);
  });

  it('does not mark Ollama down for a probe the caller stopped', async () => {
    const stop = new AbortController();
    // Stopped once the probe has reached the server, which never answers: the stop, not a timeout or a
    // refusal, is what ends it, however slowly the request arrives.
    const ollama = new WireServer().on('GET', '/api/tags', () => stop.abort());
    servers.push(ollama);
    const panel = parsePanel(
      { models: [{ slug: 'qwen3:14b', provider: 'ollama' }], providers: { ollama: { kind: 'ollama', baseUrl: await ollama.start() } } },
      'test panel',
    );
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    await connectProviders({ panel, clock, health, keyFor: () => undefined, signal: stop.signal });
    expect(ollama.requests.map((seen) => seen.path)).toEqual(['/api/tags']);
    expect(health.unavailableReason('ollama', clock.now())).toBeNull();
  });

  it('finds an Ollama that was down at connect time usable again once a recheck sees it back', async () => {
    const ollama = new WireServer().on(
      'GET',
      '/api/tags',
      recordedStatus('ollama/chat-503-server-busy.json'),
      json(JSON.parse(fixture('ollama/tags.json'))),
    );
    servers.push(ollama);
    const panel = parsePanel(
      { models: [{ slug: 'qwen3:14b', provider: 'ollama' }], providers: { ollama: { kind: 'ollama', baseUrl: await ollama.start() } } },
      'test panel',
    );
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    await connectProviders({ panel, clock, health, keyFor: () => undefined });
    const router = new Router({
      panel,
      ledger: new MemoryLedger(),
      clock,
      sink: new MemoryDecisionSink(),
      random: seededRandom(1),
      health,
    });
    const request = { callId: 'call-1', classKey: 'chat', verifiable: false };
    expect(router.rank(request).candidates).toEqual([]);
    expect(health.unavailableReason('ollama', clock.now())).toBe('GET /api/tags answered 503');

    // Too soon: the mark is younger than the probe cache, and the server is not asked again.
    await health.recheck();
    expect(ollama.requests.filter((seen) => seen.path === '/api/tags')).toHaveLength(1);

    clock.advance(PROBE_CACHE_MS);
    await health.recheck();
    expect(ollama.requests.filter((seen) => seen.path === '/api/tags')).toHaveLength(2);
    expect(health.unavailableReason('ollama', clock.now())).toBeNull();
    expect(router.rank(request).candidates.map((candidate) => candidate.slug)).toEqual(['qwen3:14b']);
  });
});

/**
 * Sends every request to a local server, keeping only its path: stands in for a machine on the network
 * the tests cannot reach, so the request a non-loopback provider sends can still be looked at.
 */
class ForwardingFetch {
  readonly asked: string[] = [];
  constructor(private readonly localBase: string) {}

  readonly fetch = (input: string, init?: RequestInit): Promise<Response> => {
    this.asked.push(input);
    const url = new URL(input);
    return globalThis.fetch(`${this.localBase}${url.pathname}`, init);
  };
}

describe('connectProviders: keys for OpenAI-compatible providers', () => {
  const keyHint = (provider: string) => `set RUNG_${provider.toUpperCase()}_API_KEY`;
  const user = [{ role: 'user' as const, content: 'Give me Paris as JSON.' }];

  async function connect(providers: Record<string, unknown>, keyFor: (provider: string) => string | undefined, fetch?: ForwardingFetch) {
    const panel = parsePanel({ models: [{ slug: 'served-model', provider: 'server' }], providers }, 'test panel');
    const clock = new FixedClock();
    const health = new ProviderHealthBoard({ clock });
    const { adapters } = await connectProviders({ panel, clock, health, keyFor, keyHint, ...(fetch ? { fetch: fetch.fetch } : {}) });
    const adapter = adapters.get('server');
    if (!adapter) throw new Error('connectProviders built no adapter for the server');
    return { adapter, reason: health.unavailableReason('server', clock.now()) };
  }

  it('still asks for a key before calling a provider that is not on loopback, and sends nothing', async () => {
    const server = new WireServer().on(
      'POST',
      '/v1/chat/completions',
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    servers.push(server);
    const forwarding = new ForwardingFetch(await server.start());
    const { adapter, reason } = await connect(
      { server: { kind: 'openai-compatible', baseUrl: 'https://llm.example.test/v1' } },
      () => undefined,
      forwarding,
    );
    expect(reason).toBe('server: no API key (set RUNG_SERVER_API_KEY)');
    const { error } = await collect(adapter.chat('served-model', user, [], {}));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect((error as Error).message).toBe('server: no API key (set RUNG_SERVER_API_KEY)');
    expect(forwarding.asked).toEqual([]);
  });

  it('calls a provider off loopback without a key when the panel says key none, with no Authorization header', async () => {
    const server = new WireServer().on(
      'POST',
      '/v1/chat/completions',
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    servers.push(server);
    const forwarding = new ForwardingFetch(await server.start());
    const { adapter, reason } = await connect(
      { server: { kind: 'openai-compatible', baseUrl: 'http://192.168.1.20:8000/v1', key: 'none' } },
      () => undefined,
      forwarding,
    );
    expect(reason).toBeNull();
    const { parts, error } = await collect(adapter.chat('served-model', user, [], {}));
    expect(error).toBeUndefined();
    expect(parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('')).toContain('Paris');
    expect(forwarding.asked).toEqual(['http://192.168.1.20:8000/v1/chat/completions']);
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });

  it('sends a key that is set to a loopback server, and holds a loopback server marked key required until one is', async () => {
    const server = new WireServer().on(
      'POST',
      '/v1/chat/completions',
      replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }),
    );
    servers.push(server);
    const baseUrl = `${await server.start()}/v1`;
    const keyed = await connect({ server: { kind: 'openai-compatible', baseUrl } }, () => 'local-proxy-key');
    await collect(keyed.adapter.chat('served-model', user, [], {}));
    expect(server.requests.find((seen) => seen.method === 'POST')?.headers.authorization).toBe('Bearer local-proxy-key');

    // Nothing at all goes to the one marked required: no call, and no look-up of its context windows,
    // since a keyed proxy on loopback is not a local server.
    const seenBefore = server.requests.length;
    const required = await connect({ server: { kind: 'openai-compatible', baseUrl, key: 'required' } }, () => undefined);
    expect(required.reason).toBe('server: no API key (set RUNG_SERVER_API_KEY)');
    expect(server.requests).toHaveLength(seenBefore);
  });
});
