import { describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import { FIRST_RUN_MAX_MODELS, panelFromOllamaModels } from '../../../../src/extension/settings/firstRunPanel';

describe('panelFromOllamaModels', () => {
  it('orders the chat models by size, gives the smallest the base role and the largest the top role, and lets tool calls reach them', () => {
    const panel = panelFromOllamaModels([
      { slug: 'qwen3:14b', parameterBillions: 14.8 },
      { slug: 'nomic-embed-text:latest', parameterBillions: 0.137 },
      { slug: 'qwen2.5:3b', parameterBillions: 3.1 },
      { slug: 'qwen3.6:27b', parameterBillions: 27.4 },
    ]);
    expect(panel?.models).toEqual([
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', tools: true },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
      { slug: 'qwen3.6:27b', provider: 'ollama', role: 'top', tools: true },
    ]);
    expect(() => parsePanel(panel, 'first run')).not.toThrow();
  });

  it('builds no panel from an Ollama that holds only embedding models', () => {
    expect(panelFromOllamaModels([{ slug: 'nomic-embed-text:latest' }, { slug: 'mxbai-embed-large' }])).toBeUndefined();
    expect(panelFromOllamaModels([])).toBeUndefined();
  });

  it('keeps the smallest and the largest of many models', () => {
    const many = Array.from({ length: 9 }, (_, index) => ({ slug: `m${index}`, parameterBillions: index + 1 }));
    const slugs = panelFromOllamaModels(many)?.models.map((model) => model.slug) ?? [];
    expect(slugs).toHaveLength(FIRST_RUN_MAX_MODELS);
    expect(slugs[0]).toBe('m0');
    expect(slugs.at(-1)).toBe('m8');
  });

  it('makes a single model both the only rung and the base', () => {
    expect(panelFromOllamaModels([{ slug: 'llama3.2:3b', parameterBillions: 3.2, context: 8192 }])?.models).toEqual([{ slug: 'llama3.2:3b', provider: 'ollama', role: 'base', tools: true, context: 8192 }]);
  });
});
