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
import type { Catalog } from './catalog';
import type { Clock } from '../clock';
import {
  ProviderError,
  ProviderFailure,
  ProviderStopped,
  ProviderUnavailable,
  type ChatMessage,
  type ChatOptions,
  type FinishReason,
  type ProviderAdapter,
  type StreamPart,
  type TokenLogprob,
  type ToolCall,
  type ToolSpec,
} from './provider';
import { failureForStatus, isRecord, joinUrl, parseRetryAfterMs, requestEvents, serverMessage, type FetchLike } from './transport';
import { redactor } from '../redactor';

/**
 * How long a cloud provider may take to send its first byte, ms.
 *
 * @remarks
 * A hosted model streams its first token in a second or two; a reasoning model may think for tens of
 * seconds before it says anything, so one minute separates slow from stuck.
 */
export const CLOUD_FIRST_BYTE_TIMEOUT_MS = 60_000;

/**
 * One element of `delta.content` given as an array (Mistral): text, thinking, or something Rung does not
 * show (an image reference, a citation).
 *
 * @remarks
 * Loose on purpose: only `type` is required, and the fields of the two kinds read are checked where they
 * are read, so a part of a new kind is reported, not a reason to fail the whole call.
 */
const contentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.union([z.string(), z.array(z.looseObject({ type: z.string().optional(), text: z.string().optional() }))]).optional(),
});

type ContentPart = z.infer<typeof contentPartSchema>;

const chunkSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            content: z
              .union([z.string(), z.array(contentPartSchema)])
              .nullable()
              .optional(),
            refusal: z.string().nullable().optional(),
            reasoning: z.string().nullable().optional(),
            reasoning_content: z.string().nullable().optional(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().optional(),
                  id: z.string().nullable().optional(),
                  function: z
                    .looseObject({
                      name: z.string().nullable().optional(),
                      arguments: z.string().nullable().optional(),
                      id: z.string().nullable().optional(),
                    })
                    .optional(),
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
  // A string is Hugging Face text-generation-inference's shape (`{"error": "…", "error_type": "…"}`,
  // router/src/server.rs, `impl From<InferError> for Event`); read as an object it failed as "unexpected shape".
  error: z
    .union([z.string(), z.looseObject({ message: z.string().optional(), code: z.union([z.number(), z.string()]).nullable().optional() })])
    .optional(),
});

type Chunk = z.infer<typeof chunkSchema>;

/**
 * A chunk's `choices[].logprobs.content`: the tokens this chunk added, with their log-probabilities.
 *
 * @remarks
 * Read apart from the chunk, and only ever to add to what the finish reports: a server whose log-
 * probabilities are malformed (a null logprob, a top list of another shape) still answered, and the
 * answer stands without them. The refusal's tokens (`logprobs.refusal`) are not the answer's and are
 * not read.
 */
const logprobsSchema = z.looseObject({
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      logprobs: z
        .looseObject({
          content: z
            .array(
              z.looseObject({
                token: z.string(),
                logprob: z.number(),
                top_logprobs: z
                  .array(z.looseObject({ token: z.string(), logprob: z.number() }))
                  .nullable()
                  .optional(),
              }),
            )
            .nullable()
            .optional(),
        })
        .nullable()
        .optional(),
    }),
  ),
});

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
  noContentTimeoutMs?: number;
  maxResponseBytes?: number;
}

