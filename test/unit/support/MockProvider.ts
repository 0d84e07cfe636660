import type { ChatMessage, ChatOptions, ProviderAdapter, StreamPart, ToolCall, ToolSpec } from '../../../src/core/providers/provider';

/** One scripted answer: text, tool calls, or both. */
export type MockAnswer = string | { text?: string; toolCalls?: ToolCall[] };

/** What the provider was asked, per call. */
export interface MockRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  options: ChatOptions;
}

/**
 * A provider that answers from a script per model: a queue of answers, the last one repeated, each
 * streamed as the adapters stream (text deltas, then tool calls, then a finish), and a log of every
 * request it was sent.
 */
export class MockProvider implements ProviderAdapter {
  readonly requests: MockRequest[] = [];
  private readonly script = new Map<string, MockAnswer[]>();

  constructor(readonly name: string) {}

  /** Scripts `model`; the last answer repeats once the queue runs out. */
  on(model: string, ...answers: MockAnswer[]): this {
    this.script.set(model, answers);
    return this;
  }

  /** The models asked, in order. */
  models(): string[] {
    return this.requests.map((request) => request.model);
  }

  async available(): Promise<boolean> {
    return true;
  }

  async *chat(model: string, messages: ChatMessage[], tools: ToolSpec[], options: ChatOptions): AsyncIterable<StreamPart> {
    this.requests.push({ model, messages, tools, options });
    const queue = this.script.get(model);
    if (!queue || queue.length === 0) throw new Error(`MockProvider: no answer scripted for ${model}`);
    const scripted = (queue.length > 1 ? queue.shift() : queue[0]) as MockAnswer;
    const answer = typeof scripted === 'string' ? { text: scripted } : scripted;
    const text = answer.text ?? '';
    // Two deltas, as a stream arrives in pieces.
    if (text) {
      yield { type: 'text-delta', text: text.slice(0, Math.ceil(text.length / 2)) };
      yield { type: 'text-delta', text: text.slice(Math.ceil(text.length / 2)) };
    }
    for (const call of answer.toolCalls ?? []) yield { type: 'tool-call', call };
    const finishReason = (answer.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop';
    yield { type: 'finish', finishReason, usage: { inputTokens: 20, outputTokens: 10 }, resolvedModel: model };
  }
}
