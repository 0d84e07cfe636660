import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../../../src/cli/io';
import { main } from '../../../src/cli/main';
import { parseDecisionLines } from '../../../src/core/decisions/decision';
import { CapturedIo } from '../support/CapturedIo';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';

// Bad input the CLI met in an audit: each case says what is wrong, exits 2, and leaves the user's files as they were.

let dir: string;
let io: CapturedIo;
const outcomes = toJsonLines(makeOutcomes(5));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-bad-input-'));
  io = new CapturedIo(dir);
  writeFileSync(join(dir, 'outcomes.jsonl'), outcomes);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rung replay --decisions', () => {
  it('refuses to replace the outcomes file it was given, and leaves it as it was', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'outcomes.jsonl'], io)).toBe(EXIT_USAGE);
    expect(readFileSync(join(dir, 'outcomes.jsonl'), 'utf8')).toBe(outcomes);
    expect(io.err).toContain(
      `--decisions ${join(dir, 'outcomes.jsonl')} holds ${outcomes.trim().split('\n').length} lines that are not decision rows`,
    );
    expect(io.err).toContain('it was left as it is');
    expect(io.out).toBe('');
  });

  it('refuses the decision log beside --ledger, whose earlier rows it would wipe', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite'], io)).toBe(EXIT_OK);
    const log = join(dir, '.rung', 'decisions.jsonl');
    const before = readFileSync(log, 'utf8');
    const again = new CapturedIo(dir);
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--decisions', '.rung/decisions.jsonl'], again)).toBe(
      EXIT_USAGE,
    );
    expect(readFileSync(log, 'utf8')).toBe(before);
    expect(again.err).toContain('is the decision log beside --ledger');
  });

  it('refuses a log of live calls, which no replay wrote', async () => {
    const live = JSON.stringify({ ...parseDecisionLines(await replayRows()).rows[0], source: undefined, call: 'chat-1' });
    writeFileSync(join(dir, 'live.jsonl'), `${live}\n`);
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'live.jsonl'], io)).toBe(EXIT_USAGE);
    expect(readFileSync(join(dir, 'live.jsonl'), 'utf8')).toBe(`${live}\n`);
    expect(io.err).toContain('holds decision rows that no replay wrote');
  });

  it("replaces an earlier replay's rows, as a rerun into the same file wants", async () => {
    writeFileSync(join(dir, 'study.jsonl'), await replayRows());
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'study.jsonl'], io)).toBe(EXIT_OK);
    const calls = new Set(parseDecisionLines(readFileSync(join(dir, 'study.jsonl'), 'utf8')).rows.map((row) => row.call.split('/')[0]));
    expect(calls.size).toBe(1);
  });

  it('says a folder is a folder, as bad input, not as EISDIR', async () => {
    mkdirSync(join(dir, 'out'));
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'out'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain(`--decisions ${join(dir, 'out')} is a folder, not a file`);
    expect(io.err).not.toContain('EISDIR');
  });
});

