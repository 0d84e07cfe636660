import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog, CATALOG_FRESH_MS, loadCatalog, perMillion } from '../../../../src/core/providers/catalog';
import { FixedClock } from '../../support/FixedClock';
import { endless, fixture, json, WireServer } from '../../support/wireServer';
import { MAX_LIST_BYTES } from '../../../../src/core/providers/transport';

const models = () => JSON.parse(fixture('openai/models-openrouter.json')) as unknown;
let server: WireServer;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-catalog-'));
  server = new WireServer();
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('loadCatalog', () => {
  it('fetches the list, converts per-token prices to $/M and caches it in the given file', async () => {
    server.on('GET', '/api/v1/models', json(models()));
    const baseUrl = `${await server.start()}/api/v1`;
    const clock = new FixedClock();
    const cachePath = join(dir, 'nested', 'catalog.json');
    const catalog = await loadCatalog({ baseUrl, cachePath, clock });
    expect(catalog.source).toBe('network');
    expect(catalog.entry('openai/gpt-4o-mini')).toEqual({
      slug: 'openai/gpt-4o-mini',
      price: { input: 0.15, output: 0.6 },
      context: 128000,
      advertised: expect.arrayContaining(['tools', 'logprobs', 'response_format']),
    });
    expect(catalog.entry('qwen/qwen3-14b')?.price).toEqual({ input: 0.06, output: 0.24 });
    expect(JSON.parse(readFileSync(cachePath, 'utf8')).models).toHaveLength(4);
  });

  it('leaves a variable price unknown rather than negative', async () => {
    server.on('GET', '/models', json(models()));
    const catalog = await loadCatalog({ baseUrl: await server.start(), cachePath: join(dir, 'c.json'), clock: new FixedClock() });
    expect(catalog.entry('openrouter/auto')?.price).toBeUndefined();
    expect(catalog.cost('openrouter/auto', 100, 100)).toBeUndefined();
  });

  it('stops reading a list that never ends at its size limit and says so, falling back to no catalog', async () => {
    const body = endless({
      contentType: 'application/json',
      head: '{"data":[',
      piece: '{"id":"x","pricing":{"prompt":"0.000001","completion":"0.000002"}},'.repeat(200),
    });
    server.on('GET', '/models', body.route);
    const catalog = await loadCatalog({
      baseUrl: await server.start(),
      cachePath: join(dir, 'c.json'),
      clock: new FixedClock(),
      timeoutMs: 120_000,
    });
    expect(catalog.source).toBe('none');
    expect(catalog.note).toBe(
      'fetch failed (the list was more than 16 MiB, far more than any catalogue (a fixed limit), and was not read) and there is no cache',
    );
    await body.closed;
    expect(body.sent).toBeLessThan(MAX_LIST_BYTES + 8 * 1024 * 1024);
  });

  it('uses a fresh cache without asking the network', async () => {
    server.on('GET', '/models', json(models()));
    const baseUrl = await server.start();
    const clock = new FixedClock();
    const cachePath = join(dir, 'c.json');
    await loadCatalog({ baseUrl, cachePath, clock });
    clock.advance(CATALOG_FRESH_MS - 1);
    const again = await loadCatalog({ baseUrl, cachePath, clock });
    expect(again.source).toBe('cache');
    expect(server.requests).toHaveLength(1);
  });

  it('asks the network rather than trust a cache dated in the future', async () => {
    server.on('GET', '/models', json(models()));
    const baseUrl = await server.start();
    const clock = new FixedClock();
    const cachePath = join(dir, 'c.json');
    writeFileSync(
      cachePath,
      JSON.stringify({
        version: 1,
        fetchedAt: Date.UTC(2100, 0, 1),
        url: `${baseUrl}/models`,
        models: [{ slug: 'openai/gpt-4o-mini', price: { input: 0, output: 0 }, advertised: [] }],
      }),
    );
    const catalog = await loadCatalog({ baseUrl, cachePath, clock });
    expect(server.requests).toHaveLength(1);
    expect(catalog.source).toBe('network');
    expect(catalog.entry('openai/gpt-4o-mini')?.price).toEqual({ input: 0.15, output: 0.6 });
    expect(JSON.parse(readFileSync(cachePath, 'utf8')).fetchedAt).toBe(clock.now());
  });

  it('reads and writes no file with no cache path, and asks the network every time', async () => {
    server.on('GET', '/models', json(models()));
    const baseUrl = await server.start();
    const clock = new FixedClock();
    expect((await loadCatalog({ baseUrl, cachePath: null, clock })).source).toBe('network');
    expect((await loadCatalog({ baseUrl, cachePath: null, clock })).source).toBe('network');
    expect(server.requests).toHaveLength(2);
  });

  it('falls back to the cache however old when the fetch fails', async () => {
    server.on('GET', '/models', json(models()), json({ error: { message: 'upstream down' } }, 503));
    const baseUrl = await server.start();
    const clock = new FixedClock();
    const cachePath = join(dir, 'c.json');
    await loadCatalog({ baseUrl, cachePath, clock });
    clock.advance(400 * 24 * 60 * 60 * 1000);
    const stale = await loadCatalog({ baseUrl, cachePath, clock });
    expect(stale.source).toBe('cache');
    expect(stale.note).toMatch(/fetch failed \(HTTP 503\); using the cache from 2026-01-01/);
    expect(stale.entry('openai/gpt-4o-mini')?.price?.output).toBe(0.6);
  });

  it('falls back to nothing when the fetch fails and there is no cache', async () => {
    server.on('GET', '/models', json({ error: 'nope' }, 500));
    const catalog = await loadCatalog({ baseUrl: await server.start(), cachePath: join(dir, 'c.json'), clock: new FixedClock() });
    expect(catalog.source).toBe('none');
    expect(catalog.size).toBe(0);
    expect(catalog.note).toMatch(/no cache/);
  });

  it('treats a corrupt cache as no cache', async () => {
    const cachePath = join(dir, 'c.json');
    writeFileSync(cachePath, '{"version":1,"fetchedAt":');
    server.on('GET', '/models', json({}, 502));
    const catalog = await loadCatalog({ baseUrl: await server.start(), cachePath, clock: new FixedClock() });
    expect(catalog.source).toBe('none');
  });

  it("asks the network, and never falls back to the cache, when the cache holds another server's list", async () => {
    server.on('GET', '/models', json(models()));
    const clock = new FixedClock();
    const cachePath = join(dir, 'c.json');
    await loadCatalog({ baseUrl: await server.start(), cachePath, clock });
    const moved = new WireServer();
    try {
      moved.on('GET', '/v1/models', json({ error: { message: 'upstream down' } }, 503));
      const elsewhere = await loadCatalog({ baseUrl: `${await moved.start()}/v1`, cachePath, clock });
      expect(moved.requests).toHaveLength(1);
      expect(elsewhere.source).toBe('none');
      expect(elsewhere.note).toBe('fetch failed (HTTP 503) and there is no cache');
    } finally {
      await moved.close();
    }
  });

  it('takes a cache written before the list address was recorded as the same server', async () => {
    const cachePath = join(dir, 'c.json');
    const clock = new FixedClock();
    writeFileSync(
      cachePath,
      JSON.stringify({ version: 1, fetchedAt: clock.now(), models: [{ slug: 'a/b', price: { input: 1, output: 2 }, advertised: [] }] }),
    );
    const catalog = await loadCatalog({ baseUrl: await server.start(), cachePath, clock });
    expect(catalog.source).toBe('cache');
    expect(catalog.entry('a/b')?.price).toEqual({ input: 1, output: 2 });
    expect(server.requests).toHaveLength(0);
  });

  it('sends the key as a bearer token and never writes it to the cache', async () => {
    server.on('GET', '/models', json(models()));
    const cachePath = join(dir, 'c.json');
    await loadCatalog({ baseUrl: await server.start(), cachePath, clock: new FixedClock(), apiKey: 'sk-or-v1-catalogsecret' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-or-v1-catalogsecret');
    expect(readFileSync(cachePath, 'utf8')).not.toContain('catalogsecret');
  });
});

describe('Catalog', () => {
  const catalog = new Catalog(
    [
      { slug: 'deepseek/deepseek-v4-flash-latest', price: { input: 0.27, output: 1.1 }, context: 163840, advertised: ['logprobs'] },
      { slug: '~vendor/listed-with-tilde', advertised: [] },
    ],
    0,
    'cache',
  );

  it('finds a floating alias with and without its tilde', () => {
    expect(catalog.entry('~deepseek/deepseek-v4-flash-latest')?.price).toEqual({ input: 0.27, output: 1.1 });
    expect(catalog.entry('deepseek/deepseek-v4-flash-latest')?.context).toBe(163840);
    expect(catalog.entry('vendor/listed-with-tilde')).toBeDefined();
    expect(catalog.entry('deepseek/other')).toBeUndefined();
  });

  it('records advertised parameters as facts without turning them into capabilities', () => {
    expect(catalog.facts('~deepseek/deepseek-v4-flash-latest')).toEqual({
      slug: '~deepseek/deepseek-v4-flash-latest',
      price: { input: 0.27, output: 1.1 },
      context: 163840,
      advertised: ['logprobs'],
    });
  });

  it('prices a call from its token counts', () => {
    expect(catalog.cost('deepseek/deepseek-v4-flash-latest', 1_000_000, 1_000_000)).toBeCloseTo(1.37, 10);
  });
});

describe('perMillion', () => {
  it('converts per-token strings to dollars per million tokens without float noise', () => {
    expect(perMillion('0.00000015')).toBe(0.15);
    expect(perMillion('0.0000006')).toBe(0.6);
    expect(perMillion('0')).toBe(0);
    expect(perMillion('-1')).toBeUndefined();
    expect(perMillion('free')).toBeUndefined();
    expect(perMillion(undefined)).toBeUndefined();
  });
});
