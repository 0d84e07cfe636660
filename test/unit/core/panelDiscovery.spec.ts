import { afterEach, describe, expect, it } from 'vitest';
import { parsePanel, PanelError } from '../../../src/core/panel';
import { discoverPanel, PanelNotFoundError } from '../../../src/core/panelDiscovery';
import { FixedClock } from '../support/FixedClock';
import { fixture, json, vacantAddress, WireServer } from '../support/wireServer';

/** The rule the extension and the CLI share: the configured panel, else the local Ollama's models, else say where it looked. */

let ollama: WireServer | undefined;

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
});

async function startOllama(): Promise<string> {
  ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))));
  return ollama.start();
}

const configuredPanel = parsePanel({ models: [{ slug: 'mine', provider: 'ollama' }] }, 'rung.panel');

describe('discoverPanel', () => {
  it('takes the configured panel and asks no Ollama', async () => {
    const baseUrl = await startOllama();
    const found = await discoverPanel({
      configured: () => ({ panel: configuredPanel, source: 'rung.panel', notes: ['a note'] }),
      lookedFor: ['rung.panel'],
      ollama: { baseUrl, clock: new FixedClock() },
    });
    expect(found).toEqual({ panel: configuredPanel, source: 'rung.panel', from: 'configured', notes: ['a note'] });
    expect(ollama?.requests).toEqual([]);
  });

  it("builds the panel from the local Ollama when nothing is configured, through the front end's own validation", async () => {
    const baseUrl = await startOllama();
    const lines: string[] = [];
    const found = await discoverPanel({
      configured: () => undefined,
      lookedFor: ['rung.panel', '/w/.rung/panel.json'],
      ollama: { baseUrl, clock: new FixedClock() },
      // The extension lays its settings over the Ollama's panel, as over a written one.
      fromOllama: (file, source) => parsePanel({ ...file, routing: { explore: 0 } }, source),
      log: (line) => lines.push(line),
    });
    expect(found.from).toBe('ollama');
    expect(found.source).toBe(`the models of the local Ollama at ${baseUrl}`);
    expect(found.panel.models.map((model) => model.slug)).toEqual(['qwen2.5:3b', 'qwen3:14b', 'qwen3.6:27b']);
    expect(found.panel.routing.explore).toBe(0);
    expect(lines).toEqual([`built a panel from the Ollama at ${baseUrl}: qwen2.5:3b, qwen3:14b, qwen3.6:27b`]);
  });

  it('says where it looked when nothing is configured and no Ollama answers', async () => {
    const { url } = await vacantAddress();
    const found = discoverPanel({
      configured: () => undefined,
      lookedFor: ['rung.panel', '/w/.rung/panel.json'],
      ollama: { baseUrl: url, clock: new FixedClock() },
    });
    await expect(found).rejects.toBeInstanceOf(PanelNotFoundError);
    await expect(found).rejects.toThrow(
      `no panel is configured (rung.panel or /w/.rung/panel.json), and no local Ollama answered at ${url} (ECONNREFUSED)`,
    );
  });

  it("passes a configured panel's mistake on, rather than falling back to Ollama behind the user's back", async () => {
    const baseUrl = await startOllama();
    const broken = (): never => {
      throw new PanelError('/w/.rung/panel.json', ['models: must list at least one entry']);
    };
    await expect(
      discoverPanel({ configured: broken, lookedFor: ['/w/.rung/panel.json'], ollama: { baseUrl, clock: new FixedClock() } }),
    ).rejects.toBeInstanceOf(PanelError);
    expect(ollama?.requests).toEqual([]);
  });
});
