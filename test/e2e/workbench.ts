/**
 * What a browser check gets: a Playwright page on a fresh VS Code workbench, and the moves a user makes.
 *
 * @remarks
 * Each `test/e2e/*.e2e.ts` file default-exports one `E2eCheck` or a list of them; `npm run test:host`
 * finds them when it builds, opens a fresh copy of `test/fixtures/workspace` for each (with Rung loaded
 * from the repository as the extension under development, or installed from its .vsix for a check marked
 * `installed`) and counts a check that throws as failed.
 * The selectors are VS Code 1.139's, as E2E.md lists them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { scaled } from '../timeScale';

/**
 * How long a move waits for the workbench to show what it expects (every limit here scales: test/timeScale.ts).
 * A minute: with both cores busy at load 27 the palette did not list Rung's commands within 20 s of the window.
 */
const UI_TIMEOUT_MS = scaled(60_000);
/** How long to let the palette settle before typing the query again. */
const PALETTE_RETRY_MS = 500;
/** How long one try at opening or typing into the palette may take before it is tried again. */
const PALETTE_STEP_MS = scaled(5_000);

/** How long the Chat view may take to show its input: on a first run it starts with the window. */
const CHAT_OPEN_TIMEOUT_MS = scaled(60_000);
/** How long a sent chat has to show its request before Enter is pressed again, and how often at most. */
const ENTER_TAKEN_MS = scaled(5_000);
const ENTER_PRESSES = 3;

/** How often {@link eventually} looks again. */
const POLL_MS = 100;

/**
 * Sets `provider`'s key through Rung: Set Provider Key, as a user types it in the palette; `timeoutMs`
 * is how long the command may take to show its own quick pick.
 */
export async function setProviderKey(page: Page, provider: string, key: string, timeoutMs: number = UI_TIMEOUT_MS): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.fill('>Rung: Set Provider Key');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Rung: Set Provider Key' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Rung: Set Provider Key' }).waitFor({ timeout: timeoutMs });
  await input.fill(provider);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: `${provider} key` }).waitFor();
  await input.fill(key);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/**
 * Waits until `holds` answers true, or fails with `what` after `timeoutMs`.
 *
 * @remarks
 * For what a page reaches in more than one render — a webview first paints from its saved state and
 * again when the host's page arrives — where reading it once races the second render.
 */
