import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpendTally } from '../../../../src/core/session/spendTally';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

const DAY = Date.UTC(2026, 0, 2);

describe('SpendTally', () => {
  it('passes over a row whose time no Date can hold, as the row reader does, and sums the rest', () => {
    const path = join(dir.path, 'decisions.jsonl');
    writeFileSync(path, [decisionRow({ call: 'a', at: DAY, cost: 1 }), decisionRow({ call: 'far', at: 1e300, cost: 5 })].map((row) => `${JSON.stringify(row)}\n`).join(''));
    const tally = new SpendTally({ path });
    expect(tally.from(DAY).map((group) => [group.day, group.cost, group.calls])).toEqual([['2026-01-02', 1, 1]]);
    // And when such a row arrives after the first read, on the forward path.
    appendFileSync(path, `${JSON.stringify(decisionRow({ call: 'later', at: -1e300, cost: 5 }))}\n${JSON.stringify(decisionRow({ call: 'b', at: DAY + 1, cost: 2 }))}\n`);
    expect(tally.today(DAY)).toBe(3);
  });
});
