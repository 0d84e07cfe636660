import type { ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPanelFile,
  EXAMPLE_PANEL,
  FIRST_RUN_MAX_MODELS,
  MAX_SHOWN_MODELS,
  panelFromOllamaModels,
  seedPanelFile,
} from '../../../src/core/ollamaPanel';
import { MAX_SHOW_BYTES } from '../../../src/core/providers/ollamaShow';
import { parsePanel, parsePanelText } from '../../../src/core/panel';
import { FixedClock } from '../support/FixedClock';
import { fixture, json, vacantAddress, WireServer, type SeenRequest } from '../support/wireServer';

describe('panelFromOllamaModels', () => {
  it('orders the chat models by size and gives each the role the ladder gives its size', () => {
    const panel = panelFromOllamaModels([
      { slug: 'qwen3:14b', parameterBillions: 14.8 },
      { slug: 'nomic-embed-text:latest', parameterBillions: 0.137 },
      { slug: 'qwen2.5:3b', parameterBillions: 3.1 },
      { slug: 'qwen3.6:27b', parameterBillions: 27.4 },
    ]);
    expect(panel?.models).toEqual([
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', tools: true },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
      { slug: 'qwen3.6:27b', provider: 'ollama', role: 'top', tools: true },
    ]);
    expect(() => parsePanel(panel, 'first run')).not.toThrow();
  });

  it('gives two small models both the base role, as the ladder would, not base and top by their order', () => {
    expect(
      panelFromOllamaModels([
        { slug: 'llama3.2:3b', parameterBillions: 3.2 },
        { slug: 'qwen2.5:7b', parameterBillions: 7.6 },
      ])?.models.map((model) => model.role),
    ).toEqual(['base', 'base']);
  });

  it('keeps what Ollama said about tools and the context window, and declares tools where it said nothing', () => {
    expect(
      panelFromOllamaModels([
        { slug: 'dolphin3:8b', parameterBillions: 8.03, tools: false, chat: true, context: 131072 },
        { slug: 'llama3.2:3b', parameterBillions: 3.2, context: 131072 },
      ])?.models,
    ).toEqual([
      { slug: 'llama3.2:3b', provider: 'ollama', role: 'base', tools: true, context: 131072 },
      { slug: 'dolphin3:8b', provider: 'ollama', role: 'mid', tools: false, context: 131072 },
    ]);
  });

  it('leaves out a model Ollama says does not chat, whatever its name', () => {
    expect(
      panelFromOllamaModels([
        { slug: 'paraphrase-multilingual:latest', chat: false },
        { slug: 'qwen2.5:3b', parameterBillions: 3.1 },
      ])?.models.map((model) => model.slug),
    ).toEqual(['qwen2.5:3b']);
  });

  it('builds no panel from an Ollama that holds only embedding models', () => {
    expect(panelFromOllamaModels([{ slug: 'nomic-embed-text:latest' }, { slug: 'mxbai-embed-large' }])).toBeUndefined();
    expect(panelFromOllamaModels([])).toBeUndefined();
  });

  it('keeps the smallest and the largest of many models', () => {
    const many = Array.from({ length: 9 }, (_, index) => ({ slug: `m${index}`, parameterBillions: index + 1 }));
    const slugs = panelFromOllamaModels(many)?.models.map((model) => model.slug) ?? [];
    expect(slugs).toHaveLength(FIRST_RUN_MAX_MODELS);
    expect(slugs[0]).toBe('m0');
    expect(slugs.at(-1)).toBe('m8');
  });

  it('gives no role to a model of unknown size, so the ladder places it', () => {
    expect(panelFromOllamaModels([{ slug: 'my-import:latest' }])?.models).toEqual([
      { slug: 'my-import:latest', provider: 'ollama', tools: true },
    ]);
  });
});

/**
 * The local Ollama of a user who pulled three models and two embedding ones: `/api/tags` as Ollama lists
 * them (written by hand, the documented shape) and `/api/show` as real servers answered for those models
 * (test/fixtures/wire/ollama/show-*.json, sources in SOURCES.md).
 */
const TAGS = {
  models: [
    { name: 'gpt-oss:120b', model: 'gpt-oss:120b', details: { family: 'gptoss', parameter_size: '116829156672' } },
    { name: 'dolphin3:8b', model: 'dolphin3:8b', details: { family: 'llama', parameter_size: '8.0B' } },
    {
      name: 'paraphrase-multilingual:latest',
      model: 'paraphrase-multilingual:latest',
      details: { family: 'bert', parameter_size: '278.04M' },
    },
    { name: 'smollm2:1.7b', model: 'smollm2:1.7b', details: { family: 'llama', parameter_size: '1.7B' } },
    { name: 'nomic-embed-text:latest', model: 'nomic-embed-text:latest', details: { family: 'nomic-bert', parameter_size: '137M' } },
  ],
};

