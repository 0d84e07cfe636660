/**
 * The ledger panel as a user sees it: opened from the palette on a workspace whose ledger already holds
 * decisions and ratings, in the dark (default), light and high-contrast themes, and live while a call
 * is routed.
 *
 * @remarks
 * Each workspace is seeded before the workbench opens: a panel file, a decision log and a ledger with
 * graded outcomes, written through the core's own ledger so the extension reads them as it would a
 * user's. The first check seeds 100k decisions, the decision log's retention limit, to show that the
 * panel opens on a page of them; how long that took lands in `test-results/panel-first-paint.json`
 * (reported in BENCHMARKS.md, never asserted).
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { seedDecisionRows, writeDecisionLog, type SeedModel } from '../../src/bench/decisionSeed';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { decisionLogPath } from '../../src/core/ledger/decisionLog';
import { WorkspaceLedger } from '../../src/core/ledger/workspaceLedger';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { eventually, type E2eCheck, type Workbench } from './workbench';
import { decisionRows } from './workspaceFiles';
import { scaled } from '../timeScale';

/** How long the panel may take to show what a check waits for, ms: a 100k-row snapshot on a loaded 2-core machine. */
const PANEL_TIMEOUT_MS = scaled(60_000);
const PRUNE_REASON = 'maxTotalPerProvider=2 reached for ollama';
/** The models of `fakePanel`, with its cloud price, for the seeded rows. */
const PANEL_MODELS: SeedModel[] = [
  { slug: CHEAP_MODEL, provider: 'ollama', price: null },
  { slug: CLOUD_MODEL, provider: 'cloud', price: { input: 1, output: 2 } },
];
const SEEDED_CLASSES = ['plan', 'edit/typescript'];

/** The panel's page inside its webview (E2E.md). */
function ledgerFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/**
 * Writes `.rung/panel.json`, a decision log of `rows` rows ending now (one call's opener pruned with a
 * known reason), and a ledger where the cheap model is past the gate of 8 in `plan` and the cloud model
 * is still on its prior.
 */
async function seedWorkspace(
  folder: string,
  rows: number,
  panel: Record<string, unknown>,
  settings: Record<string, unknown> = {},
): Promise<number> {
  const rung = join(folder, '.rung');
  mkdirSync(rung, { recursive: true });
  writeFileSync(join(rung, 'panel.json'), JSON.stringify(panel, null, 2));
  const now = Date.now();
  const seeded = seedDecisionRows(rows, now - 60_000, 7, PANEL_MODELS, SEEDED_CLASSES);
  // The newest call is the one on screen first: give it the pruned rung the checks look for.
  const newest = seeded[seeded.length - 1];
  if (newest)
    for (const row of seeded.filter((candidate) => candidate.call === newest.call))
      row.pruned = [{ model: 'qwen3:14b', reason: PRUNE_REASON }];
  const ledgerPath = join(rung, 'ledger.sqlite');
  writeDecisionLog(decisionLogPath(ledgerPath), seeded);
  const ledger = await WorkspaceLedger.open({
    path: ledgerPath,
    clock: { now: () => now },
    wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm'),
  });
  for (let index = 0; index < 12; index++)
    ledger.observe([{ model: CHEAP_MODEL, classKey: 'plan', success: index % 3 === 0, at: now - 1_000 + index }]);
  for (let index = 0; index < 3; index++) ledger.observe([{ model: CLOUD_MODEL, classKey: 'plan', success: true, at: now - 500 + index }]);
  await ledger.close();
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return seeded.length;
}

/** Opens the panel from the palette; returns its page and how long until the first routed call was on screen, ms. */
async function openLedger(page: Page, workbench: Workbench): Promise<{ frame: FrameLocator; firstPaintMs: number }> {
  const started = performance.now();
  await workbench.runCommand('Rung: Open Ledger');
  const frame = ledgerFrame(page);
  await frame.locator('ol.calls > li').first().waitFor({ timeout: PANEL_TIMEOUT_MS });
  return { frame, firstPaintMs: performance.now() - started };
}

/** Hides the explorer and the Chat view so a screenshot shows the panel at the width a user reading it would give it. */
async function widen(workbench: Workbench): Promise<void> {
  await workbench.runCommand('View: Close Primary Side Bar');
  await workbench.hideSecondarySideBar();
}

