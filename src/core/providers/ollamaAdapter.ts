/**
 * The adapter for a local Ollama server: an availability probe on `/api/tags`, model discovery with
 * parameter sizes for the capability ladder, and streamed `/api/chat` with tools and `think`.
 *
 * @remarks
 * Plain `fetch` rather than the `ollama` npm client: the adapter reads six fields of two endpoints,
 * the client would add a dependency whose errors we would still have to reclassify (its `ResponseError`
 * carries no kind), and an injected `fetch` already gives tests the seam ollama-js itself offers.
 * Responses are validated with zod, but only the fields read, loosely, so a new Ollama field never
 * breaks a call.
 */
import * as z from 'zod';
import type { Clock } from '../clock';
import { Deadline } from './deadline';
import { showOllamaModel } from './ollamaShow';
import { estimateTokens } from './tokens';
import {
  ProviderError,
  ProviderFailure,
  ProviderStopped,
  ProviderUnavailable,
  type ChatMessage,
  type ChatOptions,
  type FinishReason,
  type ModelFacts,
  type ProviderAdapter,
  type StreamPart,
  type TokenLogprob,
  type ToolSpec,
} from './provider';
import {
  BODY_HEAD_CHARS,
  bodySketch,
  BodyTooLarge,
  errorCode,
  failureForStatus,
  isRecord,
  joinUrl,
  MAX_LIST_BYTES,
  parseRetryAfterMs,
  readBodyCapped,
  requestLines,
  type FetchLike,
} from './transport';

/** The probe's patience, ms: a local server that takes longer than this to list its models is not there. */
export const PROBE_TIMEOUT_MS = 2_000;
/** How long a probe's answer stands, ms: the ranking reads availability often and must not wait on it. */
export const PROBE_CACHE_MS = 30_000;
/**
 * How long the first streamed byte may take, ms.
 *
 * @remarks
 * Ollama loads a model on its first call and says nothing until it has; a 27B model read from a cold
 * disk takes tens of seconds, so two minutes is "something is wrong", not "the model is big".
 */
export const OLLAMA_FIRST_BYTE_TIMEOUT_MS = 120_000;

const tagsSchema = z.looseObject({
  models: z
    .array(
      z.looseObject({
        name: z.string(),
        model: z.string().optional(),
        digest: z.string().optional(),
        details: z.looseObject({ parameter_size: z.string().optional() }).optional(),
      }),
    )
    .default([]),
});

const chunkSchema = z.looseObject({
  model: z.string().optional(),
  message: z
    .looseObject({
      content: z.string().optional(),
      thinking: z.string().optional(),
      tool_calls: z
        .array(z.looseObject({ id: z.string().optional(), function: z.looseObject({ name: z.string(), arguments: z.unknown() }) }))
        .optional(),
    })
    .optional(),
  done: z.boolean().optional(),
  done_reason: z.string().optional(),
  prompt_eval_count: z.number().optional(),
  eval_count: z.number().optional(),
  error: z.string().optional(),
});

/**
 * A chunk's `logprobs`: the tokens it added, with their log-probabilities (Ollama 0.12.11 and later,
 * when the request asked with `logprobs`; `api.Logprob` in its api/types.go).
 *
 * @remarks
 * Read apart from the chunk and only to add to the finish, as the OpenAI-compatible adapter does: an
 * older server sends none, and malformed ones cost the answer nothing.
 */
const logprobsSchema = z.looseObject({
  logprobs: z.array(
    z.looseObject({
      token: z.string(),
      logprob: z.number(),
      top_logprobs: z
        .array(z.looseObject({ token: z.string(), logprob: z.number() }))
        .nullable()
        .optional(),
    }),
  ),
});

/** What one probe found: whether the server answered, why not, and the models it holds. */
export interface OllamaProbe {
  ok: boolean;
  /** Why not, when not. */
  reason?: string;
  models: ModelFacts[];
  /** ms since the epoch. */
  at: number;
}

