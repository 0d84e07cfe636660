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

/**
 * What a request's tool schemas take of its input: how many were sent, their estimated tokens, the whole
 * input's, and the tools offered but not sent (`rung.agentTools`), by name.
 *
 * @remarks
 * Recorded on every decision row of a call with tools, because the schemas are the part of an agent's
 * request a user never sees: Agent mode's 39 were 13,345 of the 16,377 tokens of "What is six times seven?".
 */
export interface ToolsSent {
  sent: number;
  /** Estimated tokens of the tool schemas sent, as {@link estimateTokens} counts them. */
  tokens: number;
  /** Estimated tokens of the whole input: messages and tool schemas. */
  input: number;
  dropped: string[];
}

/** What `tools` take of the input with `messages`; undefined when the request offered no tool at all. */
export function toolsSent(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  dropped: readonly string[] = [],
): ToolsSent | undefined {
  if (tools.length === 0 && dropped.length === 0) return undefined;
  const tokens = tools.length > 0 ? Math.ceil(JSON.stringify(tools).length / CHARS_PER_TOKEN) : 0;
  return { sent: tools.length, tokens, input: estimateTokens(messages, tools), dropped: [...dropped] };
}

/** Whether the tool schemas are at least half the input: when the short line under an answer says so. */
export function toolsDominate(tools: ToolsSent): boolean {
  return tools.tokens > 0 && tools.tokens * 2 >= tools.input;
}

/** A token count as a person reads it: `950`, `7.4k`, `14k`. */
export function roundedTokens(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 10_000) return `${(tokens / 1_000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(tokens / 1_000)}k`;
}

/** The tools' share of the input in words: `39 tools ≈ 13k of 16k input tokens`. */
export function toolsShareText(tools: ToolsSent): string {
  return `${tools.sent} tool${tools.sent === 1 ? '' : 's'} ≈ ${roundedTokens(tools.tokens)} of ${roundedTokens(tools.input)} input tokens`;
}