/**
 * Runs Rung: Ask with `question` typed into its input box.
 *
 * @remarks
 * Not `Workbench.runCommand`, which waits for the quick input to close: Ask opens it again for the question.
 */
async function ask(page: Page, workbench: Workbench, question: string): Promise<void> {
  // Not workbench.runCommand: Rung: Ask keeps the quick input open for the question.
  const input = await workbench.openPalette();
  await input.fill('>Rung: Ask');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Rung: Ask' }).first().click();
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Rung: Ask' }).waitFor();
  await input.fill(question);
  await page.keyboard.press('Enter');
}

/** What every seeded panel must show: decisions with a ladder and a pruned reason, ratings against the gate, spend. */
async function assertSeededContent(frame: FrameLocator, rows: number): Promise<void> {
  const summary = await frame.locator('#page-summary').innerText();
  assert.match(summary, new RegExp(`^Rows 1–\\d+ of ${rows.toLocaleString('en')}`), `the page summary said "${summary}"`);
  const shownRows = Number(/–(\d+)/.exec(summary)?.[1]);
  assert.ok(shownRows > 0 && shownRows <= 50, `the page held ${shownRows} rows, not one page`);
  const first = frame.locator('ol.calls > li').first();
  assert.equal(await first.locator('details').getAttribute('open'), '', 'the newest call is open');
  assert.ok(
    await first.locator('.rung.pruned', { hasText: `pruned: ${PRUNE_REASON}` }).isVisible(),
    'the pruned rung and its reason are on screen',
  );
  assert.ok((await first.locator('.rung.tried').count()) >= 1, 'the ladder shows an attempted rung');
  // The router's reason in words, its logged wording on hover.
  const why = frame.locator('p.facts .why[title^="measured 11/14 success class="]').first();
  assert.match((await why.textContent())?.trim() ?? '', /^Why the opener: 11 of 14 graded answers passed in \S+\.$/);
  const ratings = frame.locator('section.ratings');
  await ratings.locator('tr', { hasText: CHEAP_MODEL }).first().waitFor();
  assert.equal(
    await ratings.locator('meter[aria-label="12 graded, past the gate of 8"]').count(),
    1,
    'the measured model is past the gate',
  );
  assert.equal(
    await ratings.locator('meter[aria-label="3/8 graded, still on its prior"]').count(),
    1,
    'the model below the gate is on its prior',
  );
  const spend = frame.locator('section.spend');
  assert.match(
    await spend.innerText(),
    new RegExp(`The same calls on ${CLOUD_MODEL.replace('/', '\\/')} would have cost about \\$[\\d.]+ \\(an estimate`),
  );
  assert.ok((await spend.locator('svg.chart rect.bar').count()) > 0, 'the spend chart has bars');
}

/** A provider error's length: 3 MiB of text, as a hostile or broken server sent it. */
const HUGE_ERROR_CHARS = 3 * 1024 * 1024;
/** A model id of 600 characters, as a provider reported it. */
const LONG_MODEL_ID = `vendor/${'m'.repeat(593)}`;

/** Model names as long as OpenRouter's, each with a rating, for the narrow-panel check. */
const LONG_MODELS: SeedModel[] = [
  { slug: 'meta-llama/llama-3.3-70b-instruct-turbo', provider: 'cloud', price: { input: 0.88, output: 0.88 } },
  { slug: 'deepseek/deepseek-r1-distill-qwen-32b:free', provider: 'cloud', price: { input: 0, output: 0 } },
  { slug: 'qwen/qwen2.5-coder-32b-instruct', provider: 'cloud', price: { input: 0.07, output: 0.16 } },
  { slug: CHEAP_MODEL, provider: 'ollama', price: null },
];

/**
 * Writes a workspace whose ratings table holds {@link LONG_MODELS}, with the Chat view left open in the
 * secondary side bar as a user has it, so the ledger's side column is at its narrowest.
 */