const SHOWN: Record<string, string> = {
  'smollm2:1.7b': 'show-smollm2-1.7b.json',
  'dolphin3:8b': 'show-dolphin3-8b.json',
  'gpt-oss:120b': 'show-gpt-oss-120b.json',
  'paraphrase-multilingual:latest': 'show-paraphrase-multilingual-embedding.json',
};

let ollama: WireServer | undefined;
let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'rung-panel-file-'));
});

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  rmSync(folder, { recursive: true, force: true });
});

async function localOllama(): Promise<string> {
  ollama = new WireServer().on('GET', '/api/tags', json(TAGS)).on('POST', '/api/show', (response: ServerResponse, request: SeenRequest) => {
    const name = SHOWN[(JSON.parse(request.body) as { model: string }).model];
    if (name === undefined) response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"model not found"}');
    else response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(fixture(`ollama/${name}`));
  });
  return ollama.start();
}

const shownModels = (): string[] =>
  (ollama?.requests ?? [])
    .filter((request) => request.path === '/api/show')
    .map((request) => (JSON.parse(request.body) as { model: string }).model);

describe('seedPanelFile', () => {
  it('lists the models the local Ollama has, with tools and context from /api/show and roles from their size', async () => {
    const baseUrl = await localOllama();
    const seed = await seedPanelFile({ baseUrl, clock: new FixedClock() });
    expect(seed.fromOllama).toBe(true);
    expect(seed.panel).toEqual({
      models: [
        { slug: 'smollm2:1.7b', provider: 'ollama', role: 'base', tools: true, context: 8192 },
        { slug: 'dolphin3:8b', provider: 'ollama', role: 'mid', tools: false, context: 131072 },
        { slug: 'gpt-oss:120b', provider: 'ollama', role: 'top', tools: true, context: 131072 },
      ],
    });
    expect(seed.note).toBe(
      `The panel lists the models the Ollama at ${baseUrl} has, smallest first: smollm2:1.7b (base, tools, 8192 tokens), dolphin3:8b (mid, no tools, 131072 tokens), gpt-oss:120b (top, tools, 131072 tokens). Add a cloud model above them to climb to when they fail.`,
    );
    expect(parsePanelText(seed.text, 'panel.json').models).toEqual(seed.panel.models);
    // An embedding model's name is enough to leave it out without asking; any other is asked about.
    expect(shownModels().sort()).toEqual(['dolphin3:8b', 'gpt-oss:120b', 'paraphrase-multilingual:latest', 'smollm2:1.7b']);
  });

  it('falls back to the example, saying its models must be pulled, when no Ollama answers', async () => {
    const { url } = await vacantAddress();
    const seed = await seedPanelFile({ baseUrl: url, clock: new FixedClock() });
    expect(seed.fromOllama).toBe(false);
    expect(seed.panel).toEqual(EXAMPLE_PANEL);
    expect(seed.note).toBe(
      `This is an example, since no local Ollama answered at ${url} (ECONNREFUSED): its models must be pulled before they answer (ollama pull qwen2.5-coder:7b), and openai/gpt-4o-mini needs a key for openrouter (Rung: Set Provider Key). Or replace them with models you have.`,
    );
    expect(seed.text).not.toMatch(/\/\/|\/\*/);
    expect(() => parsePanelText(seed.text, 'panel.json')).not.toThrow();
  });

  it('falls back to the example when the Ollama holds no chat model, saying so', async () => {
    ollama = new WireServer().on('GET', '/api/tags', json({ models: [TAGS.models[4]] }));
    const baseUrl = await ollama.start();
    const seed = await seedPanelFile({ baseUrl, clock: new FixedClock() });
    expect(seed.panel).toEqual(EXAMPLE_PANEL);
    expect(seed.note).toContain(`since the Ollama at ${baseUrl} holds no chat model`);
  });

  it('builds the panel from the tags alone when /api/show is not answered', async () => {
    ollama = new WireServer().on('GET', '/api/tags', json({ models: [TAGS.models[3], TAGS.models[1]] }));
    const baseUrl = await ollama.start();
    expect((await seedPanelFile({ baseUrl, clock: new FixedClock() })).panel.models).toEqual([
      { slug: 'smollm2:1.7b', provider: 'ollama', role: 'base', tools: true },
      { slug: 'dolphin3:8b', provider: 'ollama', role: 'mid', tools: true },
    ]);
  });
});

