/**
 * The provider interface: one small contract every model source (Ollama, an OpenAI-compatible cloud,
 * the editor's own language models, a recorded replay) implements.
 *
 * @remarks
 * Shaped after vercel/ai's LanguageModelV2: a streamed result as one union keyed on `type`, closed
 * vocabularies with an `other` member, errors as parts of the stream. Every finish reports the model
 * that actually served the call, because the ledger keys on that and not on the configured slug.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Tool calls an assistant message made. */
  toolCalls?: ToolCall[];
  /** For a `tool` message: the call it answers. */
  toolCallId?: string;
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

/**
 * One output token's log-probability, and the likeliest tokens at its position when they were asked for.
 *
 * @remarks
 * The confidence check reads these: a model's own probability for its answer (or for "Y" when asked
 * whether its answer is right) is the signal the recorded cascades were measured with.
 */
export interface TokenLogprob {
  token: string;
  logprob: number;
  /** The likeliest tokens at this position, the chosen one usually among them; absent when none were asked for. */
  top?: { token: string; logprob: number }[];
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
}

export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | {
      type: 'finish';
      finishReason: FinishReason;
      usage: Usage;
      /** The response's own model field: the snapshot that served the call. */
      resolvedModel: string;
      /** USD as the provider itself reported it (OpenRouter's `usage.cost`; 0 for a local model). */
      cost?: number;
      /**
       * USD at the provider catalog's list price, when the provider reported no cost.
       *
       * @remarks
       * Kept apart from `cost` because it ranks below a price the user wrote into the panel: the
       * recorded cost is the provider's figure, else the panel's price, else the catalog's.
       */
      catalogCost?: number;
      /** The weights' content digest where the provider exposes one (Ollama's `sha256:…`). */
      digest?: string;
      /**
       * The model declined the request, in these words (OpenAI's `delta.refusal`).
       *
       * @remarks
       * The same words were streamed as `text-delta` parts, so every front end shows them without knowing
       * about refusals; this field is how the attempt learns that the text is a refusal and not an answer,
       * which the cascade must grade as a failure and climb from.
       */
      refusal?: string;
      /**
       * The answer's tokens with their log-probabilities, in order, when the call asked for them
       * ({@link ChatOptions.logprobs}) and the server gave them; absent from a server that gives none.
       */
      logprobs?: TokenLogprob[];
    }
  /** An option the provider could not honour (say `think` on a server without reasoning): reported, not fatal. */
  | { type: 'warning'; message: string }
  | { type: 'error'; error: ProviderFailure };

export interface ChatOptions {
  signal?: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
  /** Ask for a JSON answer where the provider supports it. */
  json?: boolean;
  /**
   * Ask for the answer's token log-probabilities, with this many likeliest alternatives per token (0:
   * the chosen token's alone). Servers that do not support them answer without; nothing fails for it.
   */
  logprobs?: number;
}

export interface ProviderAdapter {
  readonly name: string;
  /**
   * Whether the provider can answer with token log-probabilities ({@link ChatOptions.logprobs}): the
   * confidence check asks its question only of such a provider. A server that can but does not (an old
   * Ollama) answers without them, and the check stays silent.
   */
  readonly logprobs?: boolean;
  /** Whether the provider can take calls now; cheap and cached, never throws. */
  available(signal?: AbortSignal): Promise<boolean>;
  /**
   * Streams one answer. Failures arrive as an `error` part or a thrown {@link ProviderFailure}; the
   * adapters in this folder throw, and every consumer accepts both.
   */
  chat(model: string, messages: ChatMessage[], tools: ToolSpec[], options: ChatOptions, think?: boolean): AsyncIterable<StreamPart>;
}

/**
 * What a provider may know about one of its models, for the capability ladder and the price walk.
 * Advertised capabilities are recorded, not believed: what a model can do is measured.
 */
export interface ModelFacts {
  slug: string;
  /** Parameter count in billions (Ollama's `parameter_size`), for the local tiers of the ladder. */
  parameterBillions?: number;
  /** USD per million tokens. */
  price?: { input: number; output: number };
  context?: number;
  /** Parameters the provider says the model accepts (`tools`, `logprobs`, …). */
  advertised?: string[];
  /** The weights' content digest where the provider lists one (Ollama). */
  digest?: string;
}

/** How the cascade treats a failure: try elsewhere without blame, or stop. */
export type FailureKind = 'unavailable' | 'provider-error' | 'stopped';

/**
 * A failure the cascade acts on. `unavailable` (no server, no key, key rejected, model not pulled) and
 * `provider-error` (timeout, 429, 5xx, a stream cut mid-way) skip to the next rung and grade nobody;
 * `stopped` (the user cancelled) ends the call.
 */
export class ProviderFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: { provider?: string; status?: number; retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = kind === 'unavailable' ? 'ProviderUnavailable' : kind === 'stopped' ? 'Stopped' : 'ProviderError';
  }
}

export class ProviderUnavailable extends ProviderFailure {
  constructor(message: string, details: { provider?: string; status?: number } = {}) {
    super('unavailable', message, details);
  }
}

/** A transport fault on a provider that is there: timeout, 429, 5xx, a cut or malformed stream. */
export class ProviderError extends ProviderFailure {
  constructor(message: string, details: { provider?: string; status?: number; retryAfterMs?: number } = {}) {
    super('provider-error', message, details);
  }
}

/** The user stopped the call through its AbortSignal. */
export class ProviderStopped extends ProviderFailure {
  constructor(message = 'stopped by the user', details: { provider?: string } = {}) {
    super('stopped', message, details);
  }
}

export function isProviderFailure(error: unknown): error is ProviderFailure {
  return error instanceof ProviderFailure;
}
