import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';
import { fixture, fixtureBytes, json, serveBytes, WireServer } from '../support/wireServer';

/**
 * `rung chat` through its CLI entry against a keyless LM Studio on 127.0.0.1 whose panel states no
 * context: the window comes from what the server reports (test/fixtures/wire/local), or stays unknown.
 */

let workspace: string;
let server: WireServer | undefined;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-chat-local-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

/** About 5,000 tokens at 4 characters a token: more than LM Studio loaded qwen2.5-7b-instruct with (4096). */
const LONG_PROMPT = `Summarise this log. ${'line of a long build log '.repeat(800)}`;

/** Writes a panel of `models` on the server, no `context` stated, and the long prompt; returns the CLI's io. */
async function setUp(models: string[]): Promise<CapturedIo> {
  const url = await (server as WireServer).start();
  writeFileSync(
    join(workspace, 'panel.json'),
    JSON.stringify({
      models: models.map((slug) => ({ slug, provider: 'lmstudio' })),
      routing: { explore: 0 },
      providers: { lmstudio: { kind: 'openai-compatible', baseUrl: `${url}/v1` } },
    }),
  );
  writeFileSync(join(workspace, 'prompt.txt'), LONG_PROMPT);
  return new CapturedIo(workspace, {});
}

const answer = () => serveBytes(fixtureBytes('openai/chat-normal.sse'), { every: 5 });
/** The chat calls the server saw, less the confidence check's question about each answer. */
const chats = () =>
  (server as WireServer).requests.filter(
    (seen) => seen.method === 'POST' && !seen.body.includes('judge whether a proposed answer to a request is correct'),
  );

describe('rung chat with a local server that reports its context window', () => {
  it('prunes the model the prompt is too long for, with the context reason, and answers from the next rung', async () => {
    server = new WireServer()
      .on('GET', '/v1/models', json({ object: 'list', data: [{ id: 'qwen2.5-7b-instruct' }, { id: 'llama-3.2-3b-instruct' }] }))
      .on('GET', '/api/v0/models', json(JSON.parse(fixture('local/lmstudio-api-v0-models.json'))))
      .on('POST', '/v1/chat/completions', answer());
    const io = await setUp(['qwen2.5-7b-instruct', 'llama-3.2-3b-instruct']);
    const code = await main(['chat', '--panel', 'panel.json', '--prompt-file', 'prompt.txt'], io);
    expect(code).toBe(0);
    expect(io.err).toMatch(/^rung chat: pruned qwen2\.5-7b-instruct: needs context \d+ > 4096$/m);
    expect(io.err).toContain('rung chat: answered by llama-3.2-3b-instruct');
    expect(chats().map((seen) => (JSON.parse(seen.body) as { model: string }).model)).toEqual(['llama-3.2-3b-instruct']);
    expect(io.err).not.toContain('context window');
  });
});

describe('rung chat with a local server that does not report its context window', () => {
  it('sends the long prompt as before, after one line saying why the window is unknown', async () => {
    server = new WireServer().on('POST', '/v1/chat/completions', answer());
    const io = await setUp(['my-model']);
    const code = await main(['chat', '--panel', 'panel.json', '--prompt-file', 'prompt.txt'], io);
    expect(code).toBe(0);
    const notes = io.err.split('\n').filter((line) => line.includes('context window'));
    expect(notes).toEqual([
      'rung chat: lmstudio: the context window of my-model is unknown (GET /v1/models answered 404; GET /props answered 404; GET /api/v0/models answered 404), ' +
        'so a prompt too long for it is not pruned; give the model a "context" in the panel to set one',
    ]);
    expect(io.err).not.toContain('rung chat: pruned');
    expect(chats()).toHaveLength(1);
    expect(io.err).toContain('rung chat: answered by my-model');
  });
});
