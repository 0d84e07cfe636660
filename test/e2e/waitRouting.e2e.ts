/**
 * The user's wait, in a real window: a small local model that fails most edits and is slow stops opening
 * them once the gate of 8 graded answers is passed, Rung says why in words, and the small model is still
 * explored at the panel's rate.
 *
 * @remarks
 * The morning's edits that teach the ledger are made before the window opens, by `rung chat` over the
 * same two wire servers into the workspace's own ledger: eight edits, the small model's first answer
 * parses and the rest do not, each of its tries 1.5 s. Nine calls through the Chat view would take the
 * check's whole time (the first request alone starts the session). The window then shows what a user
 * reads: Pick Model's Auto, an `@rung /edit` answered by the strong model with its short line, and the
 * ledger view's times and the opener's odds.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { eventually, setProviderKey, type E2eCheck, type Workbench } from './workbench';
import { decisionRows, ledgerOnDisk } from './workspaceFiles';

const run = promisify(execFile);

/** The first request also opens the session (rung.e2e.ts). */
const TIMEOUT_MS = 120_000;
/** How long the small model takes before it answers, ms: slow, as a 1.5B model on a laptop's CPU is. */
const SMALL_MODEL_MS = 1500;
/** The morning's edits before the window opens: the small model reaches the gate of 8 graded answers. */
const MORNING_EDITS = 8;
/** The panel's exploration rate, as docs/panel-file.md states the default. */
const EXPLORE_RATE = 0.05;
const KEY = 'test-key-0123456789abcdef';
const GREETING_LINE = 'return `Hello, ${name}!`;';
const WELCOME_LINE = 'return `Hello, ${name}! Welcome.`;';
const WELCOME_FUNCTION = `\`\`\`ts\nexport function greeting(name: string): string {\n  ${WELCOME_LINE}\n}\n\`\`\`\n`;

/** Sets the cloud provider's key through Rung: Set Provider Key, as a user types it. */
async function setCloudKey(page: Page, workbench: Workbench): Promise<void> {
  const listed = await workbench.paletteRows('Rung: Set Provider Key');
  assert.ok(
    listed.some((row) => row.includes('Rung: Set Provider Key')),
    `the palette lists Set Provider Key: ${JSON.stringify(listed)}`,
  );
  await setProviderKey(page, 'cloud', KEY, TIMEOUT_MS);
}

/** Opens greeting.ts and selects its return line, as a user does before an edit. */
async function selectGreetingLine(page: Page): Promise<void> {
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill('greeting.ts');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'greeting.ts' }).first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
  await editor.getByText('Hello').first().click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
}