export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly name: string;
  readonly logprobs = true;
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

  /**
   * A non-2xx status for a call sent without a key.
   *
   * @remarks
   * A keyless server (a loopback one needs no key by default) that does want one answers 401 or 403;
   * "the API key was rejected" would blame a key nobody sent, so the message says one is needed and how
   * to set it. Every other status reads as it would with a key.
   */
  private keylessFailure(status: number, serverMessage: string, headers: Headers): ProviderFailure {
    if (status === 401 || status === 403) {
      const hint = this.options.keyHint ? `: ${this.options.keyHint}` : '';
      return new ProviderUnavailable(`${this.name}: the server asks for an API key (${status}) and none is set${hint}`, {
        provider: this.name,
        status,
      });
    }
    return failureForStatus(this.name, status, serverMessage, parseRetryAfterMs(headers, this.options.clock.now()));
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
    if (tools.length)
      body.tools = tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters },
      }));
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxOutputTokens !== undefined) body.max_tokens = options.maxOutputTokens;
    if (options.json) body.response_format = { type: 'json_object' };
    if (options.logprobs !== undefined) {
      body.logprobs = true;
      // OpenAI refuses `top_logprobs` without `logprobs`, and 0 alternatives is the same as none asked.
      if (options.logprobs > 0) body.top_logprobs = Math.min(20, Math.floor(options.logprobs));
    }
    const reasoning = this.options.reasoningParameter ?? /(^|\.)openrouter\.ai$/.test(hostOf(this.options.baseUrl));
    if (think !== undefined && reasoning) body.reasoning = { enabled: think };
    else if (think) yield { type: 'warning', message: `${this.name}: think is not supported by this endpoint; ignored` };

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(this.options.headers ?? {}),
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const secrets = this.options.apiKey ? [this.options.apiKey] : [];
    const scrub = redactor(secrets);
    const events = requestEvents(
      joinUrl(this.options.baseUrl, '/chat/completions'),
      { method: 'POST', headers, body: JSON.stringify(body) },
      {
        provider: this.name,
        fetch: this.fetch,
        signal: options.signal,
        firstByteTimeoutMs: this.options.firstByteTimeoutMs ?? CLOUD_FIRST_BYTE_TIMEOUT_MS,
        idleTimeoutMs: this.options.idleTimeoutMs,
        noContentTimeoutMs: this.options.noContentTimeoutMs,
        maxResponseBytes: this.options.maxResponseBytes,
        secrets,
        now: () => this.options.clock.now(),
        ...(this.options.apiKey ? {} : { failureForStatus: (status, said, answered) => this.keylessFailure(status, said, answered) }),
      },
    );

    const state = new StreamState(model, this.name);
    let lastLine = 0;
    for await (const item of events) {
      lastLine = item.line;
      if (item.type === 'field') {
        // llama.cpp's `error: {…}` line; any other field the format does not define is ignored, as it says.
        if (item.field === 'error') throw this.serverError(item.value, scrub);
        continue;
      }
      if (item.event === 'error') throw this.serverError(item.data, scrub);
      yield* this.event(item.data, item.line, state, scrub);
      if (state.done) break;
    }
    if (options.signal?.aborted) throw new ProviderStopped(undefined, { provider: this.name });
    // A stream that ends after its finish reason but before [DONE] still carried a whole answer (only
    // the usage chunk may be missing), so it stands; one that ends before any finish reason was cut,
    // [DONE] or not: a server closes a failed generation with [DONE] too (llama.cpp after its error
    // event), and an answer nobody said was finished must not be graded as one. A body that held no
    // event at all never gets here: requestEvents names it as not an event stream.
    if (state.finishReason === undefined) {
      const how = state.done
        ? `it sent [DONE] without a finish reason (on line ${lastLine})`
        : `it ended without a finish reason or [DONE] (its last event on line ${lastLine})`;
      throw new ProviderError(`${this.name}: stream cut mid-way: ${how}`, { provider: this.name });
    }
    yield* state.flushToolCalls();
    const usage = state.usage;
    // The catalog's price is reported beside the provider's own cost, not in its place: a panel price
    // outranks the catalog, and only the caller knows the panel.
    const catalogCost =
      usage.cost === undefined && usage.inputTokens !== null && usage.outputTokens !== null
        ? (this.options.catalog?.cost(model, usage.inputTokens, usage.outputTokens) ??
          this.options.catalog?.cost(state.resolved, usage.inputTokens, usage.outputTokens))
        : undefined;
    yield {
      type: 'finish',
      finishReason: state.finishReason ?? 'other',
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
      resolvedModel: state.resolved,
      ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
      ...(catalogCost !== undefined ? { catalogCost } : {}),
      ...(state.refusal ? { refusal: state.refusal } : {}),
      ...(state.logprobs.length ? { logprobs: state.logprobs } : {}),
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
    if (!parsed.success)
      throw new ProviderError(`${this.name}: malformed line ${line} in the stream: unexpected shape`, { provider: this.name });
    yield* state.read(parsed.data, scrub);
    state.readLogprobs(json);
  }

  /**
   * The failure for an error the server sent as an event (`event: error`) or as llama.cpp's `error:`
   * field: a provider error in the server's own words, with its status code when it gave one.
   */
  private serverError(text: string, scrub: (text: string) => string): ProviderError {
    const said = scrub(serverMessage(text)).slice(0, SERVER_MESSAGE_CHARS) || 'unknown error';
    const status = statusIn(text);
    return new ProviderError(`${this.name}: the server reported an error mid-stream: ${said}`, {
      provider: this.name,
      ...(status !== undefined ? { status } : {}),
    });
  }
}

