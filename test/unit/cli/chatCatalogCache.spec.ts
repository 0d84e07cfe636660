import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { userCacheFolder } from '../../../src/cli/userCache';
import { CapturedIo } from '../support/CapturedIo';
import { fixture, fixtureBytes, json, serveBytes, WireServer } from '../support/wireServer';

/**
 * Where `rung chat` keeps the provider catalogs that price its models: in the user's cache folder. A
 * cloned folder's `.rung/catalog-openrouter.json`, dated 2100, once priced a dear model at $0, so the
 * user's price cap let it answer on the user's key while the cheap model was pruned.
 */

const KEY = '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';
const YEAR_2100 = Date.UTC(2100, 0, 1);

let root: string;
let workspace: string;
let cache: string;
let server: WireServer;

/** The fixture's OpenRouter list with a dear model added: $150 and $600 per million tokens. */
function catalogWithDearModel(): unknown {
  const list = JSON.parse(fixture('openai/models-openrouter.json')) as { data: unknown[] };
  list.data.push({ id: 'openai/o1-pro', context_length: 200000, pricing: { prompt: '0.00015', completion: '0.0006' } });
  return list;
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'rung-catalog-cache-'));
  workspace = join(root, 'cloned');
  cache = join(root, 'xdg-cache');
  mkdirSync(join(workspace, '.rung'), { recursive: true });
  server = new WireServer()
    .on('POST', '/api/v1/chat/completions', serveBytes(fixtureBytes('openai/chat-normal.sse'), { every: 64 }))
    .on('GET', '/api/v1/models', json(catalogWithDearModel()));
  const url = await server.start();
  // The user's own panel: a cheap model and a dear one, neither priced here (the catalog prices them), under a cap of $10/M.
  writeFileSync(
    join(root, 'my-panel.json'),
    JSON.stringify({
      models: [
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'base' },
        { slug: 'openai/o1-pro', provider: 'openrouter', role: 'top' },
      ],
      maxOutputPrice: 10,
      routing: { explore: 0 },
      providers: { openrouter: { kind: 'openai-compatible', baseUrl: `${url}/api/v1` } },
    }),
  );
  // What the cloned folder brings: a cache "from 2100" for this very server, the dear model at $0.
  writeFileSync(
    join(workspace, '.rung', 'catalog-openrouter.json'),
    JSON.stringify({
      version: 1,
      fetchedAt: YEAR_2100,
      url: `${url}/api/v1/models`,
      models: [
        { slug: 'openai/gpt-4o-mini', price: { input: 1000, output: 1000 }, advertised: [] },
        { slug: 'openai/o1-pro', price: { input: 0, output: 0 }, advertised: [] },
      ],
    }),
  );
});

afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** The models asked to answer (the confidence check asks the answering model again: each is named once). */
function modelsAsked(): string[] {
  return [
    ...new Set(server.requests.filter((seen) => seen.method === 'POST').map((seen) => (JSON.parse(seen.body) as { model: string }).model)),
  ];
}

describe("rung chat's catalog cache", () => {
  it("prices the models from the provider, not from a cache the working folder holds, and keeps the dear model under the user's cap", async () => {
    const planted = readFileSync(join(workspace, '.rung', 'catalog-openrouter.json'), 'utf8');
    const io = new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY, XDG_CACHE_HOME: cache });
    const code = await main(['chat', '--panel', join(root, 'my-panel.json'), 'Say hello'], io);
    expect(code).toBe(0);
    expect(modelsAsked()).toEqual(['openai/gpt-4o-mini']);
    expect(io.err).toContain('answered by openai/gpt-4o-mini');
    // The fetched list is cached in the user's cache folder; the folder's file is left as it was.
    expect(JSON.parse(readFileSync(join(cache, 'rung', 'catalog-openrouter.json'), 'utf8')).models).toContainEqual(
      expect.objectContaining({ slug: 'openai/o1-pro', price: { input: 150, output: 600 } }),
    );
    expect(readFileSync(join(workspace, '.rung', 'catalog-openrouter.json'), 'utf8')).toBe(planted);
  });

  it('fetches the catalog and writes no cache when the environment names no cache folder', async () => {
    const io = new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY });
    expect(await main(['chat', '--panel', join(root, 'my-panel.json'), 'Say hello'], io)).toBe(0);
    expect(modelsAsked()).toEqual(['openai/gpt-4o-mini']);
    expect(existsSync(cache)).toBe(false);
  });
});

describe('userCacheFolder', () => {
  it('is $XDG_CACHE_HOME/rung, else ~/.cache/rung, else %LOCALAPPDATA%\\rung\\cache', () => {
    expect(userCacheFolder({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/ana' })).toBe('/x/cache/rung');
    expect(userCacheFolder({ HOME: '/home/ana' })).toBe('/home/ana/.cache/rung');
    expect(userCacheFolder({ LOCALAPPDATA: '/c/Users/ana/AppData/Local' })).toBe('/c/Users/ana/AppData/Local/rung/cache');
  });

  it('ignores a relative XDG_CACHE_HOME, as the XDG rule says, and names no folder when nothing is set', () => {
    expect(userCacheFolder({ XDG_CACHE_HOME: 'cache', HOME: '/home/ana' })).toBe('/home/ana/.cache/rung');
    expect(userCacheFolder({ XDG_CACHE_HOME: '.rung' })).toBeUndefined();
    expect(userCacheFolder({})).toBeUndefined();
  });
});
