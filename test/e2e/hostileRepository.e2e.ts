/**
 * A hostile repository opened in Restricted Mode, as a user meets one after cloning it and dismissing
 * the trust prompt: Rung refuses what the folder put in `.rung/`, leaves every file where it was, keeps
 * the editor answering, and says so.
 *
 * @remarks
 * Two folders, because one cannot hold both: in the first `.rung` is a link to a folder beside the
 * workspace (holding a panel file and a decision log Rung would write through the link); in the second
 * `.rung` is a real folder with a crafted ledger (a recursive view named `meta` under Rung's application
 * id, which spins sql.js at 100% CPU when queried) and a panel file that says a paid model of the user's
 * own OpenRouter costs nothing. Rung is installed from its .vsix on a code-server with workspace trust
 * on, so the folder opens untrusted and toasts show (see `E2eCheck.untrusted`).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { RUNG_APPLICATION_ID } from '../../src/core/ledger/schema';
import { loadSqlJs } from '../../src/core/ledger/sqlJs';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import type { E2eCheck, Workbench } from './workbench';
import { scaled } from '../timeScale';

/** How long the window has to open Rung's session and say what it refused. */
const TIMEOUT_MS = scaled(90_000);
/** How long one palette command may take to show its answer in a window that answers. */
const RESPONSIVE_MS = scaled(15_000);
/** A paid model on the user's own OpenRouter. */
const PAID_MODEL = 'anthropic/claude-opus-4';

/** Every file under `folder` (links not followed) with a hash of its bytes, to show nothing changed. */
function contents(folder: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const name = path.slice(folder.length + 1);
    found[name] = entry.isFile()
      ? createHash('sha256').update(readFileSync(path)).digest('hex')
      : entry.isSymbolicLink()
        ? 'link'
        : 'folder';
  }
  return found;
}

/** A panel naming a model on the built-in Ollama (where nothing listens here) and, when given, more. */
function panelText(...more: Record<string, unknown>[]): string {
  return `${JSON.stringify({ models: [{ slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' }, ...more] }, null, 2)}\n`;
}

/** Runs a Rung command from the palette and checks that the window answered within {@link RESPONSIVE_MS}. */
async function answers(page: Page, workbench: Workbench): Promise<number> {
  const started = performance.now();
  await workbench.runCommandUntil(
    'Rung: Show Log',
    page.locator('.part.panel').getByText('the log was asked for (Rung: Show Log)').first(),
    RESPONSIVE_MS,
  );
  return performance.now() - started;
}

/**
 * The Rung log's lines that hold `text`, as the Output view shows them with its filter set to `text`,
 * joined into one line each.
 *
 * @remarks
 * The view wraps a long line over several rows and renders only the rows in sight, so the filter is
 * what brings a line into view whole; each line starts with its time, and no-break spaces are read as spaces.
 */
async function logLines(page: Page, text: string): Promise<string> {
  const panel = page.locator('.part.panel');
  const filter = panel.locator('input[placeholder^="Filter"]').first();
  await filter.fill(text);
  const rows = panel.locator('.view-lines');
  let shown = '';
  const deadline = performance.now() + TIMEOUT_MS;
  while (performance.now() < deadline) {
    // A wrapped row ends where the next begins, its space kept at its end: joined without a separator.
    shown = (await rows.first().innerText()).replace(/\n/g, '').replace(/\u00a0/g, ' ');
    if (shown.includes(text)) return shown;
    await page.waitForTimeout(250);
  }
  throw new Error(`the Rung log shows no line with "${text}"; the filtered view held ${JSON.stringify(shown.slice(0, 500))}`);
}

