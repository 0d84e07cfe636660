import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_COMMAND } from '../../../src/cli/chatOptions';
import { EVALUATE_COMMAND } from '../../../src/cli/evaluateCommand';
import { EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE } from '../../../src/cli/io';
import { LEDGER_COMMANDS } from '../../../src/cli/ledgerCommand';
import { main } from '../../../src/cli/main';
import { RANK_COMMAND } from '../../../src/cli/rankCommand';
import { REPLAY_COMMAND } from '../../../src/cli/replayCommand';
import type { CommandUsage } from '../../../src/cli/usage';
import { parseDecisionLines } from '../../../src/core/decisions/decision';
import { WorkspaceLedger } from '../../../src/core/ledger/workspaceLedger';
import { CapturedIo } from '../support/CapturedIo';
import { deadPid as anyDeadPid } from '../support/deadPid';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';
import { vacantAddress } from '../support/wireServer';

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

  it("says on stderr, once, that it took over the decision log's lock from a process that no longer runs", async () => {
    mkdirSync(join(dir, '.rung'));
    const deadPid = anyDeadPid();
    writeFileSync(
      join(dir, '.rung', 'decisions.jsonl.lock'),
      JSON.stringify({ token: 'dead', pid: deadPid, host: hostname(), at: io.clock.now() }),
    );
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], io)).toBe(0);
    expect(io.err.match(/took over the decision log lock/g)).toHaveLength(1);
    expect(io.err).toContain(
      `rung replay: took over the decision log lock ${join(dir, '.rung', 'decisions.jsonl.lock')} from pid ${deadPid}`,
    );
    expect(parseDecisionLines(readFileSync(join(dir, '.rung', 'decisions.jsonl'), 'utf8')).rows.length).toBeGreaterThan(0);
  });

  it('fails once, naming the decision log, when it cannot write the rows', async () => {
    // A folder where the log should be: the rows cannot be written (EISDIR), for root too.
    mkdirSync(join(dir, '.rung', 'decisions.jsonl'), { recursive: true });
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], io)).toBe(EXIT_FAILED);
    expect(io.err.split('\n').filter((line) => line.includes('decisions.jsonl'))).toHaveLength(1);
    expect(io.err).toMatch(/^rung replay: .*decisions\.jsonl/);
  });

  it("gives each run its own call ids, so replaying into the same ledger twice never makes one run's rows the truth about the other's calls", async () => {
    const callsOf = (text: string) => new Set(parseDecisionLines(text).rows.map((row) => row.call));
    const logPath = join(dir, '.rung', 'decisions.jsonl');
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], io)).toBe(0);
    const first = readFileSync(logPath, 'utf8');
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], new CapturedIo(dir))).toBe(0);
    const second = readFileSync(logPath, 'utf8').slice(first.length);
    const firstCalls = callsOf(first);
    const secondCalls = callsOf(second);
    expect(firstCalls.size).toBe(60);
    expect(secondCalls.size).toBe(60);
    expect([...firstCalls].filter((call) => secondCalls.has(call))).toEqual([]);
    // Each call id still names its prompt, after the run's id.
    const prompts = new Set(makeOutcomes(20).map((row) => row.id));
    for (const call of [...firstCalls, ...secondCalls]) expect(prompts.has(call.replace(/^replay-[0-9a-f]{8}\//, ''))).toBe(true);
  });

  it('prints a table without --json', async () => {
    expect(await main(['replay', 'outcomes.jsonl'], io)).toBe(0);
    expect(io.out).toMatch(/^rung replay: 60 prompts, verifier perfect, tradeoff quality/);
    expect(io.out).toContain('oracle');
  });

  it("lines every policy's figures up under the header, however long its label", async () => {
    expect(await main(['replay', 'outcomes.jsonl'], io)).toBe(0);
    const lines = io.out.split('\n');
    const header = lines.findIndex((line) => line.startsWith('policy '));
    const accuracyEnd = (lines[header] as string).indexOf('accuracy') + 'accuracy'.length;
    const rows = lines.slice(header + 1, header + 6);
    expect(rows.map((row) => row.split(/\s{2,}/)[0])).toEqual([
      expect.stringMatching(/^rung \(/),
      expect.stringMatching(/^best single/),
      'price-order cascade',
      'oracle',
      expect.stringMatching(/^simple online learner \(\d+ attempts\)$/),
    ]);
    for (const row of rows) expect(row.search(/\d\.\d{4}\s+\d+\.\d{3}\s/) + 6).toBe(accuracyEnd);
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

  it('names the line of a malformed JSON row and exits 2, as for any bad input', async () => {
    const [first, second] = toJsonLines(makeOutcomes(1)).split('\n');
    write('bad.jsonl', `${first}\n${second}\n{"id": "x", "family": \n`);
    expect(await main(['replay', 'bad.jsonl'], io)).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toMatch(/bad\.jsonl:3: not valid JSON/);
  });

  it('names the line of a row that misses a model and exits 2', async () => {
    const rows = makeOutcomes(2);
    delete (rows[1] as { m: Record<string, unknown> }).m.large;
    write('missing.jsonl', toJsonLines(rows));
    expect(await main(['replay', 'missing.jsonl'], io)).toBe(2);
    expect(io.err).toMatch(/missing\.jsonl:2: model missing from the row: large/);
  });

  it('refuses a second row with a prompt id already used, naming both lines', async () => {
    const rows = makeOutcomes(3);
    (rows[2] as { id: string }).id = (rows[0] as { id: string }).id;
    write('twice.jsonl', toJsonLines(rows));
    expect(await main(['replay', 'twice.jsonl'], io)).toBe(2);
    expect(io.err).toMatch(new RegExp(`twice\\.jsonl:3: prompt id "${(rows[0] as { id: string }).id}" is already on line 1`));
  });

  it('names a row field of the wrong type with its line', async () => {
    write('typed.jsonl', '{"id":"a","family":"f","m":{"x":{"c":2,"cost":0}}}\n');
    expect(await main(['replay', 'typed.jsonl'], io)).toBe(2);
    expect(io.err).toMatch(/typed\.jsonl:1: m\.x\.c: /);
  });

  it('refuses a panel that names a model the outcomes do not grade, naming it, with exit 2', async () => {
    write(
      'panel.json',
      JSON.stringify({
        models: [
          { slug: 'tiny', provider: 'openrouter' },
          { slug: 'ghost', provider: 'openrouter' },
        ],
      }),
    );
    expect(await main(['replay', 'outcomes.jsonl', '--panel', 'panel.json'], io)).toBe(2);
    expect(io.err).toContain('panel.json: invalid panel');
    expect(io.err).toMatch(/models\[1\]\.slug: "ghost" is not graded by the outcomes/);
    expect(io.out).toBe('');
  });

  it('reports an invalid panel with the field that is wrong, with exit 2 as chat does', async () => {
    write('panel.json', JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter', cost: 1 }] }));
    expect(await main(['replay', 'outcomes.jsonl', '--panel', 'panel.json'], io)).toBe(2);
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
    expect(io.err).toMatch(/cannot read outcomes file .*nowhere\.jsonl: no such file\n/);
  });

  it('says a folder given as the outcomes file is a folder', async () => {
    mkdirSync(join(io.cwd, 'runs'), { recursive: true });
    expect(await main(['replay', 'runs'], io)).toBe(2);
    expect(io.err).toMatch(/cannot read outcomes file .*runs: that is a folder, not a file\n/);
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
    expect(lines.find((line) => line.startsWith(' 1. '))).toMatch(
      /^ 1\. qwen3:14b\s+ollama\s+ability 0\.62\s+\$0\.00\S*\/call\s+no-measured-profiles tier2$/,
    );
    // Pruned in walk order: the ladder puts the small local model before the cloud one. The heading
    // says "pruned" once; the lines under it give the cause alone.
    expect(io.out).toMatch(/\n\npruned:\n\s+qwen2\.5:3b\s+needs tools\n\s+opus\s+output price 75\.00 > cap 20\.00\n$/);
    expect(io.out.match(/pruned/g)).toHaveLength(1);
  });

  it('prints the same ranking as one JSON object with --json', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'edit', '--shape', 'typescript', '--json'], io)).toBe(0);
    const ranking = JSON.parse(io.out) as {
      class: string;
      candidates: { model: string; reason: string }[];
      pruned: { model: string; reason: string }[];
    };
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
    const files = readdirSync(join(dir, '.rung')).sort();
    const ranked = new CapturedIo(dir);
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--ledger', '.rung/ledger.sqlite'], ranked)).toBe(0);
    expect(readFileSync(join(dir, '.rung/ledger.sqlite')).equals(before)).toBe(true);
    expect(readdirSync(join(dir, '.rung')).sort()).toEqual(files);
  });

  it('exits 2 with the usage when no panel is named or found, or --class is missing', async () => {
    write('panel.json', JSON.stringify(panel));
    const nowhere = new CapturedIo(dir, { OLLAMA_HOST: (await vacantAddress()).url });
    expect(await main(['rank', '--class', 'plan'], nowhere)).toBe(2);
    expect(nowhere.err).toMatch(
      /^rung rank: missing --panel FILE: there is no .*panel\.json, and no local Ollama answered at .*\nusage: rung rank/,
    );
    const other = new CapturedIo(dir);
    expect(await main(['rank', '--panel', 'panel.json'], other)).toBe(2);
    expect(other.err).toContain('usage: rung rank');
  });

  it('exits 2 on a context that is not a whole number', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--context', '12k'], io)).toBe(2);
    expect(io.err).toContain('--context must be a whole number of tokens, not "12k"');
  });

  it('exits 2 on a pin or avoid that names no panel model, listing the panel', async () => {
    write('panel.json', JSON.stringify(panel));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--pinned', 'qwen3:4b'], io)).toBe(2);
    expect(io.err).toContain('--pinned qwen3:4b: no model of that slug on the panel (opus, qwen3:14b, qwen2.5:3b)');
    const avoid = new CapturedIo(dir);
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan', '--avoid', 'qwen3:4b'], avoid)).toBe(2);
    expect(avoid.err).toContain('--avoid qwen3:4b: no model of that slug on the panel');
  });
});

