import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';
import { fixture, json, replay, vacantAddress, WireServer } from '../support/wireServer';

/**
 * `rung chat` and `rung rank` without `--panel`: the workspace's `.rung/panel.json` under the current
 * folder, else the local Ollama's models (OLLAMA_HOST), as the extension finds its panel; and, when
 * neither gives one, a usage error that says where it looked.
 */

let workspace: string;
let ollama: WireServer | undefined;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-discovery-'));
});

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

/** An Ollama holding qwen2.5:3b and an embedding model, whose /api/show answers with a recorded model's details. */
async function startOllama(): Promise<string> {
  ollama = new WireServer()
    .on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))))
    .on(
      'POST',
      '/api/show',
      (response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(fixture('ollama/show-smollm2-1.7b.json')),
    )
    .on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson')));
  const url = await ollama.start();
  return url;
}

describe('rung without --panel', () => {
  it('chats with the models of the local Ollama at OLLAMA_HOST, and says on stderr that it did', async () => {
    const url = await startOllama();
    const io = new CapturedIo(workspace, { OLLAMA_HOST: url });
    expect(await main(['chat', 'hello'], io)).toBe(0);
    expect(io.err).toContain(`rung chat: panel from the models of the local Ollama at ${url}: qwen2.5:3b, qwen3:14b, qwen3.6:27b\n`);
    expect(io.out.length).toBeGreaterThan(0);
    expect(ollama?.requests.some((request) => request.path === '/api/chat')).toBe(true);
  });

  it("takes the workspace's .rung/panel.json first, and asks no Ollama for models", async () => {
    const url = await startOllama();
    mkdirSync(join(workspace, '.rung'));
    writeFileSync(
      join(workspace, '.rung', 'panel.json'),
      JSON.stringify({ models: [{ slug: 'qwen3:14b', provider: 'ollama', role: 'mid' }], routing: { explore: 0 } }),
    );
    const io = new CapturedIo(workspace, { OLLAMA_HOST: url });
    expect(await main(['rank', '--class', 'chat', '--json'], io)).toBe(0);
    expect(io.err).toBe(`rung rank: panel from ${join(workspace, '.rung', 'panel.json')}\n`);
    expect((JSON.parse(io.out) as { candidates: { model: string }[] }).candidates.map((candidate) => candidate.model)).toEqual([
      'qwen3:14b',
    ]);
    expect(ollama?.requests.filter((request) => request.path === '/api/show')).toEqual([]);
  });

  it("ranks the Ollama's models with the tools and context /api/show gave", async () => {
    const url = await startOllama();
    const io = new CapturedIo(workspace, { OLLAMA_HOST: url });
    expect(await main(['rank', '--class', 'chat', '--tools', '--context', '9000', '--json'], io)).toBe(0);
    // The recorded details say 8192 tokens: every model is pruned for a 9000-token request.
    const ranking = JSON.parse(io.out) as { candidates: unknown[]; pruned: { reason: string }[] };
    expect(ranking.candidates).toEqual([]);
    expect(ranking.pruned.map((pruned) => pruned.reason)).toEqual(Array(3).fill('pruned: needs context 9000 > 8192'));
  });

  it('says where it looked when there is no panel file and no Ollama answers, with the usage, exit 2', async () => {
    const { url } = await vacantAddress();
    const io = new CapturedIo(workspace, { OLLAMA_HOST: url });
    expect(await main(['chat', 'hello'], io)).toBe(2);
    const [said, usage] = io.err.split('\n');
    expect(said).toBe(
      `rung chat: missing --panel FILE: there is no ${join(workspace, '.rung', 'panel.json')}, and no local Ollama answered at ${url} (ECONNREFUSED)`,
    );
    expect(usage).toMatch(/^usage: rung chat \[--panel FILE\]/);
  });

  it('reports a broken workspace panel file as the bad input it is, naming the file and the place', async () => {
    mkdirSync(join(workspace, '.rung'));
    writeFileSync(join(workspace, '.rung', 'panel.json'), '{\n  "models": [{ "slug": "a", "provider": "ollama", "rol": "base" }]\n}\n');
    const io = new CapturedIo(workspace, { OLLAMA_HOST: (await vacantAddress()).url });
    expect(await main(['rank', '--class', 'chat'], io)).toBe(2);
    expect(io.err).toBe(
      `rung rank: ${join(workspace, '.rung', 'panel.json')}: invalid panel\n  - models[0]: unknown key "rol"; did you mean "role"? (line 2 column 51)\n`,
    );
  });
});
