import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { numCtxFor, OllamaAdapter, PROBE_CACHE_MS, parseParameterSize } from '../../../../src/core/providers/ollamaAdapter';
import { ProviderFailure, type StreamPart } from '../../../../src/core/providers/provider';
import { FixedClock } from '../../support/FixedClock';
import { collect, endless, fixture, json, recordedStatus, replay, WireServer } from '../../support/wireServer';
import { MAX_LIST_BYTES } from '../../../../src/core/providers/transport';
import { scaled } from '../../../timeScale';

const user = [{ role: 'user' as const, content: 'Give me Paris as JSON.' }];
let server: WireServer;

afterEach(async () => {
  await server?.close();
});

async function adapterFor(setup: (server: WireServer) => void, extra: Partial<ConstructorParameters<typeof OllamaAdapter>[0]> = {}) {
  server = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))));
  setup(server);
  const baseUrl = await server.start();
  const clock = new FixedClock();
  return { adapter: new OllamaAdapter({ baseUrl, clock, ...extra }), clock };
}

function text(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

function failure(error: unknown): ProviderFailure {
  expect(error).toBeInstanceOf(ProviderFailure);
  return error as ProviderFailure;
}

/** A port nothing listens on: bound, read, then released. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 1;
}

describe('OllamaAdapter', () => {
  it('streams a normal answer with usage, the resolved model and its digest', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson'))));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(error).toBeUndefined();
    expect(JSON.parse(text(parts))).toEqual({ city: 'Paris', population: 2102650 });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 38, outputTokens: 17 },
      resolvedModel: 'qwen3:14b',
      cost: 0,
      digest: 'bdbd181c33f2ed1b31c972991882db3cf4d192569092138a7d29e973cd9debe8',
    });
  });

  it('sends tools, think and options in the shape /api/chat expects', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-think.ndjson'))));
    const tool = {
      name: 'read_file',
      description: 'Reads a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const { parts } = await collect(adapter.chat('qwen3:14b', user, [tool], { temperature: 0, maxOutputTokens: 64, json: true }, true));
    const sent = JSON.parse(server.requests.find((request) => request.path === '/api/chat')?.body ?? '{}');
    expect(sent).toMatchObject({
      model: 'qwen3:14b',
      stream: true,
      think: true,
      format: 'json',
      options: { temperature: 0, num_predict: 64 },
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Reads a file' } }],
    });
    expect(
      parts
        .filter((part) => part.type === 'reasoning-delta')
        .map((part) => part.text)
        .join(''),
    ).toBe('The user wants a number.');
    expect(text(parts)).toBe('42');
  });

  it('asks for token log-probabilities with alternatives only when the call does, and reads them into the finish', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-self-check-logprobs.ndjson'))));
    const { parts } = await collect(adapter.chat('qwen3:14b', user, [], { logprobs: 5, maxOutputTokens: 1 }));
    await collect(adapter.chat('qwen3:14b', user, [], { logprobs: 0 }));
    await collect(adapter.chat('qwen3:14b', user, [], {}));
    const sent = server.requests.filter((request) => request.path === '/api/chat').map((request) => JSON.parse(request.body ?? '{}'));
    expect(sent.map((body) => [body.logprobs, body.top_logprobs])).toEqual([
      [true, 5],
      [true, undefined],
      [undefined, undefined],
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      logprobs: [{ token: 'Y', logprob: -0.014218, top: [{ token: 'Y' }, { token: 'N' }, { token: 'Yes' }] }],
    });
  });

  it('answers without log-probabilities, not with a failure, when a chunk carries malformed ones', async () => {
    const lines = [
      '{"model":"qwen3:14b","message":{"role":"assistant","content":"Y"},"done":false,"logprobs":[{"token":"Y","logprob":null}]}',
      '{"model":"qwen3:14b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":1}',
    ].join('\n');
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(`${lines}\n`)));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], { logprobs: 5 }));
    expect(error).toBeUndefined();
    expect(text(parts)).toBe('Y');
    expect(parts.at(-1)).not.toHaveProperty('logprobs');
  });

  it("sets num_ctx from the request's size, capped at the context /api/show gives, and leaves a short request at Ollama's default", async () => {
    const { adapter } = await adapterFor((s) =>
      s.on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson'))).on('POST', '/api/show', (response, request) => {
        const model = (JSON.parse(request.body) as { model: string }).model;
        const file = model === 'smollm2:1.7b' ? 'ollama/show-smollm2-1.7b.json' : 'ollama/show-dolphin3-8b.json';
        response.writeHead(200, { 'content-type': 'application/json' }).end(fixture(file));
      }),
    );
    // About 18,000 tokens, as an Agent-mode request with its tools was.
    const long = [{ role: 'user' as const, content: 'x'.repeat(72_000) }];
    const sentOptions = (): Record<string, unknown> =>
      JSON.parse(server.requests.filter((request) => request.path === '/api/chat').at(-1)?.body ?? '{}').options ?? {};
    await collect(adapter.chat('dolphin3:8b', long, [], {}));
    expect(sentOptions().num_ctx).toBe(32_768);
    // A model trained for 8,192 tokens is not asked for more than it holds.
    await collect(adapter.chat('smollm2:1.7b', long, [], {}));
    expect(sentOptions().num_ctx).toBe(8_192);
    await collect(adapter.chat('dolphin3:8b', user, [], {}));
    expect(sentOptions().num_ctx).toBeUndefined();
    // /api/show is asked once per model.
    expect(server.requests.filter((request) => request.path === '/api/show')).toHaveLength(2);
  });

  it("gives the context in powers of two from 8,192, never past the model's", () => {
    expect([4_096, 4_097, 8_192, 8_193, 18_000, 200_000].map((needed) => numCtxFor(needed, undefined))).toEqual([
      undefined,
      8_192,
      8_192,
      16_384,
      32_768,
      262_144,
    ]);
    expect(numCtxFor(18_000, 16_384)).toBe(16_384);
  });

  it('sends earlier tool calls back with object arguments and answers them by tool name', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson'))));
    const history = [
      ...user,
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_0', name: 'read_file', arguments: '{"path":"a.ts"}' }] },
      { role: 'tool' as const, content: 'export const a = 1;', toolCallId: 'call_0' },
    ];
    await collect(adapter.chat('qwen3:14b', history, [], {}));
    const sent = JSON.parse(server.requests.find((request) => request.path === '/api/chat')?.body ?? '{}');
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'a.ts' } } }] },
      { role: 'tool', content: 'export const a = 1;', tool_name: 'read_file' },
    ]);
  });

  it('reports tool calls with their arguments as JSON text and finishes with tool-calls', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-tool-calls.ndjson'))));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(error).toBeUndefined();
    const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
    expect(calls.map((call) => call.name)).toEqual(['read_file', 'search']);
    expect(JSON.parse(calls[1]?.arguments ?? '')).toEqual({ query: 'apiKeyVariable', limit: 5 });
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('treats a stream that ends without done as a provider error, not an answer', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-cut-mid-stream.ndjson'))));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/cut mid-way/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('treats a socket destroyed mid-stream as a provider error', async () => {
    const { adapter } = await adapterFor((s) =>
      s.on('POST', '/api/chat', replay(fixture('ollama/chat-cut-mid-stream.ndjson'), { ending: 'destroy' })),
    );
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
  });

  it('treats a malformed line as a provider error that names the line', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-malformed-line.ndjson'))));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/malformed line 2/);
    expect(text(parts)).toBe('Sure');
  });

  it('says an address that answers with a web page (a proxy, a web UI) is not the Ollama API', async () => {
    const page = '<html><head><title>Open WebUI</title></head><body></body></html>';
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(page, { contentType: 'text/html' })));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/answered with a web page \("Open WebUI"\), not the model API; check the provider's baseUrl$/);
  });

  it("says a JSON object that is not a chat chunk (an OpenAI chat.completion) is not Ollama's stream, naming its content-type", async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', recordedStatus('openai/chat-200-not-streamed.json')));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe(
      'ollama: the response was not Ollama\'s NDJSON chat stream (content-type application/json; it begins {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,"model":"gpt-4o-2024-08-0…)',
    );
    expect(parts).toEqual([]);
  });

  it("says a web page sent as 200 without an HTML content-type is not Ollama's stream, quoting its first lines", async () => {
    const page = '<!DOCTYPE html>\n<html>\n  <head><title>Open WebUI</title></head>\n</html>\n';
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(page, { contentType: 'text/plain; charset=utf-8' })));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).message).toBe(
      "ollama: the response was not Ollama's NDJSON chat stream (content-type text/plain; charset=utf-8; it begins <!DOCTYPE html> <html> <head><title>Open WebUI</title></head> </html>)",
    );
  });

  it('quotes a pretty-printed JSON document from its first lines, not as a malformed line 1', async () => {
    const document = JSON.stringify({ error: { message: 'not here' } }, null, 2);
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(`${document}\n`, { contentType: 'application/json' })));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).message).toBe(
      'ollama: the response was not Ollama\'s NDJSON chat stream (content-type application/json; it begins { "error": { "message": "not here" } })',
    );
  });

  it('treats an error line mid-stream as a provider error', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-error-mid-stream.ndjson'))));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/unexpected EOF/);
  });

  it('gives up on a slow first byte with a provider error', async () => {
    const { adapter } = await adapterFor(
      (s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson'), { delayMs: 5_000 })),
      {
        firstByteTimeoutMs: 50,
      },
    );
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/no first byte within 50 ms/);
  });

  it('does not follow a redirect, and names the address it pointed to', async () => {
    const { adapter } = await adapterFor((s) =>
      s.on('POST', '/api/chat', (response) => void response.writeHead(302, { location: '/login?next=%2Fapi%2Fchat' }).end()),
    );
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(
      /^ollama: http:\/\/127\.0\.0\.1:(\d+) redirected the request \(302\) to http:\/\/127\.0\.0\.1:\1\/login\?next=%2Fapi%2Fchat; Rung does not follow redirects, so set the provider's baseUrl to the address it points to$/,
    );
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /api/chat']);
  });

  it('calls a model that is not pulled unavailable', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', recordedStatus('ollama/chat-404-model-not-found.json')));
    const { error } = await collect(adapter.chat('qwen9:1b', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).details.status).toBe(404);
    expect(failure(error).message).toMatch(/qwen9:1b is not pulled/);
  });

  it('says a server behind an authenticating proxy wants credentials, rather than blaming a key it was never sent', async () => {
    const { adapter } = await adapterFor((s) =>
      s.on(
        'POST',
        '/api/chat',
        (response) => void response.writeHead(401, { 'www-authenticate': 'Basic realm="ollama"' }).end('Unauthorized'),
      ),
    );
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).details.status).toBe(401);
    expect(failure(error).message).toMatch(
      /^ollama: http:\/\/127\.0\.0\.1:\d+ refused the request \(401\): it asks for credentials, and Rung sends none to Ollama$/,
    );
  });

  it('calls a model without tool support unavailable for a call with tools', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', recordedStatus('ollama/chat-400-no-tool-support.json')));
    const tool = { name: 'search', parameters: { type: 'object' } };
    const { error } = await collect(adapter.chat('gemma:2b', user, [tool], {}));
    expect(failure(error).kind).toBe('unavailable');
  });

  it('treats a 500 as a provider error', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', recordedStatus('ollama/chat-500-server-error.json')));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).details.status).toBe(500);
    expect(failure(error).message).toMatch(/llama runner process has terminated/);
  });

  it('treats a busy server (503) as a provider error that names its cause', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', recordedStatus('ollama/chat-503-server-busy.json')));
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe('ollama: server error (503): server busy, please try again.  maximum pending requests exceeded');
  });

  it('gives up on a stream that falls silent after it started', async () => {
    const first = fixture('ollama/chat-normal.ndjson').split('\n')[0] ?? '';
    const { adapter } = await adapterFor(
      (s) =>
        s.on('POST', '/api/chat', (response) => {
          response.writeHead(200, { 'content-type': 'application/x-ndjson' });
          response.write(`${first}\n`);
        }),
      { idleTimeoutMs: 50 },
    );
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/silent for 50 ms/);
    expect(text(parts)).toBe('{"');
  });

  it(
    'gives up on a stream that sends only blank lines after it started, however often they come',
    async () => {
      const first = fixture('ollama/chat-normal.ndjson').split('\n')[0] ?? '';
      const { adapter } = await adapterFor(
        (s) =>
          s.on('POST', '/api/chat', (response) => {
            response.writeHead(200, { 'content-type': 'application/x-ndjson' });
            response.write(`${first}\n`);
            const timer = setInterval(() => response.write('\n'), 20);
            response.on('close', () => clearInterval(timer));
          }),
        { idleTimeoutMs: 1_000, noContentTimeoutMs: 200 },
      );
      const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
      expect(failure(error).kind).toBe('provider-error');
      expect(failure(error).message).toBe('ollama: timed out: the stream sent nothing but keep-alives (blank lines, comments) for 200 ms');
      expect(text(parts)).toBe('{"');
    },
    scaled(5_000),
  );

  it('assembles a huge answer streamed in many lines', async () => {
    const lines = Array.from({ length: 20_000 }, (_, index) =>
      JSON.stringify({
        model: 'qwen3:14b',
        created_at: '2025-06-12T10:00:00Z',
        message: { role: 'assistant', content: `word${index} ` },
        done: false,
      }),
    );
    lines.push(
      JSON.stringify({
        model: 'qwen3:14b',
        created_at: '2025-06-12T10:00:09Z',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'length',
        prompt_eval_count: 5,
        eval_count: 20_000,
      }),
    );
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(`${lines.join('\n')}\n`)));
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(error).toBeUndefined();
    expect(text(parts).split(' ').filter(Boolean)).toHaveLength(20_000);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });

  it('stops a response that grows past its byte limit with a provider error', async () => {
    const line = JSON.stringify({
      model: 'qwen3:14b',
      created_at: '2025-06-12T10:00:00Z',
      message: { role: 'assistant', content: 'x'.repeat(1_000) },
      done: false,
    });
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(`${line}\n`.repeat(2_000))), {
      maxResponseBytes: 256 * 1024,
    });
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe(
      'ollama: the answer went past 256 KiB, far more than any model writes (a fixed limit); Rung stopped reading it',
    );
  });

  it('ends with stopped when the user aborts mid-stream', async () => {
    const { adapter } = await adapterFor((s) => s.on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson'))));
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    let caught: unknown;
    try {
      for await (const part of adapter.chat('qwen3:14b', user, [], { signal: controller.signal })) {
        parts.push(part);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(failure(caught).kind).toBe('stopped');
    expect(parts).toHaveLength(1);
  });

  it('calls a server that is not there unavailable', async () => {
    server = new WireServer();
    const adapter = new OllamaAdapter({ baseUrl: `http://127.0.0.1:${await deadPort()}`, clock: new FixedClock() });
    const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).message).toMatch(/no server at .*ECONNREFUSED/);
    const probe = await adapter.probe();
    expect(probe.ok).toBe(false);
    expect(probe.reason).toMatch(/ECONNREFUSED/);
  });

  it('says an address that does not speak HTTP (another service on the port) is not the model API', async () => {
    server = new WireServer();
    const other = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n', () => socket.destroy()));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const address = other.address();
      const port = typeof address === 'object' && address ? address.port : 1;
      const adapter = new OllamaAdapter({ baseUrl: `http://127.0.0.1:${port}`, clock: new FixedClock() });
      const { error } = await collect(adapter.chat('qwen3:14b', user, [], {}));
      expect(failure(error).kind).toBe('provider-error');
      expect(failure(error).message).toBe(
        `ollama: http://127.0.0.1:${port} did not answer in HTTP (HPE_INVALID_CONSTANT); check the provider's baseUrl`,
      );
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('lists models with parameter sizes in billions and digests', async () => {
    const { adapter } = await adapterFor(() => undefined);
    const models = await adapter.models();
    expect(models.map((model) => [model.slug, model.parameterBillions])).toEqual([
      ['qwen3:14b', 14.8],
      ['qwen2.5:3b', 3.1],
      ['qwen3.6:27b', 27.4],
      ['nomic-embed-text:latest', 0.137],
    ]);
    expect(models[0]?.digest).toMatch(/^bdbd181c/);
  });

  it('probes /api/tags once per 30 seconds', async () => {
    const { adapter, clock } = await adapterFor(() => undefined);
    expect(await adapter.available()).toBe(true);
    expect(await adapter.available()).toBe(true);
    clock.advance(PROBE_CACHE_MS - 1);
    expect(await adapter.available()).toBe(true);
    expect(server.requests.filter((request) => request.path === '/api/tags')).toHaveLength(1);
    clock.advance(1);
    await adapter.available();
    expect(server.requests.filter((request) => request.path === '/api/tags')).toHaveLength(2);
  });

  it('says a probe answered with something that is not JSON, rather than that no server is there', async () => {
    server = new WireServer().on(
      'GET',
      '/api/tags',
      replay('<html><head><title>Sign in</title></head></html>\n', { contentType: 'text/html' }),
    );
    const adapter = new OllamaAdapter({ baseUrl: await server.start(), clock: new FixedClock() });
    const probe = await adapter.probe();
    expect(probe).toMatchObject({
      ok: false,
      reason:
        'GET /api/tags answered something that is not JSON (content-type text/html; it begins <html><head><title>Sign in</title></head></html>)',
    });
  });

  it('stops reading a model list that never ends at its size limit, and says so rather than holding all of it', async () => {
    const entry = JSON.stringify({ name: 'qwen3:14b', model: 'qwen3:14b', details: { parameter_size: '14.8B' } });
    const body = endless({ contentType: 'application/json', head: '{"models":[', piece: `${entry},`.repeat(200) });
    server = new WireServer().on('GET', '/api/tags', body.route);
    // A patience far past what reading 16 MiB takes, so the size limit is what stops it.
    const adapter = new OllamaAdapter({ baseUrl: await server.start(), clock: new FixedClock(), probeTimeoutMs: 120_000 });
    const probe = await adapter.probe();
    expect(probe).toMatchObject({
      ok: false,
      reason: "GET /api/tags answered more than 16 MiB, far more than a model list (a fixed limit); check the provider's baseUrl",
    });
    await body.closed;
    expect(body.sent).toBeLessThan(MAX_LIST_BYTES + 8 * 1024 * 1024);
  });

  it('counts a probe that gets no answer within its timeout as unavailable', async () => {
    server = new WireServer().on('GET', '/api/tags', replay('{"models":[]}\n', { delayMs: 5_000 }));
    const baseUrl = await server.start();
    const adapter = new OllamaAdapter({ baseUrl, clock: new FixedClock(), probeTimeoutMs: 50 });
    const probe = await adapter.probe();
    expect(probe).toMatchObject({ ok: false, reason: expect.stringMatching(/within 50 ms/) });
  });
});

describe('parseParameterSize', () => {
  it('reads Ollama parameter sizes in billions', () => {
    expect(parseParameterSize('14.8B')).toBe(14.8);
    expect(parseParameterSize('567M')).toBe(0.567);
    expect(parseParameterSize('1.2T')).toBe(1200);
    // A bare number is Ollama's count under a thousand, not billions.
    expect(parseParameterSize('8')).toBe(8e-9);
    expect(parseParameterSize('unknown')).toBeUndefined();
    expect(parseParameterSize(undefined)).toBeUndefined();
  });
});
