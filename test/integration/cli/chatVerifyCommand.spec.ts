import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChatCommand } from '../../../src/cli/chatCommand';
import { EXIT_OK } from '../../../src/cli/io';
import { parseDecisionLines } from '../../../src/core/decisions/decision';
import { CapturedIo } from '../../unit/support/CapturedIo';
import { writeTwoRungPanel } from '../../unit/support/twoRungPanel';
import { fixture, json, replay, WireServer, type Route } from '../../unit/support/wireServer';
import { openStore } from '../../../src/core/store/openStore';

// The same two local servers and panel as test/unit/cli/chatCommand.spec.ts; these calls run a check
// command, a process of its own, so they belong to the integration layer.
const KEY = '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';
const sse = { contentType: 'text/event-stream' };

let workspace: string;
const servers: WireServer[] = [];

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-chat-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(workspace, { recursive: true, force: true });
});

/**
 * A local Ollama and a local OpenRouter, and a panel file naming both. The stand-in OpenRouter listens on
 * loopback, where a key is optional by default, so the panel says it needs one as the real one does.
 */
async function setUp(ollamaChat: Route, cloudChat: Route, env: Record<string, string | undefined> = { RUNG_OPENROUTER_API_KEY: KEY }) {
  const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', ollamaChat);
  const cloud = new WireServer()
    .on('POST', '/api/v1/chat/completions', cloudChat)
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  servers.push(ollama, cloud);
  const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
  writeTwoRungPanel(workspace, ollamaUrl, cloudUrl);
  return { io: new CapturedIo(workspace, env), ollama, cloud };
}

