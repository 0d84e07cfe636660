/**
 * `@rung /check` as a user meets it: a stronger model judges the answer before it, the verdict grades
 * that answer, and only a wrong one is followed by the offer of the stronger model's own answer.
 *
 * @remarks
 * The decision log is read back to prove the verdict was settled on the first call at the judge's
 * weight's words, and the fake cloud's requests to prove the judge was asked for a verdict, not an answer.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../integration/support/fakeProviders';
import { setProviderKey, type E2eCheck, type Workbench } from './workbench';
import { scaled } from '../timeScale';
import { decisionRows } from './workspaceFiles';

const ANSWER_TIMEOUT_MS = scaled(120_000);

/** Sets the cloud provider's key through Rung: Set Provider Key, as a user types it. */
async function setCloudKey(page: Page): Promise<void> {
  await setProviderKey(page, 'cloud', 'test-key-0123456789abcdef', ANSWER_TIMEOUT_MS);
}

/** Waits until the decision log holds a row `match` accepts. */
async function waitForRow(workbench: Workbench, what: string, match: (row: ReturnType<typeof decisionRows>[number]) => boolean) {
  const deadline = performance.now() + ANSWER_TIMEOUT_MS;
  for (;;) {
    const row = decisionRows(workbench.folder).find(match);
    if (row) return row;
    if (performance.now() > deadline) throw new Error(`the decision log never recorded ${what}`);
    await workbench.page.waitForTimeout(250);
  }
}

/** The words the judge is sent (judgeAnswer.ts), by which the fake cloud knows it is asked for a verdict. */
const JUDGE_ASKED = "You review another assistant's answer";

function judgedWrong(): E2eCheck {
  let providers: FakeProviders | undefined;
  return {
    name: '@rung /check has a stronger model judge the answer: judged wrong, the answer counts as failed, and only then is the stronger answer offered',
    async prepare(folder) {
      providers = await startFakeProviders();
      providers.cheapAnswer = () => 'Six times seven is 48.';
      providers.cloudAnswer = (body) =>
        JSON.stringify(body.messages ?? []).includes(JUDGE_ASKED)
          ? JSON.stringify({ verdict: 'wrong', reason: 'Six times seven is 42, not 48.' })
          : 'Six times seven is 42.';
      mkdirSync(join(folder, '.rung'), { recursive: true });
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(fakePanel(providers), null, 2)}\n`);
    },
    async run(page, workbench) {
      assert.ok(providers, 'the model servers started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await setCloudKey(page);
        await workbench.sendChat('@rung What is six times seven?');
        const first = page.locator('.interactive-item-container.interactive-response', { hasText: 'Six times seven is 48.' }).last();
        await first.getByText('Answered by').first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        const answered = await waitForRow(workbench, 'the first answer', (row) => row.model === CHEAP_MODEL && !row.final);
        assert.equal(answered.verdict, 'unverified');
        await page.getByText('Have a stronger model judge this answer').first().click();
        const verdict = page.locator('.interactive-item-container.interactive-response', { hasText: 'Judged wrong' }).last();
        await verdict.waitFor({ timeout: ANSWER_TIMEOUT_MS });
        const said = ((await verdict.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.ok(said.includes(`Judged wrong by ${CLOUD_MODEL}: Six times seven is 42, not 48.`), said);
        assert.ok(said.includes(`${CHEAP_MODEL}'s answer counts as failed at weight 0.75`), said);
        assert.doesNotMatch(said, /"verdict"/, `the verdict is said in words, not as the judge's JSON: ${said}`);
        const settled = await waitForRow(
          workbench,
          'the verdict settled on the first answer',
          (row) => row.call === answered.call && row.final,
        );
        assert.deepEqual(
          [settled.model, settled.verdict, settled.verdictReason],
          [CHEAP_MODEL, 'fail', `judged wrong by ${CLOUD_MODEL}: Six times seven is 42, not 48.`],
        );
        const judge = providers.requests.filter((request) => request.server === 'cloud' && request.path === '/v1/chat/completions');
        assert.equal(judge.length, 1, 'the stronger model was asked once, for a verdict');
        assert.ok(JSON.stringify(judge[0]?.body).includes('Six times seven is 48.'), 'the judge saw the answer it judged');
        const offer = page.getByText(`Ask a model stronger than ${CHEAP_MODEL} for its answer`).first();
        await offer.waitFor({ timeout: ANSWER_TIMEOUT_MS });
        await workbench.screenshot('judged-wrong');
        await offer.click();
        const stronger = page.locator('.interactive-item-container.interactive-response', { hasText: 'Six times seven is 42.' }).last();
        await stronger.getByText('Answered by').first().waitFor({ timeout: ANSWER_TIMEOUT_MS });
        const strongerSaid = ((await stronger.textContent()) ?? '').replace(/\s+/g, ' ');
        assert.ok(strongerSaid.includes(`Answered by ${CLOUD_MODEL}`), strongerSaid);
        await workbench.screenshot('judged-wrong-stronger-answer');
      } finally {
        await providers.close();
      }
    },
  };
}

const checks: E2eCheck[] = [judgedWrong()];
export default checks;