/**
 * The context Ollama gives a request that sets no `num_ctx`, tokens: its default since 0.6 (it was
 * 2,048 before). A request that fits is sent without `num_ctx`, so the loaded model is not reloaded.
 */
export const OLLAMA_DEFAULT_CONTEXT_TOKENS = 4_096;
/** Output tokens kept free in the context when the request does not say how many it wants. */
export const OUTPUT_RESERVE_TOKENS = 1_024;

/**
 * The `num_ctx` to send for a request needing `neededTokens` (its prompt and tools, plus the output it
 * may write) on a model trained for `modelContext`, or undefined to leave Ollama's default.
 *
 * @remarks
 * Ollama cuts a prompt longer than its context silently (the start goes), so an 18,000-token Agent-mode
 * request reached a model at 4,096 tokens as its last fifth. Past the default, the context grows in
 * powers of two from 8,192 (each new size reloads the model, so sizes are few) and never past what the
 * model was trained for, which `/api/show` says; a model that does not say is given what is needed.
 */
export function numCtxFor(neededTokens: number, modelContext: number | undefined): number | undefined {
  if (neededTokens <= OLLAMA_DEFAULT_CONTEXT_TOKENS) return undefined;
  let size = 2 * OLLAMA_DEFAULT_CONTEXT_TOKENS;
  while (size < neededTokens) size *= 2;
  return modelContext !== undefined ? Math.min(size, modelContext) : size;
}

export interface OllamaAdapterOptions {
  /** `http://127.0.0.1:11434`; the panel's `defaultProviders` honours `OLLAMA_HOST`. */
  baseUrl: string;
  clock: Clock;
  fetch?: FetchLike;
  /** The provider's name in the panel. */
  name?: string;
  probeTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  noContentTimeoutMs?: number;
  maxResponseBytes?: number;
}

export class OllamaAdapter implements ProviderAdapter {
  readonly name: string;
  readonly logprobs = true;
  private readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetch: FetchLike;
  private readonly options: OllamaAdapterOptions;
  private lastProbe: OllamaProbe | undefined;
  private probing: Promise<OllamaProbe> | undefined;
  /** Each model's trained context from `/api/show`, asked once per model (undefined when it did not say). */
  private readonly contexts = new Map<string, Promise<number | undefined>>();

  constructor(options: OllamaAdapterOptions) {
    this.name = options.name ?? 'ollama';
    this.baseUrl = options.baseUrl;
    this.clock = options.clock;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.options = options;
  }

  /** The context `model` was trained for, asked of `/api/show` once; undefined when the server does not say. */
  private contextOf(model: string, signal?: AbortSignal): Promise<number | undefined> {
    let known = this.contexts.get(model);
    if (!known) {
      known = showOllamaModel(model, { baseUrl: this.baseUrl, fetch: this.fetch, ...(signal ? { signal } : {}) }).then((details) => {
        // An answer without a window is asked again next time; a stopped ask says nothing either way.
        if (details?.context === undefined) this.contexts.delete(model);
        return details?.context;
      });
      this.contexts.set(model, known);
    }
    return known;
  }

  async available(signal?: AbortSignal): Promise<boolean> {
    return (await this.probe(signal)).ok;
  }

  /** The models the server holds, with parameter sizes and digests; empty when it is not there. */
  async models(signal?: AbortSignal): Promise<ModelFacts[]> {
    return (await this.probe(signal)).models;
  }

