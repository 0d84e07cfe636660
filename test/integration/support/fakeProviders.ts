/**
 * Two local model servers for the real-host tests: one speaking Ollama's protocol (`/api/tags`,
 * streamed NDJSON `/api/chat`), one speaking the OpenAI-compatible protocol (SSE
 * `/v1/chat/completions`), both on 127.0.0.1.
 *
 * @remarks
 * The cheap "Ollama" model answers badly on purpose — prose where JSON was asked, code that does not
 * parse — so every checked call fails its check on the first rung and must escalate to the "cloud"
 * model, which answers well. The servers record every request, so a test can prove which rung was
 * actually called, not just what the extension said.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The panel models the fake servers serve. */
export const CHEAP_MODEL = 'tiny-coder:1b';
export const CLOUD_MODEL = 'test/strong-model';

/** One request a fake server saw. */
export interface SeenRequest {
  server: 'ollama' | 'cloud';
  path: string;
  body: Record<string, unknown>;
}

export interface FakeProviders {
  ollamaUrl: string;
  cloudUrl: string;
  requests: SeenRequest[];
  /** What the cheap model answers; the default fails every check. */
  cheapAnswer: (body: Record<string, unknown>) => string;
  /** What the cloud model answers; the default passes every check. */
  cloudAnswer: (body: Record<string, unknown>) => string;
  /** When set and it returns a call, the cloud model answers with that tool call instead of text. */
  cloudToolCall?: (body: Record<string, unknown>) => { name: string; arguments: Record<string, unknown> } | undefined;
  /** When set and it returns a call, the cheap model answers with that tool call instead of text. */
  cheapToolCall?: (body: Record<string, unknown>) => { name: string; arguments: Record<string, unknown> } | undefined;
  /** When set, the cheap model's whole NDJSON reply, sent as it is (a recorded stream, a broken one). */
  cheapStream?: string;
  /** When set, how long the cheap model thinks before its first token, ms: a small model on a laptop's CPU. */
  cheapDelayMs?: number;
  /** When set, the cloud's model list (`GET /v1/models`, its catalog) answers with this status and no list. */
  catalogStatus?: number;
  /**
   * When true, both servers report usage from what they were sent and what they answered (a token for 4
   * characters), and the cloud its cost at the panel's price ({@link CLOUD_PRICE}), as a real provider
   * bills; otherwise fixed small figures.
   */
  usageByLength?: boolean;
  close(): Promise<void>;
}

/** The cloud model's price in the panel over the fake servers, USD per million tokens. */
export const CLOUD_PRICE = { input: 1, output: 2 };

/** Tokens in what a request sends (its messages and tools) or an answer says, at 4 characters a token. */
function tokensOf(value: unknown): number {
  return Math.ceil((typeof value === 'string' ? value : JSON.stringify(value ?? '')).length / 4);
}

/** A panel over the two servers: the cheap model first, the cloud model above it; no exploration. */
export function fakePanel(providers: Pick<FakeProviders, 'ollamaUrl' | 'cloudUrl'>): Record<string, unknown> {
  return {
    models: [
      { slug: CHEAP_MODEL, provider: 'ollama', role: 'base', context: 32768, tools: true },
      { slug: CLOUD_MODEL, provider: 'cloud', role: 'top', context: 128000, tools: true, price: CLOUD_PRICE },
    ],
    routing: { explore: 0 },
    providers: {
      ollama: { kind: 'ollama', baseUrl: providers.ollamaUrl },
      // A stand-in for a cloud provider: on loopback a key is optional unless the panel says otherwise.
      cloud: { kind: 'openai-compatible', baseUrl: `${providers.cloudUrl}/v1`, key: 'required' },
    },
  };
}

/** The cheap model: prose where JSON is asked for, a syntax error where code is. */
export function defaultCheapAnswer(body: Record<string, unknown>): string {
  if (body.format === 'json') return 'Sure! Here is my plan: first read the code, then change it.';
  return 'Here you go:\n```ts\nconst answer = ;\n```\n';
}

/** The cloud model: JSON that fits a plan schema, or code that parses; for an edit, the replacement asked for. */
export function defaultCloudAnswer(body: Record<string, unknown>): string {
  if (isRecord(body.response_format)) return JSON.stringify({ steps: ['read the code', 'change it'] });
  const text = JSON.stringify(body.messages ?? []);
  if (text.includes('You edit code'))
    return '```ts\nexport function add(a: number, b: number): number {\n  return a + b; // checked by Rung\n}\n```\n';
  return 'The answer is 42.\n```ts\nconst answer = 42;\n```\n';
}

