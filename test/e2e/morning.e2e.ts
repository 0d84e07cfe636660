/**
 * A morning's work, scripted: the requests a daily user sends in the Chat view (Agent mode through Rung
 * Auto, and `@rung`), against a fake local model and a fake cloud model over the real wire protocols,
 * and the morning's totals as Rung recorded them.
 *
 * @remarks
 * The fake cloud bills by what it is sent (a token for 4 characters, at the panel's $1 in / $2 out per
 * million), and the fake Ollama reports its tokens the same way, so the ledger view's "the same calls on
 * the cloud model" prices every call's own input. The totals are read back from the decision log and
 * the ledger view and written to `test-results/morning-totals.json`; BENCHMARKS.md's "A morning's totals"
 * quotes them with this check's command.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { repositoryRoot } from '../../scripts/test-host/codeServer';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { eventually, setProviderKey, type E2eCheck, type Workbench } from './workbench';
import { scaled } from '../timeScale';
import { decisionRows } from './workspaceFiles';

const ANSWER_TIMEOUT_MS = scaled(120_000);

/**
 * The requests of the morning, in the order sent: Agent mode through Rung Auto (the Chat view's
 * default), then `@rung`, then Agent mode again in a new chat.
 */
const MORNING: string[] = [
  'What is six times seven?',
  'Return the user Ada, aged 36, as a JSON object.',
  '@rung What does a closure capture in JavaScript?',
  '@rung Write a TypeScript function formatCents(cents) that returns dollars as a string.',
  '@rung Give me the steps to add a --json flag to the CLI, as a JSON list.',
  'Explain in one sentence what async/await does.',
];

/** The words of the newest user turn a model was sent: Agent mode wraps them in its own context. */
function asked(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return /<userRequest>([\s\S]*?)<\/userRequest>/.exec(text)?.[1] ?? text;
}

/** The cheap model: right on plain questions, prose where JSON is asked, broken code where code is. */
function cheapAnswer(body: Record<string, unknown>): string {
  const request = asked(body);
  if (/json/i.test(request)) return 'Sure! Here it is: the user is Ada, and she is 36.';
  if (request.includes('formatCents'))
    return 'Here you go:\n```ts\nexport function formatCents(cents: number): string {\n  return (cents / 100).toFixed(2;\n}\n```\n';
  if (request.includes('closure')) return 'A closure keeps the variables of the scope it was created in alive for as long as it lives.';
  if (request.includes('async')) return 'async/await lets code wait for a promise as if it were a plain value, without blocking.';
  return 'Six times seven is 42.';
}

/** The cloud model: JSON that fits, code that parses. */
function cloudAnswer(body: Record<string, unknown>): string {
  const request = asked(body);
  if (/Ada/.test(request)) return '{"name": "Ada", "age": 36}';
  if (/json/i.test(request)) return '```json\n["parse --json", "print the result as JSON"]\n```\n';
  if (request.includes('formatCents'))
    return '```ts\nexport function formatCents(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n```\n';
  return 'The answer is 42.';
}

/** Sets the cloud provider's key through Rung: Set Provider Key, as a user types it. */
async function setCloudKey(page: Page): Promise<void> {
  await setProviderKey(page, 'cloud', 'test-key-0123456789abcdef', ANSWER_TIMEOUT_MS);
}

/** The morning's calls as the decision log has them: each call's attempt rows in order. */
function callsOf(rows: readonly DecisionRow[]): DecisionRow[][] {
  const calls = new Map<string, DecisionRow[]>();
  for (const row of rows) {
    if (row.final || row.verdict === 'refused') continue;
    calls.set(row.call, [...(calls.get(row.call) ?? []), row]);
  }
  return [...calls.values()];
}

function ledgerFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

function morning(): E2eCheck {
  let providers: FakeProviders | undefined;
  return {
    name: "a morning's work in the Chat view (Agent mode and @rung) over a fake local and a fake cloud model, totalled from the decision log and the ledger view",
    // Six requests, each waiting on the editor's own agent first (up to 16 s before it asks Rung, rung.e2e.ts).
    timeoutMs: scaled(10 * 60_000),
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.usageByLength = true;
      providers.cheapAnswer = cheapAnswer;
      providers.cloudAnswer = cloudAnswer;
      mkdirSync(join(folder, '.rung'), { recursive: true });
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(fakePanel(providers), null, 2)}\n`);
    },
    async run(page, workbench: Workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await setCloudKey(page);
        await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        // The Chat view keeps only the responses on screen in its page, so a call is known done from the log.
        const done = (index: number): boolean => {
          const last = callsOf(decisionRows(workbench.folder))[index]?.at(-1);
          return last !== undefined && (last.verdict === 'pass' || last.verdict === 'unverified');
        };
        for (const [index, request] of MORNING.entries()) {
          // Each request in a new chat, as a user starts a new task: the Chat view keeps only the items on
          // screen in its page (sendChat counts them), and a chat after @rung keeps @rung in its input.
          if (index > 0) await workbench.runCommand('Chat: New Chat');
          await workbench.sendChat(request);
          await eventually(async () => done(index), `"${request}" is answered in the decision log`, ANSWER_TIMEOUT_MS);
          await page
            .locator('.interactive-item-container.interactive-response')
            .last()
            .getByText('Rung · ')
            .first()
            .waitFor({ timeout: ANSWER_TIMEOUT_MS });
        }
        await workbench.screenshot('morning-chat');
        const calls = callsOf(decisionRows(workbench.folder));
        const standing = (attempts: DecisionRow[]) =>
          [...attempts].reverse().find((row) => row.verdict === 'pass' || row.verdict === 'unverified');
        const totals = {
          calls: calls.length,
          openedLocal: calls.filter((attempts) => attempts[0]?.mode === 'local').length,
          answeredLocal: calls.filter((attempts) => standing(attempts)?.mode === 'local').length,
          attempts: calls.reduce((sum, attempts) => sum + attempts.length, 0),
          spend: calls.flat().reduce((sum, row) => sum + (row.cost ?? 0), 0),
          toolSchemas: calls.flat().reduce((sum, row) => sum + Math.min(row.tools?.cost ?? 0, row.cost ?? 0), 0),
          ledgerView: { totals: '', estimate: '' },
        };
        await workbench.runCommand('Rung: Open Ledger');
        const frame = ledgerFrame(page);
        await frame.locator('.spend .totals').waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await eventually(
          async () => ((await frame.locator('.spend .totals').textContent()) ?? '').includes('tool schemas'),
          'the ledger view says what the tool schemas cost',
        );
        totals.ledgerView = {
          totals: ((await frame.locator('.spend .totals').textContent()) ?? '').trim(),
          estimate: ((await frame.locator('.spend .estimate').textContent()) ?? '').trim(),
        };
        await frame.locator('.spend').scrollIntoViewIfNeeded();
        await workbench.screenshot('morning-ledger-spend');
        const out = join(repositoryRoot(), 'test-results');
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, 'morning-totals.json'), `${JSON.stringify(totals, null, 2)}\n`);
        console.log(`        (the morning: ${JSON.stringify(totals)})`);
        assert.equal(totals.calls, MORNING.length, 'every request of the morning is one call');
        assert.ok(totals.answeredLocal >= 1 && totals.answeredLocal < totals.calls, 'some answered locally, some climbed');
        assert.ok(totals.ledgerView.estimate.includes(CLOUD_MODEL), totals.ledgerView.estimate);
        assert.ok(calls.flat().some((row) => row.model === CHEAP_MODEL));
      } finally {
        await providers.close();
      }
    },
  };
}

const checks: E2eCheck[] = [morning()];
export default checks;
