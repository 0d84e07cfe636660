import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../../../src/core/providers/catalog';
import { OpenAiCompatibleAdapter, type OpenAiCompatibleAdapterOptions } from '../../../../src/core/providers/openAiCompatibleAdapter';
import { ProviderFailure, type StreamPart } from '../../../../src/core/providers/provider';
import { FixedClock } from '../../support/FixedClock';
import { collect, endless, fixture, recordedStatus, replay, WireServer } from '../../support/wireServer';
import { scaled } from '../../../timeScale';

const KEY = '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';
const user = [{ role: 'user' as const, content: 'Give me Paris as JSON.' }];
const sse = { contentType: 'text/event-stream' };
let server: WireServer;

afterEach(async () => {
  await server?.close();
});

async function adapterFor(route: Parameters<WireServer['on']>[2], extra: Partial<OpenAiCompatibleAdapterOptions> = {}) {
  server = new WireServer().on('POST', '/api/v1/chat/completions', route);
  const baseUrl = `${await server.start()}/api/v1`;
  return new OpenAiCompatibleAdapter({ name: 'openrouter', baseUrl, clock: new FixedClock(), apiKey: KEY, ...extra });
}

function text(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

function failure(error: unknown): ProviderFailure {
  expect(error).toBeInstanceOf(ProviderFailure);
  return error as ProviderFailure;
}

describe('OpenAiCompatibleAdapter', () => {
  it('streams a normal answer with the provider-reported cost and the response model', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse));
    const { parts, error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(error).toBeUndefined();
    expect(JSON.parse(text(parts))).toEqual({ city: 'Paris', population: 2102650 });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 41, outputTokens: 14 },
      resolvedModel: 'openai/gpt-4o-mini',
      cost: 0.00001455,
    });
  });

  it('asks for usage in the stream and sends the key only as a bearer header', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse));
    await collect(adapter.chat('openai/gpt-4o-mini', user, [], { json: true, maxOutputTokens: 100 }, true));
    const request = server.requests[0];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({
      model: 'openai/gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_object' },
      max_tokens: 100,
    });
    expect(request?.body).not.toContain(KEY);
  });

  it('reports the dated snapshot and the catalog price, apart from a provider cost, when the provider gives no cost', async () => {
    const catalog = new Catalog([{ slug: 'gpt-4o-mini', price: { input: 0.15, output: 0.6 }, advertised: [] }], 0, 'cache');
    const adapter = await adapterFor(replay(fixture('openai/chat-openai-no-cost.sse'), sse), { name: 'openai', catalog });
    const { parts } = await collect(adapter.chat('gpt-4o-mini', user, [], {}));
    expect(text(parts)).toBe('Hello there.');
    expect(parts.at(-1)).toMatchObject({
      resolvedModel: 'gpt-4o-mini-2024-07-18',
      usage: { inputTokens: 1_000_000, outputTokens: 2_000_000 },
    });
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' ? finish.catalogCost : undefined).toBeCloseTo(1.35, 10);
    expect(finish).not.toHaveProperty('cost');
  });

  it('warns that think is ignored on an endpoint without a reasoning parameter', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-openai-no-cost.sse'), sse), { reasoningParameter: false });
    const { parts } = await collect(adapter.chat('gpt-4o-mini', user, [], {}, true));
    expect(parts[0]).toEqual({ type: 'warning', message: 'openrouter: think is not supported by this endpoint; ignored' });
    expect(JSON.parse(server.requests[0]?.body ?? '{}').reasoning).toBeUndefined();
  });

  it('asks for token log-probabilities with alternatives only when the call does, and reads the content ones into the finish', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-self-check-top-logprobs.sse'), sse));
    const { parts } = await collect(adapter.chat('gpt-4o-mini', user, [], { logprobs: 5, maxOutputTokens: 1 }));
    await collect(adapter.chat('gpt-4o-mini', user, [], { logprobs: 0 }));
    await collect(adapter.chat('gpt-4o-mini', user, [], {}));
    const sent = server.requests.map((request) => JSON.parse(request.body ?? '{}'));
    expect(sent.map((body) => [body.logprobs, body.top_logprobs])).toEqual([
      [true, 5],
      [true, undefined],
      [undefined, undefined],
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      logprobs: [{ token: 'N', logprob: -0.31326166, top: [{ token: 'N' }, { token: 'Y', logprob: -1.3132617 }, { token: 'No' }] }],
    });
  });

  it("reads a refusal's tokens as no answer's log-probabilities", async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-openai-refusal.sse'), sse));
    const { parts, error } = await collect(adapter.chat('gpt-4o', user, [], { logprobs: 0 }));
    expect(error).toBeUndefined();
    expect(parts.at(-1)).toMatchObject({ type: 'finish', refusal: "I'm very sorry, but I can't assist with that request." });
    expect(parts.at(-1)).not.toHaveProperty('logprobs');
  });

  it('answers without log-probabilities, not with a failure, when a chunk carries malformed ones', async () => {
    const body = [
      'data: {"model":"local","choices":[{"index":0,"delta":{"content":"Y"},"logprobs":{"content":[{"token":"Y","logprob":null,"top_logprobs":{"Y":-0.1}}]},"finish_reason":null}]}',
      'data: {"model":"local","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
      'data: [DONE]',
    ].join('\n\n');
    const adapter = await adapterFor(replay(`${body}\n\n`, sse));
    const { parts, error } = await collect(adapter.chat('local', user, [], { logprobs: 5 }));
    expect(error).toBeUndefined();
    expect(text(parts)).toBe('Y');
    expect(parts.at(-1)).not.toHaveProperty('logprobs');
  });

  it('sends earlier tool calls back and answers them by call id', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse));
    const history = [
      ...user,
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_Vn3k', name: 'read_file', arguments: '{"path":"a.ts"}' }] },
      { role: 'tool' as const, content: 'export const a = 1;', toolCallId: 'call_Vn3k' },
    ];
    await collect(adapter.chat('openai/gpt-4o-mini', history, [], {}));
    expect(JSON.parse(server.requests[0]?.body ?? '{}').messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_Vn3k', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', content: 'export const a = 1;', tool_call_id: 'call_Vn3k' },
    ]);
  });

  it('assembles tool calls from incremental argument deltas', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-tool-calls.sse'), sse));
    const tool = { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } };
    const { parts, error } = await collect(adapter.chat('gpt-4o-mini', user, [tool], {}));
    expect(error).toBeUndefined();
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_Vn3kQ8xT1mLp0sRz', name: 'read_file', arguments: '{"path": "src/core/panel.ts"}' } },
      { type: 'tool-call', call: { id: 'call_Hq7rW2yN5cJk9dFb', name: 'search', arguments: '{"query": "apiKeyVariable", "limit": 5}' } },
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 188, outputTokens: 39 } });
    expect(JSON.parse(server.requests[0]?.body ?? '{}').tools[0]).toEqual({
      type: 'function',
      function: { name: 'read_file', description: '', parameters: tool.parameters },
    });
  });

  it('treats a stream that ends before a finish reason as a provider error', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-cut-mid-stream.sse'), sse));
    const { parts, error } = await collect(adapter.chat('qwen/qwen3-14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/cut mid-way/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('treats [DONE] without a finish reason as a cut stream, not a finished answer', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-done-without-finish-reason.sse'), sse));
    const { parts, error } = await collect(adapter.chat('qwen2.5-coder-32b-instruct', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe('openrouter: stream cut mid-way: it sent [DONE] without a finish reason (on line 7)');
    expect(text(parts)).toBe('The function first checks');
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('treats a socket destroyed mid-stream as a provider error', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-cut-mid-stream.sse'), { ...sse, ending: 'destroy' }));
    const { error } = await collect(adapter.chat('qwen/qwen3-14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
  });

  it('treats a malformed data line as a provider error', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-malformed-line.sse'), sse));
    const { parts, error } = await collect(adapter.chat('meta-llama/llama-3.3-70b-instruct', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/malformed line 3/);
    expect(text(parts)).toBe('Sure');
  });

  it('says a base URL that answers 200 with a web page is not the model API, naming the page', async () => {
    const page = '<!doctype html>\n<html><head><title>Sign in\n to the gateway</title></head><body>…</body></html>\n';
    const adapter = await adapterFor(replay(page, { contentType: 'text/html; charset=utf-8' }));
    const { parts, error } = await collect(adapter.chat('qwen/qwen3-14b', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(
      /^openrouter: http:\/\/127\.0\.0\.1:\d+ answered with a web page \("Sign in to the gateway"\), not the model API; check the provider's baseUrl$/,
    );
    expect(parts).toEqual([]);
  });

  it('says a server that answered a whole chat.completion, not an event stream, sent no stream, naming its content-type and how it begins', async () => {
    const adapter = await adapterFor(recordedStatus('openai/chat-200-not-streamed.json'));
    const { parts, error } = await collect(adapter.chat('openai/gpt-4o', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe(
      'openrouter: the response was not an event stream (content-type application/json; it begins {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,"model":"gpt-4o-2024-08-0…)',
    );
    expect(parts).toEqual([]);
  });

  it('says a plain-text answer was not an event stream, quoting it trimmed and without the key', async () => {
    const notice = `\n  upstream connect error or disconnect/reset before headers\n  (sent with Bearer ${KEY})  \n`;
    const adapter = await adapterFor(replay(notice, { contentType: 'text/plain' }));
    const { error } = await collect(adapter.chat('openai/gpt-4o', user, [], {}));
    expect(failure(error).message).toBe(
      'openrouter: the response was not an event stream (content-type text/plain; it begins upstream connect error or disconnect/reset before headers (sent with Bearer [redacted]))',
    );
  });

  it('still calls an event stream that ends before its first event cut mid-way', async () => {
    const adapter = await adapterFor(replay(': OPENROUTER PROCESSING\n\n', sse));
    const { error } = await collect(adapter.chat('openai/gpt-4o', user, [], {}));
    expect(failure(error).message).toMatch(/^openrouter: stream cut mid-way/);
  });

  it('treats an error chunk mid-stream as a provider error', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-error-mid-stream.sse'), sse));
    const { error } = await collect(adapter.chat('deepseek/deepseek-chat-v3-0324', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/Provider disconnected/);
    expect(failure(error).details.status).toBe(502);
  });

  it('gives up on a slow first byte with a provider error', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), { ...sse, delayMs: 5_000 }), { firstByteTimeoutMs: 50 });
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(/no first byte within 50 ms/);
  });

  it('does not follow a redirect to another address, and says where it pointed', async () => {
    const elsewhere = new WireServer().on('POST', '/v1/chat/completions', replay(fixture('openai/chat-normal.sse'), sse));
    const target = `${(await elsewhere.start()).replace('127.0.0.1', 'localhost')}/v1/chat/completions`;
    try {
      const adapter = await adapterFor((response) => void response.writeHead(307, { location: target }).end());
      const { parts, error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
      expect(failure(error).kind).toBe('provider-error');
      expect(failure(error).details.status).toBe(307);
      expect(failure(error).message).toMatch(/^openrouter: http:\/\/127\.0\.0\.1:\d+ redirected the request \(307\) to /);
      expect(failure(error).message).toContain(
        ` to ${target}; Rung does not follow redirects, so set the provider's baseUrl to the address it points to`,
      );
      expect(parts).toEqual([]);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('calls a rejected key unavailable without repeating the key anywhere', async () => {
    const adapter = await adapterFor(recordedStatus('openai/401-key-rejected.json', { KEY }));
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).details.status).toBe(401);
    expect(failure(error).message).toBe('openrouter: the API key was rejected (401)');
    const everything = `${failure(error).message} ${failure(error).stack ?? ''} ${JSON.stringify(failure(error))} ${JSON.stringify(failure(error).details)}`;
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(0, 20));
  });

  it('scrubs the key from a server message that echoes it on other statuses', async () => {
    const adapter = await adapterFor((response) => {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `bad request for key ${KEY}` } }));
    });
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).message).toContain('[redacted]');
    expect(failure(error).message).not.toContain(KEY);
  });

  it('calls a provider without a key unavailable and sends nothing', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse), {
      apiKey: undefined,
      keyHint: 'set RUNG_OPENROUTER_API_KEY',
    });
    expect(await adapter.available()).toBe(false);
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).message).toBe('openrouter: no API key (set RUNG_OPENROUTER_API_KEY)');
    expect(server.requests).toHaveLength(0);
  });

  it('says a keyless server that answers 401 wants a key, rather than blaming a key nobody sent', async () => {
    const adapter = await adapterFor(recordedStatus('openai/401-key-rejected.json', { KEY }), {
      apiKey: undefined,
      requireKey: false,
      keyHint: 'run "Rung: Set Provider Key" for openrouter',
    });
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).details.status).toBe(401);
    expect(failure(error).message).toBe(
      'openrouter: the server asks for an API key (401) and none is set: run "Rung: Set Provider Key" for openrouter',
    );
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });

  it('calls a model the provider does not have unavailable', async () => {
    const adapter = await adapterFor(recordedStatus('openai/404-model-not-found.json'), { name: 'openai' });
    const { error } = await collect(adapter.chat('gpt-9-turbo', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).message).toMatch(/model not found \(404\): The model `gpt-9-turbo` does not exist/);
  });

  it('reads a 429 as a provider error with its retry-after in milliseconds', async () => {
    const adapter = await adapterFor(recordedStatus('openai/429-rate-limited.json'));
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).details).toMatchObject({ status: 429, retryAfterMs: 7_000 });
  });

  it('reads a 500 as a provider error', async () => {
    const adapter = await adapterFor(recordedStatus('openai/500-server-error.json'));
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).details.status).toBe(500);
  });

  it(
    'gives up on a stream that sends only keep-alive comments, however often they come',
    async () => {
      const adapter = await adapterFor(
        (response) => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const timer = setInterval(() => response.write(': keep-alive\n\n'), 20);
          response.on('close', () => clearInterval(timer));
        },
        { idleTimeoutMs: 1_000, noContentTimeoutMs: 200 },
      );
      const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], {}));
      expect(failure(error).kind).toBe('provider-error');
      expect(failure(error).message).toBe(
        'openrouter: timed out: the stream sent nothing but keep-alives (blank lines, comments) for 200 ms',
      );
    },
    scaled(5_000),
  );

  it('assembles many tool calls whose deltas arrive interleaved, each in the order it was opened', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1749717512, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const calls = 3_000;
    const events: string[] = [];
    // Every call opens with its id and name; then its arguments arrive in two halves, the second half
    // of call n after the first half of call n + 1, as a server streaming calls in parallel sends them.
    for (let index = 0; index < calls; index++) {
      events.push(
        chunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'read_file', arguments: '' } }] }),
      );
      events.push(chunk({ tool_calls: [{ index, function: { arguments: `{"path": "src/${index}` } }] }));
      if (index > 0) events.push(chunk({ tool_calls: [{ index: index - 1, function: { arguments: '.ts"}' } }] }));
    }
    events.push(
      chunk({ tool_calls: [{ index: calls - 1, function: { arguments: '.ts"}' } }] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    );
    const adapter = await adapterFor(replay(events.join(''), sse));
    const { parts, error } = await collect(adapter.chat('gpt-4o-mini', user, [{ name: 'read_file', parameters: { type: 'object' } }], {}));
    expect(error).toBeUndefined();
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual(
      Array.from({ length: calls }, (_, index) => ({
        type: 'tool-call',
        call: { id: `call_${index}`, name: 'read_file', arguments: `{"path": "src/${index}.ts"}` },
      })),
    );
  });

  it('assembles a huge answer from many events', async () => {
    const event = (content: string) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-huge', object: 'chat.completion.chunk', created: 1749717512, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const body = [
      ...Array.from({ length: 20_000 }, (_, index) => event(`w${index} `)),
      `data: ${JSON.stringify({ id: 'chatcmpl-huge', object: 'chat.completion.chunk', created: 1749717512, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\n`,
      'data: [DONE]\n\n',
    ].join('');
    const adapter = await adapterFor(replay(body, sse));
    const { parts, error } = await collect(adapter.chat('gpt-4o-mini', user, [], {}));
    expect(error).toBeUndefined();
    expect(text(parts).split(' ').filter(Boolean)).toHaveLength(20_000);
    expect(parts.at(-1)).toMatchObject({ finishReason: 'length', usage: { inputTokens: null, outputTokens: null } });
  });

  it('stops a single line that never ends with a provider error', async () => {
    const adapter = await adapterFor(
      (response) => {
        response.writeHead(200, sse.contentType ? { 'content-type': sse.contentType } : {});
        response.end(`data: {"choices":[{"delta":{"content":"${'x'.repeat(2 * 1024 * 1024)}`);
      },
      { maxResponseBytes: 1024 * 1024 },
    );
    const { error } = await collect(adapter.chat('gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toBe(
      'openrouter: the answer went past 1 MiB, far more than any model writes (a fixed limit); Rung stopped reading it',
    );
  });

  it("reads only the start of an error body that never ends, and reports the status in the server's words", async () => {
    const body = endless({
      status: 500,
      contentType: 'application/json',
      head: '{"error":{"message":"the upstream model crashed","padding":"',
      piece: 'x'.repeat(64 * 1024),
    });
    const adapter = await adapterFor(body.route, { firstByteTimeoutMs: 120_000 });
    const { error } = await collect(adapter.chat('gpt-4o-mini', user, [], {}));
    expect(failure(error).kind).toBe('provider-error');
    expect(failure(error).message).toMatch(
      /^openrouter: server error \(500\): \{"error":\{"message":"the upstream model crashed","padding":"x+$/,
    );
    await body.closed;
    expect(body.sent).toBeLessThan(8 * 1024 * 1024);
  });

  it('ends with stopped when the user aborts mid-stream', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse));
    const controller = new AbortController();
    let caught: unknown;
    let seen = 0;
    try {
      for await (const part of adapter.chat('openai/gpt-4o-mini', user, [], { signal: controller.signal })) {
        if (part.type === 'text-delta') {
          seen++;
          controller.abort();
        }
      }
    } catch (error) {
      caught = error;
    }
    expect(failure(caught).kind).toBe('stopped');
    expect(seen).toBe(1);
  });

  it('calls a base URL where nothing listens unavailable', async () => {
    server = new WireServer();
    const url = await server.start();
    await server.close();
    const adapter = new OpenAiCompatibleAdapter({ name: 'local', baseUrl: `${url}/v1`, clock: new FixedClock(), apiKey: KEY });
    const { error } = await collect(adapter.chat('llama', user, [], {}));
    expect(failure(error).kind).toBe('unavailable');
    expect(failure(error).message).toMatch(/^local: no server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/);
  });

  it('ends with stopped when the signal was aborted before the call', async () => {
    const adapter = await adapterFor(replay(fixture('openai/chat-normal.sse'), sse));
    const { error } = await collect(adapter.chat('openai/gpt-4o-mini', user, [], { signal: AbortSignal.abort() }));
    expect(failure(error).kind).toBe('stopped');
    expect(server.requests).toHaveLength(0);
  });
});