export async function eventually(holds: () => Promise<boolean>, what: string, timeoutMs: number = UI_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** One browser check. */
export interface E2eCheck {
  /** A sentence about what a user sees, e.g. 'the palette lists the Rung commands'. */
  name: string;
  /** Runs before the workbench opens; may write files (a panel, settings) into the fresh workspace copy. */
  prepare?(folder: string): void | Promise<void>;
  /**
   * Runs where Rung is installed from its packaged .vsix and VS Code runs without its test driver, as a
   * user has them: notifications show as toasts (the driver hides them all), and whatever the package
   * leaves out is missing. Without it, the window loads the repository as the extension under development.
   */
  installed?: boolean;
  /**
   * Runs on a folder nobody trusted, in Restricted Mode as VS Code opens such a folder when workspace
   * trust is on (the trust prompt off, as for a user who dismissed it), with Rung installed as for
   * `installed`, so its toasts show. Implies `installed`.
   */
  untrusted?: boolean;
  /**
   * How long the check may take, workbench load included, ms; the host's limit for one check (3 min)
   * when absent. For a check that is a whole session of requests (a morning's work), each waiting on
   * the editor's own agent first.
   */
  timeoutMs?: number;
  run(page: Page, workbench: Workbench): Promise<void>;
}

export class Workbench {
  constructor(
    readonly page: Page,
    /** The absolute path of this check's workspace copy, open in the workbench. */
    readonly folder: string,
    private readonly screenshots: string,
  ) {}

  /** Resolves once the workbench's layout is on the page. */
  async waitUntilReady(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: scaled(60_000) });
    await this.page.locator('.part.statusbar').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /**
   * Opens the command palette with `>query` typed in and returns the labels it lists.
   *
   * @remarks
   * Right after the workbench appears, the palette may not know the extensions' commands yet and it
   * does not re-filter when they arrive, so an empty answer is asked again until `UI_TIMEOUT_MS`.
   */
  async paletteRows(query: string): Promise<string[]> {
    const rows = await this.filterPalette(query, (labels) => !isEmptyPalette(labels));
    await this.closePalette();
    return rows;
  }

  /** Runs the palette command whose title is `title` (with its category, e.g. 'Rung: Show Log'). */
  async runCommand(title: string): Promise<void> {
    const labels = await this.filterPalette(title, (found) => found.some((label) => label.includes(title)));
    if (!labels.some((label) => label.includes(title))) {
      await this.closePalette();
      throw new Error(`the palette has no command "${title}"; for that text it listed ${JSON.stringify(labels)}`);
    }
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /**
   * Runs the palette command `title` and waits for `shown`, what the command puts on screen; runs it a
   * second time if that did not appear within `firstTryMs`, and says so on the log.
   *
   * @remarks
   * For commands that show something and may be run twice without harm (Show Log). In some full runs,
   * late in the suite, Rung: Show Log in a fresh window opened no panel ("the panel is closed"). Measured
   * on 2026-12-02: the palette then lists the command as recently used (the click was taken), and after
   * the second run the log holds two "the log was asked for" lines (Rung's command ran and wrote its line
   * both times): the workbench dropped the first reveal. That happened in 2 of 6 fresh windows at the end
   * of one full run, in none of 6 in the next, and in none of 16 fresh windows run without the suite
   * before them; why the workbench drops it is not known. A second miss fails the check, with what the
   * panel showed, so a command that really shows nothing still fails.
   */
  async runCommandUntil(
    title: string,
    shown: Locator,
    firstTryMs = scaled(10_000),
    secondTryMs = UI_TIMEOUT_MS,
  ): Promise<'first run' | 'second run'> {
    await this.runCommand(title);
    if (
      await shown.waitFor({ timeout: firstTryMs }).then(
        () => true,
        () => false,
      )
    )
      return 'first run';
    await this.screenshot(`missed-${title.replace(/\W+/g, '-').toLowerCase()}`);
    const panel = await this.panelText();
    // The palette lists a command it ran under "recently used": whether the click was taken at all.
    const recent = (await this.paletteRows('')).slice(0, 3);
    console.log(
      `        (ran "${title}" again: after ${firstTryMs} ms the first run showed nothing; the panel held ${JSON.stringify(panel)}; the palette's first rows: ${JSON.stringify(recent)})`,
    );
    await this.runCommand(title);
    try {
      await shown.waitFor({ timeout: secondTryMs });
      return 'second run';
    } catch (error) {
      throw new Error(`"${title}" ran twice and did not show what was expected; the panel held ${JSON.stringify(await this.panelText())}`, {
        cause: error,
      });
    }
  }

  /** The bottom panel's text (the Output view and its channel picker), or a note that it is closed. */
  private async panelText(): Promise<string> {
    const panel = this.page.locator('.part.panel');
    if (!(await panel.isVisible())) return '(the panel is closed)';
    const channel = await panel
      .locator('select')
      .first()
      .inputValue({ timeout: scaled(1_000) })
      .catch(() => undefined);
    const text = ((await panel.textContent()) ?? '').replace(/\s+/g, ' ').slice(0, 600);
    return channel === undefined ? text : `channel ${channel}: ${text}`;
  }

  /**
   * Types `text` into the Chat view's input and sends it, and waits until the chat shows it as a request.
   *
   * @remarks
   * Typed and sent in one breath, a message was lost once under load (the call it should have started
   * never reached the model server): the `@` and `/` completions can open late, and an Enter that lands
   * on an open suggestion accepts it instead of sending. So the text is checked to be in the input, an
   * open suggestion list is closed, and the send is confirmed by the request appearing in the chat.
   * After an answer from a participant the input keeps that participant (`@rung`) for the next
   * message, so a message naming it again is typed without the name.
   */
  async sendChat(text: string): Promise<void> {
    const input = this.page.locator('.interactive-input-part .monaco-editor').first();
    if (!(await input.isVisible())) await this.runCommand('Chat: Open Chat');
    await input.waitFor({ timeout: CHAT_OPEN_TIMEOUT_MS });
    // The Chat view's list is virtual: once a conversation outgrows the view, rows scrolled away leave
    // the page, so the count of requests on it can stand still as one is sent, while the newest row's
    // index grows. In a new chat the index starts again from 0 while the count grows: either says it.
    const lastRequest = async (): Promise<number> =>
      this.page.evaluate(() => {
        let last = -1;
        document.querySelectorAll('.monaco-list-row[data-index]').forEach((row) => {
          if (row.querySelector('.interactive-item-container.interactive-request'))
            last = Math.max(last, Number(row.getAttribute('data-index')));
        });
        return last;
      });
    const requests = this.page.locator('.interactive-item-container.interactive-request');
    const before = { last: await lastRequest(), count: await requests.count() };
    const lines = input.locator('.view-lines');
    const typed = async (): Promise<string> => ((await lines.textContent()) ?? '').replace(/\u00a0/g, ' ');
    const participant = /^@\S+ /.exec(text)?.[0];
    const kept = participant !== undefined && (await typed()).trim() === participant.trim();
    await input.click();
    await this.page.keyboard.press('End');
    await this.page.keyboard.type(kept ? text.slice(participant.length) : text);
    await eventually(
      async () => (await typed()).replace(/\s+/g, ' ').includes(text),
      `the chat input holds "${text}" (it holds "${await typed()}")`,
    );
    // The suggestions may render outside the input's editor (an overflow widget), so look page-wide.
    const suggestions = this.page.locator('.suggest-widget.visible');
    const sent = async (): Promise<boolean> => (await lastRequest()) > before.last || (await requests.count()) > before.count;
    // A slash command's suggestions can open just after the look and take the Enter (once in CI the text
    // stayed in the input and nothing was sent): while the text is still there and nothing went, look and
    // press again.
    for (let press = 1; ; press++) {
      if (await suggestions.isVisible()) await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('Enter');
      const last = press === ENTER_PRESSES;
      try {
        await eventually(sent, `the chat shows "${text}" as sent`, last ? CHAT_OPEN_TIMEOUT_MS : ENTER_TAKEN_MS);
        return;
      } catch (error) {
        if (last) throw error;
        // The input emptied: that Enter was taken, and the request is still on its way.
        if (!(await typed()).replace(/\s+/g, ' ').includes(text)) {
          await eventually(sent, `the chat shows "${text}" as sent`, CHAT_OPEN_TIMEOUT_MS);
          return;
        }
      }
    }
  }

  /**
   * Waits for a notification toast containing `text` to finish appearing, and returns it.
   *
   * @remarks
   * Only in a window of a check marked `installed`: VS Code's test driver, under which the other
   * windows run, shows no toast at all (codeServer.ts).
   */
  async waitForNotification(text: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const toast = this.page.locator('.notification-toast.notification-fade-in-done', { hasText: text }).first();
    await toast.waitFor({ timeout: timeoutMs });
    return toast;
  }

  /**
   * Hides the secondary side bar, where the workbench opens the Chat view on a first run, and waits until it is gone.
   *
   * @remarks
   * For screenshots of an editor (the ledger panel) at the width a user reading it would give it. The
   * workspace setting `workbench.secondarySideBar.defaultVisibility: hidden` did not keep it closed on
   * 1.139: the ledger panel's screenshots showed the Chat view taking a fifth of the window beside it.
   */
  async hideSecondarySideBar(): Promise<void> {
    const bar = this.page.locator('.part.auxiliarybar');
    if (await bar.isVisible()) await this.runCommand('View: Hide Secondary Side Bar');
    await bar.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /** Saves what the user sees as `test-results/screenshots/NAME.png` and returns the path. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(this.screenshots, { recursive: true });
    const path = join(this.screenshots, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /** Types `>text` into the palette until `enough` accepts the labels listed, or time runs out; returns the last labels. */
  private async filterPalette(text: string, enough: (labels: string[]) => boolean): Promise<string[]> {
    const deadline = performance.now() + UI_TIMEOUT_MS;
    let labels: string[] = [];
    do {
      const input = await this.openPalette();
      // A palette that closes under the typing (a webview took focus back) is opened again rather than
      // waited on: seen once in CI as a 30 s wait on an input that was no longer visible.
      // Emptied first: the same text typed again would not make the palette filter again.
      const typed = await input
        .fill('', { timeout: PALETTE_STEP_MS })
        .then(() => input.fill(`>${text}`, { timeout: PALETTE_STEP_MS }))
        .then(() => true)
        .catch(() => false);
      if (typed) {
        const rows = this.page.locator('.quick-input-list .monaco-list-row');
        await rows.first().waitFor({ timeout: UI_TIMEOUT_MS });
        labels = await rows.evaluateAll((elements) =>
          elements.map((element) => element.getAttribute('aria-label') ?? element.textContent ?? ''),
        );
        if (enough(labels)) return labels;
      }
      await this.page.waitForTimeout(PALETTE_RETRY_MS);
    } while (performance.now() < deadline);
    return labels;
  }

  private async closePalette(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /**
   * Opens the command palette and returns its input.
   *
   * @remarks
   * When focus is in a webview, F1 may not reach the workbench, and a palette opened while an editor
   * moves between groups can be inert for a moment; so it tries again, with Ctrl+Shift+P every other time.
   */
  async openPalette(): Promise<Locator> {
    const input = this.page.locator('.quick-input-widget input');
    // isVisible answers at once; isEditable waits for an element that is not there, so it is asked second.
    const ready = async () => (await input.isVisible()) && (await input.isEditable({ timeout: scaled(500) }).catch(() => false));
    for (let attempt = 0; attempt < 4 && !(await ready()); attempt++) {
      await this.page.keyboard.press(attempt % 2 === 0 ? 'F1' : 'Control+Shift+P');
      await input.waitFor({ timeout: PALETTE_STEP_MS }).catch(() => undefined);
    }
    return input;
  }
}

function isEmptyPalette(labels: string[]): boolean {
  return labels.length === 0 || (labels.length === 1 && labels[0] === 'No matching commands');
}
