import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';

let dir: string;
let io: CapturedIo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-cli-'));
  io = new CapturedIo(dir);
  writeFileSync(join(dir, 'outcomes.jsonl'), toJsonLines(makeOutcomes(20)));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

describe('rung replay', () => {
  it('prints exactly one JSON object with the summary with --json', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--json'], io)).toBe(0);
    expect(io.err).toBe('');
    expect(io.out.endsWith('\n')).toBe(true);
    expect(io.out.trimEnd().split('\n')).toHaveLength(1);
    const summary = JSON.parse(io.out) as Record<string, unknown>;
    expect(summary).toMatchObject({
      items: 60,
      policy: { accuracy: expect.any(Number), cost: expect.any(Number), attempts: expect.any(Number) },
      bestSingle: { model: expect.any(String), accuracy: expect.any(Number), cost: expect.any(Number) },
      oracle: { accuracy: expect.any(Number), cost: expect.any(Number) },
      priceOrderCascade: { accuracy: expect.any(Number), cost: expect.any(Number) },
      ratings: expect.any(Array),
    });
    expect((summary.ratings as unknown[]).length).toBeGreaterThan(0);
  });

  it('prints a table without --json', async () => {
    expect(await main(['replay', 'outcomes.jsonl'], io)).toBe(0);
    expect(io.out).toMatch(/^rung replay: 60 prompts, verifier perfect, tradeoff quality/);
    expect(io.out).toContain('oracle');
  });

  it('writes one decision row per attempt to --decisions with the fields a study needs', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'decisions.jsonl', '--json'], io)).toBe(0);
    const lines = readFileSync(join(dir, 'decisions.jsonl'), 'utf8').trimEnd().split('\n');
    const summary = JSON.parse(io.out) as { policy: { attempts: number } };
    expect(lines).toHaveLength(summary.policy.attempts);
    for (const line of lines) {
      const row = JSON.parse(line) as Record<string, unknown>;
      for (const key of ['call', 'class', 'rung', 'model', 'candidates', 'pruned', 'verdict', 'explore', 'propensity', 'reason']) {
        expect(row).toHaveProperty(key);
      }
      expect(row.candidates).toEqual(expect.any(Array));
      expect(row.pruned).toEqual(expect.any(Array));
    }
  });

  it('gives the same output for the same seed', async () => {
    await main(['replay', 'outcomes.jsonl', '--json', '--seed', '4', '--explore', '0.2'], io);
    const first = io.out;
    const again = new CapturedIo(dir);
    await main(['replay', 'outcomes.jsonl', '--json', '--seed', '4', '--explore', '0.2'], again);
    expect(again.out).toBe(first);
  });

  it('names the line of a malformed JSON row and exits non-zero', async () => {
    const [first, second] = toJsonLines(makeOutcomes(1)).split('\n');
    write('bad.jsonl', `${first}\n${second}\n{"id": "x", "family": \n`);
    expect(await main(['replay', 'bad.jsonl'], io)).toBe(1);
    expect(io.out).toBe('');
    expect(io.err).toMatch(/bad\.jsonl:3: not valid JSON/);
  });

  it('names the line of a row that misses a model and exits non-zero', async () => {
    const rows = makeOutcomes(2);
    delete (rows[1] as { m: Record<string, unknown> }).m.large;
    write('missing.jsonl', toJsonLines(rows));
    expect(await main(['replay', 'missing.jsonl'], io)).toBe(1);
    expect(io.err).toMatch(/missing\.jsonl:2: model missing from the row: large/);
  });

  it('names a row field of the wrong type with its line', async () => {
    write('typed.jsonl', '{"id":"a","family":"f","m":{"x":{"c":2,"cost":0}}}\n');
    expect(await main(['replay', 'typed.jsonl'], io)).toBe(1);
    expect(io.err).toMatch(/typed\.jsonl:1: m\.x\.c: /);
  });

  it('refuses a panel that names a model the outcomes do not grade, naming it', async () => {
    write('panel.json', JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter' }, { slug: 'ghost', provider: 'openrouter' }] }));
    expect(await main(['replay', 'outcomes.jsonl', '--panel', 'panel.json'], io)).toBe(1);
    expect(io.err).toContain('panel.json: invalid panel');
    expect(io.err).toMatch(/models\[1\]\.slug: "ghost" is not graded by the outcomes/);
    expect(io.out).toBe('');
  });

  it('reports an invalid panel with the field that is wrong', async () => {
    write('panel.json', JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter', cost: 1 }] }));
    expect(await main(['replay', 'outcomes.jsonl', '--panel', 'panel.json'], io)).toBe(1);
    expect(io.err).toContain('models[0]: unknown key "cost"');
  });

  const badFlags: [string, string[]][] = [
    ['an unknown flag', ['replay', 'outcomes.jsonl', '--bogus']],
    ['a seed that is not a number', ['replay', 'outcomes.jsonl', '--seed', 'abc']],
    ['an explore rate above 1', ['replay', 'outcomes.jsonl', '--explore', '1.5']],
    ['an unknown verifier', ['replay', 'outcomes.jsonl', '--verifier', 'oracle']],
    ['no outcomes file', ['replay']],
    ['an unknown command', ['fly']],
  ];
  for (const [name, argv] of badFlags) {
    it(`prints the usage and exits 2 on ${name}`, async () => {
      expect(await main(argv, io)).toBe(2);
      expect(io.err).toContain('usage: rung replay');
      expect(io.out).toBe('');
    });
  }

  it('says a missing outcomes file cannot be read', async () => {
    expect(await main(['replay', 'nowhere.jsonl'], io)).toBe(2);
    expect(io.err).toMatch(/cannot read .*nowhere\.jsonl: ENOENT/);
  });
});

