import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLedgerCommand } from '../../../src/cli/ledgerCommand';
import { decisionLogPath } from '../../../src/core/ledger/decisionLog';
import { WorkspaceLedger } from '../../../src/core/ledger/workspaceLedger';
import type { DecisionRow } from '../../../src/core/decisions/decision';
import { decisionRow } from '../support/decisionRow';
import { FixedClock } from '../support/doubles';
import { sqliteChange } from '../support/sqliteFile';
import { makeTempDir, WASM_PATH } from '../support/tempDir';

/** Captures what a command prints. */
class CapturedIo {
  out = '';
  err = '';
  readonly clock = new FixedClock();
  constructor(readonly cwd: string) {}
  readonly stdout = (s: string): void => {
    this.out += s;
  };
  readonly stderr = (s: string): void => {
    this.err += s;
  };
}

let dir: ReturnType<typeof makeTempDir>;
let io: CapturedIo;
let ledgerPath: string;
beforeEach(() => {
  dir = makeTempDir();
  io = new CapturedIo(dir.path);
  ledgerPath = join(dir.path, '.rung', 'ledger.sqlite');
});
afterEach(() => dir.remove());

async function seed(path = ledgerPath): Promise<void> {
  const ledger = await WorkspaceLedger.open({ path, clock: io.clock });
  const at = io.clock.now();
  ledger.observe([
    { model: 'qwen3:14b', classKey: 'plan', success: true, at },
    { model: 'qwen3:14b', classKey: 'plan', success: false, at },
    { model: 'qwen2.5:3b', classKey: 'edit/typescript', success: true, at },
  ]);
  await ledger.close();
}

