/**
 * Rung's keybindings against every other keybinding the editor knows — VS Code's defaults and the
 * extensions it ships — read from its own Keyboard Shortcuts editor, not from a list written down by hand.
 *
 * @remarks
 * The editor lists every binding of a key when its search holds the key in quotes (`"ctrl+k n"`), with
 * the command, its `when` and its source. Each key Rung contributes must list Rung's command alone:
 * another command on the same key, under any `when`, is a conflict a user could meet. Checked on the
 * Linux keys the test host runs; the macOS keys are the same chords with Cmd for Ctrl.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eCheck, Workbench } from './workbench';
import { scaled } from '../timeScale';

interface Keybinding {
  command: string;
  key: string;
  mac?: string;
  when?: string;
}

/** Rung's contributed keybindings and command titles, from the manifest the build packages. */
function manifest(): { keybindings: Keybinding[]; titles: Map<string, string> } {
  const parsed = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as {
    contributes: { keybindings: Keybinding[]; commands: { command: string; title: string; category?: string }[] };
  };
  const titles = new Map(
    parsed.contributes.commands.map((entry) => [entry.command, entry.category ? `${entry.category}: ${entry.title}` : entry.title]),
  );
  return { keybindings: parsed.contributes.keybindings, titles };
}

/** The rows the Keyboard Shortcuts editor lists for one keybinding (or, unquoted, for words), each row's cells as text. */
async function rowsFor(page: Page, key: string): Promise<string[]> {
  // The search box has the focus from the editor's opening on, and keeps it while the list filters.
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(key.startsWith('Rung') ? key : `"${key}"`);
  const rows = page.locator('.keybindings-editor .monaco-list-row');
  // The list filters as the search changes: wait until it has settled on this key (the same rows three
  // looks running; the look's spacing scales, as a loaded workbench can pause longer between two renders).
  // Every key and title asked for here is bound, so an empty list is one not yet filtered or drawn.
  let last = '';
  const deadline = performance.now() + scaled(60_000);
  for (let stable = 0; stable < 3 && performance.now() < deadline;) {
    await page.waitForTimeout(scaled(300));
    const now = (await rows.allTextContents()).join('\n');
    stable = now !== '' && now === last ? stable + 1 : 0;
    last = now;
  }
  return (await rows.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
}

const check: E2eCheck = {
  name: "Rung's keybindings for Edit Selection, Accept and Reject share no key with any other command in the editor",
  async run(page: Page, workbench: Workbench) {
    const { keybindings, titles } = manifest();
    assert.deepEqual(keybindings.map((binding) => binding.command).sort(), ['rung.acceptEdit', 'rung.editSelection', 'rung.rejectEdit']);
    await workbench.runCommand('Preferences: Open Keyboard Shortcuts');
    await page.locator('.keybindings-editor').waitFor();
    const found: string[] = [];
    for (const binding of keybindings) {
      const rows = await rowsFor(page, binding.key);
      const title = titles.get(binding.command) ?? binding.command;
      found.push(`${binding.key}: ${JSON.stringify(rows)}`);
      assert.equal(rows.length, 1, `only ${title} is bound to ${binding.key}; the editor lists ${JSON.stringify(rows)}`);
      assert.ok(rows[0]?.includes(title), `the one binding of ${binding.key} is ${title}: ${JSON.stringify(rows)}`);
    }
    // What a user looking up Rung's keys sees: its commands with their bindings and when they apply.
    await rowsFor(page, 'Rung: ');
    await workbench.screenshot('keybindings-rung');
    console.log(`        ${found.join('\n        ')}`);
  },
};

export default check;
