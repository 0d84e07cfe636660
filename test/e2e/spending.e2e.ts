/**
 * What Rung spends, as a user meets it in the Chat view: a day near its budget, and a request whose
 * input is known before it goes.
 *
 * @remarks
 * The fake cloud bills by what it is sent (a token for 4 characters, at the panel's price), as a real
 * provider does, so the spend the decision log records is what an Agent mode request with its tool
 * schemas would cost; the check reads that log back rather than trusting what the screen says.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { setProviderKey, type E2eCheck } from './workbench';
import { scaled } from '../timeScale';
import { decisionRows } from './workspaceFiles';

/** How long a check waits for an answer: the editor's own agent may take 16 s before it asks Rung (rung.e2e.ts). */
const ANSWER_TIMEOUT_MS = scaled(120_000);

function writeJson(folder: string, path: string, value: unknown): void {
  mkdirSync(join(folder, path, '..'), { recursive: true });
  writeFileSync(join(folder, path), `${JSON.stringify(value, null, 2)}\n`);
}

/** A decision row of an earlier call today that cost `cost` on the cloud model. */
function spentEarlier(cost: number): DecisionRow {
  return {
    v: 1,
    at: Date.now() - 60_000,
    call: 'earlier-today',
    run: null,
    class: 'chat',
    shape: null,
    candidates: [CLOUD_MODEL],
    rung: 0,
    escalation: [],
    model: CLOUD_MODEL,
    resolved: CLOUD_MODEL,
    explore: false,
    propensity: 1,
    verdict: 'pass',
    verdictReason: null,
    inputTokens: 38_000,
    outputTokens: 1_000,
    cost,
    latencyMs: 2_000,
    reason: 'no-measured-profiles tier4',
    mode: 'cloud',
    pruned: [],
    final: false,
  };
}

/** Sets the cloud provider's key through Rung: Set Provider Key, as a user types it. */
async function setCloudKey(page: Page): Promise<void> {
  await setProviderKey(page, 'cloud', 'test-key-0123456789abcdef', ANSWER_TIMEOUT_MS);
}

/** USD the decision log records as spent since `since` (attempt rows; a settling row repeats its attempt's cost). */
function spentSince(folder: string, since: number): number {
  return decisionRows(folder)
    .filter((row) => !row.final && row.at >= since)
    .reduce((sum, row) => sum + (row.cost ?? 0), 0);
}

function budgetNotCrossed(): E2eCheck {
  let providers: FakeProviders | undefined;
  const budget = 0.05;
  const earlier = 0.04;
  return {
    name: "an Agent mode request whose known input would take the day past its budget never reaches the paid model, and the small model's failed answer is shown with why",
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.usageByLength = true;
      providers.cheapAnswer = () => 'Ada is 36 years old.';
      writeJson(folder, '.rung/panel.json', fakePanel(providers));
      writeJson(folder, '.vscode/settings.json', { 'rung.dailyBudget': budget });
      writeFileSync(join(folder, '.rung', 'decisions.jsonl'), `${JSON.stringify(spentEarlier(earlier))}\n`);
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        const dayStart = new Date().setUTCHours(0, 0, 0, 0);
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await setCloudKey(page);
        await page.locator('.interactive-input-part', { hasText: 'Rung Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        // The Chat view opens in Agent mode: with the tool schemas it keeps the request is about 10,000 tokens.
        await workbench.sendChat('Return the user Ada, aged 36, as a JSON object.');
        const response = page.locator('.interactive-item-container.interactive-response', { hasText: 'was not asked' }).last();
        await response.waitFor({ timeout: ANSWER_TIMEOUT_MS });
        const said = ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.ok(said.includes(`Asking ${CHEAP_MODEL} (local, free) — checked by: JSON`), `the model and its check come first: ${said}`);
        assert.ok(said.includes('Ada is 36 years old.'), `the small model's answer is shown: ${said}`);
        assert.ok(said.includes(`${CHEAP_MODEL}'s answer failed its check (JSON: `), `and why it failed: ${said}`);
        assert.doesNotMatch(said, /Sorry, your request failed/, `shown as an answer, not in place of one: ${said}`);
        assert.match(
          said,
          new RegExp(`${CLOUD_MODEL} was not asked: it may cost up to \\$[\\d.]+ \\([\\d,]+ tokens in, up to 8,192 out\\)`),
        );
        const cloudCalls = providers.requests.filter((request) => request.server === 'cloud' && request.path === '/v1/chat/completions');
        assert.equal(cloudCalls.length, 0, 'the paid model is never asked');
        const spent = spentSince(workbench.folder, dayStart);
        assert.ok(spent <= budget, `today's spend stays within the budget: $${spent} of $${budget}`);
        await workbench.screenshot('spend-budget-not-crossed');
      } finally {
        await providers.close();
      }
    },
  };
}

const checks: E2eCheck[] = [budgetNotCrossed()];
export default checks;
