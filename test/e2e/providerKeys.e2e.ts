/**
 * Set Provider Key as a user meets it: the providers the panel's models use come first, each naming
 * those models, before the built-in ones the panel never calls.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import type { E2eCheck } from './workbench';

const TIMEOUT_MS = 120_000;

function panelProvidersFirst(): E2eCheck {
  let providers: FakeProviders | undefined;
  return {
    name: "Set Provider Key lists the panel's own provider first, saying which model uses it, then openrouter and openai",
    async prepare(folder) {
      providers = await startFakeProviders();
      mkdirSync(join(folder, '.rung'), { recursive: true });
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(fakePanel(providers), null, 2)}\n`);
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: TIMEOUT_MS });
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input');
        await input.fill('>Rung: Set Provider Key');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Rung: Set Provider Key' }).first().waitFor();
        await page.keyboard.press('Enter');
        await page
          .locator('.quick-input-widget .quick-input-title', { hasText: 'Rung: Set Provider Key' })
          .waitFor({ timeout: TIMEOUT_MS });
        const rows = page.locator('.quick-input-list .monaco-list-row');
        await rows.first().waitFor();
        const labels = await rows.evaluateAll((elements) =>
          elements.map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()),
        );
        assert.ok(
          labels[0]?.startsWith('cloud') && labels[0].includes(`used by ${CLOUD_MODEL}`),
          `the panel's provider comes first: ${JSON.stringify(labels)}`,
        );
        assert.ok(
          labels.slice(1).some((label) => label.startsWith('openrouter')),
          JSON.stringify(labels),
        );
        await workbench.screenshot('provider-key-order');
        await page.keyboard.press('Escape');
      } finally {
        await providers.close();
      }
    },
  };
}

const checks: E2eCheck[] = [panelProvidersFirst()];
export default checks;
