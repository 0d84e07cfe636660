/** The panel the CLI specs route through: a local Ollama model, then a cloud one behind a key. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `panel.json` into `folder`: qwen2.5:3b on the Ollama at `ollamaUrl`, then gpt-4o-mini on the OpenRouter-shaped server at `cloudUrl`. */
export function writeTwoRungPanel(folder: string, ollamaUrl: string, cloudUrl: string): void {
  writeFileSync(
    join(folder, 'panel.json'),
    JSON.stringify({
      models: [
        { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
      ],
      routing: { explore: 0 },
      providers: {
        ollama: { kind: 'ollama', baseUrl: ollamaUrl },
        openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
      },
    }),
  );
}