describe('rung rank', () => {
  const panel = {
    models: [
      { slug: 'opus', provider: 'openrouter', price: { input: 15, output: 75 }, tools: true },
      { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
    ],
    maxOutputPrice: 20,
  };

  it('prints the candidates in order and the pruned ones with their reasons', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--tools'], io)).toBe(0);
    const lines = io.out.split('\n');
    expect(lines[0]).toBe('rung rank: class plan');
    expect(lines.find((line) => line.startsWith(' 1. '))).toMatch(/^ 1\. qwen3:14b\s+ollama\s+ability 0\.62\s+\$0\.00\S*\/call\s+no-measured-profiles tier2$/);
    // Pruned in walk order: the ladder puts the small local model before the cloud one.
    expect(io.out).toMatch(/pruned:\n\s+qwen2\.5:3b\s+pruned: needs tools\n\s+opus\s+pruned: output price 75\.00 > cap 20\.00\n$/);
  });

  it('prints the same ranking as one JSON object with --json', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'edit', '--shape', 'typescript', '--json'], io)).toBe(0);
    const ranking = JSON.parse(io.out) as { class: string; candidates: { model: string; reason: string }[]; pruned: { model: string; reason: string }[] };
    expect(ranking.class).toBe('edit/typescript');
    expect(ranking.candidates.map((c) => c.model)).toEqual(['qwen2.5:3b', 'qwen3:14b']);
    expect(ranking.candidates[0]?.reason).toBe('no-measured-profiles tier1');
    expect(ranking.pruned).toEqual([{ model: 'opus', reason: 'pruned: output price 75.00 > cap 20.00' }]);
  });

  it('ranks from a workspace ledger without writing to it, and refuses a path with no ledger', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--ledger', 'missing/.rung/ledger.sqlite'], io)).toBe(2);
    expect(io.err).toContain(`no ledger at ${join(dir, 'missing/.rung/ledger.sqlite')}`);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    const learned = new CapturedIo(dir);
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], learned)).toBe(0);
    const before = readFileSync(join(dir, '.rung/ledger.sqlite'));
    const ranked = new CapturedIo(dir);
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--ledger', '.rung/ledger.sqlite'], ranked)).toBe(0);
    expect(readFileSync(join(dir, '.rung/ledger.sqlite')).equals(before)).toBe(true);
    expect(readdirSync(join(dir, '.rung')).sort()).toEqual(['ledger.sqlite']);
  });

  it('exits 2 with the usage when --panel or --class is missing', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--class', 'plan'], io)).toBe(2);
    expect(io.err).toContain('rung rank needs --panel FILE');
    const other = new CapturedIo(dir);
    expect(await main(['rank', '--panel', 'panel.json'], other)).toBe(2);
    expect(other.err).toContain('usage: rung rank');
  });

  it('exits 2 on a context that is not a whole number', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--context', '12k'], io)).toBe(2);
    expect(io.err).toContain('--context must be a whole number of tokens, not "12k"');
  });
});