  /**
   * Lists the server's models on `/api/tags`, at most once per {@link PROBE_CACHE_MS}; never throws.
   *
   * @remarks
   * A failed probe is cached too: a server that is down is asked again in 30 s, not on every ranking.
   */
  async probe(signal?: AbortSignal): Promise<OllamaProbe> {
    const now = this.clock.now();
    if (this.lastProbe && now - this.lastProbe.at < PROBE_CACHE_MS) return this.lastProbe;
    this.probing ??= this.runProbe(signal).finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  async *chat(model: string, messages: ChatMessage[], tools: ToolSpec[], options: ChatOptions, think?: boolean): AsyncIterable<StreamPart> {
    const body: Record<string, unknown> = {
      model,
      messages: toOllamaMessages(messages),
      stream: true,
    };
    if (tools.length)
      body.tools = tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters },
      }));
    if (think !== undefined) body.think = think;
    if (options.json) body.format = 'json';
    if (options.logprobs !== undefined) {
      body.logprobs = true;
      // Ollama takes 0–20 alternatives; 0 is the chosen token's alone.
      if (options.logprobs > 0) body.top_logprobs = Math.min(20, Math.floor(options.logprobs));
    }
    const modelOptions: Record<string, number> = {};
    if (options.temperature !== undefined) modelOptions.temperature = options.temperature;
    if (options.maxOutputTokens !== undefined) modelOptions.num_predict = options.maxOutputTokens;
    const needed = estimateTokens(messages, tools) + (options.maxOutputTokens ?? OUTPUT_RESERVE_TOKENS);
    if (needed > OLLAMA_DEFAULT_CONTEXT_TOKENS) {
      const numCtx = numCtxFor(needed, await this.contextOf(model, options.signal));
      if (numCtx !== undefined) modelOptions.num_ctx = numCtx;
    }
    if (Object.keys(modelOptions).length) body.options = modelOptions;

    let contentType: string | null = null;
    const lines = requestLines(
      joinUrl(this.baseUrl, '/api/chat'),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      {
        provider: this.name,
        fetch: this.fetch,
        signal: options.signal,
        firstByteTimeoutMs: this.options.firstByteTimeoutMs ?? OLLAMA_FIRST_BYTE_TIMEOUT_MS,
        idleTimeoutMs: this.options.idleTimeoutMs,
        noContentTimeoutMs: this.options.noContentTimeoutMs,
        maxResponseBytes: this.options.maxResponseBytes,
        now: () => this.clock.now(),
        onHeaders: (headers) => void (contentType = headers.get('content-type')),
        failureForStatus: (status, message, headers) => this.failureForStatus(model, status, message, headers),
      },
    );

    let resolved = model;
    let lineNumber = 0;
    let sawToolCall = false;
    let toolIndex = 0;
    let sawChunk = false;
    const logprobs: TokenLogprob[] = [];
    // Set when the first line is not a chat chunk: the lines after it are only read to quote the body.
    let foreignHead: string | undefined;
    for await (const line of lines) {
      lineNumber++;
      if (!line.trim()) continue;
      if (foreignHead !== undefined) {
        foreignHead += ` ${line.trim()}`;
        if (foreignHead.length > BODY_HEAD_CHARS) break;
        continue;
      }
      if (!sawChunk && !isChatChunk(line)) {
        foreignHead = line.trim();
        if (foreignHead.length > BODY_HEAD_CHARS) break;
        continue;
      }
      sawChunk = true;
      const chunk = parseChunk(line, lineNumber, this.name);
      if (chunk.error !== undefined)
        throw new ProviderError(`${this.name}: the server reported an error mid-stream: ${chunk.error}`, { provider: this.name });
      if (chunk.model) resolved = chunk.model;
      readLogprobs(chunk, logprobs);
      const message = chunk.message;
      if (message?.thinking) yield { type: 'reasoning-delta', text: message.thinking };
      if (message?.content) yield { type: 'text-delta', text: message.content };
      for (const call of message?.tool_calls ?? []) {
        sawToolCall = true;
        const id = call.id ?? `call_${toolIndex}`;
        toolIndex++;
        yield { type: 'tool-call', call: { id, name: call.function.name, arguments: argumentText(call.function.arguments) } };
      }
      if (chunk.done) {
        const digest = await this.digestOf(resolved, options.signal);
        yield {
          type: 'finish',
          finishReason: finishReason(chunk.done_reason, sawToolCall),
          usage: { inputTokens: chunk.prompt_eval_count ?? null, outputTokens: chunk.eval_count ?? null },
          resolvedModel: resolved,
          // A local model costs nothing per token: its price is the machine's, which no call adds to.
          cost: 0,
          ...(digest ? { digest } : {}),
          ...(logprobs.length ? { logprobs } : {}),
        };
        return;
      }
    }
    if (options.signal?.aborted) throw new ProviderStopped(undefined, { provider: this.name });
    // Nothing Ollama would send, not even one chunk: naming what came says where to look.
    if (!sawChunk)
      throw new ProviderError(
        `${this.name}: the response was not Ollama's NDJSON chat stream (${bodySketch(contentType, foreignHead ?? '')})`,
        { provider: this.name },
      );
    throw new ProviderError(`${this.name}: stream cut mid-way: it ended after ${lineNumber} lines without "done": true`, {
      provider: this.name,
    });
  }

  private failureForStatus(model: string, status: number, message: string, headers: Headers): ProviderFailure {
    if (status === 404) {
      return new ProviderUnavailable(`${this.name}: model ${model} is not pulled (404)${message ? `: ${message}` : ''}`, {
        provider: this.name,
        status,
      });
    }
    if (status === 401 || status === 403) {
      // Rung sends Ollama no credentials, so the shared "the API key was rejected" would blame a key
      // nobody sent: what refused is something in front of the server (an authenticating proxy).
      return new ProviderUnavailable(
        `${this.name}: ${this.baseUrl} refused the request (${status}): it asks for credentials, and Rung sends none to Ollama`,
        {
          provider: this.name,
          status,
        },
      );
    }
    if (status === 400 && /does not support/i.test(message)) {
      return new ProviderUnavailable(`${this.name}: ${message} (400)`, { provider: this.name, status });
    }
    return failureForStatus(this.name, status, message, parseRetryAfterMs(headers, this.clock.now()));
  }

  /** The digest the last probe listed for `model`; probes (cached) when there was none. */
  private async digestOf(model: string, signal?: AbortSignal): Promise<string | undefined> {
    const probe = await this.probe(signal);
    const names = model.includes(':') ? [model] : [model, `${model}:latest`];
    return probe.models.find((facts) => names.includes(facts.slug))?.digest;
  }

  private async runProbe(signal?: AbortSignal): Promise<OllamaProbe> {
    const timeoutMs = this.options.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
    const deadline = new Deadline(signal);
    deadline.arm(timeoutMs);
    const settle = (ok: boolean, models: ModelFacts[], reason?: string): OllamaProbe => {
      const probe: OllamaProbe = { ok, models, at: this.clock.now(), ...(reason ? { reason } : {}) };
      // A probe the user stopped says nothing about the server, so it is not remembered.
      if (!signal?.aborted) this.lastProbe = probe;
      return probe;
    };
    try {
      const response = await this.fetch(joinUrl(this.baseUrl, '/api/tags'), { signal: deadline.signal });
      if (!response.ok) return settle(false, [], `GET /api/tags answered ${response.status}`);
      // Read as text first: a body that is not JSON (a login page, another server's UI) would otherwise
      // throw from json() into the catch below and be reported as "no server", when something answered.
      let text: string;
      try {
        text = await readBodyCapped(response, MAX_LIST_BYTES);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        return settle(
          false,
          [],
          `GET /api/tags answered ${error.message}, far more than a model list (a fixed limit); check the provider's baseUrl`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return settle(
          false,
          [],
          `GET /api/tags answered something that is not JSON (${bodySketch(response.headers.get('content-type'), text.slice(0, BODY_HEAD_CHARS + 1))})`,
        );
      }
      const parsed = tagsSchema.safeParse(json);
      if (!parsed.success) return settle(false, [], 'GET /api/tags answered something that is not a model list');
      return settle(
        true,
        parsed.data.models.map((entry) => {
          const billions = parseParameterSize(entry.details?.parameter_size);
          return {
            slug: entry.name,
            ...(billions !== undefined ? { parameterBillions: billions } : {}),
            ...(entry.digest ? { digest: entry.digest } : {}),
          };
        }),
      );
    } catch (error) {
      if (deadline.stopped) return settle(false, [], 'probe stopped');
      if (deadline.timedOut) return settle(false, [], `no answer from ${this.baseUrl} within ${timeoutMs} ms`);
      const code = errorCode(error);
      return settle(false, [], `no server at ${this.baseUrl}${code ? ` (${code})` : ''}`);
    } finally {
      deadline.clear();
    }
  }
}

