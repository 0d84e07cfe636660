/**
 * Which of the tools a request offers are sent to the model: those the request can use
 * (`rung.agentTools: "relevant"`, the default), or all of them when the user asks for that.
 *
 * @remarks
 * Agent mode offers every tool it has, whatever the question: 39 tool schemas, 13,345 of the 16,377
 * tokens (estimated) of its request "What is six times seven?" in VS Code 1.139, so one climb to a paid
 * model cost $0.056 where the same question through `@rung` (no tools) cost $0.005. A provider's API
 * takes any subset of the tools, so the request may carry fewer (that question then keeps 19 tools,
 * 7,048 tokens of schemas). A model without the tool it needed fails the task or answers worse, and a
 * word match cannot know what an agent will need three steps on; so trimming was first the user's
 * choice, until it was measured on recorded Agent mode sessions and the chat extension's own tool-choice
 * tests: it kept every tool the 14 calls there needed (BENCHMARKS.md, "Agent mode's tool schemas"), and
 * became the default. `all` stays for a task that needs a tool no word names. Trimmed, a request keeps:
 * - every tool, when the caller requires a tool call (`toolMode: Required`) or offers few tools
 *   ({@link FEW_TOOLS}: inline chat's edit tools): nothing to gain, or the caller chose;
 * - the tools the chat extension itself files as "Core" ({@link CORE_TOOLS}: reading, searching and
 *   editing files, the terminal, tasks, and the editor's errors): an agent needs them for almost any
 *   task, whatever its words;
 * - a tool a word of the user's request names (`notebook` keeps the notebook tools, `github` the GitHub
 *   search), read from the request alone (inside the chat extension's `<userRequest>` tag), not from the
 *   context and instructions the editor adds around it, which mention tools by name;
 * - the tools that fetch a web page ({@link WEB_TOOL}), when the request holds a web address: "get
 *   content from https://… about async/await" names no tool, and the chat extension's own test of it
 *   expects `fetch_webpage` (BENCHMARKS.md, "Agent mode's tool schemas");
 * - every tool an earlier turn called: a provider rejects a tool result whose tool is not declared.
 * The set depends only on the user's request and the calls so far, so every round of one agent turn
 * sends the same tools (the rounds after the first add only tools already sent) and a provider's cache
 * of the request's start keeps serving.
 */
import type { ChatMessage, ToolCall, ToolSpec } from './provider';

/** Whether a request's tools are only those it can use (`relevant`, the default) or all of them (`all`). */
export type AgentTools = 'all' | 'relevant';

/** What `rung.agentTools` is when the user has not set it. */
export const DEFAULT_AGENT_TOOLS: AgentTools = 'relevant';

export const AGENT_TOOLS: readonly AgentTools[] = ['all', 'relevant'];

/**
 * At most this many tools offered are sent whole: inline chat offers four edit tools and `read_file`,
 * and Ask mode a handful of read-only ones, whose schemas are a few hundred tokens.
 */
export const FEW_TOOLS = 8;

/**
 * The tools the editor's chat extension files as "Core" in its own tool grouping (Copilot Chat 0.67.0,
 * built into VS Code 1.139), by the names a model sees, and `get_errors`, which it files elsewhere but
 * its agent prompt has the model call after every edit to see what the edit broke.
 */
export const CORE_TOOLS: ReadonlySet<string> = new Set([
  'get_errors',
  'semantic_search',
  'grep_search',
  'file_search',
  'read_file',
  'list_dir',
  'view_image',
  'read_project_structure',
  'create_file',
  'create_directory',
  'apply_patch',
  'replace_string_in_file',
  'multi_replace_string_in_file',
  'insert_edit_into_file',
  'edit_files',
  'run_in_terminal',
  'get_terminal_output',
  'send_to_terminal',
  'kill_terminal',
  'manage_todo_list',
  'run_task',
  'get_task_output',
  'runSubagent',
  'search_subagent',
  'explore_subagent',
  'execution_subagent',
  'tool_search',
  'resolve_memory_file_uri',
  'skill',
  'session_store_sql',
]);

/** A tool that fetches a web page, which a request holding a web address needs whatever its words. */
const WEB_TOOL = /fetch|webpage/i;

/** A web address in the user's request. */
const WEB_ADDRESS = /\bhttps?:\/\/\S/i;

/** Words too common to say which tool a request needs. */
const COMMON_WORDS = new Set([
  'the',
  'and',
  'for',
  'get',
  'run',
  'use',
  'new',
  'all',
  'with',
  'from',
  'this',
  'that',
  'what',
  'how',
  'does',
  'copilot',
  'vscode',
]);

/** The tools sent and, by name, those left out. */
export interface ToolChoice {
  sent: ToolSpec[];
  dropped: string[];
}

/**
 * The tools to send for a request offering `tools`: all of them under `all`; under `relevant`, those
 * the rules in this module's remarks keep, in the order offered.
 */
export function chooseTools(input: {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  mode: AgentTools;
  required?: boolean;
}): ToolChoice {
  const { tools } = input;
  if (input.mode === 'all' || input.required === true || tools.length <= FEW_TOOLS) return { sent: [...tools], dropped: [] };
  const called = calledTools(input.messages);
  const request = requestText(input.messages);
  const asked = new Set(wordsOf(request));
  const linked = WEB_ADDRESS.test(request);
  const sent: ToolSpec[] = [];
  const dropped: string[] = [];
  for (const tool of tools) {
    const keep =
      CORE_TOOLS.has(tool.name) ||
      called.has(tool.name) ||
      (linked && WEB_TOOL.test(tool.name)) ||
      wordsOf(tool.name).some((word) => asked.has(word));
    if (keep) sent.push(tool);
    else dropped.push(tool.name);
  }
  return { sent, dropped };
}

/**
 * The tool calls of an answer that name a tool not sent: none may reach the editor, which would run a
 * tool the model was never given (or one the user's choice left out).
 */
export function undeclaredToolCalls(calls: readonly ToolCall[], sent: readonly ToolSpec[]): ToolCall[] {
  const names = new Set(sent.map((tool) => tool.name));
  return calls.filter((call) => !names.has(call.name));
}

/** Tool names the conversation's assistant turns called. */
function calledTools(messages: readonly ChatMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) for (const call of message.toolCalls ?? []) names.add(call.name);
  return names;
}

/**
 * The user's own words in the request: inside `<userRequest>` (Agent mode) or `<prompt>` (inline chat)
 * when the last user turn has the tag, else that whole turn.
 */
function requestText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const tagged = /<userRequest>([\s\S]*?)<\/userRequest>/i.exec(last) ?? /<prompt>([\s\S]*?)<\/prompt>/i.exec(last);
  return tagged?.[1] ?? last;
}

/** Words of a name or a sentence, lower case, a plural's `s` taken off: `get_vscode_api` → vscode, api; `runTests` → tests → test. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3 && !COMMON_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
}
