import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpendTally } from '../../../../src/core/store/spendTally';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

const DAY = Date.UTC(2026, 0, 2);

describe('SpendTally', () => {
  it('passes over a row whose time no Date can hold, as the row reader does, and sums the rest', () => {
    const path = join(dir.path, 'decisions.jsonl');
    writeFileSync(
      path,
      [decisionRow({ call: 'a', at: DAY, cost: 1 }), decisionRow({ call: 'far', at: 1e300, cost: 5 })]
        .map((row) => `${JSON.stringify(row)}\n`)
        .join(''),
    );
    const tally = new SpendTally({ path });
    expect(tally.from(DAY).map((group) => [group.day, group.cost, group.calls])).toEqual([['2026-01-02', 1, 1]]);
    // And when such a row arrives after the first read, on the forward path.
    appendFileSync(
      path,
      `${JSON.stringify(decisionRow({ call: 'later', at: -1e300, cost: 5 }))}\n${JSON.stringify(decisionRow({ call: 'b', at: DAY + 1, cost: 2 }))}\n`,
    );
    expect(tally.today(DAY)).toBe(3);
  });
});

describe('SpendTally with rows whose cost is not a spend', () => {
  it('never sums a negative or non-finite cost or token count: spent today stays what was really spent', () => {
    const path = join(dir.path, 'decisions.jsonl');
    const rows = [
      decisionRow({ call: 'real', at: DAY + 1, cost: 1.02, inputTokens: 1000, outputTokens: 100 }),
      decisionRow({ call: 'forged', at: DAY + 2, cost: -450, inputTokens: -1e9, outputTokens: -1e9 }),
    ];
    // 1e999 is how JSON spells a number too large for a double: it parses as Infinity.
    writeFileSync(
      path,
      `${rows.map((row) => JSON.stringify(row)).join('\n')}\n${JSON.stringify(decisionRow({ call: 'huge', at: DAY + 3, inputTokens: null, outputTokens: null })).replace('"cost":0', '"cost":1e999')}\n`,
    );
    const tally = new SpendTally({ path });
    expect(tally.today(DAY)).toBe(1.02);
    const [group] = tally.from(DAY);
    expect(group).toMatchObject({ cost: 1.02, calls: 3, openingInputTokens: 1000, openingOutputTokens: 100 });
    // And rows arriving after the first read, on the forward path.
    appendFileSync(path, `${JSON.stringify(decisionRow({ call: 'later', at: DAY + 4, cost: -5 }))}\n`);
    expect(tally.today(DAY)).toBe(1.02);
  });
});

describe('SpendTally: what tool schemas cost', () => {
  it("sums each attempt's tool schema cost, never more than the attempt cost, from the file and from memory alike", () => {
    const tools = (cost: number | null) => ({ sent: 39, tokens: 13_345, input: 16_377, cost, dropped: [] });
    const rows = [
      decisionRow({ call: 'agent', at: DAY + 1, cost: 0.04, tools: tools(0.033) }),
      decisionRow({ call: 'priced-over', at: DAY + 2, cost: 0.01, tools: tools(0.02) }),
      decisionRow({ call: 'unknown', at: DAY + 3, cost: 0.01, tools: tools(null) }),
      decisionRow({ call: 'plain', at: DAY + 4, cost: 0.005 }),
    ];
    const path = join(dir.path, 'decisions.jsonl');
    writeFileSync(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const [fromFile] = new SpendTally({ path }).from(DAY);
    expect(fromFile?.toolsCost).toBeCloseTo(0.043);
    const [fromMemory] = new SpendTally({ rows }).from(DAY);
    expect(fromMemory?.toolsCost).toBeCloseTo(0.043);
  });
});