export async function startFakeProviders(): Promise<FakeProviders> {
  const requests: SeenRequest[] = [];
  const fake: FakeProviders = {
    ollamaUrl: '',
    cloudUrl: '',
    requests,
    cheapAnswer: defaultCheapAnswer,
    cloudAnswer: defaultCloudAnswer,
    close: async () => {},
  };
  const ollama = await listen(async (request, response) => {
    const body = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    requests.push({ server: 'ollama', path, body });
    if (request.method === 'POST' && path === '/api/chat' && fake.cheapDelayMs)
      await new Promise((resolve) => setTimeout(resolve, fake.cheapDelayMs));
    if (request.method === 'GET' && path === '/api/tags') {
      json(response, {
        models: [
          {
            name: CHEAP_MODEL,
            model: CHEAP_MODEL,
            digest: 'sha256:0123456789abcdef',
            size: 1,
            details: { family: 'tiny', parameter_size: '1.1B' },
          },
        ],
      });
    } else if (request.method === 'POST' && path === '/api/chat' && fake.cheapStream !== undefined) {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(fake.cheapStream);
    } else if (request.method === 'POST' && path === '/api/chat' && fake.cheapToolCall?.(body)) {
      // As Ollama sends a call: whole, arguments as an object, in the message before the done line.
      const call = fake.cheapToolCall(body);
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(
        `${JSON.stringify({ model: CHEAP_MODEL, message: { role: 'assistant', content: '', tool_calls: [{ function: call }] }, done: false })}\n`,
      );
      response.end(
        `${JSON.stringify({ model: CHEAP_MODEL, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 40, eval_count: 12 })}\n`,
      );
    } else if (request.method === 'POST' && path === '/api/chat') {
      const text = fake.cheapAnswer(body);
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const piece of chunks(text))
        response.write(`${JSON.stringify({ model: CHEAP_MODEL, message: { role: 'assistant', content: piece }, done: false })}\n`);
      const counts = fake.usageByLength
        ? { prompt_eval_count: tokensOf({ messages: body.messages, tools: body.tools }), eval_count: tokensOf(text) }
        : { prompt_eval_count: 40, eval_count: 12 };
      response.end(
        `${JSON.stringify({ model: CHEAP_MODEL, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...counts })}\n`,
      );
    } else {
      response.writeHead(404).end('404 page not found');
    }
  });
  const cloud = await listen(async (request, response) => {
    const body = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    requests.push({ server: 'cloud', path, body });
    if (request.method === 'POST' && path === '/v1/chat/completions') {
      const call = fake.cloudToolCall?.(body);
      const answer = call ? '' : fake.cloudAnswer(body);
      const billed = (fixed: Record<string, number>): Record<string, number> => {
        if (!fake.usageByLength) return fixed;
        const prompt = tokensOf({ messages: body.messages, tools: body.tools });
        const completion = tokensOf(call ? JSON.stringify(call.arguments) : answer);
        return {
          prompt_tokens: prompt,
          completion_tokens: completion,
          cost: (prompt * CLOUD_PRICE.input + completion * CLOUD_PRICE.output) / 1_000_000,
        };
      };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, unknown>) =>
        `data: ${JSON.stringify({ id: 'gen-1', model: `${CLOUD_MODEL}-2026-01-01`, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
      response.write(chunk({ role: 'assistant', content: '' }, null));
      if (call) {
        // As OpenAI streams a call: its id and name first, then the arguments in pieces.
        response.write(
          chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: call.name, arguments: '' } }] }, null),
        );
        for (const piece of chunks(JSON.stringify(call.arguments)))
          response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
        response.write(chunk({}, 'tool_calls', billed({ prompt_tokens: 400, completion_tokens: 60, cost: 0.00052 })));
      } else {
        for (const piece of chunks(answer)) response.write(chunk({ content: piece }, null));
        response.write(chunk({}, 'stop', billed({ prompt_tokens: 120, completion_tokens: 30, cost: 0.00018 })));
      }
      response.end('data: [DONE]\n\n');
    } else if (request.method === 'GET' && path === '/v1/models' && fake.catalogStatus !== undefined) {
      response.writeHead(fake.catalogStatus, { 'content-type': 'application/json' }).end('{"error":{"message":"the model list is down"}}');
    } else if (request.method === 'GET' && path === '/v1/models') {
      json(response, { data: [{ id: CLOUD_MODEL, context_length: 128000, pricing: { prompt: '0.000001', completion: '0.000002' } }] });
    } else {
      response.writeHead(404).end('{"error":{"message":"not found"}}');
    }
  });
  fake.ollamaUrl = ollama.url;
  fake.cloudUrl = cloud.url;
  fake.close = async () => {
    await Promise.all([ollama.close(), cloud.close()]);
  };
  return fake;
}

/** Splits text into a few pieces, so the answer streams as a real one does. */
function chunks(text: string): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += 12) pieces.push(text.slice(index, index + 12));
  return pieces.length ? pieces : [''];
}

async function listen(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
