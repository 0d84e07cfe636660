import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QualityUsageError, readQualityArgs } from '../../../src/bench/qualityArgs';

/** `node scripts/quality.mjs` in a clone without the recorded outcomes, and with them. */

let dir: string;
let missing: string;
let present: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-quality-'));
  missing = join(dir, 'shared', 'data', 'cascades-9-models.jsonl');
  present = join(dir, 'outcomes.jsonl');
  writeFileSync(present, '');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readQualityArgs', () => {
  it('measures the generated worlds, saying what it needs for the recorded half, when given nothing and there is nothing at the default place', () => {
    const plan = readQualityArgs([], {}, missing, dir);
    expect(plan).toMatchObject({ recorded: undefined, worlds: true, named: [] });
    expect(plan.notes).toEqual([
      `no recorded outcomes at ${missing} (they are not part of this repository: name their file, node scripts/quality.mjs OUTCOMES.jsonl, or set RUNG_OUTCOMES, to measure them too); measuring the generated worlds only`,
    ]);
  });

  it('measures both halves from the default place when the recorded outcomes are there', () => {
    expect(readQualityArgs([], {}, present, dir)).toMatchObject({ recorded: present, worlds: true, notes: [] });
  });

  it('takes the file named, relative to the folder it runs in, or RUNG_OUTCOMES', () => {
    expect(readQualityArgs(['outcomes.jsonl', '--economy'], {}, missing, dir)).toMatchObject({ recorded: present, tradeoff: 'economy' });
    expect(readQualityArgs(['--noisy'], { RUNG_OUTCOMES: present }, missing, dir)).toMatchObject({ recorded: present, verifier: { kind: 'noisy', falsePass: 0.05, falseFail: 0.05 } });
  });

  it('refuses a named file that is not there, saying which and who named it', () => {
    expect(() => readQualityArgs(['nope.jsonl'], {}, present, dir)).toThrow(QualityUsageError);
    expect(() => readQualityArgs(['nope.jsonl'], {}, present, dir)).toThrow(`no recorded outcomes at ${join(dir, 'nope.jsonl')} (named by the argument)`);
    expect(() => readQualityArgs([], { RUNG_OUTCOMES: join(dir, 'gone.jsonl') }, present, dir)).toThrow('(named by RUNG_OUTCOMES)');
  });

  it('refuses --recorded with no recorded outcomes anywhere, rather than measuring nothing', () => {
    expect(() => readQualityArgs(['--recorded'], {}, missing, dir)).toThrow(/--recorded measures the recorded outcomes, and there are none at /);
  });

  it('needs no recorded outcomes for the worlds alone', () => {
    expect(readQualityArgs(['--worlds'], {}, missing, dir)).toMatchObject({ recorded: undefined, worlds: true, notes: [] });
    expect(readQualityArgs(['--world', 'drift', '--spend'], {}, missing, dir)).toMatchObject({ recorded: undefined, named: ['drift'], spend: true, notes: [] });
  });

  it('reads --bound-at as an accuracy, and its value is not taken for the outcomes file', () => {
    expect(readQualityArgs(['--world', 'drift', '--bound-at', '0.97'], {}, missing, dir)).toMatchObject({ boundAt: 0.97, named: ['drift'] });
    expect(readQualityArgs(['--worlds', '--bound-at', '0.97'], {}, present, dir).recorded).toBeUndefined();
    expect(readQualityArgs(['--bound-at', '0.97'], {}, present, dir)).toMatchObject({ recorded: present, boundAt: 0.97 });
    for (const bad of ['2', '0', 'high']) expect(() => readQualityArgs(['--worlds', '--bound-at', bad], {}, missing, dir)).toThrow('--bound-at takes an accuracy between 0 and 1');
    expect(() => readQualityArgs(['--worlds', '--bound-at'], {}, missing, dir)).toThrow('(got nothing)');
  });
});
