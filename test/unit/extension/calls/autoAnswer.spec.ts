import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import { inlineChatToolCall, saysClosingLine, withoutClosingLines } from '../../../../src/extension/calls/autoAnswer';

const tool = (name: string): ToolSpec => ({ name, description: name, parameters: { type: 'object', properties: {} } });

/** An inline chat request as VS Code 1.139's chat extension sends it: instructions, the file, then the prompt in tags. */
function inlineChat(prompt: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        '<instructions>You are an AI coding assistant that is used for quick, inline code changes. The filepath is `/w/greeting.ts`.</instructions>',
    },
    {
      role: 'user',
      content:
        'This is the file you are editing:\n<file>\n```typescript\nexport function greet(name: string) {\n  return `Hello, ${name}`;\n}\n```\n</file>',
    },
    { role: 'user', content: `<prompt>\n${prompt}\n</prompt>` },
  ];
}

describe('Rung Auto reading an inline chat request', () => {
  it('asks for an edit tool call when inline chat asks for a change with its edit tools', () => {
    expect(inlineChatToolCall(inlineChat('make this function async'), [tool('replace_string_in_file')])).toBe('required');
    expect(inlineChatToolCall(inlineChat('add a doc comment'), [tool('insert_edit_into_file')])).toBe('required');
    expect(inlineChatToolCall(inlineChat('Can you make it return a promise?'), [tool('replace_string_in_file')])).toBe('required');
    // A large file brings read_file along: still inline chat.
    expect(
      inlineChatToolCall(inlineChat('rename name to who'), [
        tool('replace_string_in_file'),
        tool('multi_replace_string_in_file'),
        tool('read_file'),
      ]),
    ).toBe('required');
  });

  it('leaves a question asked in inline chat to the words, so an explanation in text can stand', () => {
    expect(inlineChatToolCall(inlineChat('explain this function in one sentence'), [tool('replace_string_in_file')])).toBeUndefined();
    expect(inlineChatToolCall(inlineChat('What does greet return?'), [tool('replace_string_in_file')])).toBeUndefined();
  });

  it('does not take the Chat view for inline chat: Agent mode offers other tools beside the edit ones, Ask mode none of them', () => {
    const agent = [tool('replace_string_in_file'), tool('run_in_terminal'), tool('read_file'), tool('copilot_searchCodebase')];
    expect(inlineChatToolCall([{ role: 'user', content: 'make greet async' }], agent)).toBeUndefined();
    expect(
      inlineChatToolCall([{ role: 'user', content: 'make greet async' }], [tool('read_file'), tool('copilot_searchCodebase')]),
    ).toBeUndefined();
    expect(inlineChatToolCall([{ role: 'user', content: 'make greet async' }], [])).toBeUndefined();
  });
});

describe("Rung Auto's closing line", () => {
  it("ends answers to the editor's chat, and not those another extension or a checked caller asked for", () => {
    expect(saysClosingLine({ initiator: 'GitHub.copilot-chat', checkedByCaller: false })).toBe(true);
    expect(saysClosingLine({ initiator: 'github.copilot-chat', checkedByCaller: false })).toBe(true);
    // An editor too old to say who asks: the Chat view is by far the likeliest.
    expect(saysClosingLine({ initiator: undefined, checkedByCaller: false })).toBe(true);
    expect(saysClosingLine({ initiator: 'someone.commit-writer', checkedByCaller: false })).toBe(false);
    expect(saysClosingLine({ initiator: 'github.copilot-chat', checkedByCaller: true })).toBe(false);
  });

  it('is taken off earlier answers before the conversation goes to a model, and only off answers', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What is six times seven?' },
      {
        role: 'assistant',
        content: 'Six times seven is 42.\n\nRung · tiny-coder:1b · rung 1 of 2 · unchecked · $0 · Retry asks a stronger model',
      },
      { role: 'user', content: 'Rung · tiny-coder:1b · rung 1 of 2 · unchecked · $0' },
    ];
    expect(withoutClosingLines(messages).map((message) => message.content)).toEqual([
      'What is six times seven?',
      'Six times seven is 42.',
      'Rung · tiny-coder:1b · rung 1 of 2 · unchecked · $0',
    ]);
  });
});
