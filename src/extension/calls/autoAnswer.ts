/**
 * What Rung Auto reads from a request the editor sends it, before the session sees it: whether the
 * request is the editor's inline chat asking for an edit, whether the answer should end with Rung's
 * short line, and the conversation without the lines Rung added to earlier answers.
 *
 * @remarks
 * A language model provider is told almost nothing about who asks: VS Code 1.139 gives
 * `requestInitiator`, the asking extension's id, which is the built-in chat extension for the Chat
 * view and inline chat alike. So inline chat is known by what it sends. Its requests (the chat
 * extension's InlineChat2Prompt) offer only file-editing tools — `replace_string_in_file`,
 * `multi_replace_string_in_file`, `insert_edit_into_file`, `apply_patch`, with `read_file` for a
 * large file — where Agent mode offers some forty tools and Ask mode read-only ones; and its system
 * message says it is "used for quick, inline code changes" and to "focus on replying with tool calls".
 * A text answer there applies nothing: inline chat shows the text and the file stays as it was, which
 * is what the user met when a small model answered "Make this async" in prose.
 *
 * No vscode here: the provider hands over plain data, so each rule is unit-tested.
 */
import type { ChatMessage, ToolSpec } from '../../core/providers/provider';
import { withoutFooter } from './answerLine';
import { withoutAskingLine } from './askingLine';

/** The tools inline chat offers, and the one it adds for a large file. */
const INLINE_EDIT_TOOLS = new Set(['replace_string_in_file', 'multi_replace_string_in_file', 'insert_edit_into_file', 'apply_patch']);
const INLINE_READ_TOOL = 'read_file';

/** The editor's chat extension (the Chat view and inline chat), as `requestInitiator` names it. */
const EDITOR_CHAT = 'github.copilot-chat';

/**
 * A question about the code rather than a change to it ("explain this function", "what does this
 * return?"): inline chat answers those in text, and failing them for it would grade every rung down.
 * "Can you …", "Could you …" and "Would you …" are left out: in inline chat they ask, politely, for a change.
 */
const QUESTION =
  /^\s*(?:what|what's|why|how|when|where|which|who|is|are|does|do|did|explain|describe|summari[sz]e|tell\s+me|walk\s+me\s+through)\b/i;

/** The user's words in an inline chat request: inside `<prompt>` when the prompt has one, else the last user turn. */
function promptWords(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const tagged = /<prompt>([\s\S]*?)<\/prompt>/i.exec(last);
  return (tagged?.[1] ?? last).trim();
}

/**
 * Whether the request is inline chat asking for a change, so the answer must be an edit tool call:
 * `'required'`, which the session turns into a check that fails a text answer and climbs; undefined
 * leaves it to the session's reading of the words.
 */
export function inlineChatToolCall(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): 'required' | undefined {
  if (!tools.some((tool) => INLINE_EDIT_TOOLS.has(tool.name))) return undefined;
  if (!tools.every((tool) => INLINE_EDIT_TOOLS.has(tool.name) || tool.name === INLINE_READ_TOOL)) return undefined;
  return QUESTION.test(promptWords(messages)) ? undefined : 'required';
}

/**
 * Whether a Rung Auto answer ends with Rung's short line: for the editor's chat (the Chat view, inline
 * chat), not for another extension calling `vscode.lm` (a commit message, a JSON plan), whose text must
 * stay exactly the model's. A caller that asks for a checked answer in `modelOptions.rung` is one such.
 */
export function saysClosingLine(request: { initiator: string | undefined; checkedByCaller: boolean }): boolean {
  if (request.checkedByCaller) return false;
  return request.initiator === undefined || request.initiator === 'core' || request.initiator.toLowerCase() === EDITOR_CHAT;
}

/** The conversation as the editor sent it, with Rung's short line and asking line taken off every earlier answer. */
export function withoutClosingLines(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'assistant' && message.content ? { ...message, content: withoutAskingLine(withoutFooter(message.content)) } : message,
  );
}