/** The rows one replay of the outcomes writes to --decisions. */
async function replayRows(): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'rung-bad-input-rows-'));
  try {
    writeFileSync(join(scratch, 'outcomes.jsonl'), outcomes);
    expect(await main(['replay', 'outcomes.jsonl', '--decisions', 'rows.jsonl'], new CapturedIo(scratch))).toBe(EXIT_OK);
    return readFileSync(join(scratch, 'rows.jsonl'), 'utf8');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe('rung replay OUTCOMES.jsonl', () => {
  it('reads an outcomes file that opens with a byte-order mark, as the panel reader does', async () => {
    writeFileSync(join(dir, 'bom.jsonl'), `\uFEFF${outcomes}`);
    expect(await main(['replay', 'bom.jsonl', '--json'], io)).toBe(EXIT_OK);
    expect(io.err).toBe('');
    expect(JSON.parse(io.out)).toMatchObject({ items: outcomes.trim().split('\n').length });
  });
});

describe('rung replay with a model some rows lack', () => {
  it('refuses outcomes whose first row lacks a model the others grade, instead of dropping it from the replay', async () => {
    const rows = makeOutcomes(2);
    delete (rows[0] as { m: Record<string, unknown> }).m.large;
    writeFileSync(join(dir, 'first.jsonl'), toJsonLines(rows));
    expect(await main(['replay', 'first.jsonl', '--json'], io)).toBe(EXIT_USAGE);
    expect(io.out).toBe('');
    expect(io.err).toBe(`rung replay: ${join(dir, 'first.jsonl')}:1: model missing from the row: large (graded on line 2)\n`);
  });
});

describe('rung evaluate --log', () => {
  it('says a file with no decision row in it is not a decision log, as bad input', async () => {
    expect(await main(['evaluate', '--log', 'outcomes.jsonl', '--policy', 'open=tiny'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain(
      `rung evaluate: --log outcomes.jsonl holds no decision rows (${outcomes.trim().split('\n').length} lines, none of them one): name a decision log`,
    );
    expect(io.err).not.toContain('propensity');
  });

  it('still answers 1 for an empty log, which is a log with no calls yet', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect(await main(['evaluate', '--log', 'empty.jsonl', '--policy', 'open=tiny'], io)).toBe(EXIT_FAILED);
    expect(io.err).toContain('no estimate for open=tiny');
  });
});

describe('rung evaluate with a torn line in the log', () => {
  it('says one skipped line in the singular, as ledger export does', async () => {
    const rows = await replayRows();
    writeFileSync(join(dir, 'torn.jsonl'), `${rows}{"v":1,"at":\n`);
    await main(['evaluate', '--log', 'torn.jsonl', '--policy', 'open=tiny'], io);
    expect(io.err).toContain('rung evaluate: 1 line of the log is not a decision row; skipped\n');
  });
});

describe('rung rank --ledger', () => {
  const panel = JSON.stringify({
    models: [
      { slug: 'tiny', provider: 'openrouter' },
      { slug: 'large', provider: 'openrouter' },
    ],
  });

  it('fails on a ledger it cannot read, as rung ledger show does, instead of ranking from the priors with exit 0', async () => {
    writeFileSync(join(dir, 'panel.json'), panel);
    writeFileSync(join(dir, 'ledger.sqlite'), 'not a database');
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'chat', '--ledger', 'ledger.sqlite'], io)).toBe(EXIT_FAILED);
    expect(io.out).toBe('');
    expect(io.err).toBe(
      `rung rank: the ledger ${join(dir, 'ledger.sqlite')} is not a readable SQLite database (file is not a database); showing nothing\n`,
    );
    expect(readFileSync(join(dir, 'ledger.sqlite'), 'utf8')).toBe('not a database');
  });

  it('still ranks from an empty ledger file, a ledger never written', async () => {
    writeFileSync(join(dir, 'panel.json'), panel);
    writeFileSync(join(dir, 'ledger.sqlite'), '');
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'chat', '--ledger', 'ledger.sqlite'], io)).toBe(EXIT_OK);
    expect(io.out).toContain('rung rank: class chat');
  });
});

describe('rung replay with a grade that is not 0 or 1', () => {
  it('says that 0 or 1 was wanted, naming the line and field', async () => {
    writeFileSync(join(dir, 'graded.jsonl'), '{"id":"a","family":"f","m":{"x":{"c":true,"cost":0.1}}}\n');
    expect(await main(['replay', 'graded.jsonl'], io)).toBe(EXIT_USAGE);
    expect(io.err).toBe(`rung replay: ${join(dir, 'graded.jsonl')}:1: m.x.c: must be one of 0 or 1, not true\n`);
  });
});

