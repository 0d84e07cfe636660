/**
 * The ledger panel's "What if" section as a user meets it: the button clicked, the decision log read,
 * one plain sentence per panel model.
 *
 * @remarks
 * The workspace's log is written so that one answer is an estimate and the other a refusal: 180 of 200
 * calls opened with the cheap model (propensity 0.9), 20 with the cloud model (0.1), so the cloud
 * model's openings are worth 20 calls once weighed, fewer than the 30 an estimate needs. The sentence
 * on screen must be the one the core's estimate makes of the same log.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { estimatePolicy } from '../../src/core/evaluation/estimate';
import { readLoggedCalls } from '../../src/core/evaluation/loggedCalls';
import { writeDecisionLog } from '../../src/bench/decisionSeed';
import { decisionLogPath } from '../../src/core/ledger/decisionLog';
import { openerSentence } from '../../webview/ledgerModel';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel } from '../integration/support/fakeProviders';
import { decisionRow } from '../unit/support/decisionRow';
import type { E2eCheck } from './workbench';
import { scaled } from '../timeScale';

/** How long the panel may take to show what the check waits for, ms, on a loaded 2-core machine. */
const PANEL_TIMEOUT_MS = scaled(60_000);
const CALLS = 200;
/** Calls (of every ten) that opened with the cloud model, and each one's chance of doing so. */
const CLOUD_OPENINGS_PER_TEN = 1;
/** The cloud model's cost per call in the log, USD: what its list price ($1 in, $2 out per M tokens) makes of a row's 120 input and 40 output tokens. */
const CLOUD_COST_USD = 0.0002;

/**
 * The log: every tenth call opened with the cloud model and passed; the others opened with the cheap
 * model, which passed four times in five and otherwise climbed to the cloud model, which passed.
 */
function whatIfRows(now: number): DecisionRow[] {
  const candidates = [CHEAP_MODEL, CLOUD_MODEL];
  const rows: DecisionRow[] = [];
  const base = { class: 'plan', candidates, run: null, resolved: null } as const;
  for (let index = 0; index < CALLS; index++) {
    const call = `what-if-${index}`;
    const at = now - (CALLS - index) * 60_000;
    if (index % 10 < CLOUD_OPENINGS_PER_TEN) {
      rows.push(
        decisionRow({
          ...base,
          call,
          at,
          rung: 1,
          model: CLOUD_MODEL,
          resolved: CLOUD_MODEL,
          explore: true,
          propensity: CLOUD_OPENINGS_PER_TEN / 10,
          cost: CLOUD_COST_USD,
          mode: 'cloud',
        }),
      );
      continue;
    }
    const cheapFails = index % 5 === 1;
    rows.push(
      decisionRow({
        ...base,
        call,
        at,
        model: CHEAP_MODEL,
        resolved: CHEAP_MODEL,
        propensity: 1 - CLOUD_OPENINGS_PER_TEN / 10,
        verdict: cheapFails ? 'fail' : 'pass',
        cost: 0,
      }),
    );
    if (cheapFails) {
      rows.push(
        decisionRow({
          ...base,
          call,
          at: at + 1_000,
          rung: 1,
          escalation: [CHEAP_MODEL],
          model: CLOUD_MODEL,
          resolved: CLOUD_MODEL,
          cost: CLOUD_COST_USD,
          mode: 'cloud',
        }),
      );
    }
  }
  return rows;
}

let expectedSentences: string[] = [];

const check: E2eCheck = {
  name: 'the ledger panel says what always opening with each model would have done, in plain words, when asked',
  prepare(folder) {
    const rung = join(folder, '.rung');
    mkdirSync(rung, { recursive: true });
    writeFileSync(
      join(rung, 'panel.json'),
      JSON.stringify(fakePanel({ ollamaUrl: 'http://127.0.0.1:9', cloudUrl: 'http://127.0.0.1:9' }), null, 2),
    );
    const rows = whatIfRows(Date.now());
    writeDecisionLog(decisionLogPath(join(rung, 'ledger.sqlite')), rows);
    const log = readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n'));
    expectedSentences = [CHEAP_MODEL, CLOUD_MODEL].map((model) => {
      const estimate = estimatePolicy(log, { open: model, skip: [] });
      return openerSentence({
        model,
        calls: estimate.calls,
        versusLog: estimate.versusLog ?? null,
        refused: estimate.versusLog ? null : 'too-few',
      });
    });
  },
  async run(page, workbench) {
    await workbench.runCommand('Rung: Open Ledger');
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('ol.calls > li').first().waitFor({ timeout: PANEL_TIMEOUT_MS });
    await workbench.runCommand('View: Close Primary Side Bar');
    await workbench.hideSecondarySideBar();
    const section = frame.locator('section.what-if');
    assert.equal(await section.locator('ul.opener-estimates').count(), 0, 'nothing is estimated before it is asked for');
    await section.locator('button', { hasText: 'What if I had opened with' }).click();
    const sentences = section.locator('ul.opener-estimates > li');
    await sentences.nth(1).waitFor({ timeout: PANEL_TIMEOUT_MS });
    const shown = (await sentences.allInnerTexts()).map((text) => text.trim());
    assert.match(
      shown[0] ?? '',
      /^Had you always opened with tiny-coder:1b: cost −\d+% \(±\d+%\), first-try success −\d+% \(±\d+%\), from 200 of your calls\.$/,
      `the cheap model's sentence said "${shown[0]}"`,
    );
    assert.equal(shown[1], `Not enough of your calls opened with ${CLOUD_MODEL} to say.`);
    assert.deepEqual(shown, expectedSentences, 'the panel says what the core estimates from the same log');
    await section.scrollIntoViewIfNeeded();
    await workbench.screenshot('ledger-panel-what-if');
  },
};
export default check;
