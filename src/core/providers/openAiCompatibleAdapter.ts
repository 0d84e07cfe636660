/**
 * The adapter for any OpenAI-compatible chat completions endpoint (OpenRouter, OpenAI, a local
 * server at any base URL): streamed SSE with tools, usage and the response's own model.
 *
 * @remarks
 * The key is the caller's (SecretStorage in the editor, `RUNG_<PROVIDER>_API_KEY` in the CLI) and
 * goes into one header and nowhere else: every text that came off the wire is scrubbed of it before
 * it can reach a message, and a 401/403 says nothing of its body, because OpenAI's echoes the key it
 * refused. Cost is the provider's own figure where it gives one (OpenRouter's `usage.cost`); the
 * catalog's list price times the reported tokens is reported beside it as `catalogCost`.
 */
import * as z from 'zod';
import type { Catalog } from '../catalog/catalog';
import type { Clock } from '../clock';
import {
  ProviderError,
  ProviderStopped,
  ProviderUnavailable,
  type ChatMessage,
  type ChatOptions,
  type FinishReason,
  type ProviderAdapter,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
} from './provider';
import { joinUrl, redactor, requestLines, type FetchLike } from './transport';

/**
 * How long a cloud provider may take to send its first byte, ms.
 *
 * @remarks
 * A hosted model streams its first token in a second or two; a reasoning model may think for tens of
 * seconds before it says anything, so one minute separates slow from stuck.
 */
export const CLOUD_FIRST_BYTE_TIMEOUT_MS = 60_000;

const chunkSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            content: z.string().nullable().optional(),
            reasoning: z.string().nullable().optional(),
            reasoning_content: z.string().nullable().optional(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().optional(),
                  id: z.string().nullable().optional(),
                  function: z.looseObject({ name: z.string().nullable().optional(), arguments: z.string().nullable().optional() }).optional(),
                }),
              )
              .nullable()
              .optional(),
          })
          .nullable()
          .optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  usage: z
    .looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional(), cost: z.number().nullable().optional() })
    .nullable()
    .optional(),
  error: z.looseObject({ message: z.string().optional(), code: z.union([z.number(), z.string()]).nullable().optional() }).optional(),
});

type Chunk = z.infer<typeof chunkSchema>;

export interface OpenAiCompatibleAdapterOptions {
  /** The provider's name in the panel (`openrouter`, `openai`, …). */
  name: string;
  /** The API base, `https://openrouter.ai/api/v1`; requests go to `<baseUrl>/chat/completions`. */
  baseUrl: string;
  clock: Clock;
  /** The caller's key; absent means "not configured" unless `requireKey` is false. */
  apiKey?: string;
  /** A local server (llama.cpp, LM Studio) may need no key. Default true. */
  requireKey?: boolean;
  /** How the user sets a key, for the "no key" message (`set RUNG_OPENROUTER_API_KEY`). */
  keyHint?: string;
  fetch?: FetchLike;
  /** Prices for cost when the provider reports none. */
  catalog?: Catalog;
  /** Extra request headers (OpenRouter's `HTTP-Referer`, `X-Title`). */
  headers?: Record<string, string>;
  /** Send `think` as OpenRouter's `reasoning: {enabled}`; default: when the base URL is OpenRouter's. */
  reasoningParameter?: boolean;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxResponseBytes?: number;
}

