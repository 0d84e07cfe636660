/**
 * The `vscode-lm` provider kind: the editor's own language models (those another extension
 * contributes, Copilot's, a user's BYOK models) as rungs of a Rung panel.
 *
 * @remarks
 * A panel model on a `vscode-lm` provider names an editor model by `id`, `vendor/id` or `family`.
 * The editor asks the user's consent the first time Rung sends to another extension's model; a
 * refusal is the provider being unavailable (skip, grade nobody), not a failed answer. Rung's own
 * models (vendor `rung`) are never chosen: routing a call to "Rung Auto" from inside Rung would loop.
 */
import * as vscode from 'vscode';
import type { ChatMessage, ChatOptions, ModelFacts, ProviderAdapter, StreamPart, ToolSpec } from '../../core/providers/provider';
import { ProviderError, ProviderStopped, ProviderUnavailable } from '../../core/providers/provider';
import type { ProviderFactory } from '../../core/session/types';
import { RUNG_VENDOR } from '../chat/modelIds';

/** The factory the session is given for `kind: vscode-lm`. */
export function editorModelsFactory(): ProviderFactory {
  return ({ name }) => {
    const adapter = new EditorModelsAdapter(name);
    return {
      adapter,
      probe: async () => {
        try {
          const facts = await adapter.facts();
          return facts.length
            ? { ok: true, models: facts }
            : { ok: false, reason: `${name}: the editor offers no language model besides Rung's own` };
        } catch (error) {
          return { ok: false, reason: `${name}: ${error instanceof Error ? error.message : String(error)}` };
        }
      },
    };
  };
}

/** Whether an editor model answers to a panel slug, and is not one of Rung's own. */
export function matchesSlug(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id' | 'family'>, slug: string): boolean {
  if (model.vendor === RUNG_VENDOR) return false;
  return model.id === slug || `${model.vendor}/${model.id}` === slug || model.family === slug;
}

export class EditorModelsAdapter implements ProviderAdapter {
  constructor(readonly name: string) {}

  /** The editor's models, Rung's own left out. */
  private async models(): Promise<vscode.LanguageModelChat[]> {
    return (await vscode.lm.selectChatModels()).filter((model) => model.vendor !== RUNG_VENDOR);
  }

  async available(): Promise<boolean> {
    try {
      return (await this.models()).length > 0;
    } catch {
      return false;
    }
  }

  /** What the editor says about its models, as facts for the ranking (context windows). */
  async facts(): Promise<ModelFacts[]> {
    return (await this.models()).map((model) => ({ slug: `${model.vendor}/${model.id}`, context: model.maxInputTokens }));
  }

  async *chat(model: string, messages: ChatMessage[], tools: ToolSpec[], options: ChatOptions): AsyncIterable<StreamPart> {
    const chosen = (await this.models()).find((candidate) => matchesSlug(candidate, model));
    if (!chosen)
      throw new ProviderUnavailable(
        `${this.name}: the editor has no language model "${model}" (Rung's own models are never used as rungs)`,
        { provider: this.name },
      );
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancellation.cancel();
    options.signal?.addEventListener('abort', onAbort);
    try {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await chosen.sendRequest(
          toEditorMessages(messages),
          {
            justification: 'Rung routes this call to the model your panel lists on this rung.',
            ...(tools.length
              ? { tools: tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', inputSchema: tool.parameters })) }
              : {}),
            ...(options.temperature !== undefined || options.maxOutputTokens !== undefined
              ? {
                  modelOptions: {
                    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
                    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
                  },
                }
              : {}),
          },
          cancellation.token,
        );
      } catch (error) {
        throw asFailure(error, this.name, options.signal);
      }
      let sawToolCall = false;
      try {
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            if (part.value) yield { type: 'text-delta', text: part.value };
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            sawToolCall = true;
            yield { type: 'tool-call', call: { id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
          }
        }
      } catch (error) {
        throw asFailure(error, this.name, options.signal);
      }
      // The editor reports neither usage nor cost: the tokens stay unknown rather than guessed.
      yield {
        type: 'finish',
        finishReason: sawToolCall ? 'tool-calls' : 'stop',
        usage: { inputTokens: null, outputTokens: null },
        resolvedModel: `${chosen.vendor}/${chosen.id}`,
      };
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
  }
}

/**
 * Core messages as the editor's: a system message becomes a user message (the stable API has no
 * system role), tool results go back as tool result parts.
 */
export function toEditorMessages(messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'system':
      case 'user':
        return vscode.LanguageModelChatMessage.User(message.content);
      case 'assistant': {
        const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
        if (message.content) parts.push(new vscode.LanguageModelTextPart(message.content));
        for (const call of message.toolCalls ?? [])
          parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseArguments(call.arguments)));
        return vscode.LanguageModelChatMessage.Assistant(parts);
      }
      case 'tool':
        return vscode.LanguageModelChatMessage.User([
          new vscode.LanguageModelToolResultPart(message.toolCallId ?? '', [new vscode.LanguageModelTextPart(message.content)]),
        ]);
    }
  });
}

function parseArguments(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : { value };
  } catch {
    return { text };
  }
}

/** The editor's errors as the cascade's failures: a refusal of consent or a missing model skips the rung. */
function asFailure(error: unknown, provider: string, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return new ProviderStopped(undefined, { provider });
  if (error instanceof vscode.LanguageModelError) {
    const code = error.code;
    if (
      code === vscode.LanguageModelError.NoPermissions().code ||
      code === vscode.LanguageModelError.NotFound().code ||
      code === vscode.LanguageModelError.Blocked().code
    ) {
      return new ProviderUnavailable(`${provider}: ${error.message} (${code})`, { provider });
    }
    return new ProviderError(`${provider}: ${error.message} (${code})`, { provider });
  }
  return new ProviderError(`${provider}: ${error instanceof Error ? error.message : String(error)}`, { provider });
}
