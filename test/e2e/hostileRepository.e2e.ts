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
 *
 * A third folder is trusted, as a user trusts a repository they work in, and its `.rung/ledger.sqlite`
 * is a genuine ledger with a trigger named `sqlite_stat1` written in (SQLite refuses the name; the
 * attacker's `PRAGMA writable_schema` does not), which joins the ratings five ways on the first save's
 * `DELETE`: a 2.5e10-row join that froze the extension host at its first call.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { markAsRung, migrate, RUNG_APPLICATION_ID } from '../../src/core/ledger/schema';
import { loadSqlJs } from '../../src/core/ledger/sqlJs';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import type { E2eCheck, Workbench } from './workbench';
import { scaled } from '../timeScale';
import { ledgerOnDisk } from './workspaceFiles';
import { fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';

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

/** Ratings in the trusted folder's ledger: the trigger's join is this to the fifth power rows. */
const PLANTED_RATINGS = 120;

function trustedStatisticsTrigger(): E2eCheck {
  let rung = '';
  let bytes: Buffer = Buffer.alloc(0);
  let providers: FakeProviders | undefined;
  return {
    name: 'trusted, a repository whose ledger hides a trigger named sqlite_stat1 that would join its ratings five ways on the first save: Rung moves the file aside, says why in a toast, starts a fresh ledger, answers a chat that saves to it, and the editor answers',
    installed: true,
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.cheapAnswer = () => 'Six times seven is 42.';
      rung = join(folder, '.rung');
      mkdirSync(rung, { recursive: true });
      const SQL = await loadSqlJs({ wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm') });
      const db = new SQL.Database();
      migrate(db, 0, { now: 1, newId: () => 'planted' });
      markAsRung(db);
      const rows = Array.from({ length: PLANTED_RATINGS }, (_, index) => `('m${index}', 'chat', 0.5, 1, 1, 1)`).join(', ');
      db.run(`INSERT INTO ratings (model, class_key, rating, graded, ok, updated_at) VALUES ${rows}`);
      db.run('PRAGMA writable_schema = ON');
      db.run(
        'CREATE TRIGGER sqlite_stat1 BEFORE DELETE ON ratings BEGIN SELECT count(*) FROM ratings a, ratings b, ratings c, ratings d, ratings e; END',
      );
      db.run('PRAGMA writable_schema = OFF');
      bytes = Buffer.from(db.export());
      db.close();
      writeFileSync(join(rung, 'ledger.sqlite'), bytes);
      // One model on a local server that answers: a call records itself in the ledger, and that save is
      // the DELETE the trigger fired on.
      const panel = fakePanel(providers) as { models: unknown[]; providers: Record<string, unknown> };
      panel.models = panel.models.slice(0, 1);
      panel.providers = { ollama: panel.providers.ollama };
      writeFileSync(join(rung, 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
    },
    async run(page, workbench) {
      try {
        await trustedStatisticsTriggerRun(page, workbench, rung, bytes);
      } finally {
        await providers?.close();
      }
    },
  };
}

/** The trusted check's moves, apart so its fake providers are closed whatever happens. */
async function trustedStatisticsTriggerRun(page: Page, workbench: Workbench, rung: string, bytes: Buffer): Promise<void> {
  const toast = await workbench.waitForNotification('sqlite_stat1', TIMEOUT_MS);
  const said = ((await toast.textContent()) ?? '').replace(/\s+/g, ' ');
  assert.match(
    said,
    /holds a trigger named "sqlite_stat1", and Rung never creates views or triggers .*it was moved to \S+\/\.rung\/ledger\.sqlite\.corrupt-\d+ and a fresh ledger started/,
    said,
  );
  await workbench.screenshot('trusted-sqlite-stat1-ledger');
  const tookMs = await answers(page, workbench);
  console.log(`        (Rung: Show Log answered in ${Math.round(tookMs)} ms)`);
  // The planted file kept byte for byte beside the fresh ledger, which is Rung's own and whole.
  const aside = readdirSync(rung).find((name) => name.startsWith('ledger.sqlite.corrupt-'));
  assert.ok(aside, `nothing was moved aside in ${rung}: ${readdirSync(rung).join(', ')}`);
  assert.ok(readFileSync(join(rung, aside)).equals(bytes), 'the planted ledger was changed when it was moved aside');
  await workbench.sendChat('@rung What is six times seven?');
  const response = page.locator('.interactive-item-container.interactive-response', { hasText: 'Six times seven is 42.' }).last();
  await response.waitFor({ timeout: TIMEOUT_MS });
  await workbench.screenshot('trusted-sqlite-stat1-ledger-answered');
  const afterCall = await answers(page, workbench);
  console.log(`        (after the call, Rung: Show Log answered in ${Math.round(afterCall)} ms)`);
  const fresh = await ledgerOnDisk(workbench.folder);
  assert.equal(fresh.integrity, 'ok');
  assert.ok(![...fresh.graded.keys()].some((key) => key.startsWith('m1|')), 'the fresh ledger holds the planted ratings');
}

export default [linkedRungFolder(), craftedLedgerAndFreeModel(), trustedStatisticsTrigger()];