/** How much of the server's own words an error event puts into ours, characters. */
const SERVER_MESSAGE_CHARS = 300;

/** The numeric `code` of an error event's JSON (`{"code":400,…}` or `{"error":{"code":529,…}}`), if any. */
function statusIn(text: string): number | undefined {
  try {
    const json: unknown = JSON.parse(text);
    const error = isRecord(json) && isRecord(json.error) ? json.error : json;
    return isRecord(error) && typeof error.code === 'number' ? error.code : undefined;
  } catch {
    return undefined;
  }
}

/** A tool call being assembled from its deltas. */
interface OpenCall {
  /** The delta's `index`, when the server sends one. */
  index: number | undefined;
  id: string;
  name: string;
  arguments: string;
}

/** What one stream has said so far: tool calls being assembled, the finish reason, usage, the model. */
class StreamState {
  resolved: string;
  finishReason: FinishReason | undefined;
  /** `data: [DONE]` arrived. */
  done = false;
  usage: { inputTokens: number | null; outputTokens: number | null; cost?: number } = { inputTokens: null, outputTokens: null };
  /** The model's refusal so far (`delta.refusal`). */
  refusal = '';
  /** The answer's tokens with their log-probabilities so far, when the server sends them. */
  readonly logprobs: TokenLogprob[] = [];
  /** In the order the model opened them. */
  private readonly calls: OpenCall[] = [];
  /**
   * The calls opened with an `index`, by it (the first call to carry an index keeps it).
   *
   * @remarks
   * Looked up on every delta: a search of {@link calls} instead took time quadratic in the calls, 61 s
   * of CPU for a stream of 100k deltas that each opened a call.
   */
  private readonly byIndex = new Map<number, OpenCall>();
  private flushed = false;
  /** Content part kinds already warned about, so a long answer warns once per kind. */
  private readonly skippedKinds = new Set<string>();

  constructor(
    model: string,
    private readonly provider: string,
  ) {
    this.resolved = model;
  }

