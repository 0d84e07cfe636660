import { describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import { providerKeyChoices } from '../../../../src/extension/commands/providerChoices';

describe('the providers Set Provider Key offers', () => {
  it("lists the panel's own keyed providers first, saying which models use each, then the built-in ones", () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'tiny-coder:1b', provider: 'ollama' },
          { slug: 'test/strong-model', provider: 'cloud', price: { input: 1, output: 2 } },
        ],
        providers: {
          ollama: { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' },
          cloud: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', key: 'required' },
        },
      },
      'test',
    );
    expect(providerKeyChoices(panel)).toEqual([
      { name: 'cloud', description: 'used by test/strong-model' },
      { name: 'openrouter', description: 'no model on the panel uses it' },
      { name: 'openai', description: 'no model on the panel uses it' },
    ]);
  });

  it('puts a built-in provider the panel uses first, and offers the built-in ones with no panel', () => {
    const panel = parsePanel({ models: [{ slug: 'openai/gpt-4o-mini', provider: 'openrouter' }] }, 'test');
    expect(providerKeyChoices(panel).map((choice) => choice.name)).toEqual(['openrouter', 'openai']);
    expect(providerKeyChoices(panel)[0]?.description).toBe('used by openai/gpt-4o-mini');
    expect(providerKeyChoices(undefined).map((choice) => choice.name)).toEqual(['openrouter', 'openai']);
  });
});
