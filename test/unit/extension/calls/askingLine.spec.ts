import { describe, expect, it } from 'vitest';
import { askingLine, withoutAskingLine } from '../../../../src/extension/calls/askingLine';

describe('the line an answer opens with', () => {
  it('names the model, where it runs, its price and what checks it', () => {
    expect(askingLine({ model: 'qwen2.5-coder:1.5b', local: true, price: { input: 0, output: 0 }, checks: ['JSON'] })).toBe(
      'Asking qwen2.5-coder:1.5b (local, free) — checked by: JSON',
    );
    expect(
      askingLine({ model: 'openai/gpt-4o', local: false, price: { input: 2.5, output: 10 }, checks: ['JSON', 'tool call arguments'] }),
    ).toBe('Asking openai/gpt-4o (cloud, $2.5 in / $10 out per M tokens) — checked by: JSON, tool call arguments');
  });

  it('says when no check applies, and when nobody knows the price', () => {
    expect(askingLine({ model: 'acme/large', local: false, price: null, checks: [] })).toBe(
      'Asking acme/large (cloud, price unknown) — no check applies',
    );
  });

  it('comes off an earlier answer the editor sends back, and nothing else does', () => {
    const line = askingLine({ model: 'tiny-coder:1b', local: true, price: { input: 0, output: 0 }, checks: ['JSON'] });
    expect(withoutAskingLine(`${line}\n\n{"name": "Ada"}`)).toBe('{"name": "Ada"}');
    expect(withoutAskingLine('Asking around, nobody knew.')).toBe('Asking around, nobody knew.');
  });
});