describe('rung --help', () => {
  const commands: [string[], CommandUsage][] = [
    [['replay'], REPLAY_COMMAND],
    [['rank'], RANK_COMMAND],
    [['chat'], CHAT_COMMAND],
    [['evaluate'], EVALUATE_COMMAND],
    ...Object.entries(LEDGER_COMMANDS).map(([name, usage]): [string[], CommandUsage] => [['ledger', name], usage]),
  ];
  for (const [words, usage] of commands) {
    for (const flag of ['--help', '-h']) {
      it(`prints the usage of rung ${words.join(' ')} for ${flag}, with every flag described, and exits 0`, async () => {
        expect(await main([...words, flag], io)).toBe(0);
        expect(io.err).toBe('');
        expect(io.out.startsWith(`usage: ${usage.name} `)).toBe(true);
        // A description wrapped onto more lines reads as one once the continuation indent is joined.
        const help = io.out.replace(/\n {28}/g, ' ');
        for (const [name, spec] of Object.entries(usage.flags))
          expect(help).toMatch(new RegExp(`\\n {2}--${name}\\b.*\\s{2}${escape(spec.description)}`));
      });
    }
  }

  it('answers --help even beside other flags, without running the command', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'x/ledger.sqlite', '--help'], io)).toBe(0);
    expect(io.out.startsWith('usage: rung replay')).toBe(true);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('lists every command and how to get its flags for rung --help, and exits 0', async () => {
    expect(await main(['--help'], io)).toBe(0);
    // Two spaces at least between a command and its summary: `evaluate` once ran into its own ("evaluateEstimates").
    for (const command of ['replay', 'rank', 'chat', 'evaluate', 'ledger']) expect(io.out).toMatch(new RegExp(`\\n {2}${command} {2,}\\S`));
    expect(io.out).toContain('rung COMMAND --help describes every flag of COMMAND.');
    expect(io.out).toContain('exit codes: 0 done, 1 failed while running, 2 usage or bad input, 130 stopped by Ctrl-C');
  });

  it('lists the ledger subcommands for rung ledger --help and exits 0, and exits 2 with none named', async () => {
    expect(await main(['ledger', '--help'], io)).toBe(EXIT_OK);
    for (const name of Object.keys(LEDGER_COMMANDS)) expect(io.out).toMatch(new RegExp(`\\n {2}${name} {2,}\\S`));
    expect(io.out).toContain('rung ledger COMMAND --help describes every flag');
    const none = new CapturedIo(dir);
    expect(await main(['ledger'], none)).toBe(EXIT_USAGE);
    expect(none.out).toBe('');
    expect(none.err).toContain('usage: rung ledger COMMAND');
  });

  it('prints the usage on stderr and exits 2 with no command at all', async () => {
    expect(await main([], io)).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toContain('usage: rung replay');
  });
});

