import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../src/core/decisions/decision';
import type { Candidate, Ranking } from '../../../src/core/routing/types';
import {
  budgetNoticeDue,
  escalationCause,
  explainMarkdown,
  formatUsd,
  pickerPrice,
  openedForWaitText,
  pickRows,
  statusText,
  statusTooltip,
  verdictPhrase,
} from '../../../src/extension/describe';

function candidate(slug: string, overrides: Partial<Candidate> = {}): Candidate {
  return {
    slug,
    provider: slug.includes('/') ? 'openrouter' : 'ollama',
    spec: {
      slug,
      provider: slug.includes('/') ? 'openrouter' : 'ollama',
      ...(slug.includes('/') ? { price: { input: 0.15, output: 0.6 } } : {}),
    },
    tier: slug.includes('/') ? 4 : 2,
    local: !slug.includes('/'),
    resolved: slug,
    ability: 0.62,
    graded: 3,
    ok: 2,
    measured: false,
    cost: 0,
    reason: 'no-measured-profiles tier2',
    ...overrides,
  };
}

const ranking: Ranking = {
  classKey: 'plan',
  candidates: [
    candidate('qwen3:14b'),
    candidate('openai/gpt-4o-mini', { ability: 0.9, graded: 10, ok: 9, measured: true, reason: 'measured 9/10 success class=plan' }),
  ],
  pruned: [{ model: 'anthropic/claude-opus-4', reason: 'pruned: output price 75.00 > cap 20.00' }],
};