async function seedLongNames(folder: string): Promise<void> {
  const rung = join(folder, '.rung');
  mkdirSync(rung, { recursive: true });
  const panel = offlinePanel as { models: Record<string, unknown>[] };
  const models = [
    ...panel.models,
    ...LONG_MODELS.filter((model) => model.provider === 'cloud').map((model) => ({
      slug: model.slug,
      provider: 'cloud',
      role: 'top',
      price: model.price,
    })),
  ];
  writeFileSync(join(rung, 'panel.json'), JSON.stringify({ ...offlinePanel, models }, null, 2));
  const now = Date.now();
  const ledgerPath = join(rung, 'ledger.sqlite');
  writeDecisionLog(decisionLogPath(ledgerPath), seedDecisionRows(20, now - 60_000, 3, LONG_MODELS, ['edit/typescript']));
  const ledger = await WorkspaceLedger.open({
    path: ledgerPath,
    clock: { now: () => now },
    wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm'),
  });
  LONG_MODELS.forEach((model, place) => {
    for (let index = 0; index < 10; index++)
      ledger.observe([{ model: model.slug, classKey: 'edit/typescript', success: index % (place + 2) !== 0, at: now - 1_000 + index }]);
  });
  await ledger.close();
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': 'Default Dark Modern' }, null, 2));
}

/** The snapshot the cloud server reports for CLOUD_MODEL in the check that names a rated model. */
const CLOUD_SNAPSHOT = `${CLOUD_MODEL}-2026-01-01`;

/**
 * Writes a workspace whose ledger learned as the router does in a TypeScript project: every graded
 * edit is `edit/typescript`, counted at `edit` too, so the two keys hold the same ratings; and the cloud
 * model's ratings are keyed by the snapshot its server reported, not by its panel slug.
 */
async function seedOneShape(folder: string): Promise<void> {
  const rung = join(folder, '.rung');
  mkdirSync(rung, { recursive: true });
  writeFileSync(join(rung, 'panel.json'), JSON.stringify(offlinePanel, null, 2));
  const now = Date.now();
  const ledgerPath = join(rung, 'ledger.sqlite');
  writeDecisionLog(decisionLogPath(ledgerPath), seedDecisionRows(10, now - 60_000, 3, PANEL_MODELS, ['edit/typescript']));
  const ledger = await WorkspaceLedger.open({
    path: ledgerPath,
    clock: { now: () => now },
    wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm'),
  });
  ledger.alias(CLOUD_MODEL, CLOUD_SNAPSHOT);
  for (const classKey of ['edit/typescript', 'edit']) {
    for (let index = 0; index < 9; index++)
      ledger.observe([{ model: CHEAP_MODEL, classKey, success: index % 3 !== 0, at: now - 1_000 + index }]);
    for (let index = 0; index < 3; index++) ledger.observe([{ model: CLOUD_SNAPSHOT, classKey, success: true, at: now - 500 + index }]);
  }
  await ledger.close();
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': 'Default Dark Modern' }, null, 2));
}

/**
 * Where each rating row's name broke and where its buttons are: the pieces of the name that were split
 * across lines (a break anywhere but after `/`, `-`, `.`, `:` or `_`), and the buttons not wholly in view.
 */
async function ratingLayout(frame: FrameLocator): Promise<{ model: string; splitPieces: string[]; hiddenButtons: string[] }[]> {
  return frame.locator('section.ratings tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const name = row.querySelector('th');
      const splitPieces: string[] = [];
      // Each line of the name: the characters whose boxes share a top edge.
      const text = name?.textContent ?? '';
      const tops: number[] = [];
      const walker = document.createTreeWalker(name ?? row, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let index = 0; index < (node.textContent ?? '').length; index++) {
          const range = document.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          tops.push(Math.round(range.getBoundingClientRect().top));
        }
      }
      for (let index = 1; index < tops.length; index++) {
        if (tops[index] !== tops[index - 1] && !/[/\-.:_]/.test(text[index - 1] ?? ''))
          splitPieces.push(`${text.slice(Math.max(0, index - 6), index)}|${text.slice(index, index + 6)}`);
      }
      const scroller = row.closest('.table-scroll') ?? document.documentElement;
      const box = scroller.getBoundingClientRect();
      const right = Math.min(box.right, window.innerWidth);
      const hiddenButtons = Array.from(row.querySelectorAll('button'))
        .filter((button) => {
          const own = button.getBoundingClientRect();
          return own.width === 0 || own.left < box.left || own.right > right + 0.5;
        })
        .map((button) => button.getAttribute('aria-label') ?? '?');
      return { model: text, splitPieces, hiddenButtons };
    }),
  );
}