function slowSmallModel(): E2eCheck {
  let providers: FakeProviders | undefined;
  let smallAnswers = 0;
  return {
    name: 'after the gate, with the small local model failing most edits and slow, Auto opens edits on the strong model, says why in words, and explores the small one at the stated rate',
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.cheapDelayMs = SMALL_MODEL_MS;
      // The small model's first edit parses; every later one does not. An edit in the window is checked
      // spliced into the file, so it is answered with the line; one from `rung chat`, with the function.
      providers.cheapAnswer = () => (smallAnswers++ === 0 ? WELCOME_FUNCTION : '```ts\nconst answer = ;\n```\n');
      providers.cloudAnswer = (body) =>
        JSON.stringify(body.messages ?? []).includes('You edit code') ? `\`\`\`ts\n  ${WELCOME_LINE}\n\`\`\`\n` : WELCOME_FUNCTION;
      const panel = { ...fakePanel(providers), routing: { explore: EXPLORE_RATE } };
      const rung = join(folder, '.rung');
      mkdirSync(rung, { recursive: true });
      writeFileSync(join(rung, 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
      const cli = join(repositoryRoot(), 'dist', 'cli.js');
      for (let edit = 0; edit < MORNING_EDITS; edit++) {
        await run(
          process.execPath,
          [
            cli,
            'chat',
            '--panel',
            join(rung, 'panel.json'),
            '--ledger',
            join(rung, 'ledger.sqlite'),
            '--class',
            'edit/typescript',
            `Make the greeting say welcome: ${GREETING_LINE}`,
          ],
          { cwd: folder, env: { ...process.env, RUNG_CLOUD_API_KEY: KEY }, timeout: 60_000 },
        );
      }
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        const { graded } = await ledgerOnDisk(workbench.folder);
        assert.equal(
          graded.get(`${CHEAP_MODEL}|edit/typescript`),
          MORNING_EDITS,
          `the morning's edits graded the small model: ${JSON.stringify([...graded])}`,
        );
        const morning = decisionRows(workbench.folder);
        assert.deepEqual(
          morning.filter((row) => row.escalation.length === 0).map((row) => row.model),
          Array(MORNING_EDITS).fill(CHEAP_MODEL),
          'below the gate every edit opened on the small model',
        );

        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: TIMEOUT_MS });
        await setCloudKey(page, workbench);
        await selectGreetingLine(page);

        // Pick Model ranks for the TypeScript file at hand: Auto says where an edit opens, and why.
        await page.keyboard.press('F1');
        await page.locator('.quick-input-widget input').fill('>Rung: Pick Model');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Rung: Pick Model' }).first().waitFor();
        await page.keyboard.press('Enter');
        await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Rung: Pick Model' }).waitFor({ timeout: TIMEOUT_MS });
        const auto = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Auto' }).first();
        await auto.getByText(`opens on ${CLOUD_MODEL}:`).first().waitFor({ timeout: TIMEOUT_MS });
        const autoText = ((await auto.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.match(
          autoText,
          new RegExp(
            `opens on ${CLOUD_MODEL}:\\s*${CHEAP_MODEL} passed 1 of ${MORNING_EDITS} edits, and each failed try cost you about 1\\.\\d s$`,
          ),
        );
        const small = page.locator('.quick-input-list .monaco-list-row', { hasText: 'ollama · free (local)' }).first();
        assert.match(((await small.textContent()) ?? '').replace(/\s+/g, ' '), /about 1\.\d s a call \(first token 1\.\d s/);
        await workbench.screenshot('wait-pick-model-auto-says-why');
        await page.keyboard.press('Escape');

        // An edit now: the strong model opens it. One call in twenty explores the small one instead; then ask again.
        let opener = '';
        let said = async (): Promise<string> => '';
        // Each explored call grades the small model once more, so the count in the reason grows with it.
        let explored = 0;
        for (let tries = 0; tries < 3 && opener !== CLOUD_MODEL; tries++) {
          const before = decisionRows(workbench.folder).length;
          await workbench.sendChat('@rung /edit make the greeting say welcome');
          // The newest response: the Chat view's list is virtual, so earlier ones may have left the page.
          const response = page.locator('.interactive-item-container.interactive-response').last();
          await response.getByText('Rung ·').first().waitFor({ timeout: TIMEOUT_MS });
          await response.getByText('Why this model').first().waitFor({ timeout: TIMEOUT_MS });
          // Read when judged: the Chat view draws an answer's Markdown in word by word, so the line can
          // still be coming in after the link below it is on the page.
          said = async () => ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
          // The decision log is written on the ledger's own timer, a moment after the answer shows.
          await eventually(async () => decisionRows(workbench.folder).length > before, "the edit's decision row is written", TIMEOUT_MS);
          const first = decisionRows(workbench.folder)[before];
          opener = first?.model ?? '';
          if (opener === CHEAP_MODEL) {
            assert.deepEqual(
              [first?.explore, first?.propensity],
              [true, EXPLORE_RATE],
              'the small model opened only as exploration, at the stated rate',
            );
            explored++;
            console.log(`        (the edit explored ${CHEAP_MODEL}, as one in ${1 / EXPLORE_RATE} does; asking again)`);
          } else {
            assert.equal(first?.model, CLOUD_MODEL);
            assert.equal(first?.explore, false);
            assert.equal(
              first?.propensity,
              1 - EXPLORE_RATE,
              'the opener was the usual choice on 95% of such calls; the other 5% explore the small model',
            );
            assert.match(
              first?.reason ?? '',
              new RegExp(
                `; opened past ${CHEAP_MODEL} for the wait: it passed \\d+ of ${MORNING_EDITS + explored} graded at edit/typescript and a try takes about 1\\.\\d s \\(wait worth \\$0\\.1/min\\)`,
              ),
            );
          }
        }
        assert.equal(opener, CLOUD_MODEL, 'the strong model opened the edit');
        const line = new RegExp(
          `Rung · ${CLOUD_MODEL} · rung 2 of 2 · checked: .* · \\$[\\d.]+ · opened on ${CLOUD_MODEL}: ${CHEAP_MODEL} passed \\d+ of ${MORNING_EDITS + explored} edits, and each failed try cost you about 1\\.\\d s`,
        );
        await eventually(async () => line.test(await said()), 'the line under the answer is drawn whole', TIMEOUT_MS).catch(
          () => undefined,
        );
        assert.match(await said(), line);
        await workbench.screenshot('wait-edit-opened-on-strong-model');

        // The ledger view: each model's time at the class, and the opener's odds in words.
        await workbench.runCommand('Rung: Open Ledger');
        const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
        await frame.locator('ol.calls > li').first().waitFor({ timeout: TIMEOUT_MS });
        await frame
          .getByText('The usual first choice, taken on 95% of such calls; the other 5% try another model to learn about it.')
          .first()
          .waitFor({ timeout: TIMEOUT_MS });
        const times = await frame.locator('section.ratings td.time').evaluateAll((cells) => cells.map((cell) => cell.textContent ?? ''));
        assert.ok(
          times.some((time) => /^1\.\d s$/.test(time)),
          `the small model's time shows in the ratings: ${JSON.stringify(times)}`,
        );
        await workbench.runCommand('View: Close Primary Side Bar');
        await workbench.hideSecondarySideBar();
        await workbench.screenshot('wait-ledger-view-times');
      } finally {
        await providers.close();
      }
    },
  };
}

export default [slowSmallModel()];