describe('rung exit codes', () => {
  it('exits 0 when the command did what it was asked', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--json'], io)).toBe(EXIT_OK);
  });

  it('exits 2 for an invalid panel from rank as from replay and chat', async () => {
    write('panel.json', JSON.stringify({ models: [] }));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'plan'], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^rung rank: .*panel\.json/);
  });

  it('exits 1 for a failure at run time: a ledger folder it cannot create', async () => {
    write('notes', '');
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'notes/.rung/ledger.sqlite'], io)).toBe(EXIT_FAILED);
    expect(io.out).toBe('');
  });

  it('exits 130 when the user stopped a run of several seeds', async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await main(['replay', 'outcomes.jsonl', '--seeds', '3'], { ...io, signal: stop.signal })).toBe(EXIT_STOPPED);
    expect(io.err).toBe('rung replay: stopped by the user\n');
    expect(io.out).toBe('');
  });

  it('stops between seeds when the user stops a run under way, and exits 130', async () => {
    const stop = new AbortController();
    // The stop arrives as a Ctrl-C does: from the event loop, while the first seed runs.
    const stderr = (text: string): void => {
      io.stderr(text);
      if (text.includes('(1 of 3)')) setImmediate(() => stop.abort());
    };
    expect(await main(['replay', 'outcomes.jsonl', '--seeds', '3'], { ...io, stderr, stderrIsTTY: true, signal: stop.signal })).toBe(
      EXIT_STOPPED,
    );
    expect(io.err).toContain('(1 of 3)');
    expect(io.err).not.toContain('(2 of 3)');
    expect(io.err.endsWith('rung replay: stopped by the user\n')).toBe(true);
    expect(io.out).toBe('');
  });

  it('says the command once in a usage error, not "rung: rung rank"', async () => {
    write('panel.json', JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter' }] }));
    expect(await main(['rank', '--panel', 'panel.json'], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^rung rank: missing --class CLASS/);
    expect(io.err).not.toMatch(/rung: rung|rung rank: rung rank/);
    expect(io.err).toContain('(rung rank --help describes every flag)');
  });
});

