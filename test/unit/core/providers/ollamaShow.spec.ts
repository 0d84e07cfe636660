import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { showOllamaModel } from '../../../../src/core/providers/ollamaShow';
import { fixture, json, vacantAddress, WireServer, type SeenRequest } from '../../support/wireServer';

/**
 * `POST /api/show` read from answers real Ollama servers gave (test/fixtures/wire/ollama/show-*.json,
 * sources in SOURCES.md), served from 127.0.0.1.
 */

let server: WireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers each `/api/show` with the recorded answer for the model the request names; 404 for any other, as Ollama does. */
function recordedShows(byModel: Record<string, string>): (response: ServerResponse, request: SeenRequest) => void {
  return (response, request) => {
    const name = byModel[(JSON.parse(request.body) as { model: string }).model];
    if (name === undefined) response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"model not found"}');
    else response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(fixture(`ollama/${name}`));
  };
}

async function start(): Promise<string> {
  server = new WireServer().on(
    'POST',
    '/api/show',
    recordedShows({
      'smollm2:1.7b': 'show-smollm2-1.7b.json',
      'dolphin3:8b': 'show-dolphin3-8b.json',
      'gpt-oss:120b': 'show-gpt-oss-120b.json',
      'paraphrase-multilingual:latest': 'show-paraphrase-multilingual-embedding.json',
    }),
  );
  return server.start();
}

describe('showOllamaModel', () => {
  it('reads tools, chat, the context window and the size from a model that takes tools', async () => {
    const baseUrl = await start();
    expect(await showOllamaModel('smollm2:1.7b', { baseUrl })).toEqual({
      tools: true,
      chat: true,
      context: 8192,
      parameterBillions: 1.711,
    });
    expect(JSON.parse(server?.requests[0]?.body ?? '{}')).toEqual({ model: 'smollm2:1.7b' });
  });

  it('says a chat model that lists no tools capability does not take tools', async () => {
    const baseUrl = await start();
    expect(await showOllamaModel('dolphin3:8b', { baseUrl })).toEqual({
      tools: false,
      chat: true,
      context: 131072,
      parameterBillions: 8.03,
    });
  });

  it('reads the size from the parameter count where the size label is the bare count', async () => {
    const baseUrl = await start();
    // Its details.parameter_size is "116829156672": read as a label, that is 116 billion billions.
    expect(await showOllamaModel('gpt-oss:120b', { baseUrl })).toEqual({
      tools: true,
      chat: true,
      context: 131072,
      parameterBillions: 116.8,
    });
  });

  it('says an embedding model does not chat', async () => {
    const baseUrl = await start();
    expect(await showOllamaModel('paraphrase-multilingual:latest', { baseUrl })).toMatchObject({ chat: false, tools: false });
  });

  it('assumes nothing about tools when the Ollama lists no capabilities (before 0.6.4)', async () => {
    server = new WireServer().on(
      'POST',
      '/api/show',
      json({
        details: { parameter_size: '3.2B' },
        model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072, 'llama.vision.context_length': 1 },
      }),
    );
    const baseUrl = await server.start();
    expect(await showOllamaModel('llama3.2:3b', { baseUrl })).toEqual({ context: 131072, parameterBillions: 3.2 });
  });

  it('answers nothing known for a model Ollama does not have, a server that is not there, or an answer that is not JSON', async () => {
    const baseUrl = await start();
    expect(await showOllamaModel('qwen2.5-coder:7b', { baseUrl })).toBeUndefined();
    expect(await showOllamaModel('smollm2:1.7b', { baseUrl: (await vacantAddress()).url })).toBeUndefined();
    const page = new WireServer().on(
      'POST',
      '/api/show',
      (response) => void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy</html>'),
    );
    try {
      expect(await showOllamaModel('smollm2:1.7b', { baseUrl: await page.start() })).toBeUndefined();
    } finally {
      await page.close();
    }
  });
});
