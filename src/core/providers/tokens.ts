/**
 * How many tokens a request needs in context: an estimate, one token per four characters.
 *
 * @remarks
 * Rung has no tokenizer for every model on a panel, and a request is ranked before any model sees it,
 * so the count is characters / 4 (rounded up) over everything the model is sent: each message's text,
 * its tool calls' names and arguments, and the tool schemas as JSON. Four characters a token is the
 * usual figure for English prose and code with BPE tokenizers; it undercounts dense non-Latin text,
 * which is why a model is only pruned when the estimate is over its context, never kept "just".
 */
import type { ChatMessage, ToolSpec } from '../providers/provider';

/** Characters per token in the estimate. */
export const CHARS_PER_TOKEN = 4;

/** The estimated tokens `messages` and `tools` take in a model's context. */
export function estimateTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.role.length + message.content.length;
    for (const call of message.toolCalls ?? []) characters += call.name.length + call.arguments.length;
  }
  if (tools.length > 0) characters += JSON.stringify(tools).length;
  return Math.ceil(characters / CHARS_PER_TOKEN);
}
