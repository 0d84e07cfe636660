import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { selectOutcomes } from '../../../src/core/replay/outcomes';
import { CapturedIo } from '../support/CapturedIo';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';

let dir: string;
let io: CapturedIo;
// 20 prompts in each of three families; the first 5 of each family are `train`, the rest `test`.
const rows = makeOutcomes(20).map((row, index) => ({ ...row, split_src: index % 20 < 5 ? 'train' : 'test' }));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-select-'));
  io = new CapturedIo(dir);
  writeFileSync(join(dir, 'outcomes.jsonl'), toJsonLines(rows));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function items(...flags: string[]): Promise<number> {
  expect(await main(['replay', 'outcomes.jsonl', '--json', ...flags], io)).toBe(0);
  const summary = JSON.parse(io.out) as { items: number; onlineLearner: { accuracy: number; cost: number; attempts: number } };
  expect(summary.onlineLearner.attempts).toBeGreaterThanOrEqual(summary.items);
  io.out = '';
  return summary.items;
}

describe('rung replay on part of the outcomes', () => {
  it('routes only the split asked for, and every prompt without --split', async () => {
    expect(await items('--split', 'train')).toBe(15);
    expect(await items('--split', 'test')).toBe(45);
    expect(await items()).toBe(60);
  });

  it('keeps the families named, or leaves one out', async () => {
    const families = [...new Set(rows.map((row) => row.family))];
    expect(await items('--family', families[0] as string)).toBe(20);
    expect(await items('--family', families[0] as string, '--family', families[1] as string, '--split', 'test')).toBe(30);
    expect(await items('--exclude-family', families[2] as string)).toBe(40);
  });

  it('refuses a selection that keeps no prompt, naming the splits and families the file has', async () => {
    expect(() => selectOutcomes(rows, { split: 'validation' }, 'outcomes.jsonl')).toThrow(
      /no row matches the selection \(splits: test, train; families: /,
    );
    expect(await main(['replay', 'outcomes.jsonl', '--family', 'nothing'], io)).not.toBe(0);
    expect(io.err).toContain('no row matches the selection');
  });

  it('says in the table whether Rung beat the simple learner', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--split', 'test'], io)).toBe(0);
    expect(io.out).toMatch(/^rung replay: 45 prompts, verifier perfect, tradeoff quality, split test/);
    expect(io.out).toMatch(/simple online learner \(\d+ attempts\)/);
    expect(io.out).toMatch(/rung against the simple learner: (beats it|does not beat it) \(accuracy [+-]\d\.\d{4}, cost [+-]\d+\.\d%\)/);
  });
});