describe('rung and a folder it cannot write', () => {
  it('names the file in the way of the ledger folder and says what to do, instead of a raw ENOTDIR', async () => {
    write('notes', '');
    const notes = join(dir, 'notes');
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'notes/.rung/ledger.sqlite'], io)).toBe(EXIT_FAILED);
    expect(io.err).toBe(
      `rung replay: cannot use the ledger ${notes}/.rung/ledger.sqlite: cannot create ${notes}/.rung: ${notes} is a file, not a folder; move that file, or pass --ledger FILE with a path in a folder you can write\n`,
    );
  });

  it('names the file in the way of --decisions, and that flag as the way out', async () => {
    write('notes', '');
    const notes = join(dir, 'notes');
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'notes/decisions.jsonl'], io)).toBe(EXIT_FAILED);
    expect(io.err).toBe(
      `rung replay: cannot write --decisions ${notes}/decisions.jsonl: cannot create ${notes}/decisions.jsonl: ${notes} is a file, not a folder; move that file, or pass --decisions FILE with a path in a folder you can write\n`,
    );
  });

  it('says the same from rung ledger', async () => {
    write('notes', '');
    const other = join(dir, 'other.sqlite');
    const ledger = await WorkspaceLedger.open({ path: other, clock: io.clock });
    ledger.observe([{ model: 'tiny', classKey: 'plan', success: true, at: io.clock.now() }]);
    await ledger.close();
    expect(await main(['ledger', 'merge', 'other.sqlite', '--ledger', 'notes/.rung/ledger.sqlite'], io)).toBe(EXIT_FAILED);
    expect(io.err).toMatch(
      /^rung ledger merge: cannot use the ledger .*: cannot create .*notes\/\.rung: .*notes is a file, not a folder; move that file/,
    );
  });

  // chmod does not stop root, and CI runs the tests as root: there the case above, which stops root
  // too, stands in for this one.
  const isRoot = process.getuid?.() === 0;
  it.skipIf(isRoot)(
    'names a read-only folder and how to fix it, instead of a raw EACCES on the lock (skipped as root, whom chmod does not stop)',
    async () => {
      const folder = join(dir, 'locked');
      mkdirSync(folder);
      chmodSync(folder, 0o555);
      try {
        expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'locked/ledger.sqlite'], io)).toBe(EXIT_FAILED);
        expect(io.err).toContain(
          `cannot write in the folder ${folder} (permission denied); give yourself write access to it (chmod u+w ${folder})`,
        );
        expect(io.err).not.toContain('EACCES');
      } finally {
        chmodSync(folder, 0o755);
      }
    },
  );
});