describe('a panel built from an Ollama that lists many models, or hostile ones', () => {
  it(`asks /api/show about at most ${MAX_SHOWN_MODELS} of 200 models, spread across their sizes, and says what it left out`, async () => {
    const tags = {
      models: Array.from({ length: 200 }, (_, index) => ({ name: `m${index}:${index + 1}b`, model: `m${index}:${index + 1}b` })),
    };
    ollama = new WireServer().on('GET', '/api/tags', json(tags)).on('POST', '/api/show', json({ capabilities: ['completion', 'tools'] }));
    const baseUrl = await ollama.start();
    const seed = await seedPanelFile({ baseUrl, clock: new FixedClock() });
    expect(shownModels()).toHaveLength(MAX_SHOWN_MODELS);
    // The smallest and the largest are among those asked, so the panel still spans the sizes.
    expect(seed.panel.models.map((model) => model.slug)).toContain('m0:1b');
    expect(seed.panel.models.map((model) => model.slug)).toContain('m199:200b');
    expect(seed.note).toContain(`Left out: ${200 - MAX_SHOWN_MODELS} of its 200 models, as at most ${MAX_SHOWN_MODELS} are asked about.`);
  });

  it("stops reading a model's /api/show answer past its bound, and takes the model as one Ollama said nothing of", async () => {
    const huge = JSON.stringify({ capabilities: ['completion'], license: 'x'.repeat(MAX_SHOW_BYTES) });
    ollama = new WireServer()
      .on('GET', '/api/tags', json({ models: [TAGS.models[3]] }))
      .on('POST', '/api/show', (response: ServerResponse) => {
        // No content-length: the bound must hold while reading, not only on the header.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(huge);
      });
    const baseUrl = await ollama.start();
    expect((await seedPanelFile({ baseUrl, clock: new FixedClock() })).panel.models).toEqual([
      { slug: 'smollm2:1.7b', provider: 'ollama', role: 'base', tools: true },
    ]);
  });

  it('leaves out names no panel can hold, asking nothing of them, and writes a panel file that loads', async () => {
    const hostile = ['evil model$(touch /tmp/x)', 'quote"d', '__proto__', `${'a'.repeat(300)}:7b`, 'line\nbreak'];
    const tags = { models: [...hostile.map((name) => ({ name, model: name })), TAGS.models[3]] };
    ollama = new WireServer().on('GET', '/api/tags', json(tags)).on('POST', '/api/show', json({ capabilities: ['completion', 'tools'] }));
    const baseUrl = await ollama.start();
    const path = join(folder, '.rung', 'panel.json');
    const created = await createPanelFile(path, { baseUrl, clock: new FixedClock() });
    expect(created.created).toBe(true);
    expect(parsePanelText(readFileSync(path, 'utf8'), path).models.map((model) => model.slug)).toEqual(['smollm2:1.7b']);
    expect(shownModels()).toEqual(['smollm2:1.7b']);
    expect(created.created && created.seed.note).toContain(`Left out: ${hostile.length} models whose name a panel cannot hold.`);
  });
});

describe('createPanelFile', () => {
  it('writes the seeded panel into a new .rung folder', async () => {
    const baseUrl = await localOllama();
    const path = join(folder, '.rung', 'panel.json');
    const created = await createPanelFile(path, { baseUrl, clock: new FixedClock() });
    expect(created.created).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(created.created ? created.seed.text : '');
    expect(parsePanelText(readFileSync(path, 'utf8'), path).models.map((model) => model.slug)).toEqual([
      'smollm2:1.7b',
      'dolphin3:8b',
      'gpt-oss:120b',
    ]);
  });

  it('never replaces a panel file that is there, and asks Ollama nothing then', async () => {
    const baseUrl = await localOllama();
    const path = join(folder, 'panel.json');
    writeFileSync(path, '{ "models": [{ "slug": "mine", "provider": "ollama" }] }\n');
    expect(await createPanelFile(path, { baseUrl, clock: new FixedClock() })).toEqual({ created: false });
    expect(readFileSync(path, 'utf8')).toBe('{ "models": [{ "slug": "mine", "provider": "ollama" }] }\n');
    expect(ollama?.requests).toEqual([]);
    expect(existsSync(join(folder, '.rung'))).toBe(false);
  });
});
