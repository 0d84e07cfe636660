/**
 * Getting Started as a user meets it, with Rung installed from its .vsix: the walkthrough package.json
 * contributes, opened from the palette, its pages shown from the package, its first step ticked by itself
 * once Rung finds an Ollama the user started after the window opened, and its last step's button opening
 * the ledger view.
 *
 * @remarks
 * The walkthrough is opened before Ollama starts, as it is for a user who just installed Rung: VS Code
 * ticks a step on a context key (`rung.hasPanel`) only when the key changes after the walkthrough was
 * registered, not when it was already set (1.139's gettingStartedService).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fixture, json, vacantAddress, WireServer, type SeenRequest } from '../unit/support/wireServer';
import type { E2eCheck } from './workbench';
import { scaled } from '../timeScale';

/** How long the window has to open Rung's session and the walkthrough. */
const TIMEOUT_MS = scaled(120_000);
const TITLE = 'Get Started with Rung';
const STEPS = ['Start Ollama, or set a provider key', 'Pick Rung Auto', 'Open the ledger view'];

/** An Ollama holding one chat model, answering as a real server answered for it (test/fixtures/wire/ollama). */
function ollamaServer(): WireServer {
  return new WireServer()
    .on('GET', '/api/tags', json({ models: [{ name: 'smollm2:1.7b', details: { parameter_size: '1.7B' } }] }))
    .on('POST', '/api/show', (response: ServerResponse, request: SeenRequest) => {
      if ((JSON.parse(request.body) as { model: string }).model !== 'smollm2:1.7b')
        response.writeHead(404).end('{"error":"model not found"}');
      else response.writeHead(200, { 'content-type': 'application/json' }).end(fixture('ollama/show-smollm2-1.7b.json'));
    });
}

/** The walkthrough's step button titled `title`; `done` only once the walkthrough has ticked it. */
function step(page: Page, title: string, done = false) {
  return page
    .locator(`.gettingStartedContainer button.getting-started-step${done ? '[aria-checked="true"]' : ''}`, { hasText: title })
    .first();
}

/**
 * The page the selected step shows beside the steps: package.json's `media.markdown`, rendered in a
 * webview (the only one open until the ledger view is).
 */
function media(page: Page) {
  return page.locator('iframe.webview.ready').first().contentFrame().locator('#active-frame').contentFrame();
}

function gettingStarted(): E2eCheck {
  let address: { url: string; port: number } | undefined;
  return {
    name: 'installed, Welcome: Open Walkthrough opens "Get Started with Rung" with its three steps and their pages; the first ticks itself once Rung finds an Ollama started after the window opened, and the last opens the ledger view',
    installed: true,
    async prepare(folder) {
      address = await vacantAddress();
      mkdirSync(join(folder, '.vscode'), { recursive: true });
      writeFileSync(join(folder, '.vscode', 'settings.json'), `${JSON.stringify({ 'rung.ollamaHost': address.url }, null, 2)}\n`);
    },
    async run(page, workbench) {
      assert.ok(address, 'an address for Ollama was found');
      // Nothing to route to yet: Rung says how to start, which the walkthrough then shows step by step.
      await workbench.waitForNotification('Rung has nothing to route to yet', TIMEOUT_MS);
      await workbench.runCommand('Notifications: Clear All Notifications');
      await workbench.hideSecondarySideBar();
      // The command asks which walkthrough in a second pick, so the palette stays open after it.
      const palette = await workbench.openPalette();
      await palette.fill('>Welcome: Open Walkthrough');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'Welcome: Open Walkthrough...' })
        .first()
        .click({ timeout: TIMEOUT_MS });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: TITLE }).first().click({ timeout: TIMEOUT_MS });
      await page.locator('.gettingStartedContainer', { hasText: TITLE }).first().waitFor({ timeout: TIMEOUT_MS });
      for (const title of STEPS) await step(page, title).waitFor({ timeout: TIMEOUT_MS });
      assert.equal(await step(page, STEPS[0] as string, true).count(), 0, 'the first step was ticked before Rung had anything to route to');

      // The first step is open, and its page comes from the package (media/walkthrough/models.md).
      await media(page).getByText('Something to route to').first().waitFor({ timeout: TIMEOUT_MS });
      await media(page).getByText('ollama pull qwen2.5:3b').first().waitFor({ timeout: TIMEOUT_MS });

      // The user starts Ollama now: Rung finds it on its next look, builds its panel, and the step ticks.
      const ollama = ollamaServer();
      await ollama.start(address.port);
      try {
        await step(page, STEPS[0] as string, true).waitFor({ timeout: TIMEOUT_MS });
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: TIMEOUT_MS });
        await workbench.screenshot('walkthrough-getting-started');

        await step(page, STEPS[2] as string).click();
        await media(page).getByText('The ledger view').first().waitFor({ timeout: TIMEOUT_MS });
        await page.locator('.gettingStartedContainer').getByRole('button', { name: 'Open Ledger' }).click();
        await page.locator('.tabs-container .tab', { hasText: 'Rung Ledger' }).first().waitFor({ timeout: TIMEOUT_MS });
        await page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first().click();
        await step(page, STEPS[2] as string, true).waitFor({ timeout: TIMEOUT_MS });
        assert.equal(await step(page, STEPS[1] as string, true).count(), 0, 'Pick Rung Auto ticked with no chat opened');
        await workbench.screenshot('walkthrough-ledger-step-done');
      } finally {
        await ollama.close();
      }
    },
  };
}

export default [gettingStarted()];
