import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../src/core/ledger/memoryLedger';
import { parsePanel } from '../../../src/core/panel';
import { isProviderDown, openerChoiceText, plainReason } from '../../../src/protocol/reasonText';
import { NOW, rankOn, record } from '../support/rankInput';

// Every reason here is one `rank` wrote, so a change to the router's wording fails this file rather
// than leaving the front ends to pass the new wording through unexplained.
const panel = parsePanel(
  {
    routing: { explore: 0 },
    models: [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid' },
      { slug: 'coder', provider: 'lmstudio' },
      { slug: 'mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 } },
    ],
    providers: { lmstudio: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' } },
  },
  'test panel',
);

function reasons(ranking: ReturnType<typeof rankOn>): Record<string, [string, string]> {
  return Object.fromEntries(ranking.candidates.map((candidate) => [candidate.slug, [candidate.reason, plainReason(candidate.reason)]]));
}

describe('plainReason', () => {
  it('says what each rung of the ladder is at cold start, naming the local server a rung stands on', () => {
    expect(reasons(rankOn(panel, {}))).toEqual({
      'qwen2.5:3b': ['no-measured-profiles tier1', 'not yet graded in this class: a small local model (ladder tier 1)'],
      'qwen3:14b': ['no-measured-profiles tier2', 'not yet graded in this class: a mid-sized local model (ladder tier 2)'],
      coder: [
        'no-measured-profiles tier2 (local server 127.0.0.1:1234)',
        'not yet graded in this class: a mid-sized local model on 127.0.0.1:1234 (ladder tier 2)',
      ],
      mini: ['no-measured-profiles tier4', 'not yet graded in this class: a cloud model (ladder tier 4)'],
    });
  });

  it('says how many graded answers passed, how far a rung is from the gate, and whose record stands in for a shape', () => {
    const ledger = new MemoryLedger();
    record(ledger, 'qwen2.5:3b', 'edit', 7, 2);
    record(ledger, 'qwen3:14b', 'edit', 2, 1);
    const plain = reasons(rankOn(panel, { classKey: 'edit' }, { ledger }));
    expect(plain['qwen2.5:3b']).toEqual(['measured 7/9 success class=edit', '7 of 9 graded answers passed in edit']);
    expect(plain['qwen3:14b']).toEqual([
      'below gate 3/8 graded class=edit, prior tier2',
      '3 of the 8 graded answers a rating needs in edit: a mid-sized local model (ladder tier 2)',
    ]);
    const shaped = reasons(rankOn(panel, { classKey: 'edit/typescript' }, { ledger }));
    expect(shaped['qwen2.5:3b']).toEqual([
      'measured 7/9 success class=edit (edit/typescript: 0/8 graded)',
      '7 of 9 graded answers passed in edit (edit/typescript has 0 of the 8 of its own it needs)',
    ]);
  });

  it('says a pin and an avoid are the user’s, around the reason they change', () => {
    expect(plainReason(rankOn(panel, { pinned: 'mini' }).candidates[0]?.reason ?? '')).toBe(
      'pinned by you; not yet graded in this class: a cloud model (ladder tier 4)',
    );
    expect(plainReason(rankOn(panel, { avoid: 'qwen2.5:3b' }).candidates[1]?.reason ?? '')).toBe(
      'not yet graded in this class: a small local model (ladder tier 1); moved off the opener because you avoid it',
    );
  });

  it('says a rating stands on the presumed prior without the logits', () => {
    const ledger = new MemoryLedger();
    // Eight failures on calls that say nothing about the model: its information stays near zero, so it
    // follows the prior it was given (ratings.ts).
    ledger.observe(
      Array.from({ length: 8 }, () => ({
        model: 'mini',
        classKey: 'plan',
        success: false,
        difficulty: { mean: 0, sd: 1.5, unanswerable: 1 },
        prior: 0,
        at: NOW,
      })),
    );
    const reason = rankOn(panel, {}, { ledger }).candidates.find((candidate) => candidate.slug === 'mini')?.reason ?? '';
    expect(reason).toBe('measured 0/8 success class=plan, rated on its presumed prior 0.00 (its own outcomes say little about it)');
    expect(plainReason(reason)).toBe(
      '0 of 8 graded answers passed in plan, rated as able as the best cheaper model until its own answers say more',
    );
  });

  it('says why a model that never passed was dropped, and leaves the other pruning reasons as they read', () => {
    const ledger = new MemoryLedger();
    // Twelve failures on easy calls: the paired evidence rates the model far below the floor.
    ledger.observe(
      Array.from({ length: 12 }, () => ({
        model: 'mini',
        classKey: 'plan',
        success: false,
        difficulty: { mean: -2, sd: 0.5, unanswerable: 0 },
        at: NOW,
      })),
    );
    const pruned = rankOn(panel, {}, { ledger }).pruned.find((entry) => entry.model === 'mini');
    expect(pruned?.reason).toMatch(/^pruned: measured 0\/12 success class=plan, rated 0\.\d\d < 0\.25 against the calls' difficulty$/);
    expect(plainReason(pruned?.reason ?? '')).toMatch(
      /^pruned: none of 12 graded answers passed in plan, and allowing for how hard those calls were it rates 0\.\d\d, under the 0\.25 a model needs$/,
    );
    expect(plainReason('pruned: needs tools')).toBe('pruned: needs tools');
  });

  it('returns a reason it does not know unchanged', () => {
    expect(plainReason('some reason a later router writes')).toBe('some reason a later router writes');
    expect(plainReason('')).toBe('');
  });
});

describe("a provider's health reason", () => {
  it('says down for no server or a rest after failures, not for a missing key', () => {
    expect(isProviderDown('cloud: no server at http://127.0.0.1:9 (ECONNREFUSED)')).toBe(true);
    expect(isProviderDown('cooling down after 503 for 30000 ms')).toBe(true);
    expect(isProviderDown('cloud: no API key (run "Rung: Set Provider Key" for cloud)')).toBe(false);
  });
});

describe('how the opener was chosen, in words', () => {
  it('says a certain choice opens every such call, without a propensity', () => {
    expect(openerChoiceText(false, 1)).toBe('The first choice for every such call (no exploration).');
  });

  it('says how often the usual choice is taken and how often another model is explored instead', () => {
    expect(openerChoiceText(false, 0.95)).toBe(
      'The usual first choice, taken on 95% of such calls; the other 5% try another model to learn about it.',
    );
  });

  it('says an explored opener was tried to learn about it, and how often that happens', () => {
    expect(openerChoiceText(true, 0.05)).toBe(
      'Explored: tried first to learn how it does, which happens on 5% of such calls; the rest open with the usual first choice.',
    );
    expect(openerChoiceText(true, 0.004)).toContain('on under 1% of such calls');
    expect(openerChoiceText(false, 0.996)).toContain('taken on over 99% of such calls; the other under 1%');
  });
});
