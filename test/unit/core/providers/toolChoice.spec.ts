import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import { chooseTools, CORE_TOOLS, FEW_TOOLS, undeclaredToolCalls } from '../../../../src/core/providers/toolChoice';
import { toolsSent } from '../../../../src/core/providers/tokens';

/** The 39 tools Agent mode sent with one request (test/fixtures/agent/SOURCES.md). */
const AGENT_TOOLS = JSON.parse(
  readFileSync(join(__dirname, '../../../fixtures/agent/vscode-1.139-agent-mode-tools.json'), 'utf8'),
) as ToolSpec[];

/** An Agent mode request as the chat extension words it: context and reminders around the user's request. */
function agentTurn(request: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You are an expert AI programming assistant. Use read_file, github_repo, install_extension and run_notebook_cell when they help.',
    },
    {
      role: 'user',
      content: `<context>The workspace has notebooks and a GitHub remote.</context>\n<reminderInstructions>Use replace_string_in_file to edit; install_extension to add an extension.</reminderInstructions>\n<userRequest>\n${request}\n</userRequest>`,
    },
  ];
}

const names = (tools: readonly ToolSpec[]): string[] => tools.map((tool) => tool.name);

describe('chooseTools', () => {
  it('sends every tool offered under "all", the default', () => {
    const choice = chooseTools({ messages: agentTurn('What does toolChoice.ts do?'), tools: AGENT_TOOLS, mode: 'all' });
    expect(choice.sent).toEqual(AGENT_TOOLS);
    expect(choice.dropped).toEqual([]);
  });

  it('keeps the core file tools and drops the families a question does not name under "relevant"', () => {
    const choice = chooseTools({ messages: agentTurn('What does toolChoice.ts do?'), tools: AGENT_TOOLS, mode: 'relevant' });
    expect(names(choice.sent)).toEqual(AGENT_TOOLS.map((tool) => tool.name).filter((name) => CORE_TOOLS.has(name)));
    expect(choice.dropped).toEqual(
      expect.arrayContaining(['github_repo', 'run_notebook_cell', 'install_extension', 'get_vscode_api', 'testFailure']),
    );
    expect(choice.sent.length + choice.dropped.length).toBe(AGENT_TOOLS.length);
  });

  it('keeps a tool a word of the request names, and reads the words from the user request alone', () => {
    // The context and the reminders name notebooks, GitHub and extensions; the request names tests and errors.
    const choice = chooseTools({ messages: agentTurn('Fix the failing tests'), tools: AGENT_TOOLS, mode: 'relevant' });
    expect(names(choice.sent)).toEqual(expect.arrayContaining(['testFailure', 'read_file']));
    expect(choice.dropped).toEqual(expect.arrayContaining(['run_notebook_cell', 'github_repo', 'install_extension']));
  });

  it('keeps the tool that fetches a web page when the request holds a web address, though its words name no tool', () => {
    const tools: ToolSpec[] = [
      ...AGENT_TOOLS,
      { name: 'fetch_webpage', description: 'Fetches the main content from a web page.', parameters: {} },
    ];
    const linked = chooseTools({
      messages: agentTurn('get content from https://example.org/docs about async/await'),
      tools,
      mode: 'relevant',
    });
    expect(names(linked.sent)).toContain('fetch_webpage');
    const plain = chooseTools({ messages: agentTurn('explain async/await'), tools, mode: 'relevant' });
    expect(plain.dropped).toContain('fetch_webpage');
  });

  it('keeps every tool an earlier turn called, so a tool result never names an undeclared tool', () => {
    const messages: ChatMessage[] = [
      ...agentTurn('What does toolChoice.ts do?'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call-1', name: 'github_repo', arguments: '{"repo":"microsoft/vscode","query":"tools"}' }],
      },
      { role: 'tool', toolCallId: 'call-1', content: 'src/vs/workbench/contrib/chat' },
    ];
    const choice = chooseTools({ messages, tools: AGENT_TOOLS, mode: 'relevant' });
    expect(names(choice.sent)).toContain('github_repo');
    expect(choice.dropped).not.toContain('github_repo');
  });

  it('sends the same tools on every round of one agent turn', () => {
    const first = chooseTools({ messages: agentTurn('Explain the panel file'), tools: AGENT_TOOLS, mode: 'relevant' });
    const later = chooseTools({
      messages: [
        ...agentTurn('Explain the panel file'),
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: '{}' },
      ],
      tools: AGENT_TOOLS,
      mode: 'relevant',
    });
    expect(names(later.sent)).toEqual(names(first.sent));
  });

  it('sends every tool when the caller requires a tool call, or offers few tools', () => {
    expect(
      chooseTools({ messages: agentTurn('What does this do?'), tools: AGENT_TOOLS, mode: 'relevant', required: true }).dropped,
    ).toEqual([]);
    const inline = AGENT_TOOLS.filter((tool) =>
      ['replace_string_in_file', 'insert_edit_into_file', 'read_file', 'github_repo'].includes(tool.name),
    );
    expect(inline.length).toBeLessThanOrEqual(FEW_TOOLS);
    expect(chooseTools({ messages: agentTurn('What does this do?'), tools: inline, mode: 'relevant' }).sent).toEqual(inline);
  });

  it('about halves the tool schemas of a question in Agent mode under "relevant"', () => {
    const messages = agentTurn('What does toolChoice.ts do?');
    const all = toolsSent(messages, AGENT_TOOLS);
    const choice = chooseTools({ messages, tools: AGENT_TOOLS, mode: 'relevant' });
    const trimmed = toolsSent(messages, choice.sent, choice.dropped);
    expect(all?.sent).toBe(39);
    expect(trimmed?.sent).toBeLessThan(25);
    expect(trimmed?.tokens).toBeLessThan((all?.tokens ?? 0) * 0.6);
  });
});

describe('undeclaredToolCalls', () => {
  it('names the calls to a tool that was not sent', () => {
    const sent = AGENT_TOOLS.filter((tool) => tool.name === 'read_file');
    const calls = [
      { id: 'a', name: 'read_file', arguments: '{}' },
      { id: 'b', name: 'github_repo', arguments: '{}' },
    ];
    expect(undeclaredToolCalls(calls, sent)).toEqual([{ id: 'b', name: 'github_repo', arguments: '{}' }]);
    expect(undeclaredToolCalls(calls, [])).toEqual(calls);
  });
});
