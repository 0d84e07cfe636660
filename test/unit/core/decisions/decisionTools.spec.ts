import { describe, expect, it } from 'vitest';
import { parseDecisionLines } from '../../../../src/core/decisions/decision';

const row = { v: 1, at: 0, call: 'c1', model: 'openai/gpt-4o', verdict: 'unverified' };

describe("a decision row's tool schemas", () => {
  it('reads back what a call with tools recorded', () => {
    const tools = { sent: 15, tokens: 3_703, input: 7_420, cost: 0.0093, dropped: ['fetch_webpage'] };
    expect(parseDecisionLines(JSON.stringify({ ...row, tools })).rows[0]?.tools).toEqual(tools);
  });

  it('reads a malformed or hostile tools field as absent and keeps the row', () => {
    const lines = [
      { ...row, call: 'a', tools: { sent: 'many' } },
      { ...row, call: 'b', tools: { sent: 3, tokens: -5, input: 10, cost: 0, dropped: [] } },
      { ...row, call: 'c', tools: { sent: 3, tokens: 5, input: 10, cost: -450, dropped: [] } },
    ].map((entry) => JSON.stringify(entry));
    const { rows, skipped } = parseDecisionLines(lines.join('\n'));
    expect(skipped).toBe(0);
    expect(rows.map((entry) => [entry.call, entry.tools])).toEqual([
      ['a', undefined],
      ['b', undefined],
      // A negative cost is no spend figure: unknown, as anywhere else in the row.
      ['c', { sent: 3, tokens: 5, input: 10, cost: null, dropped: [] }],
    ]);
  });

  it('reads a row from before the field without one', () => {
    expect(parseDecisionLines(JSON.stringify(row)).rows[0]?.tools).toBeUndefined();
  });
});
