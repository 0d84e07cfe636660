import { describe, expect, it } from 'vitest';
import { decisionSchema, parseHostMessage, type ModelWire } from '../../../src/protocol/ledgerProtocol';
import {
  askForOpeners,
  emptyState,
  firstWholeCalls,
  groupCalls,
  nameBreakPieces,
  openerSentence,
  priceText,
  prunedText,
  ratingClasses,
  reduce,
  rejectMessage,
  spendChart,
  spendChartNote,
  spendTotalsText,
  strongestEstimateText,
} from '../../../webview/ledgerModel';
import type { DecisionRow } from '../../../src/core/decisions/decision';
import { CallPageCollector } from '../../../src/core/store/callPage';
import { decisionWire } from '../../../src/extension/ledgerView/ledgerController';
import { decisionRow } from '../support/decisionRow';
import { exampleSpend, hostExamples, wireDecision, wireRating } from '../support/ledgerMessages';

const models: ModelWire[] = [
  { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', local: true, price: null },
  { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', local: true, price: null },
  { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', local: false, price: { input: 0.15, output: 0.6 } },
];

/** For rows newest first, whether each is its call's first row in the log. */
function firstRows(log: readonly DecisionRow[]): boolean[] {
  const seen = new Set<string>();
  return [...log]
    .reverse()
    .map((row) => !seen.has(row.call) && seen.add(row.call) !== undefined)
    .reverse();
}

/** The page the host serves from `log` (rows newest first, every row shown), as the session reads it. */
function hostPage(log: readonly DecisionRow[], offset: number, limit: number) {
  const collector = new CallPageCollector(offset, limit);
  const first = firstRows(log);
  let wanted = true;
  for (const [index, row] of log.entries()) if (!(wanted = collector.add(row, first[index] === true))) break;
  if (wanted) collector.end();
  const page = collector.page();
  return { rows: page.rows.map(decisionWire), total: log.length, offset: page.offset, filter: {} };
}

/** Where the host says `row`, the newest of its call in `log`, goes: the session's `placeOf` without a filter. */
function hostPlace(log: readonly DecisionRow[], row: DecisionRow): { offset: number; added: number } {
  const collector = new CallPageCollector(Number.MAX_SAFE_INTEGER, 1, { locate: row.call });
  const first = firstRows(log);
  let wanted = true;
  for (const [index, shown] of log.entries()) if (!(wanted = collector.add(shown, first[index] === true))) break;
  if (wanted) collector.end();
  return { offset: collector.located()?.offset ?? -1, added: 1 };
}

/** An escalating call: the 3b fails the schema check, the 14b passes; rows newest first, as a page holds them. */
function escalatingCall(call: string, at: number) {
  return [
    wireDecision({
      call,
      at: at + 2_000,
      model: 'qwen3:14b',
      resolved: 'qwen3:14b',
      rung: 1,
      escalation: ['qwen2.5:3b'],
      verdict: 'pass',
      latencyMs: 2_000,
      cost: 0,
    }),
    wireDecision({
      call,
      at,
      model: 'qwen2.5:3b',
      rung: 0,
      verdict: 'fail',
      verdictReason: 'schema: missing "steps"',
      latencyMs: 900,
      cost: 0,
      explore: true,
      propensity: 0.05,
    }),
  ];
}

describe('grouping decision rows into routed calls', () => {
  it('shows one call with its ladder in candidate order, attempts on their rungs and the escalation between them', () => {
    const [call] = groupCalls(escalatingCall('c1', 1_000), models, [wireRating({ model: 'qwen2.5:3b', ability: 0.3 })]);
    expect(call?.ladder.map((step) => [step.place, step.model, step.attempt?.verdict ?? null])).toEqual([
      [1, 'qwen2.5:3b', 'fail'],
      [2, 'qwen3:14b', 'pass'],
      [3, 'openai/gpt-4o-mini', null],
    ]);
    expect(call?.ladder[0]?.ability).toBe(0.3);
    expect(call?.ladder[1]?.ability).toBeNull();
    expect(call?.ladder[2]?.price).toBe('$0.15 in / $0.60 out per M tokens');
    expect(call?.escalations).toEqual([{ from: 'qwen2.5:3b', to: 'qwen3:14b', reason: 'schema: missing "steps"' }]);
    expect(call?.verdict).toBe('pass');
    expect(call?.latencyMs).toBe(2_900);
    expect(call?.explore).toBe(true);
    expect(call?.propensity).toBe(0.05);
  });

  it('says pruned once, whether or not the router wrote the prefix', () => {
    expect(prunedText('needs tools')).toBe('pruned: needs tools');
    expect(prunedText('pruned: busy qwen3:14b 1/1 in flight')).toBe('pruned: busy qwen3:14b 1/1 in flight');
    const skipped = 'skipped: stopped climbing after 2 failed; expected cost of going on $0.0031 > unanswered $0.0020 (economy)';
    expect(prunedText(skipped)).toBe(skipped);
  });

  it('tells a call a replay wrote from a routed one, naming the policy it ran', () => {
    const [replayed, ofPolicy, routed] = groupCalls(
      [
        wireDecision({ call: 'replay-1a2b3c4d/p1', at: 3_000, source: 'replay' }),
        wireDecision({ call: 'replay-5e6f7a8b/p1', at: 2_000, source: 'replay', policy: 'open=qwen3:14b' }),
        wireDecision({ call: 'chat-1', at: 1_000 }),
      ],
      models,
      [],
    );
    expect([replayed?.replay, ofPolicy?.replay, routed?.replay]).toEqual(['replay', 'replay of open=qwen3:14b', null]);
  });

  it('keeps the pruned candidates with their reasons', () => {
    const [call] = groupCalls(
      [wireDecision({ call: 'c1', pruned: [{ model: 'qwen3.6:27b', reason: 'maxTotalPerProvider=2 reached for ollama' }] })],
      models,
      [],
    );
    expect(call?.pruned).toEqual([{ model: 'qwen3.6:27b', reason: 'maxTotalPerProvider=2 reached for ollama' }]);
  });

  it('orders calls by when they were routed, newest first, and takes a later settling row as the verdict', () => {
    const rows = [
      wireDecision({ call: 'c1', at: 9_000, final: true, verdict: 'fail', verdictReason: 'thumbs down' }),
      wireDecision({ call: 'c2', at: 5_000 }),
      wireDecision({ call: 'c1', at: 1_000 }),
    ];
    const calls = groupCalls(rows, models, []);
    expect(calls.map((call) => call.call)).toEqual(['c2', 'c1']);
    expect(calls[1]).toMatchObject({ verdict: 'fail', verdictReason: 'thumbs down', settled: true });
    expect(calls[1]?.attempts).toHaveLength(1);
  });

  it('puts a pinned model that was not among the candidates on the rung it ran', () => {
    const [call] = groupCalls([wireDecision({ call: 'c1', model: 'my/pinned', candidates: ['qwen2.5:3b'], rung: 0 })], models, []);
    expect(call?.ladder.map((step) => step.model)).toEqual(['my/pinned', 'qwen2.5:3b']);
    expect(call?.ladder[0]?.price).toBe('not in the panel now');
  });

  it('sums only the costs that were reported', () => {
    const [call] = groupCalls([wireDecision({ call: 'c1', cost: null }), wireDecision({ call: 'c1', cost: 0.25, at: 1 })], models, []);
    expect(call?.cost).toBe(0.25);
    const [unknown] = groupCalls([wireDecision({ call: 'c2', cost: null })], models, []);
    expect(unknown?.cost).toBeNull();
  });
});

describe('prices', () => {
  it('says a local model has no token price and an unpriced cloud model has an unknown one', () => {
    expect(priceText(models[0] as ModelWire)).toBe('local, no token price');
    expect(priceText({ slug: 'x', provider: 'openai', role: null, local: false, price: null })).toBe('price unknown');
  });
});

describe('ratings per class', () => {
  it('places models strongest first, shows the gate, and an interval only when something was graded', () => {
    const classes = ratingClasses([
      wireRating({ model: 'a', classKey: 'plan', ability: 0.4, graded: 3, ok: 1, measured: false, uncertainty: 1.2 }),
      wireRating({ model: 'b', classKey: 'plan', rating: 1, ability: 0.73, uncertainty: 0.5, graded: 12, measured: true }),
      wireRating({ model: 'c', classKey: 'chat', graded: 0, ok: 0, measured: false, uncertainty: null }),
    ]);
    expect(classes.map((group) => group.classKey)).toEqual(['chat', 'plan']);
    const plan = classes[1]?.rows ?? [];
    expect(plan.map((row) => [row.place, row.model, row.gate])).toEqual([
      [1, 'b', '12 graded, past the gate of 8'],
      [2, 'a', '3/8 graded, still on its prior'],
    ]);
    const interval = plan[0]?.interval;
    expect(interval?.low).toBeCloseTo(1 / (1 + Math.exp(-(1 - 1.96 * 0.5))), 6);
    expect(interval?.high).toBeCloseTo(1 / (1 + Math.exp(-(1 + 1.96 * 0.5))), 6);
    expect(plan.map((row) => row.gateShort)).toEqual(['12 · measured', '3/8 · prior']);
    expect(classes[0]?.rows[0]?.interval).toBeNull();
  });

  it('shows how long each model takes at the class, with its first token and writing speed in the tooltip, and a dash before any was timed', () => {
    const [edit] = ratingClasses([
      wireRating({ model: 'a', classKey: 'edit', timing: { attempts: 9, meanMs: 3140, firstTokenMs: 900, tokensPerSecond: 41.6 } }),
      wireRating({ model: 'b', classKey: 'edit', ability: 0.3 }),
    ]);
    expect(edit?.rows.map((row) => row.time)).toEqual([
      { short: '3.1 s', long: '3.1 s on average over 9 answers on this machine; first token after 900 ms; 42 tokens a second' },
      null,
    ]);
    expect(
      parseHostMessage({ type: 'ratings-changed', ratings: [wireRating({ model: 'a', timing: { attempts: 1, meanMs: -1 } })] }),
    ).toMatchObject({ ok: false });
  });

  it('shows a class and its shape once when they hold the same answers, and says so', () => {
    // Every graded outcome at edit/typescript is counted at edit too: with every edit so far in TypeScript, the two tables were the same rows twice.
    const same = (classKey: string) => [
      wireRating({ model: 'a', classKey, ability: 0.4, graded: 3, ok: 1, measured: false }),
      wireRating({ model: 'b', classKey, ability: 0.7, graded: 9, ok: 7, measured: true }),
    ];
    const classes = ratingClasses([...same('edit'), ...same('edit/typescript'), ...same('chat')]);
    expect(classes.map((group) => [group.classKey, group.sameAs])).toEqual([
      ['chat', []],
      ['edit', ['edit/typescript']],
    ]);
    expect(classes[1]?.note).toBe('Every graded edit call so far was edit/typescript, so both keys hold these same ratings.');
    expect(classes[0]?.note).toBeUndefined();
  });

  it('says what a class and its shape each count when their ratings differ', () => {
    const classes = ratingClasses([
      wireRating({ model: 'a', classKey: 'edit', ability: 0.5, graded: 5, ok: 3, measured: false }),
      wireRating({ model: 'a', classKey: 'edit/typescript', ability: 0.4, graded: 3, ok: 1, measured: false }),
    ]);
    expect(classes.map((group) => [group.classKey, group.sameAs, group.note])).toEqual([
      ['edit', [], 'Every graded edit call, edit/typescript included.'],
      ['edit/typescript', [], 'Only edit calls shaped typescript; each also counts in edit.'],
    ]);
  });

  it('shows the gate the host sent with the rating, not a number of its own', () => {
    const [row] = ratingClasses([wireRating({ model: 'a', graded: 3, ok: 1, measured: false, gate: 5 })])[0]?.rows ?? [];
    expect([row?.gate, row?.gateShort, row?.gateAt]).toEqual(['3/5 graded, still on its prior', '3/5 · prior', 5]);
  });
});

describe('the spend chart', () => {
  it('stacks each day by model, scaled so the dearest day fills the height', () => {
    const chart = spendChart(exampleSpend, 200, 100);
    expect(chart.days).toEqual(['2026-01-01', '2026-01-02']);
    expect(chart.maxDayCost).toBeCloseTo(0.02);
    const first = chart.bars.find((bar) => bar.day === '2026-01-01');
    expect(first).toMatchObject({ model: 'openai/gpt-4o-mini', series: 0, y: 0, height: 100 });
    const second = chart.bars.filter((bar) => bar.day === '2026-01-02');
    // The free local model draws no bar; the paid one is half the dearest day.
    expect(second.map((bar) => [bar.model, bar.height])).toEqual([['openai/gpt-4o-mini', 50]]);
    expect(chart.providers.map((provider) => [provider.provider, provider.calls])).toEqual([
      ['openrouter', 4],
      ['ollama', 5],
    ]);
  });

  it('draws no empty box when every call cost nothing, and says why there is no chart', () => {
    expect(spendChartNote(spendChart(exampleSpend, 200, 100))).toBeUndefined();
    const local = { ...exampleSpend, byDay: exampleSpend.byDay.map((entry) => ({ ...entry, cost: 0 })) };
    expect(spendChartNote(spendChart(local, 200, 100))).toBe('Every call so far cost $0: nothing to chart.');
    expect(spendChartNote(spendChart({ ...exampleSpend, byDay: [] }, 200, 100))).toBe('No spend recorded yet.');
  });

  it('states the strongest model figure as an estimate, and says when there is none', () => {
    expect(strongestEstimateText(exampleSpend)).toBe(
      'The same calls on openai/gpt-4o-mini would have cost about $0.09 (an estimate from list prices); Rung spent $0.03, $0.06 less.',
    );
    expect(strongestEstimateText({ ...exampleSpend, strongestModel: null, strongestEstimate: null })).toMatch(/^No estimate/);
  });

  it('says how much of the spend paid for tool schemas, when any did', () => {
    expect(spendTotalsText({ ...exampleSpend, total: 0.294, today: 0.294, toolSchemas: 0.189 })).toBe(
      "Total $0.294, today $0.294; $0.189 (64%) of it paid for tool schemas (an agent's tools, sent as input with every request).",
    );
    expect(spendTotalsText({ ...exampleSpend, total: 0.05, today: 0.01, toolSchemas: 0 })).toBe('Total $0.05, today $0.01.');
    expect(spendTotalsText({ ...exampleSpend, total: 0.05, today: 0.01 })).toBe('Total $0.05, today $0.01.');
  });
});

describe('the panel state', () => {
  it('shows a new decision at the top of the newest page and drops the oldest past the page size', () => {
    let state = reduce(
      emptyState(),
      {
        ...hostExamples.snapshot,
        decisions: { rows: [wireDecision({ call: 'old1' }), wireDecision({ call: 'old2' })], total: 2, offset: 0, filter: {} },
      },
      2,
    );
    state = reduce(state, { type: 'decision-added', row: wireDecision({ call: 'new' }), filter: {}, offset: 0, added: 1 }, 2);
    expect(state.page.rows.map((row) => row.call)).toEqual(['new', 'old1']);
    expect(state.page.total).toBe(3);
  });

  it('moves an older page down by a new decision above it, and counts it as newer without showing it', () => {
    let state = reduce(
      emptyState(),
      { type: 'page', decisions: { rows: [wireDecision({ call: 'old' })], total: 60, offset: 50, filter: {} } },
      50,
    );
    state = reduce(state, { type: 'decision-added', row: wireDecision({ call: 'new' }), filter: {}, offset: 0, added: 1 }, 50);
    expect(state.page.rows.map((row) => row.call)).toEqual(['old']);
    expect(state.page.offset).toBe(51);
    expect(state.page.total).toBe(61);
    expect(state.newerRows).toBe(1);
  });

  it('keeps paging from the rows on screen after a verdict settled now for a call on a newer page: no row twice, none skipped', () => {
    // Twelve one-row calls, c11 the newest, four to a page; the panel shows the second page, c7 to c4.
    const log = Array.from({ length: 12 }, (_, index) => decisionRow({ call: `c${11 - index}` }));
    let state = reduce(emptyState(), { type: 'page', decisions: hostPage(log, 4, 4) }, 4);
    expect(state.page.rows.map((row) => row.call)).toEqual(['c7', 'c6', 'c5', 'c4']);
    // A thumbs down for c9, on the first page: the host counts it above c9, so every row below moves down one.
    const verdict = decisionRow({ call: 'c9', final: true, verdict: 'fail', verdictReason: 'thumbs down' });
    log.unshift(verdict);
    state = reduce(state, { type: 'decision-added', row: decisionWire(verdict), filter: {}, ...hostPlace(log, verdict) }, 4);
    expect(state.page.rows.map((row) => row.call)).toEqual(['c7', 'c6', 'c5', 'c4']);
    expect(state.page.offset).toBe(5);
    expect(state.newerRows).toBe(0);
    // "Older" and "Newer" as the pager asks: from the row after the last shown, and back by a page.
    const older = hostPage(log, state.page.offset + state.page.rows.length, 4);
    expect(older.rows.map((row) => row.call)).toEqual(['c3', 'c2', 'c1', 'c0']);
    const newer = hostPage(log, state.page.offset - state.page.rows.length, 4);
    expect(newer.rows.map((row) => `${row.call}${row.final ? '!' : ''}`)).toEqual(['c10', 'c9!', 'c9', 'c8']);
  });

  it('shows a verdict settled now beside its call when the call is on the page, counted where the host counts it', () => {
    const page = {
      rows: [wireDecision({ call: 'c3', at: 3_000 }), wireDecision({ call: 'c2', at: 2_000 }), wireDecision({ call: 'c1', at: 1_000 })],
      total: 3,
      offset: 0,
      filter: {},
    };
    let state = reduce(emptyState(), { type: 'page', decisions: page }, 3);
    state = reduce(
      state,
      {
        type: 'decision-added',
        row: wireDecision({ call: 'c2', at: 9_000, final: true, verdict: 'fail', verdictReason: 'thumbs down' }),
        filter: {},
        offset: 1,
        added: 1,
      },
      3,
    );
    // As the host pages it (callPage.ts): the verdict just above its call, and c1 pushed to the next page.
    expect(state.page.rows.map((row) => `${row.call}${row.final ? '!' : ''}`)).toEqual(['c3', 'c2!', 'c2']);
    expect(state.page.total).toBe(4);
    const calls = groupCalls(state.page.rows, models, []);
    expect(calls.map((call) => [call.call, call.settled])).toEqual([
      ['c3', false],
      ['c2', true],
    ]);
  });

  it('only counts a verdict settled now for a call on an older page, and does not call it newer', () => {
    const page = {
      rows: [wireDecision({ call: 'c3', at: 3_000 }), wireDecision({ call: 'c2', at: 2_000 })],
      total: 9,
      offset: 0,
      filter: {},
    };
    const state = reduce(
      reduce(emptyState(), { type: 'page', decisions: page }, 50),
      { type: 'decision-added', row: wireDecision({ call: 'old', final: true, verdict: 'fail' }), filter: {}, offset: 7, added: 1 },
      50,
    );
    expect(state.page.rows.map((row) => row.call)).toEqual(['c3', 'c2']);
    expect(state.page.offset).toBe(0);
    expect(state.page.total).toBe(10);
    expect(state.newerRows).toBe(0);
  });

  it('asks for its page again when a verdict filter takes in a whole call there, whose other rows it does not have', () => {
    const page = {
      rows: [wireDecision({ call: 'c3', verdict: 'fail' }), wireDecision({ call: 'c1', verdict: 'fail' })],
      total: 2,
      offset: 0,
      filter: { verdict: 'fail' as const },
    };
    const state = reduce(
      reduce(emptyState(), { type: 'page', decisions: page }, 50),
      {
        type: 'decision-added',
        row: wireDecision({ call: 'c2', final: true, verdict: 'fail' }),
        filter: { verdict: 'fail' },
        offset: 1,
        added: 2,
      },
      50,
    );
    expect(state.stale).toBe(true);
    expect(state.page.total).toBe(4);
    expect(reduce(state, { type: 'page', decisions: { ...page, total: 4 } }, 50).stale).toBe(false);
  });

  it("ignores a new decision its filter does not show, or one placed under another filter than the page's", () => {
    const filtered = reduce(emptyState(), { type: 'page', decisions: { rows: [], total: 0, offset: 0, filter: { verdict: 'fail' } } }, 50);
    expect(
      reduce(
        filtered,
        { type: 'decision-added', row: wireDecision({ call: 'ok', verdict: 'pass' }), filter: { verdict: 'fail' }, offset: null, added: 0 },
        50,
      ),
    ).toBe(filtered);
    expect(
      reduce(filtered, { type: 'decision-added', row: wireDecision({ call: 'ok', verdict: 'pass' }), filter: {}, offset: 0, added: 1 }, 50),
    ).toBe(filtered);
  });

  it('replaces ratings, spend, models and the notice from their deltas', () => {
    let state = reduce(emptyState(), hostExamples.snapshot, 50);
    state = reduce(state, hostExamples['ratings-changed'], 50);
    state = reduce(state, hostExamples['spend-changed'], 50);
    state = reduce(state, hostExamples['panel-changed'], 50);
    state = reduce(state, hostExamples.notice, 50);
    expect(state.ratings).toEqual(hostExamples['ratings-changed'].ratings);
    expect(state.spend.strongestModel).toBeNull();
    expect(state.models).toEqual([]);
    expect(state.notice).toEqual({ level: 'warning', message: 'ollama is not answering' });
    expect(state.loaded).toBe(true);
  });
});

describe('what-if sentences', () => {
  const versusLog = {
    loggedCost: 0.002,
    loggedSuccess: 0.8,
    costChange: -0.3412,
    costChangeLow: -0.4187,
    costChangeHigh: -0.2637,
    successChange: -0.021,
    successChangeLow: -0.049,
    successChangeHigh: 0.009,
  };

  it('says cost and first-try success as whole signed percents with half the 95% interval, and the calls behind them', () => {
    // Cost: −34.12% rounds to −34%; (−26.37 − −41.87) / 2 = 7.75 rounds to 8. Success: −2.1 → −2; (0.9 + 4.9) / 2 = 2.9 → 3.
    expect(openerSentence({ model: 'qwen2.5:3b', calls: 1240, versusLog, refused: null })).toBe(
      'Had you always opened with qwen2.5:3b: cost −34% (±8%), first-try success −2% (±3%), from 1,240 of your calls.',
    );
  });

  it('says when only the most recent calls were read, and how many the log holds', () => {
    expect(openerSentence({ model: 'qwen2.5:3b', calls: 20000, versusLog, refused: null, logCalls: 61446 })).toBe(
      'Had you always opened with qwen2.5:3b: cost −34% (±8%), first-try success −2% (±3%), from 20,000 of your most recent calls (your log holds 61,446).',
    );
  });

  it('puts a plus on a rise and no sign on a change that rounds to nothing', () => {
    const rise = {
      ...versusLog,
      costChange: 1.256,
      costChangeLow: 0.9,
      costChangeHigh: 1.6,
      successChange: 0.004,
      successChangeLow: -0.01,
      successChangeHigh: 0.018,
    };
    expect(openerSentence({ model: 'openai/gpt-4o-mini', calls: 1, versusLog: rise, refused: null })).toBe(
      'Had you always opened with openai/gpt-4o-mini: cost +126% (±35%), first-try success 0% (±1%), from 1 of your calls.',
    );
  });

  it('says in plain words why there is no number', () => {
    expect(openerSentence({ model: 'qwen3:14b', calls: 300, versusLog: null, refused: 'too-few' })).toBe(
      'Not enough of your calls opened with qwen3:14b to say.',
    );
    expect(openerSentence({ model: 'qwen3:14b', calls: 0, versusLog: null, refused: 'no-calls' })).toBe(
      'Nothing to say about opening with qwen3:14b yet: your log holds no routed calls.',
    );
    expect(openerSentence({ model: 'qwen3:14b', calls: 33, versusLog: null, refused: 'not-a-candidate' })).toBe(
      'Cannot say yet for qwen3:14b: it was left out (pruned, or off the panel) of more than 1 in 20 of your logged calls, and the log gave it no chance to open those; it could have opened the other 33.',
    );
  });

  it('waits after the user asks, shows the answer, and offers the button again after a failed request', () => {
    const asked = askForOpeners({ ...emptyState(), loaded: true });
    expect(asked.openers).toEqual({ status: 'waiting' });
    expect(reduce(asked, hostExamples['opener-estimates'], 50).openers).toEqual({
      status: 'answered',
      estimates: hostExamples['opener-estimates'].estimates,
    });
    expect(reduce(asked, { type: 'notice', level: 'error', message: 'ledger panel: estimate-openers failed' }, 50).openers).toEqual({
      status: 'not-asked',
    });
    expect(reduce(asked, { type: 'notice', level: 'info', message: 'Forgot every rating at plan' }, 50).openers).toEqual({
      status: 'waiting',
    });
  });
});

describe('nameBreakPieces', () => {
  it('cuts a model name after each slug separator and nowhere inside a word or a version number', () => {
    expect(nameBreakPieces('deepseek/deepseek-r1-distill-qwen-32b:free')).toEqual([
      'deepseek/',
      'deepseek-',
      'r1-',
      'distill-',
      'qwen-',
      '32b:',
      'free',
    ]);
    expect(nameBreakPieces('meta-llama/llama-3.3-70b-instruct-turbo')).toEqual([
      'meta-',
      'llama/',
      'llama-',
      '3.3-',
      '70b-',
      'instruct-',
      'turbo',
    ]);
    expect(nameBreakPieces('qwen2.5-coder_7b.gguf')).toEqual(['qwen2.5-', 'coder_', '7b.', 'gguf']);
  });

  it('cuts a piece longer than any word every 32 characters, so a 600-character id can wrap', () => {
    const pieces = nameBreakPieces(`vendor/${'m'.repeat(100)}… [truncated, 600 characters, #33c044eb]`);
    expect(pieces[0]).toBe('vendor/');
    expect(pieces.every((piece) => piece.length <= 32)).toBe(true);
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.join('')).toBe(`vendor/${'m'.repeat(100)}… [truncated, 600 characters, #33c044eb]`);
  });

  it('leaves a name without separators whole, and always joins back to the name', () => {
    expect(nameBreakPieces('llama3')).toEqual(['llama3']);
    for (const name of ['a//b', '-x-', 'qwen2.5:3b', '~vendor/model-latest', '']) expect(nameBreakPieces(name).join('')).toBe(name);
  });
});

describe('firstWholeCalls', () => {
  const rows = (calls: string) => [...calls].map((call) => ({ call }));
  const calls = (kept: { call: string }[]) => kept.map((row) => row.call).join('');

  it('drops the oldest call from a full page rather than show part of its ladder', () => {
    expect(calls(firstWholeCalls(rows('NAABB'), 4))).toBe('NAA');
    expect(calls(firstWholeCalls(rows('NAABC'), 4))).toBe('NAAB');
  });

  it('keeps a page that one call fills, and a page that is not full', () => {
    expect(calls(firstWholeCalls(rows('AAAAA'), 3))).toBe('AAA');
    expect(calls(firstWholeCalls(rows('AB'), 3))).toBe('AB');
  });
});

describe('a call no rung could take', () => {
  it('crosses the wire whole and shows as a refused call with its pruned rungs and no attempt', () => {
    const row = decisionRow({
      call: 'refused-1',
      verdict: 'refused',
      verdictReason: 'no model can take this call (qwen2.5:3b: pruned: needs tools)',
      model: '',
      rung: -1,
      candidates: [],
      escalation: [],
      cost: null,
      pruned: [{ model: 'qwen2.5:3b', reason: 'pruned: needs tools' }],
    });
    const wire = decisionWire(row);
    expect(decisionSchema.safeParse(wire).success).toBe(true);
    const [call] = groupCalls([wire], models, []);
    expect(call).toMatchObject({
      call: 'refused-1',
      verdict: 'refused',
      attempts: [],
      ladder: [],
      escalations: [],
      cost: null,
      pruned: [{ model: 'qwen2.5:3b', reason: 'pruned: needs tools' }],
    });
  });
});

describe('a message the page cannot take', () => {
  it('turns "Loading" into an error that says what was not shown and where to look', () => {
    const snapshot = {
      ...hostExamples.snapshot,
      decisions: { ...hostExamples.snapshot.decisions, rows: [wireDecision({ call: 'c1', verdictReason: 'x'.repeat(10_001) })] },
    };
    const parsed = parseHostMessage(snapshot);
    expect(parsed.ok).toBe(false);
    const state = rejectMessage(emptyState(), parsed.ok ? '' : parsed.error);
    expect(state.loaded).toBe(false);
    expect(state.notice).toEqual({
      level: 'error',
      message:
        "Rung sent this panel something it could not show (dropped a malformed 'snapshot' message: decisions.rows.0.verdictReason: too_big). The Rung log (Rung: Show Log) has it too; closing and reopening the panel asks again.",
    });
  });
});