export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly name: string;
  private readonly options: OpenAiCompatibleAdapterOptions;
  private readonly fetch: FetchLike;

  constructor(options: OpenAiCompatibleAdapterOptions) {
    this.name = options.name;
    this.options = options;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Configured means a key is there (or none is needed); a rejected key shows on the first call. */
  async available(): Promise<boolean> {
    return this.missingKey() === null;
  }

  /** Why the adapter cannot take calls before trying one, or null. */
  missingKey(): string | null {
    if (this.options.apiKey || this.options.requireKey === false) return null;
    return `${this.name}: no API key${this.options.keyHint ? ` (${this.options.keyHint})` : ''}`;
  }

  async *chat(model: string, messages: ChatMessage[], tools: ToolSpec[], options: ChatOptions, think?: boolean): AsyncIterable<StreamPart> {
    const missing = this.missingKey();
    if (missing) throw new ProviderUnavailable(missing, { provider: this.name });
    const body: Record<string, unknown> = {
      model,
      messages: toOpenAiMessages(messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (tools.length) body.tools = tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters } }));
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxOutputTokens !== undefined) body.max_tokens = options.maxOutputTokens;
    if (options.json) body.response_format = { type: 'json_object' };
    const reasoning = this.options.reasoningParameter ?? /(^|\.)openrouter\.ai$/.test(hostOf(this.options.baseUrl));
    if (think !== undefined && reasoning) body.reasoning = { enabled: think };
    else if (think) yield { type: 'warning', message: `${this.name}: think is not supported by this endpoint; ignored` };

    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', ...(this.options.headers ?? {}) };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const secrets = this.options.apiKey ? [this.options.apiKey] : [];
    const scrub = redactor(secrets);
    const lines = requestLines(
      joinUrl(this.options.baseUrl, '/chat/completions'),
      { method: 'POST', headers, body: JSON.stringify(body) },
      {
        provider: this.name,
        fetch: this.fetch,
        signal: options.signal,
        firstByteTimeoutMs: this.options.firstByteTimeoutMs ?? CLOUD_FIRST_BYTE_TIMEOUT_MS,
        idleTimeoutMs: this.options.idleTimeoutMs,
        maxResponseBytes: this.options.maxResponseBytes,
        secrets,
        now: () => this.options.clock.now(),
      },
    );

    const state = new StreamState(model);
    // An SSE event is its `data:` lines up to a blank line; comments (`: OPENROUTER PROCESSING`),
    // `event:`, `id:` and `retry:` lines carry nothing this adapter reads.
    let data: string[] = [];
    let lineNumber = 0;
    for await (const line of lines) {
      lineNumber++;
      if (line === '') {
        if (data.length) yield* this.event(data.join('\n'), lineNumber - 1, state, scrub);
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
      if (state.done) break;
    }
    if (!state.done && data.length) yield* this.event(data.join('\n'), lineNumber, state, scrub);
    if (options.signal?.aborted) throw new ProviderStopped(undefined, { provider: this.name });
    // A stream that ends after its finish reason but before [DONE] still carried a whole answer (only
    // the usage chunk may be missing), so it stands; one that ends before any finish reason was cut.
    if (!state.done && state.finishReason === undefined) {
      throw new ProviderError(`${this.name}: stream cut mid-way: it ended after ${lineNumber} lines without a finish reason or [DONE]`, { provider: this.name });
    }
    yield* state.flushToolCalls();
    const usage = state.usage;
    // The catalog's price is reported beside the provider's own cost, not in its place: a panel price
    // outranks the catalog, and only the caller knows the panel.
    const catalogCost =
      usage.cost === undefined && usage.inputTokens !== null && usage.outputTokens !== null
        ? (this.options.catalog?.cost(model, usage.inputTokens, usage.outputTokens) ?? this.options.catalog?.cost(state.resolved, usage.inputTokens, usage.outputTokens))
        : undefined;
    yield {
      type: 'finish',
      finishReason: state.finishReason ?? 'other',
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
      resolvedModel: state.resolved,
      ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
      ...(catalogCost !== undefined ? { catalogCost } : {}),
    };
  }

  private *event(data: string, line: number, state: StreamState, scrub: (text: string) => string): Generator<StreamPart> {
    if (data === '[DONE]') {
      state.done = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ProviderError(`${this.name}: malformed line ${line} in the stream: not JSON`, { provider: this.name });
    }
    const parsed = chunkSchema.safeParse(json);
    if (!parsed.success) throw new ProviderError(`${this.name}: malformed line ${line} in the stream: unexpected shape`, { provider: this.name });
    yield* state.read(parsed.data, this.name, scrub);
  }
}

/** What one stream has said so far: tool calls being assembled, the finish reason, usage, the model. */
class StreamState {
  resolved: string;
  finishReason: FinishReason | undefined;
  /** `data: [DONE]` arrived. */
  done = false;
  usage: { inputTokens: number | null; outputTokens: number | null; cost?: number } = { inputTokens: null, outputTokens: null };
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private flushed = false;

  constructor(model: string) {
    this.resolved = model;
  }

  *read(chunk: Chunk, provider: string, scrub: (text: string) => string): Generator<StreamPart> {
    if (chunk.model) this.resolved = chunk.model;
    if (chunk.error) {
      const status = typeof chunk.error.code === 'number' ? chunk.error.code : undefined;
      throw new ProviderError(`${provider}: the provider reported an error mid-stream: ${scrub(chunk.error.message ?? 'unknown error')}`, { provider, status });
    }
    if (chunk.usage) {
      this.usage = {
        inputTokens: chunk.usage.prompt_tokens ?? null,
        outputTokens: chunk.usage.completion_tokens ?? null,
        ...(typeof chunk.usage.cost === 'number' ? { cost: chunk.usage.cost } : {}),
      };
    }
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta;
    const reasoning = delta?.reasoning ?? delta?.reasoning_content;
    if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    for (const piece of delta?.tool_calls ?? []) {
      const index = piece.index ?? 0;
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
      this.calls.set(index, call);
    }
    if (choice.finish_reason) {
      if (choice.finish_reason === 'error') throw new ProviderError(`${provider}: the provider ended the stream with an error`, { provider });
      this.finishReason = finishReason(choice.finish_reason);
      yield* this.flushToolCalls();
    }
  }

  /** The assembled tool calls, once, in the order the model opened them. */
  *flushToolCalls(): Generator<StreamPart> {
    if (this.flushed) return;
    this.flushed = true;
    for (const [index, call] of [...this.calls.entries()].sort((a, b) => a[0] - b[0])) {
      const complete: ToolCall = { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments || '{}' };
      yield { type: 'tool-call', call: complete };
    }
  }
}

function finishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

function toOpenAiMessages(messages: ChatMessage[]): Record<string, unknown>[] {
  return messages.map((message) => {
    const out: Record<string, unknown> = { role: message.role, content: message.content };
    if (message.toolCalls?.length) {
      out.tool_calls = message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
    }
    if (message.role === 'tool' && message.toolCallId) out.tool_call_id = message.toolCallId;
    return out;
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