/**
 * Ollama's `details.parameter_size` in billions: "14.8B" → 14.8, "567M" → 0.567; undefined when unreadable.
 *
 * @remarks
 * Ollama writes the count through its human-number format, which leaves a count under a thousand bare
 * ("999"): a bare number is a count of parameters, not billions, or a tiny model would read as a huge one.
 */
export function parseParameterSize(text: string | undefined): number | undefined {
  const match = /^\s*([\d.]+)\s*([KMBT])?\s*$/i.exec(text ?? '');
  if (!match) return undefined;
  const value = Number(match[1]);
  if (!Number.isFinite(value)) return undefined;
  const scale: Record<string, number> = { '': 1e-9, K: 1e-6, M: 1e-3, B: 1, T: 1e3 };
  return Number((value * (scale[(match[2] ?? '').toUpperCase()] ?? 1)).toPrecision(12));
}

function toOllamaMessages(messages: ChatMessage[]): Record<string, unknown>[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    const out: Record<string, unknown> = { role: message.role, content: message.content };
    if (message.toolCalls?.length) {
      out.tool_calls = message.toolCalls.map((call) => {
        toolNames.set(call.id, call.name);
        return { function: { name: call.name, arguments: parseArguments(call.arguments) } };
      });
    }
    if (message.role === 'tool' && message.toolCallId) {
      const name = toolNames.get(message.toolCallId);
      if (name) out.tool_name = name;
    }
    return out;
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/**
 * Whether a line reads as one of Ollama's chat chunks: a JSON object with a `message`, `done` or `error`.
 *
 * @remarks
 * Asked of the first line only. A body that fails it is not a stream that broke but another kind of
 * answer: a pretty-printed JSON document (its first line `{`), a `chat.completion` object from an
 * OpenAI-compatible server (every chunk field is optional, so it parsed as an empty chunk and the call
 * ended as "cut mid-way"), or a web page sent without an HTML content-type. Later lines keep the
 * "malformed line N" message: there the stream was Ollama's and went wrong.
 */
function isChatChunk(line: string): boolean {
  try {
    const json: unknown = JSON.parse(line);
    return isRecord(json) && ('message' in json || 'done' in json || 'error' in json);
  } catch {
    return false;
  }
}

function parseChunk(line: string, lineNumber: number, provider: string): z.infer<typeof chunkSchema> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new ProviderError(`${provider}: malformed line ${lineNumber} in the stream: not JSON`, { provider });
  }
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success || !isRecord(json))
    throw new ProviderError(`${provider}: malformed line ${lineNumber} in the stream: unexpected shape`, { provider });
  return parsed.data;
}

/** Adds a chunk's tokens to `into`, if its `logprobs` read as log-probabilities. */
function readLogprobs(chunk: unknown, into: TokenLogprob[]): void {
  const parsed = logprobsSchema.safeParse(chunk);
  if (!parsed.success) return;
  for (const entry of parsed.data.logprobs) {
    const top = entry.top_logprobs?.map((alternative) => ({ token: alternative.token, logprob: alternative.logprob }));
    into.push({ token: entry.token, logprob: entry.logprob, ...(top?.length ? { top } : {}) });
  }
}

function finishReason(reason: string | undefined, sawToolCall: boolean): FinishReason {
  if (sawToolCall) return 'tool-calls';
  switch (reason) {
    case undefined:
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    default:
      return 'other';
  }
}
