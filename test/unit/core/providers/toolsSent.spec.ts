import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import {
  CHARS_PER_TOKEN,
  estimateTokens,
  roundedTokens,
  toolsDominate,
  toolsSent,
  toolsShareText,
} from '../../../../src/core/providers/tokens';

const tool = (name: string, description: string): ToolSpec => ({
  name,
  description,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
});

describe('toolsSent', () => {
  it('counts the schemas as JSON at four characters a token, within the whole input the estimate counts', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(396) }]; // 4 + 396 characters: 100 tokens
    const tools = [tool('read_file', 'Reads a file.'), tool('list_dir', 'Lists a folder.')];
    const json = JSON.stringify(tools).length;
    const share = toolsSent(messages, tools, ['fetch_webpage']);
    expect(share).toEqual({
      sent: 2,
      tokens: Math.ceil(json / CHARS_PER_TOKEN),
      input: Math.ceil((400 + json) / CHARS_PER_TOKEN),
      dropped: ['fetch_webpage'],
    });
    expect(share?.input).toBe(estimateTokens(messages, tools));
  });

  it('says nothing of a request that offered no tool, and counts one whose tools were all dropped', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'hello' }];
    expect(toolsSent(messages, [])).toBeUndefined();
    expect(toolsSent(messages, [], ['github_repo'])).toEqual({
      sent: 0,
      tokens: 0,
      input: estimateTokens(messages),
      dropped: ['github_repo'],
    });
  });
});

describe('the tools share in words', () => {
  it('rounds token counts as a person reads them', () => {
    expect(roundedTokens(950)).toBe('950');
    expect(roundedTokens(7_374)).toBe('7.4k');
    expect(roundedTokens(3_000)).toBe('3k');
    expect(roundedTokens(14_420)).toBe('14k');
  });

  it('says how many tools took how much of the input', () => {
    expect(toolsShareText({ sent: 39, tokens: 14_420, input: 18_130, dropped: [] })).toBe('39 tools ≈ 14k of 18k input tokens');
    expect(toolsShareText({ sent: 1, tokens: 120, input: 900, dropped: [] })).toBe('1 tool ≈ 120 of 900 input tokens');
  });

  it('calls the tools dominant from half the input up', () => {
    expect(toolsDominate({ sent: 39, tokens: 9_000, input: 18_000, dropped: [] })).toBe(true);
    expect(toolsDominate({ sent: 5, tokens: 8_999, input: 18_000, dropped: [] })).toBe(false);
    expect(toolsDominate({ sent: 0, tokens: 0, input: 0, dropped: ['a'] })).toBe(false);
  });
});
