import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../../../src/cli/io';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';
import { decisionRow } from '../support/decisionRow';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';

let dir: string;
let io: CapturedIo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-evaluate-'));
  io = new CapturedIo(dir);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * 40 calls opened with `cheap` at 0.5 (all pass, $1) and 40 with `dear` at 0.5 (all pass, $10), and
 * one call from before propensities were recorded: opening with dear is then $10 a call by IPS
 * (40 calls × weight 2 × $10 / 80 calls) and by SNIPS, with an effective sample of 80² / (40 × 4) = 40.
 */
function writeLog(): string {
  const rows = [];
  for (let i = 0; i < 80; i++) {
    const model = i % 2 === 0 ? 'cheap' : 'dear';
    rows.push(
      decisionRow({ call: `c${i}`, class: 'mmlu', candidates: ['cheap', 'dear'], model, propensity: 0.5, cost: model === 'dear' ? 10 : 1 }),
    );
  }
  const { propensity: _none, ...old } = decisionRow({ call: 'old', model: 'dear' });
  writeFileSync(join(dir, 'decisions.jsonl'), [...rows, old].map((row) => JSON.stringify(row)).join('\n'));
  return 'decisions.jsonl';
}

describe('rung evaluate', () => {
  it('prints exactly the agreed JSON object with --json, counting the calls left out', async () => {
    const code = await main(['evaluate', '--log', writeLog(), '--policy', 'open=dear', '--json'], io);
    expect(code).toBe(EXIT_OK);
    const printed = JSON.parse(io.out);
    expect(Object.keys(printed)).toEqual(['policy', 'calls', 'leftOut', 'effectiveSampleSize', 'methods']);
    expect(printed).toMatchObject({ policy: 'open=dear', calls: 80, leftOut: 1, effectiveSampleSize: 40 });
    expect(Object.keys(printed.methods)).toEqual(['ips', 'snips', 'dr']);
    for (const method of ['ips', 'snips', 'dr']) {
      expect(Object.keys(printed.methods[method])).toEqual(['cost', 'costLow', 'costHigh', 'success', 'successLow', 'successHigh']);
      expect(printed.methods[method].cost).toBeCloseTo(10, 9);
      expect(printed.methods[method].success).toBeCloseTo(1, 9);
    }
  });

  it('says in words what the policy would have cost, and how many calls it rests on', async () => {
    expect(await main(['evaluate', '--log', writeLog(), '--policy', 'open=cheap'], io)).toBe(EXIT_OK);
    expect(io.out).toMatch(/open=cheap, from 80 logged calls; 1 more left out: no propensity/);
    expect(io.out).toMatch(/doubly robust \(DR\) +\$1\.00 /);
    // As routed, half the calls cost $1 and half $10 ($5.50 a call); always opening with cheap is $1: 1/5.5 − 1,
    // ± 1.96 × the spread of 1 − y/5.5 over 80 calls (±0.818) / √80 / $5.50.
    expect(io.out).toMatch(
      /against the calls as they were routed \(\$5\.50 a call, 100\.0% first-try\), by DR: cost −81\.8% \(±3\.3%\), first-try success \+0\.0 points/,
    );
  });

  it('prints no number and exits 1 when the log cannot support the policy', async () => {
    expect(await main(['evaluate', '--log', writeLog(), '--policy', 'open=gpt-4o'], io)).toBe(EXIT_FAILED);
    expect(io.out).toBe('');
    expect(io.err).toMatch(/no estimate for open=gpt-4o: gpt-4o was not among the candidates on 80 of 80 calls/);
    const json = new CapturedIo(dir);
    expect(await main(['evaluate', '--log', 'decisions.jsonl', '--policy', 'open=gpt-4o', '--json'], json)).toBe(EXIT_FAILED);
    expect(JSON.parse(json.out)).not.toHaveProperty('methods');
    expect(JSON.parse(json.out).refused).toMatch(/no chance to open/);
  });

  it('estimates a skip beside an opener, and refuses a skip alone or another exploration rate with exit 1', async () => {
    // No call climbed, so skipping cheap changes nothing of a call that opens with dear: $10 a call, as open=dear.
    expect(await main(['evaluate', '--log', writeLog(), '--policy', 'open=dear,skip=cheap', '--json'], io)).toBe(EXIT_OK);
    expect(JSON.parse(io.out).methods.dr.cost).toBeCloseTo(10, 9);
    const alone = new CapturedIo(dir);
    expect(await main(['evaluate', '--log', 'decisions.jsonl', '--policy', 'skip=cheap'], alone)).toBe(EXIT_FAILED);
    expect(alone.err).toMatch(/no estimate for skip=cheap: skip= without open= leaves the router to pick the opener/);
    const explore = new CapturedIo(dir);
    expect(await main(['evaluate', '--log', 'decisions.jsonl', '--policy', 'explore=0.1'], explore)).toBe(EXIT_FAILED);
    expect(explore.err).toMatch(/no estimate for explore=0\.1: explore= changes each call's chance of opening with every rung/);
  });

  it.each([
    [['--policy', 'open=dear'], /needs --log/],
    [['--log', 'decisions.jsonl'], /needs --policy/],
    [['--log', 'decisions.jsonl', '--policy', 'pin=dear'], /is not open=MODEL/],
    [['--log', 'missing.jsonl', '--policy', 'open=dear'], /cannot read --log/],
  ])('exits 2 on %j', async (args, message) => {
    writeLog();
    expect(await main(['evaluate', ...args], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(message);
  });

  it('describes its flags with --help', async () => {
    expect(await main(['evaluate', '--help'], io)).toBe(EXIT_OK);
    expect(io.out).toMatch(/^usage: rung evaluate --log DECISIONS --policy SPEC \[--json\]/);
    expect(io.out).toMatch(/left out and counted/);
  });
});

describe('rung replay --policy', () => {
  it('pins the opener of every call and writes the rows an estimate can be checked against', async () => {
    writeFileSync(join(dir, 'outcomes.jsonl'), toJsonLines(makeOutcomes(20)));
    const code = await main(['replay', 'outcomes.jsonl', '--policy', 'open=mid', '--decisions', 'd.jsonl'], io);
    expect(code).toBe(EXIT_OK);
    const rows = readFileSync(join(dir, 'd.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const openers = rows.filter((row) => row.escalation.length === 0);
    expect(openers.every((row) => row.model === 'mid')).toBe(true);
  });

  it('exits 2 on a policy that does not parse or names a model the outcomes lack', async () => {
    writeFileSync(join(dir, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
    expect(await main(['replay', 'outcomes.jsonl', '--policy', 'open='], io)).toBe(EXIT_USAGE);
    expect(await main(['replay', 'outcomes.jsonl', '--policy', 'open=huge'], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/"huge", not on the panel/);
  });
});