  *read(chunk: Chunk, scrub: (text: string) => string): Generator<StreamPart> {
    const provider = this.provider;
    if (chunk.model) this.resolved = chunk.model;
    if (chunk.error) {
      const said = typeof chunk.error === 'string' ? chunk.error : chunk.error.message;
      const status = typeof chunk.error === 'object' && typeof chunk.error.code === 'number' ? chunk.error.code : undefined;
      throw new ProviderError(`${provider}: the provider reported an error mid-stream: ${scrub(said ?? 'unknown error')}`, {
        provider,
        status,
      });
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
    if (typeof delta?.content === 'string') {
      if (delta.content) yield { type: 'text-delta', text: delta.content };
    } else if (delta?.content) {
      yield* this.contentParts(delta.content);
    }
    // A refusal is shown as text, so the user reads why there is no answer; the finish says it was one.
    if (delta?.refusal) {
      this.refusal += delta.refusal;
      yield { type: 'text-delta', text: delta.refusal };
    }
    for (const piece of delta?.tool_calls ?? []) this.addToolDelta(piece);
    if (choice.finish_reason) {
      if (choice.finish_reason === 'error')
        throw new ProviderError(`${provider}: the provider ended the stream with an error`, { provider });
      // Gemini's OpenAI-compatible endpoint finishes a streamed tool call with `stop`; the calls say what it was.
      this.finishReason = choice.finish_reason === 'stop' && this.calls.length ? 'tool-calls' : finishReason(choice.finish_reason);
      yield* this.flushToolCalls();
    }
  }

  /** Adds the first choice's content tokens of one chunk, if it carries any that read as log-probabilities. */
  readLogprobs(json: unknown): void {
    const parsed = logprobsSchema.safeParse(json);
    if (!parsed.success) return;
    const choice = parsed.data.choices.find((candidate) => (candidate.index ?? 0) === 0);
    for (const entry of choice?.logprobs?.content ?? []) {
      const top = entry.top_logprobs?.map((alternative) => ({ token: alternative.token, logprob: alternative.logprob }));
      this.logprobs.push({ token: entry.token, logprob: entry.logprob, ...(top?.length ? { top } : {}) });
    }
  }

  /** The assembled tool calls, once, in the order the model opened them. */
  *flushToolCalls(): Generator<StreamPart> {
    if (this.flushed) return;
    this.flushed = true;
    for (const [position, call] of this.calls.entries()) {
      const complete: ToolCall = { id: call.id || `call_${call.index ?? position}`, name: call.name, arguments: call.arguments || '{}' };
      yield { type: 'tool-call', call: complete };
    }
  }

  /** Text and thinking parts of an array `content` (Mistral); other kinds are reported once and skipped. */
  private *contentParts(parts: ContentPart[]): Generator<StreamPart> {
    for (const part of parts) {
      if (part.type === 'text') {
        if (part.text) yield { type: 'text-delta', text: part.text };
      } else if (part.type === 'thinking') {
        const thinking =
          typeof part.thinking === 'string' ? part.thinking : (part.thinking ?? []).map((inner) => inner.text ?? '').join('');
        if (thinking) yield { type: 'reasoning-delta', text: thinking };
      } else if (!this.skippedKinds.has(part.type)) {
        this.skippedKinds.add(part.type);
        yield {
          type: 'warning',
          message: `${this.provider}: the answer held ${/^[aeiou]/i.test(part.type) ? 'an' : 'a'} ${part.type} part, which Rung does not show`,
        };
      }
    }
  }

  /**
   * Adds one tool-call delta to the call it belongs to.
   *
   * @remarks
   * OpenAI sends `index` on every delta and the name once. Real servers differ: Gemini's compatible
   * endpoint and Mistral send no `index` (each call arrives whole, under its own `id`), and llama.cpp
   * builds before ggml-org/llama.cpp PR #13800 repeat the whole name in every delta. So a delta without
   * an index continues the last call unless it names a different call (another id, or another name
   * after that call's arguments began), and a name that repeats the name so far adds nothing. Those
   * llama.cpp builds also put the call's id inside `function`; it is read from there when the call
   * itself has none, so an answer to the call can name it.
   */
  private addToolDelta(piece: ToolDelta): void {
    const name = piece.function?.name ?? '';
    const id = piece.id || piece.function?.id || '';
    const last = this.calls.at(-1);
    let call: OpenCall | undefined;
    if (piece.index !== undefined) {
      call = this.byIndex.get(piece.index);
    } else if (last) {
      const otherId = Boolean(id && last.id && id !== last.id);
      const otherName = Boolean(!id && name && last.name && name !== last.name && last.arguments);
      if (!otherId && !otherName) call = last;
    }
    if (!call) {
      call = { index: piece.index, id: '', name: '', arguments: '' };
      this.calls.push(call);
      if (piece.index !== undefined) this.byIndex.set(piece.index, call);
    }
    if (id) call.id = id;
    if (name && name !== call.name) call.name += name;
    if (piece.function?.arguments) call.arguments += piece.function.arguments;
  }
}

type Choice = NonNullable<Chunk['choices']>[number];
type ToolDelta = NonNullable<NonNullable<Choice['delta']>['tool_calls']>[number];

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
      out.tool_calls = message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
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