function seedDecisions(): void {
  mkdirSync(join(dir.path, '.rung'), { recursive: true });
  const rows = [
    decisionRow({ call: 'c1', at: 1 }),
    decisionRow({ call: 'c2', at: 2, reason: 'measured 12/13 success class=plan' }),
    decisionRow({ call: 'c1', at: 3, verdict: 'fail', final: true }),
  ];
  writeFileSync(decisionLogPath(ledgerPath), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** Writes `rows` as the decision log beside the default ledger. */
function writeRows(rows: DecisionRow[]): void {
  mkdirSync(join(dir.path, '.rung'), { recursive: true });
  writeFileSync(decisionLogPath(ledgerPath), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

describe('rung ledger', () => {
  it('shows every rating with its ability and graded count', async () => {
    await seed();
    expect(await runLedgerCommand(['show'], io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines[0]).toMatch(/^model\s+class\s+rating\s+ability\s+graded\s+ok\s+time a call$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual(['qwen2.5:3b edit/typescript', 'qwen3:14b plan']);
    expect(lines[2]).toMatch(/\s2\s+1\s+—$/);
  });

  it("shows and exports each rating's mean time a call on this machine, where the ledger timed any", async () => {
    await seed();
    const ledger = await WorkspaceLedger.open({ path: ledgerPath, clock: io.clock });
    ledger.observeTiming([
      { model: 'qwen2.5:3b', classKey: 'edit/typescript', totalMs: 1_200, firstTokenMs: 400 },
      { model: 'qwen2.5:3b', classKey: 'edit/typescript', totalMs: 1_800, firstTokenMs: 600 },
    ]);
    await ledger.close();
    expect(await runLedgerCommand(['show'], io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines.find((line) => line.startsWith('qwen2.5:3b'))).toMatch(/\s1\s+1\s+1\.5 s \(2 timed\)$/);
    expect(lines.find((line) => line.startsWith('qwen3:14b'))).toMatch(/\s—$/);
    io.out = '';
    expect(await runLedgerCommand(['show', '--class', 'edit', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject([{ model: 'qwen2.5:3b', meanMs: 1_500, firstTokenMs: 500, timedCalls: 2 }]);
    io.out = '';
    expect(await runLedgerCommand(['export', '--format', 'csv', '--what', 'ratings'], io)).toBe(0);
    const rows = io.out.trim().split('\n');
    expect(rows.find((row) => row.startsWith('qwen2.5:3b,'))?.endsWith(',1500,500,2')).toBe(true);
    expect(rows.find((row) => row.startsWith('qwen3:14b,'))?.endsWith(',,,')).toBe(true);
    io.out = '';
    expect(await runLedgerCommand(['export', '--format', 'jsonl', '--what', 'ratings'], io)).toBe(0);
    const records = io.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { model: string; meanMs?: number });
    expect(records.map((record) => [record.model, record.meanMs])).toEqual([
      ['qwen2.5:3b', 1_500],
      ['qwen3:14b', undefined],
    ]);
  });

  it('shows one class and its shapes as JSON', async () => {
    await seed();
    expect(await runLedgerCommand(['show', '--class', 'edit', '--json'], io)).toBe(0);
    const rows = JSON.parse(io.out) as { model: string; class: string; graded: number; ability: number }[];
    expect(rows.map((row) => [row.model, row.class, row.graded])).toEqual([['qwen2.5:3b', 'edit/typescript', 1]]);
    expect(rows[0]?.ability).toBeGreaterThan(0.5);
  });

  it('reads a ledger named with --ledger and never writes it', async () => {
    const path = join(dir.path, 'elsewhere.sqlite');
    await seed(path);
    expect(await runLedgerCommand(['show', '--ledger', 'elsewhere.sqlite', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out)).toHaveLength(2);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('says clearly when there is no ledger', async () => {
    expect(await runLedgerCommand(['show'], io)).toBe(1);
    expect(io.err).toContain(`no ledger at ${ledgerPath}`);
  });

  it('lists the last decisions, and every row of one call with its last row as the truth', async () => {
    seedDecisions();
    expect(await runLedgerCommand(['decisions', '--last', '2', '--json'], io)).toBe(0);
    expect((JSON.parse(io.out) as { call: string }[]).map((row) => row.call)).toEqual(['c2', 'c1']);
    io.out = '';
    expect(await runLedgerCommand(['decisions', '--call', 'c1'], io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('fail (final) ← truth');
  });

  it('lists the other decisions when one row has a time no Date can hold', async () => {
    writeRows([decisionRow({ call: 'c1', at: 1 }), decisionRow({ call: 'far', at: 1e300 }), decisionRow({ call: 'c2', at: 2 })]);
    expect(await runLedgerCommand(['decisions'], io)).toBe(0);
    expect(io.err).toBe('');
    const lines = io.out.trim().split('\n');
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['1970-01-01T00:00:00.001Z', 'live', 'c1'],
      ['1970-01-01T00:00:00.002Z', 'live', 'c2'],
    ]);
    io.out = '';
    expect(await runLedgerCommand(['export', '--format', 'csv', '--what', 'decisions'], io)).toBe(0);
    expect(io.out).not.toContain('far');
  });

  it('prints where each row came from: live for a routed call, replay for a replayed one with its policy', async () => {
    writeRows([
      decisionRow({ call: 'chat-6f1c', at: 1 }),
      decisionRow({ call: 'replay-1a2b3c4d/p1', at: 2, source: 'replay' }),
      decisionRow({ call: 'replay-5e6f7a8b/p1', at: 3, source: 'replay', policy: 'open=qwen3:14b' }),
      // Written by a replay after it named its calls by run and before it marked its rows.
      decisionRow({ call: 'replay-9c0d1e2f/p1', at: 4 }),
    ]);
    expect(await runLedgerCommand(['decisions'], io)).toBe(0);
    const [header, ...lines] = io.out.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['at', 'source', 'call', 'class', 'rung', 'model', 'verdict', 'reason']);
    // The source sits between the time and the call id on every line.
    expect(lines.map((line) => /^\S+\s+(.+?)\s+(chat|replay)-\S+\s/.exec(line)?.[1])).toEqual([
      'live',
      'replay',
      'replay open=qwen3:14b',
      'replay',
    ]);
  });

  it('lists the newest rows of one source with --source, past newer rows of another', async () => {
    const replayed = Array.from({ length: 3 }, (_, i) =>
      decisionRow({ call: `replay-1a2b3c4d/p${i}`, at: i, source: 'replay', policy: 'open=qwen3:14b' }),
    );
    const live = Array.from({ length: 30 }, (_, i) => decisionRow({ call: `chat-${i}`, at: 100 + i }));
    writeRows([...replayed, ...live]);
    expect(await runLedgerCommand(['decisions', '--source', 'replay', '--last', '2', '--json'], io)).toBe(0);
    // The rows as written, their source and policy included.
    expect(JSON.parse(io.out)).toEqual(replayed.slice(1));
    io.out = '';
    expect(await runLedgerCommand(['decisions', '--source', 'live', '--json'], io)).toBe(0);
    expect((JSON.parse(io.out) as { call: string; source?: string }[]).map((row) => [row.call, row.source])).toEqual(
      live.slice(-20).map((row) => [row.call, undefined]),
    );
  });

  it('says which sources the log holds when --source matches none of its rows', async () => {
    writeRows([decisionRow({ call: 'chat-1', at: 1 }), decisionRow({ call: 'r/1', at: 2, source: 'replay' })]);
    expect(await runLedgerCommand(['decisions', '--source', 'chat'], io)).toBe(0);
    expect(io.out).toBe(`no decisions from source chat in ${decisionLogPath(ledgerPath)} (its rows are from: live, replay)\n`);
  });

  it('refuses --source with --call, or with no source named, as bad usage', async () => {
    writeRows([decisionRow({ call: 'c1', at: 1 })]);
    expect(await runLedgerCommand(['decisions', '--source', 'live', '--call', 'c1'], io)).toBe(2);
    expect(io.err).toContain('pass --source or --call, not both');
    expect(await runLedgerCommand(['decisions', '--source', ''], io)).toBe(2);
    expect(io.err).toContain('--source needs a source: live or replay');
  });

  it('refuses a --last that is not a positive whole number', async () => {
    expect(await runLedgerCommand(['decisions', '--last', 'ten'], io)).toBe(2);
    expect(io.err).toContain("--last needs a whole number of at least 1, not 'ten'");
  });

  it('exports ratings and decisions as JSON lines', async () => {
    await seed();
    seedDecisions();
    expect(await runLedgerCommand(['export', '--format', 'jsonl'], io)).toBe(0);
    const records = io.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(records.map((record) => record.type)).toEqual(['rating', 'rating', 'decision', 'decision', 'decision']);
  });

  it('says on stderr how many lines of the log an export left out, keeping stdout the export', async () => {
    seedDecisions();
    appendFileSync(decisionLogPath(ledgerPath), 'not json\n[1,2,3]\n');
    expect(await runLedgerCommand(['export', '--format', 'jsonl', '--what', 'decisions'], io)).toBe(0);
    expect(io.out.trim().split('\n')).toHaveLength(3);
    expect(io.err).toBe('rung ledger export: 2 lines of the log are not decision rows; skipped\n');
  });

  it('exports ratings as CSV with a header and quoted cells', async () => {
    await seed();
    expect(await runLedgerCommand(['export', '--format', 'csv', '--what', 'ratings'], io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines[0]).toBe('model,class,rating,ability,graded,ok,updated_at,mean_ms,first_token_ms,timed_calls');
    expect(lines).toHaveLength(3);
    io.out = '';
    seedDecisions();
    expect(await runLedgerCommand(['export', '--format', 'csv', '--what', 'decisions'], io)).toBe(0);
    expect(io.out).toContain('"[""qwen2.5:3b"",""qwen3:14b""]"');
  });

  it('rejects an unknown export format with the usage', async () => {
    expect(await runLedgerCommand(['export', '--format', 'xml'], io)).toBe(2);
    expect(io.err).toContain("unknown format 'xml'");
    expect(io.err).toContain('usage: rung ledger');
  });

  it('refuses to reset without --yes and changes nothing', async () => {
    await seed();
    expect(await runLedgerCommand(['reset'], io)).toBe(1);
    expect(io.err).toContain('pass --yes');
    io.out = '';
    await runLedgerCommand(['show', '--json'], io);
    expect(JSON.parse(io.out)).toHaveLength(2);
  });

  it('resets one class, then everything', async () => {
    await seed();
    expect(await runLedgerCommand(['reset', '--class', 'edit', '--yes'], io)).toBe(0);
    expect(io.out).toContain('forgot 1 rating (the ratings of class edit)');
    expect(await runLedgerCommand(['reset', '--yes'], io)).toBe(0);
    io.out = '';
    await runLedgerCommand(['show'], io);
    expect(io.out).toBe('no ratings yet\n');
  });

  it("merges a teammate's ledger once, and says so when asked again", async () => {
    await seed();
    await seed(join(dir.path, 'teammate.sqlite'));
    expect(await runLedgerCommand(['merge', 'teammate.sqlite'], io)).toBe(0);
    expect(io.out).toContain('merged 3 graded observations over 2 ratings');
    io.out = '';
    expect(await runLedgerCommand(['merge', 'teammate.sqlite'], io)).toBe(0);
    expect(io.out).toContain('already merged');
    io.out = '';
    await runLedgerCommand(['show', '--class', 'plan', '--json'], io);
    expect((JSON.parse(io.out) as { graded: number }[])[0]?.graded).toBe(4);
  });

  it("leaves a teammate's Infinity rating and 1e18 graded answers out of a merge, and says so where it is shown", async () => {
    await seed();
    const teammate = join(dir.path, 'teammate.sqlite');
    await seed(teammate);
    const sql = await initSqlJs({ locateFile: () => WASM_PATH });
    sqliteChange(sql, teammate, "UPDATE ratings SET rating = 9e999, graded = 1e18, ok = 1e18 WHERE model = 'qwen3:14b'");
    expect(await runLedgerCommand(['merge', 'teammate.sqlite'], io)).toBe(0);
    expect(io.err).toBe(
      `rung ledger: left out 1 rating of ${teammate} that Rung cannot use (a value not finite, not whole, or out of the range Rung writes); the rest is merged\n`,
    );
    expect(io.out).toContain('merged 1 graded observation over 1 ratings');
    io.out = '';
    io.err = '';
    expect(await runLedgerCommand(['show', '--ledger', 'teammate.sqlite', '--json'], io)).toBe(0);
    expect((JSON.parse(io.out) as { model: string }[]).map((row) => row.model)).toEqual(['qwen2.5:3b']);
    expect(io.err).toContain('holds 1 rating that Rung cannot use');
  });

  it('compacts the decision log by row count and by age, and leaves the ratings alone', async () => {
    await seed();
    seedDecisions();
    expect(await runLedgerCommand(['compact', '--max-rows', '2'], io)).toBe(0);
    expect(io.out).toContain('kept 2 decision rows, dropped 1');
    io.out = '';
    await runLedgerCommand(['decisions', '--json'], io);
    expect((JSON.parse(io.out) as { at: number }[]).map((row) => row.at)).toEqual([2, 3]);
    io.out = '';
    // The FixedClock stands in 2023, so rows written at the epoch are decades past a day old.
    expect(await runLedgerCommand(['compact', '--max-age-days', '1'], io)).toBe(0);
    expect(io.out).toContain('kept 0 decision rows, dropped 2');
    io.out = '';
    await runLedgerCommand(['show', '--json'], io);
    expect((JSON.parse(io.out) as unknown[]).length).toBe(2);
  });

  it('says where compaction moved the lines of the decision log that were not decision rows', async () => {
    seedDecisions();
    appendFileSync(decisionLogPath(ledgerPath), '=======\n');
    expect(await runLedgerCommand(['compact', '--max-rows', '10'], io)).toBe(0);
    expect(io.out).toContain('kept 3 decision rows, dropped 0');
    expect(io.out).toContain(`moved 1 line that was not a decision row to ${decisionLogPath(ledgerPath)}.unreadable`);
    io.out = '';
    // JSON, but no row: counted with the rest of what was set aside, not as rows kept.
    appendFileSync(decisionLogPath(ledgerPath), '[1,2,3]\nnull\n');
    expect(await runLedgerCommand(['compact', '--max-rows', '10'], io)).toBe(0);
    expect(io.out).toBe(
      `kept 3 decision rows, dropped 0 from ${decisionLogPath(ledgerPath)}\nmoved 2 lines that were not decision rows to ${decisionLogPath(ledgerPath)}.unreadable\n`,
    );
  });

  it('says there is no ledger when compact finds neither a ledger nor a decision log, and creates nothing', async () => {
    expect(await runLedgerCommand(['compact'], io)).toBe(1);
    expect(io.err).toBe(`rung ledger compact: no ledger at ${ledgerPath} (pass --ledger FILE)\n`);
    io.err = '';
    expect(await runLedgerCommand(['compact', '--ledger', join('nowhere', 'ledger.sqlite')], io)).toBe(1);
    expect(io.err).toBe(`rung ledger compact: no ledger at ${join(dir.path, 'nowhere', 'ledger.sqlite')} (pass --ledger FILE)\n`);
    expect(io.out).toBe('');
    expect(existsSync(join(dir.path, '.rung'))).toBe(false);
    expect(existsSync(join(dir.path, 'nowhere'))).toBe(false);
  });

  it('refuses a merge from a file that is not a ledger without creating one of its own', async () => {
    writeFileSync(join(dir.path, 'notes.sqlite'), 'these are not the ratings you are looking for');
    expect(await runLedgerCommand(['merge', 'notes.sqlite'], io)).toBe(1);
    expect(io.err).toMatch(/notes\.sqlite/);
    expect(existsSync(ledgerPath)).toBe(false);
  });

  it('refuses to merge an empty file without creating a ledger of its own', async () => {
    writeFileSync(join(dir.path, 'empty.sqlite'), '');
    expect(await runLedgerCommand(['merge', 'empty.sqlite'], io)).toBe(1);
    expect(io.err).toContain(`cannot merge ${join(dir.path, 'empty.sqlite')}: it is empty`);
    expect(existsSync(join(dir.path, '.rung'))).toBe(false);
  });

  it('fails show, decisions and export on a damaged ledger with what was wrong, and leaves it alone', async () => {
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    writeFileSync(ledgerPath, 'not a database');
    for (const argv of [
      ['show'],
      ['show', '--json'],
      ['decisions'],
      ['export', '--format', 'jsonl'],
      ['export', '--format', 'csv', '--what', 'decisions'],
    ]) {
      io.out = '';
      io.err = '';
      expect(await runLedgerCommand(argv, io), argv.join(' ')).toBe(1);
      expect(io.err).toBe(
        `rung ledger ${argv[0]}: the ledger ${ledgerPath} is not a readable SQLite database (file is not a database); showing nothing\n`,
      );
      expect(io.out).toBe('');
    }
    expect(readFileSync(ledgerPath, 'utf8')).toBe('not a database');
  });

  it('fails show on a directory named as the ledger, naming it', async () => {
    mkdirSync(join(dir.path, 'somewhere'));
    expect(await runLedgerCommand(['show', '--ledger', 'somewhere'], io)).toBe(1);
    expect(io.err).toContain(`${join(dir.path, 'somewhere')} as the ledger: it is a directory, not a ledger file`);
    expect(io.out).toBe('');
  });

  it('fails decisions, export and compact on a directory where the decision log should be, naming it', async () => {
    await seed();
    const logPath = decisionLogPath(ledgerPath);
    mkdirSync(logPath);
    for (const argv of [
      ['decisions'],
      ['decisions', '--call', 'c1'],
      ['export', '--format', 'jsonl'],
      ['export', '--format', 'csv', '--what', 'decisions'],
      ['compact'],
    ]) {
      io.out = '';
      io.err = '';
      expect(await runLedgerCommand(argv, io), argv.join(' ')).toBe(1);
      expect(io.err).toBe(
        `rung ledger ${argv[0]}: cannot use ${logPath} as the decision log: it is a directory, not a decision log file\n`,
      );
      expect(io.out).toBe('');
    }
  });

  it('names an unknown option or command and exits 2', async () => {
    expect(await runLedgerCommand(['show', '--colour'], io)).toBe(2);
    expect(io.err).toContain("'--colour'");
    expect(await runLedgerCommand(['frobnicate'], io)).toBe(2);
    expect(io.err).toContain("rung ledger: unknown command 'frobnicate'");
    expect(await runLedgerCommand(['merge'], io)).toBe(2);
  });
});