let providers: FakeProviders | undefined;
/** The call the settled-later check gave a late verdict, and how many attempts it made. */
let settledCall: { call: string; attempts: number } | undefined;
const SETTLED_REASON = 'thumbs down';
/** Rows each check's workspace was seeded with (whole calls, so a row or two over what was asked). */
const seededRows = new Map<string, number>();
/** Providers nobody answers on (the discard port): the seeded checks route nothing. */
const offlinePanel = fakePanel({ ollamaUrl: 'http://127.0.0.1:9', cloudUrl: 'http://127.0.0.1:9' });

const checks: E2eCheck[] = [
  {
    name: 'the ledger panel opens on 100k recorded decisions showing one page of them, the ratings against the gate of 8, the spend, and a pruned rung with its reason',
    prepare: async (folder) =>
      void seededRows.set('large', await seedWorkspace(folder, 100_000, offlinePanel, { 'workbench.colorTheme': 'Default Dark Modern' })),
    async run(page, workbench) {
      // Timed from an open session, so the figure is the panel's and not the session's start.
      await page.locator('.part.statusbar', { hasText: /today \$/ }).waitFor({ timeout: PANEL_TIMEOUT_MS });
      const { frame, firstPaintMs } = await openLedger(page, workbench);
      await widen(workbench);
      const total = seededRows.get('large') as number;
      assert.ok(total >= 100_000, `the log held ${total} rows`);
      await assertSeededContent(frame, total);
      mkdirSync(join(repositoryRoot(), 'test-results'), { recursive: true });
      writeFileSync(
        join(repositoryRoot(), 'test-results/panel-first-paint.json'),
        JSON.stringify({ decisions: total, firstPaintMs: Math.round(firstPaintMs) }, null, 2),
      );
      await workbench.screenshot('ledger-panel-dark');
    },
  },
  {
    name: 'the ledger panel reads in a light theme',
    prepare: async (folder) =>
      void seededRows.set('light', await seedWorkspace(folder, 40, offlinePanel, { 'workbench.colorTheme': 'Default Light Modern' })),
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      await assertSeededContent(frame, seededRows.get('light') as number);
      await workbench.screenshot('ledger-panel-light');
    },
  },
  {
    name: 'after a reload that restored the ledger in a background tab, Open Ledger shows one ledger, not a second beside it',
    prepare: async (folder) => void (await seedWorkspace(folder, 40, offlinePanel)),
    async run(page, workbench) {
      await openLedger(page, workbench);
      // Another editor on top: the ledger's tab is restored in the background, not yet brought back.
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').fill('README.md');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'README.md' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor({ timeout: PANEL_TIMEOUT_MS });
      const loaded = page.waitForEvent('load', { timeout: PANEL_TIMEOUT_MS });
      await workbench.runCommand('Developer: Reload Window');
      await loaded;
      await workbench.waitUntilReady();
      const ledgerTabs = page.locator('.tabs-container .tab', { hasText: 'Rung Ledger' });
      await ledgerTabs.first().waitFor({ timeout: PANEL_TIMEOUT_MS });
      await page.locator('.part.statusbar', { hasText: /today \$/ }).waitFor({ timeout: PANEL_TIMEOUT_MS });
      await openLedger(page, workbench);
      assert.equal(await ledgerTabs.count(), 1, 'one Rung Ledger tab after Open Ledger');
      await workbench.screenshot('ledger-panel-one-tab-after-reload');
    },
  },
  {
    name: 'the ledger panel reads in a high-contrast theme, and its filters and calls are reached by keyboard',
    prepare: async (folder) => void (await seedWorkspace(folder, 40, offlinePanel, { 'workbench.colorTheme': 'Default High Contrast' })),
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      const verdict = frame.getByLabel('Verdict');
      const unfiltered = await frame.locator('#page-summary').innerText();
      await verdict.focus();
      await verdict.selectOption('fail');
      // The filtered page, not the one already on screen (which also reads "of N"): reading the list
      // before it arrived once listed the unfiltered page's calls and timed out on one that went away.
      await frame.locator('#page-summary').filter({ hasNotText: unfiltered }).waitFor();
      await frame.locator('ol.calls > li, p.empty').first().waitFor();
      // Every call shown failed somewhere, and is shown whole: one that climbed past a failed rung to a pass keeps that pass.
      const labels: string[] = [];
      for (const call of await frame.locator('ol.calls > li').all()) {
        const label = (await call.locator('summary').getAttribute('aria-label')) ?? '';
        labels.push(label);
        assert.ok((await call.locator('.verdict-fail').count()) > 0, `a call on the page of failures has a failure: "${label}"`);
      }
      assert.ok(
        labels.some((label) => /: pass on .+ after [2-9]\d* attempts/.test(label)),
        `a call that failed a rung and passed the next is on the page whole: ${JSON.stringify(labels)}`,
      );
      // The filter survives the panel being reloaded (its state is the webview's own).
      await workbench.runCommand('Developer: Reload Webviews');
      await ledgerFrame(page).locator('#filter-verdict').waitFor({ timeout: PANEL_TIMEOUT_MS });
      await eventually(
        async () => (await ledgerFrame(page).locator('#filter-verdict').inputValue()) === 'fail',
        'the verdict filter reads "fail" after the reload',
      );
      const first = ledgerFrame(page).locator('ol.calls summary').first();
      if ((await first.count()) > 0) {
        await first.focus();
        await page.keyboard.press('ArrowDown');
        await eventually(
          () =>
            ledgerFrame(page)
              .locator('ol.calls summary')
              .nth(1)
              .evaluate((element) => element === document.activeElement),
          'ArrowDown moves to the next call',
          PANEL_TIMEOUT_MS,
        );
      }
      await workbench.screenshot('ledger-panel-high-contrast');
    },
  },
  {
    name: 'the ratings show a class and its one shape once, saying so, and name each model as the panel does',
    prepare: seedOneShape,
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      const ratings = frame.locator('section.ratings');
      await ratings.locator('tbody th', { hasText: CHEAP_MODEL }).first().waitFor({ timeout: PANEL_TIMEOUT_MS });
      const headings = await ratings
        .locator('h3')
        .evaluateAll((elements) => elements.map((element) => element.firstChild?.textContent ?? ''));
      assert.deepEqual(headings, ['edit = edit/typescript'], 'edit and edit/typescript hold the same rows: one table');
      assert.equal(await ratings.locator('table').count(), 1);
      await ratings.getByText('Every graded edit call so far was edit/typescript, so both keys hold these same ratings.').waitFor();
      // The cloud model's rating is keyed by its snapshot in the ledger; on screen it has the one name the ladder and the picker use.
      await ratings.locator('tbody th', { hasText: CLOUD_MODEL }).first().waitFor();
      assert.equal(await ratings.getByText('2026-01-01').count(), 0, 'the snapshot name is not shown as a second name');
      assert.equal(
        await ratings.getByRole('button', { name: 'Reset every rating at edit/typescript' }).count(),
        1,
        'the folded key can still be reset',
      );
      await ratings.scrollIntoViewIfNeeded();
      await workbench.screenshot('ledger-panel-one-shape');
    },
  },
  {
    name: 'the ratings table beside the open Chat view breaks long model names only after a separator and keeps pin and avoid in view',
    prepare: seedLongNames,
    async run(page, workbench) {
      await page.locator('.part.auxiliarybar').waitFor({ timeout: PANEL_TIMEOUT_MS });
      const { frame } = await openLedger(page, workbench);
      // Explorer closed, Chat view left open (this check is about it): the panel lays out in two columns and the ratings sit in the narrow one.
      await workbench.runCommand('View: Close Primary Side Bar');
      const ratings = frame.locator('section.ratings');
      for (const model of LONG_MODELS)
        await ratings.locator('tbody th', { hasText: model.slug }).first().waitFor({ timeout: PANEL_TIMEOUT_MS });
      const width = await frame.locator('section.ratings').evaluate((element) => Math.round(element.getBoundingClientRect().width));
      await ratings.scrollIntoViewIfNeeded();
      await workbench.screenshot('ledger-panel-narrow-ratings');
      const layout = await ratingLayout(frame);
      console.log(`ratings column ${width}px wide: ${JSON.stringify(layout)}`);
      assert.ok(width < 420, `the ratings column is narrow beside the Chat view (${width}px)`);
      assert.equal(layout.length, LONG_MODELS.length);
      for (const row of layout) {
        assert.deepEqual(row.splitPieces, [], `${row.model} broke mid-word`);
        assert.deepEqual(row.hiddenButtons, [], `${row.model}: buttons out of view`);
      }
    },
  },
  {
    name: 'a call whose provider error is 3 MiB long and whose model id is 600 characters shows like any other, each cut with a mark saying how long it was',
    async prepare(folder) {
      await seedWorkspace(folder, 10, offlinePanel, { 'workbench.colorTheme': 'Default Dark Modern' });
      // As an older Rung, another tool or a team member could have written it: neither field bounded.
      const [row] = seedDecisionRows(1, Date.now(), 9, [PANEL_MODELS[1] as SeedModel], ['plan']);
      assert.ok(row, 'a row was seeded');
      const huge: DecisionRow = {
        ...row,
        at: Date.now(),
        call: 'c-huge',
        rung: 0,
        candidates: [CLOUD_MODEL],
        verdict: 'provider-error',
        verdictReason: `provider-error: HTTP 500 ${'E'.repeat(HUGE_ERROR_CHARS - 25)}`,
        resolved: LONG_MODEL_ID,
        final: false,
      };
      appendFileSync(join(folder, '.rung', 'decisions.jsonl'), `${JSON.stringify(huge)}\n`);
      const now = Date.now();
      const ledger = await WorkspaceLedger.open({
        path: join(folder, '.rung', 'ledger.sqlite'),
        clock: { now: () => now },
        wasmPath: join(repositoryRoot(), 'dist/sql-wasm.wasm'),
      });
      ledger.observe([{ model: LONG_MODEL_ID, classKey: 'plan', success: true, at: now }]);
      await ledger.close();
    },
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      const call = frame.locator('ol.calls > li', { hasText: 'HTTP 500' }).first();
      const reason = call.locator('.reason', { hasText: 'HTTP 500' }).first();
      await reason.waitFor({ timeout: PANEL_TIMEOUT_MS });
      assert.match(await reason.innerText(), new RegExp(`EEEE… \\[truncated, ${HUGE_ERROR_CHARS.toLocaleString('en')} characters\\]$`));
      assert.match(
        await call.locator('.resolved').first().innerText(),
        /^served by vendor\/mmmm.*… \[truncated, 600 characters, #[0-9a-f]{8}\]$/s,
      );
      const rating = frame.locator('section.ratings tbody th', { hasText: '[truncated, 600 characters' }).first();
      await rating.waitFor({ timeout: PANEL_TIMEOUT_MS });
      assert.ok((await frame.locator('section.ratings tbody tr').count()) >= 3, 'the other ratings are there too');
      const overflow = await frame
        .locator('body')
        .evaluate((body) => body.ownerDocument.documentElement.scrollWidth - body.ownerDocument.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the view: an unbroken text ran past it`);
      await call.scrollIntoViewIfNeeded();
      await workbench.screenshot('ledger-panel-huge-error-long-model');
    },
  },
  {
    name: "calls a replay wrote into the workspace's decision log are labelled as a replay of their policy",
    async prepare(folder) {
      await seedWorkspace(folder, 10, offlinePanel, { 'workbench.colorTheme': 'Default Dark Modern' });
      // As `rung replay --ledger .rung/ledger.sqlite --policy open=…` appends them: on the simulated clock.
      const replayed = seedDecisionRows(4, Date.UTC(2026, 0, 1), 5, PANEL_MODELS, ['plan']).map((row) => ({
        ...row,
        call: `replay-1a2b3c4d/${row.call}`,
        source: 'replay',
        policy: `open=${CHEAP_MODEL}`,
      }));
      appendFileSync(join(folder, '.rung', 'decisions.jsonl'), replayed.map((row) => `${JSON.stringify(row)}\n`).join(''));
    },
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      const badge = frame.locator('ol.calls summary .replay').first();
      await badge.waitFor({ timeout: PANEL_TIMEOUT_MS });
      assert.equal(await badge.innerText(), `replay of open=${CHEAP_MODEL}`);
      const routed = await frame.locator('ol.calls summary:not(:has(.replay))').count();
      assert.ok(routed > 0, 'the routed calls on the page carry no replay label');
      await badge.scrollIntoViewIfNeeded();
      await workbench.screenshot('ledger-panel-replay');
    },
  },
  {
    name: 'a verdict settled a page of calls later shows with its call on the older page, marked settled later, and not on its own on the newest',
    async prepare(folder) {
      await seedWorkspace(folder, 60, offlinePanel, { 'workbench.colorTheme': 'Default Dark Modern' });
      // The oldest call's thumbs down, written now as the router's settle writes it: after every other call.
      const log = join(folder, '.rung', 'decisions.jsonl');
      const rows = decisionRows(folder);
      const oldest = rows.filter((row) => row.call === rows[0]?.call);
      const last = oldest.at(-1) as DecisionRow;
      settledCall = { call: last.call, attempts: oldest.length };
      const verdict: DecisionRow = {
        ...last,
        at: Date.now(),
        verdict: 'fail',
        verdictReason: SETTLED_REASON,
        final: true,
        pruned: [],
        candidates: [],
        escalation: [],
      };
      appendFileSync(log, `${JSON.stringify(verdict)}\n`);
    },
    async run(page, workbench) {
      const { frame } = await openLedger(page, workbench);
      await widen(workbench);
      const settled = settledCall as { call: string; attempts: number };
      const summaries = frame.locator('ol.calls > li summary');
      const newest = await summaries.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? ''));
      assert.ok(newest.length > 0, 'the newest page lists calls');
      for (const label of newest) assert.doesNotMatch(label, /after 0 attempts/, 'no call on the newest page is a verdict on its own');
      assert.equal(
        await frame.locator('ol.calls .verdict', { hasText: 'settled later' }).count(),
        0,
        'the settled call is not on the newest page',
      );
      const first = await frame.locator('#page-summary').innerText();
      await frame.getByRole('button', { name: 'Show older decisions' }).click();
      await frame.locator('#page-summary').filter({ hasNotText: first }).waitFor({ timeout: PANEL_TIMEOUT_MS });
      const badge = frame.locator('ol.calls summary .verdict', { hasText: 'fail (settled later)' });
      await eventually(
        async () => (await badge.count()) === 1,
        'the older page holds the settled call once, marked settled later',
        PANEL_TIMEOUT_MS,
      );
      const call = frame.locator('ol.calls > li', { has: frame.locator('summary .verdict', { hasText: 'fail (settled later)' }) });
      const label = (await call.locator('summary').getAttribute('aria-label')) ?? '';
      assert.match(
        label,
        new RegExp(`: fail on .+ after ${settled.attempts} attempt`),
        `the settled call keeps its ${settled.attempts} attempt(s): "${label}"`,
      );
      // Routed first of the seeded calls, it is the last call of the older page.
      assert.equal(
        await frame.locator('ol.calls > li').last().locator('summary .verdict', { hasText: 'settled later' }).count(),
        1,
        'the settled call sits where it was routed, oldest on its page',
      );
      await call.locator('summary').click();
      assert.match(await call.locator('p.facts').innerText(), new RegExp(`Settled later: fail \\(${SETTLED_REASON}\\)`));
      await call.scrollIntoViewIfNeeded();
      await workbench.screenshot('ledger-panel-settled-later');
      // "Newer" asks for the page that ends where this one starts: back to exactly the first page.
      await frame.getByRole('button', { name: 'Show newer decisions' }).click();
      await frame.locator('#page-summary', { hasText: first }).waitFor({ timeout: PANEL_TIMEOUT_MS });
    },
  },
  {
    name: 'a call routed while the ledger panel is open appears in it as it happens',
    async prepare(folder) {
      providers = await startFakeProviders();
      await seedWorkspace(folder, 20, fakePanel(providers));
    },
    async run(page, workbench) {
      try {
        // A file open first, so that moving the panel to its own group leaves this group (where the answer opens) in place.
        await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).click();
        await page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor();
        const { frame } = await openLedger(page, workbench);
        const before = await frame.locator('#page-summary').innerText();
        const totalBefore = Number(/of ([\d,]+)/.exec(before)?.[1]?.replace(/,/g, ''));
        await workbench.runCommand('View: Move Editor into Right Group');
        await workbench.runCommand('View: Focus First Editor Group');
        await ask(page, workbench, 'What is six times seven?');
        const after = ledgerFrame(page).locator('#page-summary', { hasText: new RegExp(`of ${(totalBefore + 1).toLocaleString('en')}`) });
        await after.waitFor({ timeout: PANEL_TIMEOUT_MS });
        const newest = ledgerFrame(page).locator('ol.calls > li').first();
        assert.match(await newest.locator('summary .class-key').innerText(), /^chat/);
        assert.ok((providers?.requests.length ?? 0) > 0, 'the call reached a fake provider');
        await workbench.hideSecondarySideBar();
        await workbench.screenshot('ledger-panel-live');
      } finally {
        await providers?.close();
        providers = undefined;
      }
    },
  },
];
export default checks;
