import { parsePanel, type Panel } from '../../../src/core/panel';

/**
 * Two cloud models on different providers, alpha the cheaper: the chain of the origin document's
 * diversity examples. Exploration is off unless a test turns it on.
 */
export function alphaBetaPanel(extra: Record<string, unknown> = {}): Panel {
  return parsePanel(
    {
      models: [
        { slug: 'alpha', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
        { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
      ],
      routing: { explore: 0 },
      ...extra,
    },
    'test panel',
  );
}