function linkedRungFolder(): E2eCheck {
  let elsewhere = '';
  let before: Record<string, string> = {};
  return {
    name: 'untrusted, a repository whose .rung is a link to another folder: Rung refuses its panel file, says why in a toast, and writes nothing there',
    untrusted: true,
    prepare(folder) {
      elsewhere = join(folder, '..', `${basename(folder)}-elsewhere`);
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(join(elsewhere, 'panel.json'), panelText());
      writeFileSync(join(elsewhere, 'decisions.jsonl'), "# not a decision log: a file of the user's that a link points at\n");
      symlinkSync(elsewhere, join(folder, '.rung'));
      before = contents(elsewhere);
    },
    async run(page, workbench) {
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: TIMEOUT_MS });
      const toast = await workbench.waitForNotification('panel.json is invalid', TIMEOUT_MS);
      const said = ((await toast.textContent()) ?? '').replace(/\s+/g, ' ');
      assert.match(
        said,
        /its folder \S+\/\.rung is a symbolic link to \S+-elsewhere, and Rung does not follow a link for a panel file in the workspace/,
        said,
      );
      await workbench.screenshot('untrusted-linked-rung-folder');
      // The toast's way to the file shows it in the Explorer: opening it would open the linked folder's file.
      assert.equal(
        await toast.getByRole('button', { name: 'Open Panel File' }).count(),
        0,
        'the toast offers to open the linked panel file',
      );
      await toast.getByRole('button', { name: 'Show in Explorer' }).click();
      await page.locator('.explorer-viewlet').first().waitFor({ timeout: TIMEOUT_MS });
      // What must not happen has no event to wait for: a second (scaled) for an editor to open if one would.
      await page.waitForTimeout(scaled(1_000));
      assert.equal(
        await page.locator('.tabs-container .tab', { hasText: 'panel.json' }).count(),
        0,
        'an editor opened the linked panel file',
      );
      const tookMs = await answers(page, workbench);
      console.log(`        (Rung: Show Log answered in ${Math.round(tookMs)} ms)`);
      assert.deepEqual(contents(elsewhere), before, 'the folder the link points at is as it was');
    },
  };
}

function craftedLedgerAndFreeModel(): E2eCheck {
  let ledger = '';
  let before: Record<string, string> = {};
  return {
    name: 'untrusted, a repository with a crafted .rung/ledger.sqlite and a panel file pricing a paid model at 0: Rung leaves the ledger unread and untouched, takes no price from the folder, and the editor answers',
    untrusted: true,
    async prepare(folder) {
      const rung = join(folder, '.rung');
      mkdirSync(rung, { recursive: true });
      const SQL = await loadSqlJs({ wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm') });
      const db = new SQL.Database();
      db.run(`PRAGMA application_id = ${RUNG_APPLICATION_ID}`);
      db.run(
        "CREATE VIEW meta(key, value) AS WITH RECURSIVE forever(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM forever) SELECT 'schema_version', n FROM forever",
      );
      ledger = join(rung, 'ledger.sqlite');
      writeFileSync(ledger, db.export());
      db.close();
      writeFileSync(
        join(rung, 'panel.json'),
        panelText({ slug: PAID_MODEL, provider: 'openrouter', role: 'top', price: { input: 0, output: 0 } }),
      );
      before = contents(rung);
    },
    async run(page, workbench) {
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: TIMEOUT_MS });
      const tookMs = await answers(page, workbench);
      console.log(`        (Rung: Show Log answered in ${Math.round(tookMs)} ms)`);
      const price = await logLines(page, 'untrusted workspace');
      assert.match(
        price,
        new RegExp(
          `untrusted workspace: the panel file's models are used, but not the price of ${PAID_MODEL.replace('/', '\\/')}: prices come from the providers' catalogs`,
        ),
        price,
      );
      const opened = await logLines(page, 'opening the session');
      assert.match(opened, /ledger \S+\/workspaceStorage\/\S+\/ledger\.sqlite/, opened);
      assert.ok(!opened.includes(`${workbench.folder}/.rung/ledger.sqlite`), `the session opened the folder's ledger: ${opened}`);
      await logLines(page, 'untrusted workspace');
      await workbench.screenshot('untrusted-crafted-ledger-free-model');
      // Still answering once the session is open, and nothing in .rung changed or was moved aside.
      await page.locator('.part.panel input[placeholder^="Filter"]').first().fill('');
      await answers(page, workbench);
      assert.deepEqual(contents(join(workbench.folder, '.rung')), before, '.rung is as the repository left it');
      assert.ok(existsSync(ledger));
    },
  };
}

export default [linkedRungFolder(), craftedLedgerAndFreeModel()];