/** An Ollama stream whose answer is `text`, in two chunks and a done line. */
const ollamaSays = (text: string) =>
  replay(
    [
      { model: 'qwen2.5:3b', message: { role: 'assistant', content: text.slice(0, 10) }, done: false },
      { model: 'qwen2.5:3b', message: { role: 'assistant', content: text.slice(10) }, done: false },
      {
        model: 'qwen2.5:3b',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 20,
        eval_count: 30,
      },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  );
/** An answer that edits one file, named in its fence. */
const FIX = 'Here is the fix:\n\n```ts title="src/add.ts"\nexport const add = (a: number, b: number) => a + b;\n```\n';
const jsonAnswer = () => replay(fixture('openai/chat-normal.sse'), sse);

describe('rung chat --verify-command', () => {
  it("passes the first rung when the verify command exits 0 with the answer's file applied", async () => {
    const { io } = await setUp(ollamaSays(FIX), jsonAnswer());
    const command = `${JSON.stringify(process.execPath)} -e "if (!require('fs').readFileSync('src/add.ts', 'utf8').includes('a + b')) process.exit(1)"`;
    const code = await runChatCommand(['--panel', 'panel.json', '--verify-command', command, '--json', 'Fix add'], io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({
      model: 'qwen2.5:3b',
      attempts: [{ model: 'qwen2.5:3b', verdict: 'pass', reason: expect.stringContaining('with the answer applied (src/add.ts)') }],
    });
  });

  it("keeps the API key out of a verify command's environment, its verdict reason, the decision rows and --json", async () => {
    const { io } = await setUp(ollamaSays(FIX), jsonAnswer(), { RUNG_OPENROUTER_API_KEY: KEY, COPIED_KEY: KEY });
    // Prints its whole environment and fails, so whatever it was given lands in the verdict reason.
    const command = `${JSON.stringify(process.execPath)} -e "console.log(JSON.stringify(process.env)); process.exit(1)"`;
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--verify-command', command, '--ledger', '.rung/ledger.sqlite', '--json', 'Fix add'],
      io,
      (location, opener, _options, said) => openStore(location, { clock: opener.clock, log: () => {}, ...said }),
    );
    expect(code).toBe(0);
    const printed = JSON.parse(io.out) as { attempts: { model: string; verdict: string; reason: string }[] };
    expect(printed.attempts[0]).toMatchObject({ model: 'qwen2.5:3b', verdict: 'fail' });
    const rows = readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8');
    expect(parseDecisionLines(rows).rows[0]?.verdictReason).toContain('exited 1');
    for (const text of [printed.attempts[0]?.reason ?? '', rows, io.out, io.err]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('RUNG_OPENROUTER_API_KEY');
      expect(text).not.toContain('COPIED_KEY');
    }
  });

  it('keeps PGPASSWORD, a provider key and other secrets out of `--verify-command env`, its reason and the decision row', async () => {
    const secrets = {
      PGPASSWORD: 'team-pg-s3cret',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      NPM_TOKEN: 'npm_0123456789abcdefABCDEF0123456789ab',
    };
    const { io } = await setUp(ollamaSays(FIX), jsonAnswer(), {
      RUNG_OPENROUTER_API_KEY: KEY,
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      ...secrets,
    });
    // `env` prints what the command was given; the exit 1 puts that output into the verdict reason.
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--verify-command', 'env; exit 1', '--ledger', '.rung/ledger.sqlite', '--json', 'Fix add'],
      io,
      (location, opener, _options, said) => openStore(location, { clock: opener.clock, log: () => {}, ...said }),
    );
    expect(code).toBe(0);
    const printed = JSON.parse(io.out) as { attempts: { model: string; verdict: string; reason: string }[] };
    expect(printed.attempts[0]).toMatchObject({ model: 'qwen2.5:3b', verdict: 'fail', reason: expect.stringContaining('LANG=C.UTF-8') });
    const rows = readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8');
    expect(parseDecisionLines(rows).rows[0]?.verdictReason).toContain('LANG=C.UTF-8');
    for (const text of [printed.attempts[0]?.reason ?? '', rows, io.out, io.err]) {
      for (const [name, value] of Object.entries({ ...secrets, RUNG_OPENROUTER_API_KEY: KEY })) {
        expect(text).not.toContain(name);
        expect(text).not.toContain(value);
      }
    }
  });

  it("scrubs PGPASSWORD from a check command's output when the command finds the password itself, in ~/.pgpass", async () => {
    const password = 'pg-in-pgpass-7f3a';
    const home = mkdtempSync(join(tmpdir(), 'rung-home-'));
    writeFileSync(join(home, '.pgpass'), `db.example.com:5432:rung:ana:${password}\n`);
    try {
      const { io } = await setUp(ollamaSays(FIX), jsonAnswer(), {
        RUNG_OPENROUTER_API_KEY: KEY,
        PATH: process.env.PATH,
        HOME: home,
        PGPASSWORD: password,
      });
      const code = await runChatCommand(
        ['--panel', 'panel.json', '--verify-command', 'cat "$HOME/.pgpass"; exit 1', '--json', 'Fix add'],
        io,
      );
      expect(code).toBe(0);
      const reason = (JSON.parse(io.out) as { attempts: { reason: string }[] }).attempts[0]?.reason ?? '';
      expect(reason).toContain('db.example.com:5432:rung:ana:[redacted]');
      expect(reason).not.toContain(password);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('lets a check command see a variable named with --verify-env', async () => {
    const { io } = await setUp(ollamaSays(FIX), jsonAnswer(), {
      RUNG_OPENROUTER_API_KEY: KEY,
      PATH: process.env.PATH,
      DATABASE_URL: 'postgres://ana@localhost/app_test',
      OTHER: 'hidden-value',
    });
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--verify-command', 'env; exit 1', '--verify-env', 'DATABASE_URL', '--json', 'Fix add'],
      io,
    );
    expect(code).toBe(0);
    const reason = (JSON.parse(io.out) as { attempts: { reason: string }[] }).attempts[0]?.reason ?? '';
    expect(reason).toContain('DATABASE_URL=postgres://ana@localhost/app_test');
    expect(reason).not.toContain('hidden-value');
  });

  it('gives a verify command the --verify-timeout it was given, and calls a command that runs past it unverified', async () => {
    const { io } = await setUp(ollamaSays(FIX), jsonAnswer());
    const command = `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 20000)"`;
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--verify-command', command, '--verify-timeout', '300', '--json', 'Fix add'],
      io,
    );
    expect(code).toBe(EXIT_OK);
    expect(JSON.parse(io.out)).toMatchObject({
      model: 'qwen2.5:3b',
      attempts: [{ verdict: 'unverified', reason: expect.stringContaining('timed out after 300 ms') }],
    });
  });
});