describe('rung replay beside a ledger', () => {
  it('writes its decisions to decisions.jsonl beside --ledger, as chat does', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], io)).toBe(0);
    const summary = JSON.parse(io.out) as { policy: { attempts: number } };
    const rows = parseDecisionLines(readFileSync(join(dir, '.rung', 'decisions.jsonl'), 'utf8')).rows;
    expect(rows).toHaveLength(summary.policy.attempts);
    const shown = new CapturedIo(dir);
    expect(await main(['ledger', 'decisions', '--last', '5', '--json'], shown)).toBe(0);
    expect(JSON.parse(shown.out)).toEqual(rows.slice(-5));
  });

  it("marks the rows it adds to a shared decision log as a replay of a named policy, and still reads the user's older rows", async () => {
    mkdirSync(join(dir, '.rung'), { recursive: true });
    // A routed call from before rows had a source, in the oldest shape a row has had, and one from a
    // newer Rung with a source this one does not know: both must still load.
    const older = JSON.stringify({ call: 'chat-1', model: 'qwen2.5:3b', verdict: 'pass', at: Date.UTC(2026, 10, 30) });
    const newer = JSON.stringify({
      v: 1,
      call: 'chat-2',
      model: 'qwen2.5:3b',
      verdict: 'fail',
      source: 'benchmark-9',
      at: Date.UTC(2026, 10, 30, 1),
    });
    writeFileSync(join(dir, '.rung', 'decisions.jsonl'), `${older}\n${newer}\n`);
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--policy', 'open=mid', '--json'], io)).toBe(0);
    const { rows, skipped } = parseDecisionLines(readFileSync(join(dir, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(skipped).toBe(0);
    const [user, newerUser, ...replayed] = rows;
    expect(user).toMatchObject({ call: 'chat-1', v: 1, class: '', final: false });
    expect(user).not.toHaveProperty('source');
    expect(newerUser?.source).toBe('benchmark-9');
    expect(replayed.length).toBeGreaterThan(0);
    for (const row of replayed)
      expect(row).toMatchObject({ source: 'replay', policy: 'open=mid', call: expect.stringMatching(/^replay-[0-9a-f]{8}\//) });
  });

  it('labels the policy it ran with its spec, not as rung, in the table and the verdict', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--policy', 'open=mid'], io)).toBe(0);
    const lines = io.out.split('\n');
    const header = lines.findIndex((line) => line.startsWith('policy '));
    expect(lines[header + 1]).toMatch(/^open=mid \(\d+ attempts\)\s/);
    expect(io.out).toMatch(/\nopen=mid against the simple learner: /);
    expect(io.out).not.toMatch(/\nrung \(/);
    const seeds = new CapturedIo(dir);
    expect(await main(['replay', 'outcomes.jsonl', '--policy', 'skip=large', '--seeds', '2'], seeds)).toBe(0);
    expect(seeds.out).toMatch(/\nskip=large \(mean of 2\)\s/);
    expect(seeds.out).toMatch(/\nskip=large against the simple learner: /);
  });

  it('writes them to --decisions as well when both are given', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--decisions', 'study.jsonl'], io)).toBe(0);
    expect(readFileSync(join(dir, 'study.jsonl'), 'utf8')).toBe(readFileSync(join(dir, '.rung', 'decisions.jsonl'), 'utf8'));
  });
});

describe('rung replay progress', () => {
  it('shows which seed is running on a terminal, and clears the line at the end', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--seeds', '3', '--seed', '7'], { ...io, stderrIsTTY: true })).toBe(0);
    expect(io.err).toBe(
      ['rung replay: seed 7 (1 of 3)…', 'rung replay: seed 8 (2 of 3)…', 'rung replay: seed 9 (3 of 3)…', '']
        .map((text) => `\r${text}\u001b[K`)
        .join(''),
    );
    expect(io.out).toMatch(/seeds 7,8,9/);
  });

  it('writes no progress when stderr is not a terminal, where it would litter a log', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--seeds', '3'], { ...io, stderrIsTTY: false })).toBe(0);
    expect(await main(['replay', 'outcomes.jsonl', '--seeds', '3'], io)).toBe(0);
    expect(io.err).toBe('');
  });

  it('writes no progress for a single run', async () => {
    expect(await main(['replay', 'outcomes.jsonl'], { ...io, stderrIsTTY: true })).toBe(0);
    expect(io.err).toBe('');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
