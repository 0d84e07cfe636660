import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../../../../src/core/providers/ollamaAdapter';
import { OpenAiCompatibleAdapter } from '../../../../src/core/providers/openAiCompatibleAdapter';
import {
  ProviderFailure,
  type FinishReason,
  type ProviderAdapter,
  type StreamPart,
  type TokenLogprob,
  type ToolCall,
} from '../../../../src/core/providers/provider';
import { FixedClock } from '../../support/FixedClock';
import {
  collect,
  fixture,
  fixtureBytes,
  json,
  serveBytes,
  splitBytes,
  SPLITS,
  WIRE_FIXTURES,
  WireServer,
  type Split,
} from '../../support/wireServer';

/**
 * Every recorded stream in test/fixtures/wire, served byte for byte from a socket on 127.0.0.1 and
 * cut at arbitrary byte boundaries, must read the same however it is cut. SOURCES.md there names
 * where each recording came from.
 */

const user = [{ role: 'user' as const, content: 'hello' }];
const tool = { name: 'weather', parameters: { type: 'object' } };
let server: WireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a stream said, in the terms a caller cares about. */
interface Heard {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  warnings: string[];
  finish: {
    finishReason: FinishReason;
    inputTokens: number | null;
    outputTokens: number | null;
    resolvedModel: string;
    cost?: number;
    refusal?: string;
    logprobs?: TokenLogprob[];
  } | null;
  failure: { kind: string; message: string; status?: number } | null;
}

function hear(parts: StreamPart[], error: unknown): Heard {
  const heard: Heard = { text: '', reasoning: '', toolCalls: [], warnings: [], finish: null, failure: null };
  for (const part of parts) {
    if (part.type === 'text-delta') heard.text += part.text;
    if (part.type === 'reasoning-delta') heard.reasoning += part.text;
    if (part.type === 'tool-call') heard.toolCalls.push(part.call);
    if (part.type === 'warning') heard.warnings.push(part.message);
    if (part.type === 'finish') {
      heard.finish = {
        finishReason: part.finishReason,
        inputTokens: part.usage.inputTokens,
        outputTokens: part.usage.outputTokens,
        resolvedModel: part.resolvedModel,
        ...(part.cost !== undefined ? { cost: part.cost } : {}),
        ...(part.refusal !== undefined ? { refusal: part.refusal } : {}),
        ...(part.logprobs !== undefined ? { logprobs: part.logprobs } : {}),
      };
    }
  }
  if (error !== undefined) {
    expect(error).toBeInstanceOf(ProviderFailure);
    const failure = error as ProviderFailure;
    heard.failure = {
      kind: failure.kind,
      message: failure.message,
      ...(failure.details.status !== undefined ? { status: failure.details.status } : {}),
    };
  }
  return heard;
}

interface WireCase {
  fixture: string;
  /** What the stream must read as; fields left out must be empty. */
  heard: Partial<Heard>;
  /** The failure's message must match this, when the stream fails. */
  failureMatches?: RegExp;
}

const empty: Heard = { text: '', reasoning: '', toolCalls: [], warnings: [], finish: null, failure: null };

