/**
 * A morning's work with Rung as a new user meets it: the first "hello" with nothing set up, a Retry
 * while the strong model's server is down, a day past its budget, and the model picker's prices.
 *
 * @remarks
 * Each check writes what it needs into its fresh workspace before the window opens, and asserts what a
 * user reads on screen: a plain sentence and no stack, a provider named as unreachable with the local
 * model answering, a budget warning, a price beside each model.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { setProviderKey, eventually, type E2eCheck } from './workbench';
import { scaled } from '../timeScale';

/** How long a check waits for an answer: the Chat view's own agent spent up to 16 s before asking Rung (rung.e2e.ts). */
const ANSWER_TIMEOUT_MS = scaled(120_000);

/** A port nothing answers on: 9 (discard) refuses on 127.0.0.1, whatever runs on this machine. */
const DEAD_URL = 'http://127.0.0.1:9';

/**
 * An address on 127.0.0.1 where nothing listens (a port bound, read, then released): a stopped server.
 * Not port 9: Node's fetch refuses the ports browsers block before connecting, with no connection code.
 */
async function stoppedServerUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

function writeSettings(folder: string, settings: Record<string, unknown>): void {
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

function writePanel(folder: string, panel: Record<string, unknown>): void {
  mkdirSync(join(folder, '.rung'), { recursive: true });
  writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
}

/** The newest response in the Chat view, once it holds `text`. */
async function responseWith(page: Page, text: string | RegExp): Promise<string> {
  const response = page.locator('.interactive-item-container.interactive-response', { hasText: text }).last();
  await response.waitFor({ timeout: ANSWER_TIMEOUT_MS });
  return ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
}

/** Sets the cloud provider's key through Rung: Set Provider Key, as a user types it. */
async function setCloudKey(page: Page): Promise<void> {
  await setProviderKey(page, 'cloud', 'test-key-0123456789abcdef', ANSWER_TIMEOUT_MS);
}

function newcomerHello(): E2eCheck {
  return {
    name: 'a newcomer\'s first "hello" through Rung Auto, with nothing set up, reads a plain sentence saying how to start, without a stack',
    prepare(folder) {
      writeSettings(folder, { 'rung.ollamaHost': DEAD_URL });
    },
    async run(page, workbench) {
      await page.locator('.statusbar-item', { hasText: 'Rung: not set up' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
      await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
      await workbench.sendChat('hello');
      const said = await responseWith(page, 'Rung has nothing to route to yet');
      assert.match(said, /Start Ollama with a model pulled/);
      assert.doesNotMatch(said, /NotSetUpError|extension\.js|\bat [A-Z]\w+\.\w+ \(/, `no class name, path or stack: ${said}`);
      await workbench.screenshot('daily-newcomer-hello');
    },
  };
}

function retryWithStrongDown(): E2eCheck {
  let providers: FakeProviders | undefined;
  let stopped = '';
  return {
    name: "the Chat view's Retry under a Rung Auto answer, with the strong model's server down, says it is unreachable and the local model answers; the status bar names it",
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.cheapAnswer = () => 'Six times seven is 42.';
      const panel = fakePanel(providers) as { providers: Record<string, Record<string, unknown>> };
      // The cloud's server is gone: its address refuses every connection.
      stopped = await stoppedServerUrl();
      panel.providers.cloud = { kind: 'openai-compatible', baseUrl: `${stopped}/v1`, key: 'required' };
      writePanel(folder, panel);
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model server started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await setCloudKey(page);
        await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await workbench.sendChat('What is six times seven?');
        const response = page.locator('.interactive-item-container.interactive-response').last();
        await response.getByText('Six times seven is 42.').first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await response.hover();
        await response.locator('a.action-label.codicon-refresh[aria-label="Retry"]').click();
        const said = await responseWith(page, 'cloud is unreachable');
        assert.ok(said.includes(`cloud is unreachable (connection refused at ${stopped}); asking the ladder as before`), said);
        await page
          .locator('.interactive-item-container.interactive-response', { hasText: 'cloud is unreachable' })
          .last()
          .getByText('Six times seven is 42.')
          .first()
          .waitFor({ timeout: ANSWER_TIMEOUT_MS });
        assert.doesNotMatch(said, /pruned|on the ladder \(|Error:/, `no router record, no stack: ${said}`);
        await page.locator('.statusbar-item', { hasText: 'cloud down' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await workbench.screenshot('daily-retry-strong-down');
      } finally {
        await providers.close();
      }
    },
  };
}

function overBudget(): E2eCheck {
  let providers: FakeProviders | undefined;
  return {
    name: 'past the daily budget the status bar warns, the local model still answers @rung, and no retry with a stronger model is offered',
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.cheapAnswer = () => 'Six times seven is 42.';
      writePanel(folder, fakePanel(providers));
      // A budget of nothing: today's $0 has reached it, so paid models are off from the start.
      writeSettings(folder, { 'rung.dailyBudget': 0 });
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        await page.locator('.statusbar-item', { hasText: 'budget spent' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await setCloudKey(page);
        await workbench.sendChat('@rung What is six times seven?');
        const response = page.locator('.interactive-item-container.interactive-response', { hasText: 'Six times seven is 42.' }).last();
        await response.getByText('Answered by').first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        assert.equal(
          await page.getByText(`Retry with a stronger model than ${CHEAP_MODEL}`).count(),
          0,
          'no retry is offered that the budget would refuse',
        );
        await workbench.screenshot('daily-over-budget');
      } finally {
        await providers.close();
      }
    },
  };
}

/** What the Chat view's model picker must show: each Rung model's row, its name beside its provider and price. */
const PICKER_ROWS: readonly (readonly [name: string, price: string])[] = [
  [`Rung: ${CHEAP_MODEL}`, 'ollama · free (local)'],
  [`Rung: ${CLOUD_MODEL}`, 'cloud · $1 in / $2 out per M tokens'],
];

/** How long one click on the picker or its "Other Models" row may take to show what it opens before it is tried again. */
const PICKER_STEP_MS = scaled(10_000);

/** The picker's list rows on screen, each as its words read (the editor's hidden copies are not rows). */
async function pickerRowsShown(page: Page): Promise<string[]> {
  const rows = page.locator('.action-widget .monaco-list-row').filter({ visible: true });
  return (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
}

/**
 * Opens the Chat view's model picker and unfolds "Other Models" until every row of {@link PICKER_ROWS}
 * shows with its price, opening or unfolding again whenever the picker is found closed or folded.
 *
 * @remarks
 * 1.139 opens the picker with "Other Models" folded, and folds it again each time it opens. One click on
 * the picker and one on "Other Models" showed the rows in every run measured here, idle and with both cores
 * busy; but in one full CI run the row for the local model was still not on screen two minutes after those
 * two clicks, and a check that only waited had nothing left to do but time out (what the picker showed then
 * was not recorded). A user who finds the picker closed or folded opens or unfolds it again; so does this,
 * and if the rows still never show, the failure says what the picker showed instead.
 */
async function showPickerPrices(page: Page, picker: Locator): Promise<void> {
  const others = page.locator('.action-widget .monaco-list-row.chat-model-picker-section-toggle', { hasText: 'Other Models' }).first();
  const tries: string[] = [];
  const rowsShown = async (): Promise<boolean> => {
    const rows = await pickerRowsShown(page);
    return PICKER_ROWS.every(([name, price]) => rows.some((row) => row.includes(name) && row.includes(price)));
  };
  try {
    await eventually(
      async () => {
        if (await rowsShown()) return true;
        if (!(await others.isVisible())) {
          // A menu left open (the picker itself, half drawn, or another) covers the page with its blocker,
          // which takes every click for itself: close it first, then open the picker afresh.
          if (await page.locator('.context-view .context-view-block').first().isVisible()) {
            tries.push('closed an open menu');
            await page.keyboard.press('Escape');
            return false;
          }
          tries.push('opened the picker');
          await picker.click({ timeout: PICKER_STEP_MS }).catch(() => undefined);
          await others.waitFor({ timeout: PICKER_STEP_MS }).catch(() => undefined);
        } else if ((await others.getAttribute('aria-expanded')) !== 'true') {
          tries.push('unfolded Other Models');
          await others.click({ timeout: PICKER_STEP_MS }).catch(() => undefined);
          await page
            .locator('.action-widget .monaco-list-row.chat-model-picker-section-toggle[aria-expanded="true"]')
            .waitFor({ timeout: PICKER_STEP_MS })
            .catch(() => undefined);
        }
        return false;
      },
      'the model picker shows every Rung model with its price',
      ANSWER_TIMEOUT_MS,
    );
  } catch (error) {
    const folded = (await others.isVisible())
      ? `Other Models aria-expanded=${await others.getAttribute('aria-expanded')}`
      : 'no Other Models row shown';
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; after ${JSON.stringify(tries)} the picker showed ${JSON.stringify(await pickerRowsShown(page))} (${folded})`,
      { cause: error },
    );
  }
  if (tries.length > 2) console.log(`the model picker showed its prices after ${tries.length} clicks: ${tries.join(', ')}`);
}

function pickerPrices(): E2eCheck {
  let providers: FakeProviders | undefined;
  return {
    name: "the Chat view's model picker shows each Rung model's price, the local one as free",
    async prepare(folder) {
      providers = await startFakeProviders();
      writePanel(folder, fakePanel(providers));
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        const picker = page.locator('.interactive-input-part .action-label', { hasText: 'Rung Auto' }).first();
        await picker.waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await showPickerPrices(page, picker);
        await workbench.screenshot('daily-model-picker-prices');
        await page.keyboard.press('Escape');
      } finally {
        await providers.close();
      }
    },
  };
}

const checks: E2eCheck[] = [newcomerHello(), retryWithStrongDown(), overBudget(), pickerPrices()];
export default checks;