describe('a named file that is not UTF-8 text', () => {
  it('says the outcomes are gzip-compressed rather than showing their bytes as bad JSON', async () => {
    writeFileSync(join(dir, 'outcomes.jsonl.gz'), gzipSync(outcomes));
    expect(await main(['replay', 'outcomes.jsonl.gz'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain(
      `rung replay: cannot read outcomes file ${join(dir, 'outcomes.jsonl.gz')}: it is gzip-compressed; decompress it first (gunzip)\n`,
    );
  });

  it('says a panel is UTF-16, as Windows PowerShell writes, and to save it as UTF-8', async () => {
    const panel = JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter' }] });
    writeFileSync(join(dir, 'panel.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(panel, 'utf16le')]));
    expect(await main(['rank', '--panel', 'panel.json', '--class', 'chat'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain(`rung rank: cannot read --panel ${join(dir, 'panel.json')}: it is UTF-16 text; save it as UTF-8\n`);
  });

  it('says a --log with NUL bytes in it is a binary file', async () => {
    writeFileSync(join(dir, 'ledger.sqlite'), Buffer.from('SQLite format 3\0\0\0', 'latin1'));
    expect(await main(['evaluate', '--log', 'ledger.sqlite', '--policy', 'open=tiny'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain(`rung evaluate: cannot read --log ${join(dir, 'ledger.sqlite')}: it is a binary file, not text\n`);
  });
});

describe('--ledger naming a file that is not an SQLite database', () => {
  it('refuses it for replay and leaves it where it was, instead of moving it aside for a fresh ledger', async () => {
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'outcomes.jsonl'], io)).toBe(EXIT_USAGE);
    expect(readFileSync(join(dir, 'outcomes.jsonl'), 'utf8')).toBe(outcomes);
    expect(readdirSync(dir)).toEqual(['outcomes.jsonl']);
    expect(io.err).toContain(
      `rung replay: ${join(dir, 'outcomes.jsonl')} is not a ledger: it is not an SQLite database at all; it was left as it is.`,
    );
  });

  it('refuses it for ledger reset too', async () => {
    writeFileSync(join(dir, 'notes.md'), '# notes\n');
    expect(await main(['ledger', 'reset', '--ledger', 'notes.md', '--yes'], io)).toBe(EXIT_USAGE);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('# notes\n');
    expect(readdirSync(dir).sort()).toEqual(['notes.md', 'outcomes.jsonl']);
  });

  it('still moves aside a damaged ledger that starts like SQLite, as the ledger always has', async () => {
    writeFileSync(join(dir, 'ledger.sqlite'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(100, 7)]));
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'ledger.sqlite', '--json'], io)).toBe(EXIT_OK);
    expect(io.err).toMatch(/ledger\.sqlite .*; it was moved to .*ledger\.sqlite\.corrupt-\d+ and a fresh ledger started/);
  });

  it("still repairs the workspace's own ledger, which only Rung writes, as the extension does", async () => {
    mkdirSync(join(dir, '.rung'));
    writeFileSync(join(dir, '.rung', 'ledger.sqlite'), 'overwritten by a disk fault\n');
    expect(await main(['ledger', 'reset', '--yes'], io)).toBe(EXIT_OK);
    expect(io.err).toMatch(/ledger\.sqlite .*; it was moved to .*ledger\.sqlite\.corrupt-\d+ and a fresh ledger started/);
    expect(
      readFileSync(join(dir, '.rung', 'ledger.sqlite'))
        .subarray(0, 15)
        .toString('latin1'),
    ).toBe('SQLite format 3');
  });

  it('still starts a ledger in an empty file, a ledger never written', async () => {
    writeFileSync(join(dir, 'ledger.sqlite'), '');
    expect(await main(['replay', 'outcomes.jsonl', '--ledger', 'ledger.sqlite', '--json'], io)).toBe(EXIT_OK);
    expect(readFileSync(join(dir, 'ledger.sqlite')).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  });
});

describe('an empty --class', () => {
  const panel = JSON.stringify({ models: [{ slug: 'tiny', provider: 'openrouter' }] });

  it('is a usage error for rank when it is only spaces, as when it is missing', async () => {
    writeFileSync(join(dir, 'panel.json'), panel);
    expect(await main(['rank', '--panel', 'panel.json', '--class', ' '], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^rung rank: missing --class CLASS/);
  });

  it('is a usage error for chat, said before any model is asked', async () => {
    writeFileSync(join(dir, 'panel.json'), panel);
    expect(await main(['chat', '--panel', 'panel.json', '--class=', 'hello'], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^rung chat: --class needs a class \(plan, chat, edit, leaf or your own\), not an empty one/);
  });
});

describe('a message quoting text that holds terminal controls', () => {
  it('prints them as escapes, so a path holding ESC ]52 cannot set the clipboard, and keeps its lines', async () => {
    const code = await main(['ledger', 'show', '--ledger', 'a\u001b]52;c;eA==\u0007b'], io);
    expect(code).not.toBe(0);
    expect(io.err).toContain('a\\x1b]52;c;eA==\\x07b');
    // eslint-disable-next-line no-control-regex -- the point is that no control character is left
    expect(io.err).not.toMatch(/[\u001b\u0007]/);
    expect(io.err.endsWith('\n')).toBe(true);
  });
});