const openAiCases: WireCase[] = [
  {
    fixture: 'openai/chat-normal.sse',
    heard: {
      text: '{"city": "Paris", "population": 2102650}',
      finish: { finishReason: 'stop', inputTokens: 41, outputTokens: 14, resolvedModel: 'openai/gpt-4o-mini', cost: 0.00001455 },
    },
  },
  {
    fixture: 'openai/chat-openai-no-cost.sse',
    heard: {
      text: 'Hello there.',
      finish: { finishReason: 'stop', inputTokens: 1_000_000, outputTokens: 2_000_000, resolvedModel: 'gpt-4o-mini-2024-07-18' },
    },
  },
  {
    fixture: 'openai/chat-tool-calls.sse',
    heard: {
      toolCalls: [
        { id: 'call_Vn3kQ8xT1mLp0sRz', name: 'read_file', arguments: '{"path": "src/core/panel.ts"}' },
        { id: 'call_Hq7rW2yN5cJk9dFb', name: 'search', arguments: '{"query": "apiKeyVariable", "limit": 5}' },
      ],
      finish: { finishReason: 'tool-calls', inputTokens: 188, outputTokens: 39, resolvedModel: 'gpt-4o-mini-2024-07-18' },
    },
  },
  {
    fixture: 'openai/chat-malformed-line.sse',
    heard: { text: 'Sure', failure: { kind: 'provider-error', message: 'openrouter: malformed line 3 in the stream: not JSON' } },
  },
  {
    fixture: 'openai/chat-error-mid-stream.sse',
    heard: {
      text: 'Let me',
      failure: {
        kind: 'provider-error',
        message: 'openrouter: the provider reported an error mid-stream: Provider disconnected',
        status: 502,
      },
    },
  },
  {
    fixture: 'openai/chat-cut-mid-stream.sse',
    heard: { text: 'Here is the plan:', failure: { kind: 'provider-error', message: '' } },
    failureMatches: /^openrouter: stream cut mid-way/,
  },
  {
    fixture: 'openai/chat-done-without-finish-reason.sse',
    heard: {
      text: 'The function first checks',
      failure: { kind: 'provider-error', message: 'openrouter: stream cut mid-way: it sent [DONE] without a finish reason (on line 7)' },
    },
  },
  {
    fixture: 'openai/chat-tgi-error-string.sse',
    heard: {
      text: 'Here is',
      failure: {
        kind: 'provider-error',
        message:
          'openrouter: the provider reported an error mid-stream: Request failed during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB',
      },
    },
  },
  {
    fixture: 'openai/chat-openai-refusal.sse',
    heard: {
      text: "I'm very sorry, but I can't assist with that request.",
      finish: {
        finishReason: 'stop',
        inputTokens: 17,
        outputTokens: 13,
        resolvedModel: 'gpt-4o-2024-08-06',
        refusal: "I'm very sorry, but I can't assist with that request.",
      },
    },
  },
  {
    fixture: 'openai/chat-openai-content-logprobs.sse',
    heard: {
      text: '{"city":"San Francisco","units":"f"}',
      finish: {
        finishReason: 'stop',
        inputTokens: 17,
        outputTokens: 10,
        resolvedModel: 'gpt-4o-2024-08-06',
        logprobs: [
          { token: '{"', logprob: -0.0036115935 },
          { token: 'city', logprob: -8.418666e-6 },
          { token: '":"', logprob: -0.00034666734 },
          { token: 'San', logprob: -0.013863761 },
          { token: ' Francisco', logprob: -3.190179e-5 },
          { token: '","', logprob: -0.03384693 },
          { token: 'units', logprob: -1.2664457e-6 },
          { token: '":"', logprob: -3.1305768e-5 },
          { token: 'f', logprob: -0.5759394 },
          { token: '"}', logprob: -4.20341e-5 },
        ],
      },
    },
  },
  {
    fixture: 'openai/chat-self-check-top-logprobs.sse',
    heard: {
      text: 'N',
      finish: {
        finishReason: 'length',
        inputTokens: 96,
        outputTokens: 1,
        resolvedModel: 'gpt-4o-mini-2024-07-18',
        logprobs: [
          {
            token: 'N',
            logprob: -0.31326166,
            top: [
              { token: 'N', logprob: -0.31326166 },
              { token: 'Y', logprob: -1.3132617 },
              { token: 'No', logprob: -6.8132615 },
            ],
          },
        ],
      },
    },
  },
  {
    fixture: 'openai/chat-mistral-content-parts-thinking.sse',
    heard: {
      reasoning: 'The user is asking for 2+2. This is basic arithmetic. 2+2=4.',
      text: '2 + 2 = 4',
      finish: { finishReason: 'stop', inputTokens: 10, outputTokens: 46, resolvedModel: 'magistral-medium-2507' },
    },
  },
  {
    fixture: 'openai/chat-mistral-content-parts-image.sse',
    heard: {
      text: 'Here is the chart you asked for.',
      warnings: [
        'openrouter: the answer held an image_url part, which Rung does not show',
        'openrouter: the answer held a reference part, which Rung does not show',
      ],
      finish: { finishReason: 'stop', inputTokens: 18, outputTokens: 13, resolvedModel: 'mistral-medium-2508' },
    },
  },
  {
    fixture: 'openai/chat-llamacpp-error-field.sse',
    heard: {
      failure: {
        kind: 'provider-error',
        message:
          'openrouter: the server reported an error mid-stream: the request exceeds the available context size. try increasing the context size or enable context shift',
        status: 400,
      },
    },
  },
  {
    fixture: 'openai/chat-error-event.sse',
    heard: {
      text: 'Let me look',
      failure: {
        kind: 'provider-error',
        message: 'openrouter: the server reported an error mid-stream: Overloaded: the upstream model is at capacity',
        status: 529,
      },
    },
  },
  {
    fixture: 'openai/chat-llamacpp-repeated-tool-name.sse',
    heard: {
      toolCalls: [{ id: 'call_k2Rb8QwzJv1sXnYp', name: 'get_current_weather', arguments: '{"location": "Istanbul, Turkey"}' }],
      finish: { finishReason: 'tool-calls', inputTokens: 312, outputTokens: 24, resolvedModel: 'gpt-4o' },
    },
  },
  {
    fixture: 'openai/chat-gemini-tool-calls-without-index.sse',
    heard: {
      toolCalls: [
        { id: 'function-call-8431927740162317548', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'function-call-8431927740162318215', name: 'get_time', arguments: '{"city":"Paris"}' },
      ],
      finish: { finishReason: 'tool-calls', inputTokens: 95, outputTokens: 36, resolvedModel: 'gemini-2.5-flash' },
    },
  },
  {
    fixture: 'openai/chat-mistral-tool-call-without-index.sse',
    heard: {
      toolCalls: [{ id: 'gSIMJiOkT', name: 'weather', arguments: '{"location": "San Francisco"}' }],
      finish: { finishReason: 'tool-calls', inputTokens: 124, outputTokens: 22, resolvedModel: 'mistral-small-latest' },
    },
  },
  {
    fixture: 'openai/chat-tool-call-from-index-1.sse',
    heard: {
      text: 'Reading it.',
      toolCalls: [{ id: 'toolu_sanitized', name: 'read_file', arguments: '{"path": "a.txt"}' }],
      finish: { finishReason: 'tool-calls', inputTokens: null, outputTokens: null, resolvedModel: 'claude-haiku-4-5-20251001' },
    },
  },
  {
    fixture: 'openai/chat-mistral-ends-without-done.sse',
    heard: {
      text: 'Hello, world! This is a test response.',
      finish: { finishReason: 'stop', inputTokens: 13, outputTokens: 8, resolvedModel: 'mistral-small-latest' },
    },
  },
  {
    fixture: 'openai/chat-azure-empty-first-chunk.sse',
    heard: {
      text: 'Capital of Denmark.',
      finish: { finishReason: 'stop', inputTokens: 15, outputTokens: 78, resolvedModel: 'gpt-5-nano-2025-08-07' },
    },
  },
  {
    fixture: 'openai/chat-deepseek-reasoning-content-tool-call.sse',
    heard: {
      reasoning:
        'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".',
      toolCalls: [{ id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', arguments: '{"location": "San Francisco"}' }],
      finish: { finishReason: 'tool-calls', inputTokens: 339, outputTokens: 83, resolvedModel: 'deepseek-reasoner' },
    },
  },
  {
    fixture: 'openai/chat-crlf-comments-multiline-data.sse',
    heard: {
      text: 'Grüße aus 東京 — ☕',
      finish: {
        finishReason: 'stop',
        inputTokens: 12,
        outputTokens: 9,
        resolvedModel: 'mistralai/mistral-small-3.2-24b-instruct',
        cost: 0.0000021,
      },
    },
  },
  {
    fixture: 'openai/chat-cr-line-ends.sse',
    heard: {
      text: 'Grüße aus 東京 — ☕',
      finish: {
        finishReason: 'stop',
        inputTokens: 12,
        outputTokens: 9,
        resolvedModel: 'mistralai/mistral-small-3.2-24b-instruct',
        cost: 0.0000021,
      },
    },
  },
];

const ollamaCases: WireCase[] = [
  {
    fixture: 'ollama/chat-normal.ndjson',
    heard: {
      text: '{"city": "Paris", "population": 2102650}',
      finish: { finishReason: 'stop', inputTokens: 38, outputTokens: 17, resolvedModel: 'qwen3:14b', cost: 0 },
    },
  },
  {
    fixture: 'ollama/chat-prose-instead-of-json.ndjson',
    heard: {
      text: 'Sure! Paris has about 2.1 million people.',
      finish: { finishReason: 'stop', inputTokens: 38, outputTokens: 11, resolvedModel: 'qwen2.5:3b', cost: 0 },
    },
  },
  {
    fixture: 'ollama/chat-think.ndjson',
    heard: {
      reasoning: 'The user wants a number.',
      text: '42',
      finish: { finishReason: 'stop', inputTokens: 21, outputTokens: 9, resolvedModel: 'qwen3:14b', cost: 0 },
    },
  },
  {
    fixture: 'ollama/chat-tool-calls.ndjson',
    heard: {
      toolCalls: [
        { id: 'call_0', name: 'read_file', arguments: '{"path":"src/core/panel.ts"}' },
        { id: 'call_1', name: 'search', arguments: '{"query":"apiKeyVariable","limit":5}' },
      ],
      finish: { finishReason: 'tool-calls', inputTokens: 211, outputTokens: 44, resolvedModel: 'qwen3:14b', cost: 0 },
    },
  },
  {
    fixture: 'ollama/chat-think-tool-calls-in-done-line.ndjson',
    heard: {
      reasoning: 'The user wants the weather in Tokyo, so I call get_weather. Then I check the time.',
      toolCalls: [
        { id: 'call_0', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
        { id: 'call_1', name: 'get_time', arguments: '{"city":"Tokyo"}' },
      ],
      finish: { finishReason: 'tool-calls', inputTokens: 187, outputTokens: 41, resolvedModel: 'qwen3:14b', cost: 0 },
    },
  },
  {
    fixture: 'ollama/chat-answer-logprobs.ndjson',
    heard: {
      text: 'Paris is the capital.',
      finish: {
        finishReason: 'stop',
        inputTokens: 31,
        outputTokens: 4,
        resolvedModel: 'qwen3:14b',
        cost: 0,
        logprobs: [
          { token: 'Paris', logprob: -0.000412 },
          { token: ' is', logprob: -0.38715 },
          { token: ' the', logprob: -0.00271 },
          { token: ' capital.', logprob: -0.10935 },
        ],
      },
    },
  },
  {
    fixture: 'ollama/chat-self-check-logprobs.ndjson',
    heard: {
      text: 'Y',
      finish: {
        finishReason: 'length',
        inputTokens: 88,
        outputTokens: 1,
        resolvedModel: 'qwen3:14b',
        cost: 0,
        logprobs: [
          {
            token: 'Y',
            logprob: -0.014218,
            top: [
              { token: 'Y', logprob: -0.014218 },
              { token: 'N', logprob: -4.271093 },
              { token: 'Yes', logprob: -9.01722 },
            ],
          },
        ],
      },
    },
  },
  {
    fixture: 'ollama/chat-malformed-line.ndjson',
    heard: { text: 'Sure', failure: { kind: 'provider-error', message: 'ollama: malformed line 2 in the stream: not JSON' } },
  },
  {
    fixture: 'ollama/chat-error-mid-stream.ndjson',
    heard: {
      text: 'Let me',
      failure: {
        kind: 'provider-error',
        message: 'ollama: the server reported an error mid-stream: an error was encountered while running the model: unexpected EOF',
      },
    },
  },
  {
    fixture: 'ollama/chat-cut-mid-stream.ndjson',
    heard: { text: 'Here is the plan: first', failure: { kind: 'provider-error', message: '' } },
    failureMatches: /^ollama: stream cut mid-way/,
  },
];

async function openAiAdapter(split: Split, name: string): Promise<ProviderAdapter> {
  server = new WireServer().on('POST', '/v1/chat/completions', serveBytes(fixtureBytes(name), split));
  return new OpenAiCompatibleAdapter({
    name: 'openrouter',
    baseUrl: `${await server.start()}/v1`,
    clock: new FixedClock(),
    apiKey: 'sk-test-wire-fixtures',
  });
}

async function ollamaAdapter(split: Split, name: string): Promise<ProviderAdapter> {
  server = new WireServer()
    .on('POST', '/api/chat', serveBytes(fixtureBytes(name), split, 'application/x-ndjson'))
    .on('GET', '/api/tags', json({ models: [] }));
  return new OllamaAdapter({ baseUrl: await server.start(), clock: new FixedClock() });
}

function check(heard: Heard, wireCase: WireCase): void {
  const expected = { ...empty, ...wireCase.heard };
  if (wireCase.failureMatches && expected.failure) {
    expect(heard.failure?.message).toMatch(wireCase.failureMatches);
    expected.failure = { ...expected.failure, message: heard.failure?.message ?? '' };
  }
  expect(heard).toEqual(expected);
}

describe.each(SPLITS)('a recorded stream cut $name', ({ split }) => {
  it.each(openAiCases)('reads $fixture the same as it was recorded (OpenAI-compatible)', async (wireCase) => {
    const adapter = await openAiAdapter(split, wireCase.fixture);
    const { parts, error } = await collect(adapter.chat('requested-model', user, [tool], {}));
    check(hear(parts, error), wireCase);
  });

  it.each(ollamaCases)('reads $fixture the same as it was recorded (Ollama)', async (wireCase) => {
    const adapter = await ollamaAdapter(split, wireCase.fixture);
    const { parts, error } = await collect(adapter.chat('qwen3:14b', user, [tool], {}));
    check(hear(parts, error), wireCase);
  });
});

describe('the wire fixtures', () => {
  it('are each read by a case above', () => {
    const streams = ['openai', 'ollama'].flatMap((folder) =>
      readdirSync(`${WIRE_FIXTURES}/${folder}`)
        .filter((file) => file.endsWith('.sse') || file.endsWith('.ndjson'))
        .map((file) => `${folder}/${file}`),
    );
    const covered = [...openAiCases, ...ollamaCases].map((wireCase) => wireCase.fixture);
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.filter((name) => !covered.includes(name))).toEqual([]);
  });

  it.each(SPLITS)('are cut $name into pieces that join back to the same bytes', ({ split }) => {
    const bytes = fixtureBytes('openai/chat-crlf-comments-multiline-data.sse');
    const pieces = splitBytes(bytes, split);
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
    expect(pieces.length).toBeGreaterThan(1);
    if ('every' in split) expect(pieces.every((piece) => piece.length <= split.every)).toBe(true);
  });

  it('keep the line ends they were recorded with, which git must not normalise', () => {
    expect(fixture('openai/chat-crlf-comments-multiline-data.sse')).toContain('\r\n');
    expect(fixture('openai/chat-cr-line-ends.sse')).not.toContain('\n');
  });
});
