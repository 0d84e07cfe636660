import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../../unit/support/CapturedIo';
import { fixtureBytes, serveBytes, WireServer } from '../../unit/support/wireServer';

/**
 * `rung chat` in a folder someone else prepared: files under `.rung/` that are symbolic links to files
 * outside it. Each must be refused by name, and the file it points at left byte for byte as it was.
 */

let root: string;
let workspace: string;
let outside: string;
let server: WireServer;
let serverUrl: string;

const TARGET_TEXT = '# a shell start-up file\nexport PATH="$HOME/bin:$PATH"\n';

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'rung-hostile-'));
  workspace = join(root, 'repo');
  outside = join(root, 'home');
  mkdirSync(join(workspace, '.rung'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, '.bashrc'), TARGET_TEXT);
  server = new WireServer().on('POST', '/v1/chat/completions', serveBytes(fixtureBytes('openai/chat-normal.sse'), { every: 64 }));
  const url = await server.start();
  serverUrl = url;
  writeFileSync(
    join(workspace, 'panel.json'),
    JSON.stringify({
      models: [{ slug: 'local-model', provider: 'lmstudio' }],
      routing: { explore: 0 },
      providers: { lmstudio: { kind: 'openai-compatible', baseUrl: `${url}/v1` } },
    }),
  );
});

afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function chat(io: CapturedIo): Promise<number> {
  return main(['chat', '--panel', 'panel.json', '--ledger', '.rung/ledger.sqlite', 'Say hello'], io);
}

describe('rung chat in a workspace whose .rung/ holds symbolic links', () => {
  it('leaves the file .rung/decisions.jsonl points at byte for byte as it was, and says why', async () => {
    symlinkSync(join(outside, '.bashrc'), join(workspace, '.rung', 'decisions.jsonl'));
    const io = new CapturedIo(workspace, {});
    const code = await chat(io);
    expect(readFileSync(join(outside, '.bashrc'), 'utf8')).toBe(TARGET_TEXT);
    expect(code).toBe(1);
    expect(io.err).toContain(join(workspace, '.rung', 'decisions.jsonl'));
    expect(io.err).toMatch(/symbolic link/);
    expect(io.err).toMatch(/remove the link/);
  });

  it('asks no model when the decision log cannot be written, so no call goes unrecorded', async () => {
    symlinkSync(join(outside, '.bashrc'), join(workspace, '.rung', 'decisions.jsonl'));
    const io = new CapturedIo(workspace, {});
    await chat(io);
    expect(server.requests.filter((seen) => seen.method === 'POST')).toEqual([]);
  });

  it('leaves the file .rung/ledger.sqlite points at as it was', async () => {
    symlinkSync(join(outside, '.bashrc'), join(workspace, '.rung', 'ledger.sqlite'));
    const io = new CapturedIo(workspace, {});
    const code = await chat(io);
    expect(readFileSync(join(outside, '.bashrc'), 'utf8')).toBe(TARGET_TEXT);
    expect(code).toBe(1);
    expect(io.err).toContain(join(workspace, '.rung', 'ledger.sqlite'));
    expect(io.err).toMatch(/symbolic link/);
  });

  it('writes nothing into the folder .rung/ points at', async () => {
    rmSync(join(workspace, '.rung'), { recursive: true });
    symlinkSync(outside, join(workspace, '.rung'));
    const io = new CapturedIo(workspace, {});
    const code = await chat(io);
    expect(code).toBe(1);
    expect(io.err).toContain(join(workspace, '.rung'));
    expect(io.err).toMatch(/symbolic link/);
    expect(readFileSync(join(outside, '.bashrc'), 'utf8')).toBe(TARGET_TEXT);
    expect(readdirSync(outside)).toEqual(['.bashrc']);
  });
});

describe('rung chat --panel naming something that is not a panel file', () => {
  it('refuses /dev/zero, a named pipe and a folder with exit 2 before reading, and a file larger than any panel', async () => {
    const fifo = join(workspace, 'panel.fifo');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(join(workspace, 'huge.json'), Buffer.alloc(2 * 1024 * 1024, 0x20));
    const cases: [string, RegExp][] = [
      ['/dev/zero', /cannot read --panel \/dev\/zero: it is a device, not a file; a panel is a JSON file/],
      [fifo, /it is a named pipe, not a file/],
      ['.rung', /it is a directory, not a file/],
      ['huge.json', /the file is 2\.0 MiB, larger than any panel \(at most 1\.0 MiB\); it was not read/],
    ];
    for (const [panel, said] of cases) {
      const io = new CapturedIo(workspace, {});
      expect(await main(['chat', '--panel', panel, 'hi'], io), panel).toBe(2);
      expect(io.err, panel).toMatch(said);
    }
    expect(server.requests).toEqual([]);
  });
});

describe('rung chat printing what a provider said', () => {
  it('shows a provider error text with its escape sequences visible, not obeyed', async () => {
    const hostile = new WireServer().on('POST', '/v1/chat/completions', (response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'bad request\u001b[2J\u001b]52;c;cHduZWQ=\u0007 \u009b31m' } }));
    });
    const url = await hostile.start();
    try {
      writeFileSync(
        join(workspace, 'hostile.json'),
        JSON.stringify({
          models: [{ slug: 'local-model', provider: 'lmstudio' }],
          routing: { explore: 0 },
          providers: { lmstudio: { kind: 'openai-compatible', baseUrl: `${url}/v1` } },
        }),
      );
      for (const extra of [[], ['--json']]) {
        const io = new CapturedIo(workspace, {});
        expect(await main(['chat', '--panel', 'hostile.json', ...extra, 'hi'], io)).toBe(1);
        const printed = io.err + io.out;
        expect([...printed].filter((char) => (char < ' ' && char !== '\n') || (char >= '\u007f' && char <= '\u009f'))).toEqual([]);
        expect(printed).toContain(extra.length === 0 ? '\\x1b[2J' : '\\u001b[2J');
      }
    } finally {
      await hostile.close();
    }
  });
});

describe('rung chat with a panel file it found in the folder rather than one the user named', () => {
  const KEY = 'sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab';

  function declareOpenRouterAt(url: string): void {
    const panel = {
      models: [{ slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' }],
      routing: { explore: 0 },
      providers: { openrouter: { kind: 'openai-compatible', baseUrl: `${url}/v1` } },
    };
    writeFileSync(join(workspace, '.rung', 'panel.json'), JSON.stringify(panel));
  }

  it("never sends the user's key to an address the folder's panel file declares, and says how to use it anyway", async () => {
    declareOpenRouterAt(serverUrl);
    const io = new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY, OLLAMA_HOST: '127.0.0.1:9' });
    await main(['chat', 'Say hello'], io);
    expect(server.requests.filter((request) => request.headers.authorization?.includes(KEY))).toEqual([]);
    expect(io.err).toMatch(/panel\.json was found, not named: its providers \(openrouter\) are ignored; name it with --panel to use them/);
  });

  it('uses the providers of a panel file the user names with --panel', async () => {
    declareOpenRouterAt(serverUrl);
    const io = new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY });
    expect(await main(['chat', '--panel', '.rung/panel.json', 'Say hello'], io)).toBe(0);
    expect(server.requests.some((request) => request.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});