describe('describe', () => {
  it('writes USD with the digits a cheap call needs', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.00039)).toBe('$0.0004');
    expect(formatUsd(0.052)).toBe('$0.052');
    expect(formatUsd(2.5)).toBe('$2.50');
    expect(formatUsd(null)).toBe('$?');
  });

  it('shows Auto or the pinned model, the last answer and today in the status bar', () => {
    expect(statusText({ pinned: undefined, last: undefined, today: 0 })).toBe('$(layers) Rung: Auto · today $0');
    expect(statusText({ pinned: 'qwen3:14b', last: { model: 'openai/gpt-4o-mini', cost: 0.00039 }, today: 0.0012 })).toBe(
      '$(layers) Rung: $(pinned) qwen3:14b · openai/gpt-4o-mini $0.0004 · today $0.0012',
    );
    expect(statusText({ pinned: undefined, last: undefined, today: undefined, problem: 'no panel' })).toBe('$(warning) Rung: not set up');
  });

  it('marks the status bar while a warning waits to be read in the log, and says so in the tooltip', () => {
    const warning =
      'the ledger .rung/ledger.sqlite is not a readable SQLite database; it was moved to .rung/ledger.sqlite.corrupt-1 and a fresh ledger started';
    expect(statusText({ pinned: undefined, last: undefined, today: 0, warning })).toBe('$(warning) Rung: Auto · today $0');
    expect(statusTooltip({ pinned: undefined, last: undefined, today: 0, warning, budget: null })).toBe(
      `Rung warned: ${warning}\nClick to see it in the Rung log.`,
    );
    expect(statusTooltip({ pinned: undefined, last: undefined, today: 0, budget: null })).toMatch(/Click to open the ledger\.$/);
  });

  it('says in the status bar when no provider of the panel can take a call, and why each cannot', () => {
    const unreachable = ['ollama: no server at http://127.0.0.1:9', 'openrouter: no API key (run "Rung: Set Provider Key" for openrouter)'];
    expect(statusText({ pinned: undefined, last: undefined, today: 0, unreachable })).toBe(
      '$(warning) Rung: no model reachable · today $0',
    );
    expect(statusTooltip({ pinned: undefined, last: undefined, today: 0, unreachable, budget: null })).toBe(
      'No model on the panel can answer now:\n' +
        '- ollama: no server at http://127.0.0.1:9\n' +
        '- openrouter: no API key (run "Rung: Set Provider Key" for openrouter)\n' +
        'Spent today: $0.\nClick to open the ledger.',
    );
    // A warning waiting in the log still sends the click there, and says so.
    expect(
      statusTooltip({
        pinned: undefined,
        last: undefined,
        today: 0,
        unreachable,
        warning: 'the decision log cannot be written',
        budget: null,
      }),
    ).toMatch(
      /^No model on the panel can answer now:\n.*\nRung warned: the decision log cannot be written\nClick to see it in the Rung log\.$/s,
    );
    // Not set up outranks it: there is no panel to reach.
    expect(statusText({ pinned: undefined, last: undefined, today: undefined, problem: 'no panel', unreachable })).toBe(
      '$(warning) Rung: not set up',
    );
  });

  it('names a provider that is down while others answer, in the status bar and in words in its tooltip', () => {
    const down = [{ provider: 'acme', text: 'acme is unreachable (connection refused at http://127.0.0.1:9)' }];
    expect(statusText({ pinned: undefined, last: undefined, today: 0, down })).toBe('$(warning) Rung: Auto · acme down · today $0');
    expect(statusTooltip({ pinned: undefined, last: undefined, today: 0, down, budget: null })).toBe(
      'Auto: every call opens on the cheapest rung that can do it.\nDown now, routed around: acme is unreachable (connection refused at http://127.0.0.1:9).\nSpent today: $0.\nClick to open the ledger.',
    );
  });

  it("warns in the status bar once today's budget is spent, and says how to raise it", () => {
    const overBudget = { spent: 1.02, budget: 1 };
    expect(statusText({ pinned: undefined, last: undefined, today: 1.02, overBudget })).toBe(
      '$(warning) Rung: Auto · budget spent: today $1.02 of $1.00',
    );
    expect(statusTooltip({ pinned: undefined, last: undefined, today: 1.02, overBudget, budget: 1 })).toContain(
      "Today's budget of $1.00 is spent ($1.02 so far): paid models are off until tomorrow (UTC); local models still answer. Raise it with the rung.dailyBudget setting.",
    );
  });

  it('asks for the budget notification once a day, only past the budget', () => {
    expect(budgetNoticeDue(1.02, 1, '2026-12-01', undefined)).toBe(true);
    expect(budgetNoticeDue(1, 1, '2026-12-01', '2026-11-30')).toBe(true);
    expect(budgetNoticeDue(1.02, 1, '2026-12-01', '2026-12-01')).toBe(false);
    expect(budgetNoticeDue(0.99, 1, '2026-12-01', undefined)).toBe(false);
    expect(budgetNoticeDue(5, null, '2026-12-01', undefined)).toBe(false);
  });

  it('lists Auto, then the chain with provider, price, ability and graded count, then the pruned with their reasons', () => {
    const rows = pickRows(
      ranking,
      [{ slug: 'anthropic/claude-opus-4', provider: 'openrouter', price: { input: 15, output: 75 } }],
      'openai/gpt-4o-mini',
    );
    expect(rows.map((row) => row.slug)).toEqual([undefined, 'qwen3:14b', 'openai/gpt-4o-mini', 'anthropic/claude-opus-4']);
    expect(rows[0]?.label).toBe('Auto');
    expect(rows[1]?.description).toBe('ollama · free (local) · ability 62% (prior, 3 graded)');
    expect(rows[2]?.label).toBe('$(pinned) openai/gpt-4o-mini');
    expect(rows[2]?.description).toBe('openrouter · $0.15/$0.6 per M · ability 90% (9/10 graded)');
    expect(rows[1]?.detail).toBe('rung 1 for plan: not yet graded in this class: a mid-sized local model (ladder tier 2)');
    expect(rows[2]?.detail).toBe('rung 2 for plan: 9 of 10 graded answers passed in plan');
    expect(rows[3]?.detail).toBe('pruned: output price 75.00 > cap 20.00');
  });

  it("says in Auto where a call opens, and why in words when the wait moved it off the free model; each model's time beside it", () => {
    const rows = pickRows(
      {
        ...ranking,
        classKey: 'edit',
        opening: {
          index: 1,
          openedForWait: {
            model: 'qwen3:14b',
            graded: 9,
            ok: 1,
            classKey: 'edit',
            meanMs: 3100,
            queuedMs: 0,
            queuedCalls: 0,
            waitWorth: 0.1,
          },
        },
      },
      [],
      undefined,
      [],
      [{ model: 'qwen3:14b', classKey: 'edit', timing: { attempts: 9, meanMs: 3100, firstTokenMs: 900, tokensPerSecond: 41.6 } }],
    );
    expect(`${rows[0]?.description} ${rows[0]?.detail}`).toBe(
      'route edit calls by the ledger · opens on openai/gpt-4o-mini: qwen3:14b passed 1 of 9 edits, and each failed try cost you about 3.1 s',
    );
    expect(rows[1]?.description).toBe(
      'ollama · free (local) · ability 62% (prior, 3 graded) · about 3.1 s a call (first token 900 ms, 42 tokens/s)',
    );
    expect(rows[2]?.description).toBe('openrouter · $0.15/$0.6 per M · ability 90% (9/10 graded)');
    // Without a reason from the wait, Auto names the plan's opener as before.
    expect(pickRows({ ...ranking, opening: { index: 1 } }, [], undefined)[0]?.detail).toBe(
      'opens on openai/gpt-4o-mini now; climbs on a failed check',
    );
  });

  it('says a model that passes most calls was passed for how long a try takes, and a busy local server for what it has left', () => {
    const base = {
      model: 'qwen3:14b',
      graded: 20,
      ok: 17,
      classKey: 'edit/typescript',
      meanMs: 45_000,
      queuedMs: 0,
      queuedCalls: 0,
      waitWorth: 0.1,
    };
    expect(openedForWaitText(base)).toBe('qwen3:14b passed 17 of 20 edits, and a try takes about 45 s');
    expect(openedForWaitText({ ...base, meanMs: 3000, queuedMs: 25_000, queuedCalls: 1 })).toBe(
      'qwen3:14b passed 17 of 20 edits, and a try takes about 3.0 s; it is answering another call now (about 25 s left)',
    );
  });

  it('shows the price the catalog gave for a model the panel prices not, and a provider down or the budget in words', () => {
    const catalogPriced = candidate('openai/gpt-4o', { spec: { slug: 'openai/gpt-4o', provider: 'openrouter' } });
    const rows = pickRows(
      {
        classKey: 'chat',
        candidates: [catalogPriced],
        pruned: [
          { model: 'acme/strong', reason: 'pruned: provider acme unavailable: acme: no server at http://127.0.0.1:9 (ECONNREFUSED)' },
          { model: 'openai/o3', reason: 'pruned: daily budget $1.00 reached ($1.02 spent today)' },
        ],
      },
      [
        { slug: 'acme/strong', provider: 'acme' },
        { slug: 'openai/o3', provider: 'openrouter' },
      ],
      undefined,
      [{ model: 'openai/gpt-4o', input: 2.5, output: 10, from: 'catalog' }],
    );
    expect(rows[1]?.description).toBe('openrouter · $2.5/$10 per M (from catalog) · ability 62% (prior, 3 graded)');
    expect(rows[2]?.description).toBe('acme · price unknown');
    expect(rows[2]?.detail).toBe('acme is unreachable (connection refused at http://127.0.0.1:9)');
    expect(rows[3]?.detail).toBe("today's budget of $1.00 is spent ($1.02 so far)");
  });

  it("shows each model's price in the editor's model picker: the panel's, the catalog's, or free for a local one", () => {
    expect(
      pickerPrice({ slug: 'test/strong-model', provider: 'cloud', price: { input: 1, output: 2 } }, false, {
        input: 1,
        output: 2,
        from: 'panel',
      }),
    ).toBe('$1 in / $2 out per M tokens');
    expect(pickerPrice({ slug: 'openai/gpt-4o', provider: 'openrouter' }, false, { input: 2.5, output: 10, from: 'catalog' })).toBe(
      '$2.5 in / $10 out per M tokens (catalog)',
    );
    expect(pickerPrice({ slug: 'tiny-coder:1b', provider: 'ollama' }, true, { input: 0, output: 0, from: 'local' })).toBe('free (local)');
    // Before a session is open nothing is known of prices, but a local provider is free all the same.
    expect(pickerPrice({ slug: 'tiny-coder:1b', provider: 'ollama' }, true, undefined)).toBe('free (local)');
    expect(pickerPrice({ slug: 'acme/x', provider: 'acme' }, false, undefined)).toBe('price unknown');
  });

  it('says the verdict once when the reason already starts with it', () => {
    expect(verdictPhrase({ kind: 'provider-error', reason: 'provider-error: ollama: server error (500)' })).toBe(
      'provider-error: ollama: server error (500)',
    );
    expect(verdictPhrase({ kind: 'fail', reason: 'no JSON found' })).toBe('fail: no JSON found');
  });

  it('explains a call from its decision rows, the settled verdict included', () => {
    const row: DecisionRow = {
      v: 1,
      at: 0,
      call: 'c1',
      run: null,
      class: 'plan',
      shape: null,
      candidates: ['qwen3:14b', 'openai/gpt-4o-mini', 'openai/gpt-4o'],
      rung: 0,
      escalation: [],
      model: 'qwen3:14b',
      resolved: 'qwen3:14b',
      explore: false,
      propensity: 1,
      verdict: 'fail',
      verdictReason: 'no JSON found',
      inputTokens: 10,
      outputTokens: 5,
      cost: 0,
      latencyMs: 40,
      reason: 'no-measured-profiles tier2',
      mode: 'local',
      pruned: [{ model: 'anthropic/claude-opus-4', reason: 'pruned: output price 75.00 > cap 20.00' }],
      final: false,
    };
    const climbed: DecisionRow = {
      ...row,
      rung: 1,
      escalation: ['qwen3:14b'],
      model: 'openai/gpt-4o-mini',
      resolved: 'openai/gpt-4o-mini-2024-07-18',
      verdict: 'pass',
      verdictReason: 'matches the schema',
      cost: 0.00039,
      latencyMs: 1200,
      reason: 'measured 9/10 success class=plan',
      mode: 'cloud',
    };
    const text = explainMarkdown('c1', [
      row,
      climbed,
      { ...climbed, verdict: 'fail', verdictReason: 'the user rated the answer bad', final: true },
    ]);
    expect(text).toBe(
      [
        '# Why openai/gpt-4o-mini answered',
        '',
        'A call of class `plan`: one whose answer can be checked at once (structured output, a plan, JSON).',
        '',
        '1. **qwen3:14b** (local) failed its check: no JSON found. Why it came first: not yet graded in this class: a mid-sized local model (ladder tier 2). The first choice for every such call (no exploration). $0, 40 ms.',
        '2. **openai/gpt-4o-mini** (cloud, served as openai/gpt-4o-mini-2024-07-18) passed its check: matches the schema. Why it came next: 9 of 10 graded answers passed in plan. $0.0004, 1.2 s.',
        '',
        'Not tried, since an answer stood before them: openai/gpt-4o.',
        '',
        'Left out of this call:',
        '- **anthropic/claude-opus-4**: output price 75.00 > cap 20.00',
        '',
        "Not yet measured in `plan`: qwen3:14b. Until 8 of a model's answers in a class are graded, its place comes from its size on the ladder, not from its record.",
        '',
        "Settled later: openai/gpt-4o-mini's answer counts as failed (the user rated the answer bad).",
        '',
        '---',
        'Call id `c1`',
        '',
      ].join('\n'),
    );
    // No router token reaches the reader: the decision log and the Rung log keep those.
    expect(text).not.toMatch(/no-measured-profiles|measured 9\/10|propensity|pruned:/);
  });

  it('shows every string a row supplies as written, never as Markdown: no image, link, HTML or heading of its own', () => {
    const hostile: DecisionRow = {
      v: 1,
      at: 0,
      call: 'c`9',
      run: null,
      class: 'chat',
      shape: 'a`b',
      candidates: ['![seen](https://tracker.example/pixel.png)'],
      rung: 0,
      escalation: [],
      model: '![seen](https://tracker.example/pixel.png)',
      resolved: '<img src="https://tracker.example/x.png">',
      explore: false,
      propensity: 1,
      verdict: 'pass',
      verdictReason: 'see [the docs](https://phish.example/login) or <https://phish.example>',
      inputTokens: 1,
      outputTokens: 1,
      cost: 0,
      latencyMs: 1,
      reason: 'only rung',
      mode: 'cloud',
      pruned: [{ model: 'x\n# Heading\n<script>alert(1)</script>', reason: 'pruned: ~~gone~~ $x$ &amp;' }],
      final: false,
    };
    const text = explainMarkdown('c`9', [hostile]);
    // An unescaped `[`, `<` or `&` (one not behind a backslash) would be read as a link, an image, HTML or an entity.
    const unescaped = (char: string): boolean =>
      text
        .split(char)
        .slice(0, -1)
        .some((before) => !/(^|[^\\])(\\\\)*\\$/.test(before));
    for (const char of ['[', '<', '&', '~']) expect(unescaped(char), char).toBe(false);
    expect(text).toContain('\\~\\~gone\\~\\~ \\$x\\$ \\&amp;');
    expect(text).toContain('**\\!\\[seen\\](https://tracker.example/pixel.png)**');
    expect(text).not.toMatch(/^# Heading/m);
    expect(text).toContain('x # Heading \\<script');
    // The call id and the class, as code spans fenced past the backtick they hold.
    expect(text).toContain('Call id ``c`9``');
    expect(text).toContain('A call of class ``chat/a`b``');
  });

  it('says how often an explored opener is chosen, and a call no model could take', () => {
    const explored: DecisionRow = {
      v: 1,
      at: 0,
      call: 'c3',
      run: 'r1',
      class: 'edit',
      shape: 'typescript',
      candidates: ['qwen3:14b', 'tiny:1b'],
      rung: 1,
      escalation: [],
      model: 'tiny:1b',
      resolved: 'tiny:1b',
      explore: true,
      propensity: 0.05,
      verdict: 'unverified',
      verdictReason: 'no verifier configured',
      inputTokens: 10,
      outputTokens: 5,
      cost: 0,
      latencyMs: 40,
      reason: 'below gate 3/8 graded class=edit, prior tier1',
      mode: 'local',
      pruned: [],
      final: false,
    };
    const text = explainMarkdown('c3', [explored]);
    expect(text).toContain('# Why tiny:1b answered\n\nA call of class `edit/typescript`: a code change, in typescript.');
    expect(text).toContain(
      '**tiny:1b** (local) answered, unchecked: no verifier configured. Why it came first: 3 of the 8 graded answers a rating needs in edit: a small local model (ladder tier 1). Explored: tried first to learn how it does, which happens on 5% of such calls;',
    );
    expect(text).toContain('Call id `c3` · conversation `r1`');
    const refused: DecisionRow = {
      ...explored,
      call: 'c4',
      candidates: [],
      model: '',
      verdict: 'refused',
      verdictReason: 'no model can take this call',
      explore: false,
      propensity: 1,
      pruned: [{ model: 'tiny:1b', reason: 'pruned: needs tools' }],
    };
    expect(explainMarkdown('c4', [refused])).toContain(
      '# Why no model took this call\n\nA call of class `edit/typescript`: a code change, in typescript.\n\nNo model could take it: no model can take this call.\n\nLeft out of this call:\n- **tiny:1b**: needs tools\n',
    );
    expect(explainMarkdown('c2', [])).toBe(
      '# A call Rung has no record of\n\nThe decision log has no row for this call.\n\n---\nCall id `c2`\n',
    );
  });
});

