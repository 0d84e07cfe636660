/**
 * Edit Selection as a user meets it, with Rung installed and its notifications shown as toasts: the
 * toast says what Accept and Reject count as, the keybindings decide the edit, and a toast clicked
 * after its edit was settled another way says what became of that edit.
 *
 * @remarks
 * VS Code gives an extension no way to take a notification back, so a toast outlives an edit settled
 * from the keyboard or replaced by a newer edit; its buttons used to do nothing. Three files are
 * edited so each toast names its own file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { json, WireServer } from '../unit/support/wireServer';
import { eventually, type E2eCheck, type Workbench } from './workbench';
import { decisionRows } from './workspaceFiles';
import { scaled } from '../timeScale';

const MODEL = 'tiny-coder:1b';
/** How long the window has for Rung's session, an answer and a toast. */
const TIMEOUT_MS = scaled(120_000);
/** The keybindings as Playwright presses them: Rung's `ctrl+k ctrl+shift+e`, `ctrl+k ctrl+enter`, `ctrl+k ctrl+backspace`. */
const EDIT_KEYS = ['Control+K', 'Control+Shift+E'];
const ACCEPT_KEYS = ['Control+K', 'Control+Enter'];
const REJECT_KEYS = ['Control+K', 'Control+Backspace'];

/** An Ollama whose one model answers every edit with a constant that parses. */
function ollama(): WireServer {
  const line = (content: string, done = false): string =>
    `${JSON.stringify({ model: MODEL, message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop', prompt_eval_count: 40, eval_count: 12 } : {}) })}\n`;
  return new WireServer()
    .on(
      'GET',
      '/api/tags',
      json({
        models: [
          { name: MODEL, model: MODEL, digest: 'sha256:0123456789abcdef', size: 1, details: { family: 'tiny', parameter_size: '1.1B' } },
        ],
      }),
    )
    .on('POST', '/api/chat', (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(line('```ts\nexport const answer = 42;\n```\n'));
      response.end(line('', true));
    });
}

async function press(page: Page, keys: readonly string[]): Promise<void> {
  for (const key of keys) await page.keyboard.press(key);
}

/** Opens `name` through Go to File, and waits for its tab. */
async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: TIMEOUT_MS });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: TIMEOUT_MS });
  // Into the text, as a user clicks before pressing a key: the keybinding needs the editor's focus.
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
}

/** Edit Selection on the open file by its keybinding; returns the toast naming that file. */
async function editByKey(page: Page, workbench: Workbench, name: string) {
  await openFile(page, name);
  await press(page, EDIT_KEYS);
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Rung: Edit Selection' }).waitFor({ timeout: TIMEOUT_MS });
  await page.keyboard.type('make the answer 42');
  await page.keyboard.press('Enter');
  return workbench.waitForNotification(
    `Accept applies the edit to ${name} and counts as a pass for ${MODEL} in its edit/typescript rating; Reject counts as a failed answer for it.`,
    TIMEOUT_MS,
  );
}

function lateClicks(): E2eCheck {
  let server: WireServer | undefined;
  return {
    name: 'installed, Edit Selection by its keybinding shows a toast saying what Accept and Reject count as; Accept and Reject by their keybindings; a toast clicked late says the edit was already accepted, or replaced',
    installed: true,
    async prepare(folder) {
      server = ollama();
      const url = await server.start();
      mkdirSync(join(folder, '.rung'), { recursive: true });
      const panel = {
        models: [{ slug: MODEL, provider: 'ollama', role: 'base', context: 32768 }],
        routing: { explore: 0 },
        providers: { ollama: { kind: 'ollama', baseUrl: url } },
      };
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
      for (const name of ['first', 'second', 'third']) writeFileSync(join(folder, 'src', `${name}.ts`), 'export const answer = 41;\n');
    },
    async run(page, workbench) {
      assert.ok(server, 'the model server started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: TIMEOUT_MS });

        const first = await editByKey(page, workbench, 'first.ts');
        await workbench.screenshot('edit-toast-says-what-counts');
        await press(page, ACCEPT_KEYS);
        await page
          .locator('.statusbar-item', { hasText: `applied ${MODEL}'s edit to first.ts; counted as a pass` })
          .first()
          .waitFor({ timeout: TIMEOUT_MS });
        await eventually(
          async () =>
            readFileSync(join(workbench.folder, 'src', 'first.ts'), 'utf8').includes('42') ||
            (await page.locator('.tab.dirty', { hasText: 'first.ts' }).count()) > 0,
          'the accepted edit is in first.ts',
        );
        await workbench.screenshot('edit-accepted-by-keybinding');
        await first.getByRole('button', { name: 'Accept' }).click();
        await workbench.waitForNotification(
          `${MODEL}'s edit to first.ts was already accepted (counted as a pass); this button does nothing now.`,
        );
        await workbench.screenshot('edit-toast-clicked-after-accept');

        const second = await editByKey(page, workbench, 'second.ts');
        await editByKey(page, workbench, 'third.ts');
        await second.getByRole('button', { name: 'Reject' }).click();
        await workbench.waitForNotification(
          `a newer edit replaced ${MODEL}'s edit to second.ts before it was accepted or rejected; it counts neither way.`,
        );
        await press(page, REJECT_KEYS);
        await page
          .locator('.statusbar-item', { hasText: `rejected ${MODEL}'s edit to third.ts; counted as a failed answer` })
          .first()
          .waitFor({ timeout: TIMEOUT_MS });
        await workbench.screenshot('edit-replaced-toast-and-rejected-by-keybinding');

        // What the log kept: the accepted edit passed, the rejected one failed, the replaced one neither.
        await eventually(
          async () => decisionRows(workbench.folder).filter((row) => row.final).length >= 2,
          'the two settled verdicts are in the decision log',
        );
        const rows = decisionRows(workbench.folder);
        const calls = [...new Set(rows.filter((row) => row.class === 'edit').map((row) => row.call))];
        assert.equal(calls.length, 3, `three edit calls: ${JSON.stringify(rows.map((row) => [row.call, row.verdict, row.final]))}`);
        assert.deepEqual(
          calls.map((call) => rows.filter((row) => row.call === call && row.final).map((row) => [row.verdict, row.verdictReason])),
          [[['pass', 'the user accepted the edit']], [], [['fail', 'the user rejected the edit']]],
        );
      } finally {
        await server.close();
      }
    },
  };
}

export default [lateClicks()];
