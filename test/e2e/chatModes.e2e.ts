/**
 * Rung Auto in each way the editor's chat calls it, and `@rung`, as a daily user meets them: Ask mode
 * with its read-only tools, Agent mode's editing turn, a follow-up that says the answer was wrong, inline
 * chat's edit, `@rung /edit` of a whole file and `@rung` with a large file attached.
 *
 * @remarks
 * Each check asserts what the user reads (the answer, the short line, what is folded away) against what
 * Rung recorded (the decision log) and what the model servers were sent (the tools, the prompt).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import { CHEAP_MODEL, CLOUD_MODEL, type FakeProviders } from '../integration/support/fakeProviders';
import { scaled } from '../timeScale';
import {
  ANSWER_TIMEOUT_MS,
  GREETING_LINE,
  goToLine,
  openGreeting,
  openInlineChat,
  rungAnswer,
  setCloudKey,
  SIX_TIMES_SEVEN,
  waitForRow,
  WELCOME_LINE,
  welcomeEdit,
  withProviders,
  foldedText,
  foldShut,
  shownText,
} from './rung.e2e';
import { eventually, type E2eCheck, type Workbench } from './workbench';

/** The tools Ask mode sent in VS Code 1.139 (test/fixtures/agent/SOURCES.md): the names each request must carry. */
const ASK_MODE_TOOLS = (
  JSON.parse(readFileSync(join(repositoryRoot(), 'test', 'fixtures', 'agent', 'vscode-1.139-ask-mode-tools.json'), 'utf8')) as {
    name: string;
  }[]
).map((tool) => tool.name);

/** A right answer to "write formatCents", and a broken one (its template literal never closes). */
const FORMAT_CENTS = 'export function formatCents(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}';
const PARSE_PRICE_BROKEN =
  'export function parsePrice(text: string): number {\n  return Math.round(Number(text.replace(`$`, ``)) * 100;\n}';
const PARSE_PRICE = "export function parsePrice(text: string): number {\n  return Math.round(Number(text.replace('$', '')) * 100);\n}";

/** The text of every model request a fake server was sent, for finding one by the words it carried. */
function sentWith(providers: FakeProviders, server: 'ollama' | 'cloud', words: string): Record<string, unknown>[] {
  const path = server === 'ollama' ? '/api/chat' : '/v1/chat/completions';
  return providers.requests
    .filter((request) => request.server === server && request.path === path && JSON.stringify(request.body).includes(words))
    .map((request) => request.body);
}

/** The names of the tools a request to a model carried. */
function toolNames(body: Record<string, unknown> | undefined): string[] {
  return ((body?.tools ?? []) as { function?: { name?: string } }[]).map((tool) => tool.function?.name ?? '');
}

/** Whether a model request carries a tool's result: a later step of an agent's turn. */
function hasToolResult(body: Record<string, unknown>): boolean {
  return ((body.messages ?? []) as { role?: string }[]).some((message) => message.role === 'tool');
}

/**
 * Picks a mode in the Chat view's mode picker.
 *
 * @remarks
 * In VS Code 1.139 without a Copilot sign-in, the picker lists only Agent until the chat extension has
 * answered a first request (its Ask and Plan agents register then): the checks that need Ask send one
 * question first, as a user opening the Chat view would.
 */
async function switchMode(page: Page, mode: string): Promise<void> {
  const deadline = performance.now() + ANSWER_TIMEOUT_MS;
  for (;;) {
    await page.locator('.interactive-input-part .chat-mode-picker-item').first().click();
    const row = page.locator('.action-widget .monaco-list-row', { hasText: new RegExp(`^${mode}`) }).first();
    if (
      await row.waitFor({ timeout: 3_000 }).then(
        () => true,
        () => false,
      )
    ) {
      await row.click();
      await page.locator('.interactive-input-part .chat-mode-picker-item', { hasText: mode }).first().waitFor();
      return;
    }
    await page.keyboard.press('Escape');
    if (performance.now() > deadline) throw new Error(`the mode picker never listed ${mode}`);
    await page.waitForTimeout(1_000);
  }
}

