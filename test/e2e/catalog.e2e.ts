/**
 * A local llama.cpp build without `/v1/models`, keyed, so Rung asks it for a catalog it cannot give:
 * a question through Rung Auto is still answered by the panel's model, whose price the panel declares.
 * The reproduction of that case in a real window, with the key set through Rung: Set Provider Key.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureBytes, serveBytes, WireServer } from '../unit/support/wireServer';
import { setProviderKey, type E2eCheck } from './workbench';
import { scaled } from '../timeScale';

/** The first request also opens the session, and the Chat view's own agent waits before it asks Rung (rung.e2e.ts). */
const TIMEOUT_MS = scaled(120_000);

function catalogless(): E2eCheck {
  let server: WireServer | undefined;
  return {
    name: 'with a keyed local llama.cpp server that has no model list, a Rung Auto question is answered by the panel model whose price the panel declares',
    async prepare(folder) {
      server = new WireServer()
        .on(
          'GET',
          '/v1/models',
          (response: ServerResponse) => void response.writeHead(404, { 'content-type': 'text/plain' }).end('File Not Found'),
        )
        .on('POST', '/v1/chat/completions', serveBytes(fixtureBytes('openai/chat-normal.sse'), { every: 64 }));
      const url = await server.start();
      mkdirSync(join(folder, '.rung'), { recursive: true });
      const panel = {
        models: [{ slug: 'local-model', provider: 'llamacpp', price: { input: 0.1, output: 0.2 }, context: 32768, tools: true }],
        routing: { explore: 0 },
        providers: { llamacpp: { kind: 'openai-compatible', baseUrl: `${url}/v1`, key: 'required' } },
      };
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
    },
    async run(page, workbench) {
      assert.ok(server, 'the llama.cpp stand-in started');
      try {
        // Rung is active once its status shows: with no key yet, nothing on the panel is reachable.
        await page.locator('.statusbar-item', { hasText: 'Rung: no model reachable' }).first().waitFor({ timeout: TIMEOUT_MS });
        // As rung.e2e.ts opens a command with a quick input of its own: the palette lists it first (Rung is active).
        const listed = await workbench.paletteRows('Rung: Set Provider Key');
        assert.ok(
          listed.some((row) => row.includes('Rung: Set Provider Key')),
          `the palette lists Rung: Set Provider Key: ${JSON.stringify(listed)}`,
        );
        await setProviderKey(page, 'llamacpp', 'sk-local-0123456789abcdef', TIMEOUT_MS);
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: TIMEOUT_MS });
        await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: TIMEOUT_MS });
        await workbench.sendChat('Give me Paris as JSON');
        await page
          .locator('.interactive-item-container.interactive-response', { hasText: 'Paris' })
          .first()
          .waitFor({ timeout: TIMEOUT_MS });
        const asked = server.requests.map((request) => `${request.method} ${request.path}`);
        assert.ok(asked.includes('GET /v1/models'), `Rung asked for the catalog: ${JSON.stringify(asked)}`);
        assert.ok(asked.includes('POST /v1/chat/completions'), `the question reached the model: ${JSON.stringify(asked)}`);
        const rows = readFileSync(join(workbench.folder, '.rung', 'decisions.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { model: string; cost: number | null });
        assert.deepEqual(
          rows.map((row) => row.model),
          ['local-model'],
          "the answer is recorded as the panel model's",
        );
        await workbench.screenshot('catalogless-local-server-answered');
      } finally {
        await server.close();
      }
    },
  };
}

export default [catalogless()];