describe('a call cut off when Rung shut down', () => {
  it('says the answer was cut off and why, in the explanation and after a climb in the short line', () => {
    const cut: DecisionRow = {
      v: 1,
      at: 0,
      call: 'c5',
      run: null,
      class: 'chat',
      shape: null,
      candidates: ['slow-coder:7b'],
      rung: 0,
      escalation: [],
      model: 'slow-coder:7b',
      resolved: 'slow-coder:7b',
      explore: false,
      propensity: 1,
      verdict: 'interrupted',
      verdictReason: 'Rung shut down (the window closed or reloaded) before the answer was finished',
      inputTokens: 10,
      outputTokens: 5,
      cost: 0,
      latencyMs: 40,
      reason: 'below gate 0/8 graded class=chat, prior tier2',
      mode: 'local',
      pruned: [],
      final: false,
    };
    expect(explainMarkdown('c5', [cut])).toContain(
      '**slow-coder:7b** (local) was cut off: Rung shut down (the window closed or reloaded) before the answer was finished.',
    );
  });

  it('explains what the tool schemas of each attempt took of the input, what that cost, and which tools were left out', () => {
    const row: DecisionRow = {
      v: 1,
      at: 0,
      call: 'c3',
      run: null,
      class: 'chat',
      shape: null,
      candidates: ['openai/gpt-4o'],
      rung: 0,
      escalation: [],
      model: 'openai/gpt-4o',
      resolved: 'openai/gpt-4o',
      explore: false,
      propensity: 1,
      verdict: 'unverified',
      verdictReason: 'no tool call to check',
      inputTokens: 18_130,
      outputTokens: 40,
      cost: 0.0457,
      latencyMs: 900,
      reason: 'only rung',
      mode: 'cloud',
      pruned: [],
      final: false,
      tools: { sent: 15, tokens: 3_703, input: 7_420, cost: 0.0093, dropped: ['fetch_webpage', 'github_repo'] },
    };
    expect(explainMarkdown('c3', [row])).toContain(
      // Escaped as Markdown: a tool's name is the editor's or an extension's, and `_` would start emphasis.
      ' Tool schemas sent: 15 tools ≈ 3.7k of 7.4k input tokens, \\$0.0093 of the input; dropped 2 (rung.agentTools): fetch\\_webpage, github\\_repo.\n',
    );
    const { tools: _tools, ...withoutTools } = row;
    expect(explainMarkdown('c3', [withoutTools])).not.toContain('Tool schemas');
  });
});

describe('escalationCause', () => {
  it('drops the models the session reason already names, keeping the cause', () => {
    expect(escalationCause({ from: 'a', to: 'b', reason: 'escalated from a to b: syntax error: 1:16 Expression expected.' })).toBe(
      'syntax error: 1:16 Expression expected.',
    );
    expect(escalationCause({ from: 'a', to: 'b', reason: 'no JSON found' })).toBe('no JSON found');
  });
});
