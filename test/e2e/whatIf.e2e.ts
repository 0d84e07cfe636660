/**
 * The ledger panel's "What if" section as a user meets it: the button clicked, the decision log read,
 * one plain sentence per panel model, saying how sure it is and what logging would answer it.
 *
 * @remarks
 * The workspace's log is written so that one answer is close and the other too wide to act on: 360 of
 * 400 calls opened with the cloud model (propensity 0.9), which always passed at the same price, and 40
 * with the cheap model (0.1), which failed one time in five and then climbed to the cloud model. The
 * panel sets no exploration floor, so the wide one says how many calls logged at the suggested 10%
 * would narrow it. The sentences on screen must be the ones the core makes of the same log.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { estimatePolicy } from '../../src/core/evaluation/estimate';
import { readLoggedCalls } from '../../src/core/evaluation/loggedCalls';
import { loggingToNarrow } from '../../src/core/evaluation/narrowing';
import { writeDecisionLog } from '../../src/bench/decisionSeed';
import { decisionLogPath } from '../../src/core/ledger/decisionLog';
import { openerSentence } from '../../webview/ledgerModel';
import { CHEAP_MODEL, CLOUD_MODEL, fakePanel } from '../integration/support/fakeProviders';
import { decisionRow } from '../unit/support/decisionRow';
import type { E2eCheck } from './workbench';
import { scaled } from '../timeScale';

/** How long the panel may take to show what the check waits for, ms, on a loaded 2-core machine. */
const PANEL_TIMEOUT_MS = scaled(60_000);
const CALLS = 400;
/** Calls (of every ten) that opened with the cheap model, and each one's chance of doing so. */
const CHEAP_OPENINGS_PER_TEN = 1;
/** The cloud model's cost per call in the log, USD: what its list price ($1 in, $2 out per M tokens) makes of a row's 120 input and 40 output tokens. */
const CLOUD_COST_USD = 0.0002;

/**
 * The log: nine calls in ten opened with the cloud model and passed; every tenth opened with the cheap
 * model, which passed four times in five and otherwise climbed to the cloud model, which passed.
 */
function whatIfRows(now: number): DecisionRow[] {
  const candidates = [CHEAP_MODEL, CLOUD_MODEL];
  const rows: DecisionRow[] = [];
  const base = { class: 'plan', candidates, run: null, resolved: null } as const;
  for (let index = 0; index < CALLS; index++) {
    const call = `what-if-${index}`;
    const at = now - (CALLS - index) * 60_000;
    if (index % 10 >= CHEAP_OPENINGS_PER_TEN) {
      rows.push(
        decisionRow({
          ...base,
          call,
          at,
          rung: 1,
          model: CLOUD_MODEL,
          resolved: CLOUD_MODEL,
          propensity: 1 - CHEAP_OPENINGS_PER_TEN / 10,
          cost: CLOUD_COST_USD,
          mode: 'cloud',
        }),
      );
      continue;
    }
    const cheapFails = index % 50 < 10;
    rows.push(
      decisionRow({
        ...base,
        call,
        at,
        model: CHEAP_MODEL,
        resolved: CHEAP_MODEL,
        explore: true,
        propensity: CHEAP_OPENINGS_PER_TEN / 10,
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
  name: 'the ledger panel says what always opening with each model would have done, how sure that is, and what logging would answer it, when asked',
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
      const estimate = estimatePolicy(log, { open: model, skip: [] }, { spreadWhenRefused: true });
      // As the session asks: the panel's floor (none) and the calls' candidates (two each).
      const narrowing = loggingToNarrow({ estimate, floorNow: 0, candidates: 2 });
      return openerSentence({
        model,
        calls: estimate.calls,
        versusLog: estimate.versusLog ?? null,
        refused: estimate.versusLog ? null : 'too-few',
        ...(narrowing ? { narrowing } : {}),
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
      /^Had you always opened with tiny-coder:1b: cost −\d+% \(±\d+%, wide, but cheaper either way\), first-try success −\d+% \(±\d+%\), from 400 of your calls\. About [\d,]+ more calls logged with 10% exploration \(routing\.exploreMeasured 0\.1\) would narrow it to ±\d+%\.$/,
      `the cheap model's sentence said "${shown[0]}"`,
    );
    assert.match(
      shown[1] ?? '',
      /^Had you always opened with test\/strong-model: cost \+\d+% \(±\d+%, a close estimate\), first-try success \+\d+% \(±\d+%\), from 400 of your calls\.$/,
      `the cloud model's sentence said "${shown[1]}"`,
    );
    assert.deepEqual(shown, expectedSentences, 'the panel says what the core estimates from the same log');
    await section.scrollIntoViewIfNeeded();
    await workbench.screenshot('ledger-panel-what-if');
  },
};
export default check;