/** The newest Chat view response, once its short line (`Rung · …`) holds `line`. */
async function responseWithLine(page: Page, line: string | RegExp): Promise<Locator> {
  const response = page.locator('.interactive-item-container.interactive-response').last();
  await response.locator('.chat-markdown-part', { hasText: line }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
  return response;
}

/** Wakes the Chat view's own agent with a first question, so its modes are listed, and waits for Rung's answer. */
async function firstQuestion(page: Page, workbench: Workbench): Promise<void> {
  await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
  await workbench.sendChat('What is six times seven?');
  await responseWithLine(page, `Rung · ${CHEAP_MODEL}`);
}

function askModeWritesCode(): E2eCheck {
  return withProviders(
    'Ask mode: a request to write a function is answered with code, checked as code with the 19 tools Ask mode really sends; a broken one climbs, its failed attempt folded away',
    async (page, workbench, providers) => {
      await setCloudKey(page, workbench);
      await firstQuestion(page, workbench);
      await switchMode(page, 'Ask');
      // A right answer: it passes its check on the first rung, as code, with no tool call asked of it.
      await workbench.sendChat('Write a TypeScript function formatCents(cents) that formats cents as dollars.');
      const right = await responseWithLine(page, `Rung · ${CHEAP_MODEL} · rung 1 of 2 · checked: TypeScript syntax · $0`);
      const formatted = /export function formatCents\(cents: number\): string/;
      assert.match(await shownText(right, formatted), formatted);
      const passed = await waitForRow(workbench, 'formatCents', (row) => row.model === CHEAP_MODEL && row.class === 'edit');
      assert.deepEqual([passed.verdict, passed.checks], ['pass', ['TypeScript syntax']]);
      const asked = sentWith(providers, 'ollama', 'formatCents');
      assert.deepEqual(toolNames(asked[0]), ASK_MODE_TOOLS, 'Ask mode sent the 19 tools it was recorded sending');
      assert.equal(sentWith(providers, 'cloud', 'formatCents').length, 0, 'the right answer was not asked of the cloud model');
      await workbench.screenshot('modes-ask-write-function');
      // A wrong answer: it fails its check, the call climbs, and the broken code is folded away with the climb.
      await workbench.sendChat('Write a TypeScript function parsePrice(text) that reads a dollar price as cents.');
      const climbed = await responseWithLine(
        page,
        `Rung · ${CLOUD_MODEL} · 2nd try, after ${CHEAP_MODEL} failed its check · checked: TypeScript syntax`,
      );
      const parsed = /Math\.round\(Number\(text\.replace\('\$', ''\)\) \* 100\)/;
      const shown = await shownText(climbed, parsed);
      assert.match(shown, parsed);
      assert.doesNotMatch(shown, /replace\(`\$`/, `the broken attempt is not in the answer: ${shown}`);
      const folded = await foldedText(climbed);
      assert.ok(folded !== '', 'the climb is folded away with the steps');
      if (!foldShut(folded)) assert.match(folded, new RegExp(`${CHEAP_MODEL} failed its check \\(.*syntax error`));
      const failed = await waitForRow(workbench, 'parsePrice', (row) => row.model === CHEAP_MODEL && row.verdict === 'fail');
      assert.match(failed.verdictReason ?? '', /syntax error/);
      assert.equal(
        (await waitForRow(workbench, 'the climb', (row) => row.call === failed.call && row.model === CLOUD_MODEL)).verdict,
        'pass',
      );
      await workbench.screenshot('modes-ask-broken-function-climbed');
    },
    (providers) => {
      providers.cheapAnswer = (body) => {
        const text = JSON.stringify(body.messages ?? []);
        if (text.includes('parsePrice')) return `Here it is:\n\`\`\`ts\n${PARSE_PRICE_BROKEN}\n\`\`\`\n`;
        if (text.includes('formatCents')) return `Here it is:\n\`\`\`ts\n${FORMAT_CENTS}\n\`\`\`\n`;
        return SIX_TIMES_SEVEN;
      };
      providers.cloudAnswer = () => `Here it is:\n\`\`\`ts\n${PARSE_PRICE}\n\`\`\`\n`;
    },
    // Every tool Ask mode offers reaches the model, so the model server sees the 19 the editor sent:
    // by default (rung.agentTools "relevant") Rung sends only those the request's words call for.
    (rungFolder) => {
      mkdirSync(join(rungFolder, '..', '.vscode'), { recursive: true });
      writeFileSync(join(rungFolder, '..', '.vscode', 'settings.json'), `${JSON.stringify({ 'rung.agentTools': 'all' })}\n`);
    },
  );
}

function agentModeTurnLine(): E2eCheck {
  return withProviders(
    "Agent mode: after an edit turn, the turn's line names the edit's model, what was checked and the turn's cost, not the summing-up step's",
    async (page, workbench, providers) => {
      await setCloudKey(page, workbench);
      await openGreeting(page);
      await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
      await workbench.sendChat('Make the greeting in greeting.ts say welcome.');
      // The turn: the small model's text fails the tool-call check, the cloud model's edit passes, and
      // the small model sums up once the edit is made.
      const response = await responseWithLine(
        page,
        `Rung · this turn: 2 steps, by ${CLOUD_MODEL} and ${CHEAP_MODEL}; ${CHEAP_MODEL} failed its check once · checked: tool call, tool call arguments · $0.0005`,
      );
      const shown = await shownText(response, /The greeting now says welcome\./);
      assert.match(shown, /The greeting now says welcome\./);
      const edit = await waitForRow(workbench, 'the edit', (row) => row.model === CLOUD_MODEL && row.verdict === 'pass');
      const summary = await waitForRow(workbench, 'the summing-up step', (row) => row.model === CHEAP_MODEL && row.call !== edit.call);
      assert.equal(summary.verdict, 'unverified');
      assert.equal(
        sentWith(providers, 'ollama', 'say welcome').filter(hasToolResult).length,
        1,
        'the summing-up step was asked once, with the edit tool result',
      );
      await eventually(
        async () => readFileSync(join(workbench.folder, 'src', 'greeting.ts'), 'utf8').includes(WELCOME_LINE),
        'the edit is in the file',
        ANSWER_TIMEOUT_MS,
      );
      await workbench.screenshot('modes-agent-turn-line');
    },
    (providers) => {
      providers.cheapAnswer = (body) =>
        hasToolResult(body) ? 'Done: The greeting now says welcome.' : 'You could change the string to say welcome.';
      providers.cloudToolCall = (body) => (hasToolResult(body) ? undefined : welcomeEdit(body));
    },
  );
}

function saidWrongClimbs(): E2eCheck {
  return withProviders(
    '"That\'s wrong" after a Rung Auto answer climbs past the model that gave it, and the line says so',
    async (page, workbench, providers) => {
      await setCloudKey(page, workbench);
      await firstQuestion(page, workbench);
      const first = await waitForRow(workbench, 'the first answer', (row) => row.model === CHEAP_MODEL);
      await workbench.sendChat("That's wrong.");
      const corrected = await responseWithLine(page, `Rung · ${CLOUD_MODEL} · asked again after you said ${CHEAP_MODEL} was wrong`);
      assert.match(await shownText(corrected, /The answer is 42\./), /The answer is 42\./);
      const settled = await waitForRow(workbench, 'the first answer settled', (row) => row.call === first.call && row.final === true);
      assert.deepEqual([settled.verdict, settled.verdictReason], ['fail', "the user's next message said the answer was wrong"]);
      const again = await waitForRow(workbench, 'the correction', (row) => row.model === CLOUD_MODEL);
      assert.deepEqual(again.pruned, [
        { model: CHEAP_MODEL, reason: `pruned: not above ${CHEAP_MODEL} on the ladder (a stronger model was asked for)` },
      ]);
      assert.equal(sentWith(providers, 'ollama', "That's wrong").length, 0, 'the small model was not asked to correct itself');
      await workbench.screenshot('modes-said-wrong-climbs');
    },
    (providers) => {
      providers.cheapAnswer = () => SIX_TIMES_SEVEN;
      providers.cloudAnswer = () => 'The answer is 42.';
    },
  );
}

/** greeting.ts as the fixture holds it, with its return line `line`. */
function greetingFile(line: string): string {
  return `/** A small TypeScript file for the extension-host tests and the browser checks to open and edit. */\nexport function greeting(name: string): string {\n  ${line}\n}\n`;
}

function rungEditApplies(): E2eCheck {
  return withProviders(
    '@rung /edit of a whole file: the small model\'s file missing its last brace fails in place and climbs, and "Show Diff and Apply" applies the strong model\'s edit',
    async (page, workbench) => {
      await setCloudKey(page, workbench);
      await openGreeting(page);
      await workbench.sendChat('@rung /edit make the greeting say welcome');
      const response = await rungAnswer(page, 'Welcome.');
      const text = ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
      assert.match(
        text,
        new RegExp(
          `Tried before it: ${CHEAP_MODEL} \\(fail: .*the file does not parse with the edit in place.*Rung · ${CLOUD_MODEL} · 2nd try, after ${CHEAP_MODEL} failed its check · checked: the file's syntax with the edit`,
        ),
      );
      const failed = await waitForRow(workbench, 'the broken edit', (row) => row.model === CHEAP_MODEL);
      assert.equal(failed.verdict, 'fail');
      await workbench.screenshot('modes-rung-edit-climbed');
      await response.getByRole('button', { name: 'Show Diff and Apply' }).click();
      await page
        .locator('.tabs-container .tab', { hasText: `Rung's edit (${CLOUD_MODEL})` })
        .first()
        .waitFor({ timeout: ANSWER_TIMEOUT_MS });
      await workbench.screenshot('modes-rung-edit-diff');
      await workbench.runCommand('Rung: Accept Edit');
      const accepted = await waitForRow(
        workbench,
        'the edit accepted',
        (row) => row.model === CLOUD_MODEL && row.final === true && row.verdict === 'pass',
      );
      assert.equal(accepted.verdictReason, 'the user accepted the edit');
      await openGreeting(page);
      await page.keyboard.press('Control+S');
      const file = join(workbench.folder, 'src', 'greeting.ts');
      await eventually(async () => readFileSync(file, 'utf8').includes(WELCOME_LINE), 'the edit is in the file', ANSWER_TIMEOUT_MS);
      assert.equal(readFileSync(file, 'utf8'), greetingFile(WELCOME_LINE), 'the file is the edit, its last line break kept');
      await workbench.screenshot('modes-rung-edit-applied');
    },
    (providers) => {
      const welcome = greetingFile(WELCOME_LINE);
      providers.cheapAnswer = () => `\`\`\`ts\n${welcome.slice(0, welcome.lastIndexOf('}'))}\`\`\`\n`;
      providers.cloudAnswer = () => `\`\`\`ts\n${welcome}\`\`\`\n`;
    },
  );
}

/** A 320 KB TypeScript file: 8,000 numbered constants. */
function bigFile(): string {
  return Array.from({ length: 8_000 }, (_, index) => `export const value${String(index + 1).padStart(5, '0')} = ${index};`).join('\n');
}

function largeFileAttached(): E2eCheck {
  return withProviders(
    '@rung with a large file attached sends the part around the cursor and says so under the answer',
    async (page, workbench, providers) => {
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').fill('big.ts');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'big.ts' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.editor-instance .monaco-editor .view-lines').first().getByText('value00001').first().waitFor();
      await goToLine(page, 4_000);
      // The Chat view offers the active file as an attachment; a click sends it.
      const offered = page.locator('.interactive-input-part .chat-attached-context-attachment', { hasText: 'big.ts' }).first();
      await offered.waitFor({ timeout: ANSWER_TIMEOUT_MS });
      await offered.click();
      // The attachment's hover (its full path) sits over the input until the pointer leaves.
      await page.mouse.move(0, 0);
      await page.keyboard.press('Escape');
      await workbench.sendChat('@rung /explain what does the constant here hold?');
      const response = await rungAnswer(page, 'It holds a number.');
      const text = ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
      assert.match(
        text,
        /big\.ts has [\d,]+ characters, more than the 20,000 @rung sends of one file: sent lines [\d,]+–[\d,]+ of 8,000, around the/,
      );
      const sent = JSON.stringify(sentWith(providers, 'ollama', 'what does the constant here hold')[0]?.messages ?? []);
      assert.ok(sent.includes('value04000 = 3999'), 'the lines around the cursor went to the model');
      assert.ok(!sent.includes('value00001 '), 'the start of the file did not');
      await workbench.screenshot('modes-large-file-part-sent');
    },
    (providers) => {
      providers.cheapAnswer = () => 'It holds a number.';
    },
    (rungFolder) => writeFileSync(join(rungFolder, '..', 'src', 'big.ts'), `${bigFile()}\n`),
  );
}

function inlineChatSaysIt(): E2eCheck {
  return withProviders(
    "inline chat's edit is followed by a notification naming its model, checks and cost and what Undo counts as, and Undo by one saying it counted",
    async (page, workbench) => {
      await setCloudKey(page, workbench);
      await openGreeting(page);
      await openInlineChat(page);
      await page.keyboard.type('the greeting should say welcome too');
      await page.keyboard.press('Enter');
      const failed = await waitForRow(workbench, "the small model's text answer", (row) => row.model === CHEAP_MODEL);
      await waitForRow(workbench, "the strong model's edit", (row) => row.call === failed.call && row.model === CLOUD_MODEL);
      const file = join(workbench.folder, 'src', 'greeting.ts');
      await page.keyboard.press('Control+S');
      await eventually(async () => readFileSync(file, 'utf8').includes(WELCOME_LINE), 'the edit is in the file', ANSWER_TIMEOUT_MS);
      await goToLine(page, 1);
      await page.locator('.monaco-editor').getByRole('button', { name: /^Undo/ }).first().click();
      await waitForRow(workbench, 'the edit taken back', (row) => row.call === failed.call && row.final === true);
      await page.keyboard.press('Control+S');
      await eventually(async () => readFileSync(file, 'utf8').includes(GREETING_LINE), 'the file is back as it was', ANSWER_TIMEOUT_MS);
      // This window runs under VS Code's test driver, which shows no toasts: they wait in the notification centre.
      const items = page.locator('.notifications-center .notification-list-item');
      // Again if the centre stays hidden: the workbench sometimes drops a reveal under load.
      await workbench.runCommandUntil('Notifications: Show Notifications', items.first(), scaled(10_000), ANSWER_TIMEOUT_MS);
      const said = async (): Promise<string> => ((await items.allTextContents()).join('\n') || '').replace(/\s+/g, ' ');
      await eventually(async () => (await said()).includes('was taken back'), 'the notice of the edit taken back', ANSWER_TIMEOUT_MS);
      const notices = await said();
      assert.match(
        notices,
        new RegExp(
          `Rung · ${CLOUD_MODEL} · 2nd try, after ${CHEAP_MODEL} failed its check · checked: tool call, tool call arguments · \\$0\\.0005[^.]*\\. Undo counts as a failed answer for ${CLOUD_MODEL}, at half a check's weight\\.`,
        ),
      );
      assert.ok(
        notices.includes(
          `Rung: ${CLOUD_MODEL}'s edit to greeting.ts was taken back; it counts as a failed answer for ${CLOUD_MODEL}, at half a check's weight.`,
        ),
        notices,
      );
      // The edit's notice opened whole, as a user reads it.
      await items
        .filter({ hasText: 'Undo counts' })
        .first()
        .locator('.codicon-notifications-expand')
        .click()
        .catch(() => undefined);
      await workbench.screenshot('modes-inline-chat-notices');
    },
    (providers) => {
      providers.cheapAnswer = () => 'You could make the greeting say welcome by changing the string.';
      providers.cloudToolCall = welcomeEdit;
    },
  );
}

/**
 * The other half of the checks above: a right answer from the small model passes on the first rung in
 * each mode, and no stronger model is asked.
 */
function rightAnswerStays(mode: 'Agent mode' | 'inline chat' | '@rung /edit'): E2eCheck {
  return withProviders(
    `a right answer in ${mode} passes its check on the first rung, and no stronger model is asked`,
    async (page, workbench, providers) => {
      await setCloudKey(page, workbench);
      const file = join(workbench.folder, 'src', 'greeting.ts');
      await openGreeting(page);
      if (mode === 'Agent mode') {
        await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await workbench.sendChat('Make the greeting in greeting.ts say welcome.');
        await responseWithLine(page, `Rung · this turn: 2 steps, by ${CHEAP_MODEL} · checked: tool call, tool call arguments · $0`);
        await eventually(async () => readFileSync(file, 'utf8').includes(WELCOME_LINE), 'the edit is in the file', ANSWER_TIMEOUT_MS);
      } else if (mode === 'inline chat') {
        await openInlineChat(page);
        await page.keyboard.type('the greeting should say welcome too');
        await page.keyboard.press('Enter');
        const inline = await waitForRow(workbench, 'the inline edit', (row) => row.model === CHEAP_MODEL);
        assert.deepEqual([inline.verdict, inline.checks], ['pass', ['tool call', 'tool call arguments']]);
        await page.keyboard.press('Control+S');
        await eventually(async () => readFileSync(file, 'utf8').includes(WELCOME_LINE), 'the edit is in the file', ANSWER_TIMEOUT_MS);
        await goToLine(page, 1);
      } else {
        await workbench.sendChat('@rung /edit make the greeting say welcome');
        const edited = await rungAnswer(page, 'Welcome.');
        assert.match(
          ((await edited.textContent()) ?? '').replace(/\s+/g, ' '),
          new RegExp(`Rung · ${CHEAP_MODEL} · rung 1 of 2 · checked: the file's syntax with the edit · \\$0`),
        );
        await edited.getByRole('button', { name: 'Show Diff and Apply' }).waitFor();
      }
      await workbench.screenshot(`modes-right-${mode.replace(/\W+/g, '-').replace(/^-|-$/g, '').toLowerCase()}`);
      assert.equal(
        providers.requests.filter((request) => request.server === 'cloud' && request.path === '/v1/chat/completions').length,
        0,
        'no stronger model was asked',
      );
    },
    (providers) => {
      // welcomeEdit answers only a request that offers an edit tool: @rung offers none.
      providers.cheapToolCall = (body) => (hasToolResult(body) ? undefined : welcomeEdit(body));
      providers.cheapAnswer = (body) =>
        JSON.stringify(body.messages ?? []).includes('You edit code')
          ? `\`\`\`ts\n${greetingFile(WELCOME_LINE)}\`\`\`\n`
          : 'Done: The greeting now says welcome.';
    },
  );
}

const checks: E2eCheck[] = [
  askModeWritesCode(),
  agentModeTurnLine(),
  saidWrongClimbs(),
  rungEditApplies(),
  largeFileAttached(),
  inlineChatSaysIt(),
  rightAnswerStays('Agent mode'),
  rightAnswerStays('inline chat'),
  rightAnswerStays('@rung /edit'),
];
export default checks;
