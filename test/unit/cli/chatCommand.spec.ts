import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTwoRungPanel } from '../support/twoRungPanel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChatCommand } from '../../../src/cli/chatCommand';
import { EXIT_OK, EXIT_USAGE, readStreamText } from '../../../src/cli/io';
import { main } from '../../../src/cli/main';
import { parseDecisionLines } from '../../../src/core/decisions/decision';
import { WorkspaceLedger } from '../../../src/core/ledger/workspaceLedger';
import { CapturedIo } from '../support/CapturedIo';
import { endless, fixture, json, recordedStatus, replay, vacantAddress, WireServer, type Route } from '../support/wireServer';
import { openStore } from '../../../src/core/store/openStore';
import { scaled } from '../../timeScale';

/** The --attempt-timeout of the test that climbs past an endless answer: long enough for the next rung's answer on a crowded machine (0.25 s was not, at load 30). */
const ATTEMPT_TIMEOUT_SECONDS = scaled(2_000) / 1000;

const KEY = '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';
const sse = { contentType: 'text/event-stream' };
const schema = {
  type: 'object',
  required: ['city', 'population'],
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
};

let workspace: string;
const servers: WireServer[] = [];

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-chat-'));
  writeFileSync(join(workspace, 'city.schema.json'), JSON.stringify(schema));
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

const prose = () => replay(fixture('ollama/chat-prose-instead-of-json.ndjson'));
const jsonAnswer = () => replay(fixture('openai/chat-normal.sse'), sse);

describe('rung chat', () => {
  it('streams the answer, escalates visibly when the JSON check fails, and exits 0', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    const code = await runChatCommand(['--panel', 'panel.json', '--schema', 'city.schema.json', 'Give me Paris as JSON'], io);
    expect(code).toBe(0);
    expect(io.out).toContain('Sure! Paris has about 2.1 million people.');
    expect(io.out).toContain('escalated from qwen2.5:3b to openai/gpt-4o-mini: no JSON found in the answer');
    expect(io.out).toContain('{"city": "Paris", "population": 2102650}');
    expect(io.out.indexOf('Sure!')).toBeLessThan(io.out.indexOf('escalated'));
    expect(io.err).toContain('answered by openai/gpt-4o-mini (pass: JSON matches the schema (bare))');
  });

  it('prints exactly one JSON object on stdout with --json', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    const code = await runChatCommand(['--panel', 'panel.json', '--schema', 'city.schema.json', '--json', 'Give me Paris as JSON'], io);
    expect(code).toBe(0);
    expect(io.out.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(io.out)).toEqual({
      answer: '{"city": "Paris", "population": 2102650}',
      model: 'openai/gpt-4o-mini',
      checks: ['JSON schema'],
      checked: 'checked: JSON schema',
      cost: expect.any(Number),
      attempts: [
        {
          model: 'qwen2.5:3b',
          verdict: 'fail',
          reason: 'no JSON found in the answer (neither bare nor in a ```json fence)',
          checks: ['JSON schema'],
        },
        { model: 'openai/gpt-4o-mini', verdict: 'pass', reason: 'JSON matches the schema (bare)', checks: ['JSON schema'] },
      ],
    });
    expect(io.err).toContain('escalated from qwen2.5:3b to openai/gpt-4o-mini');
  });

  it('checks for JSON when the prompt asks for it without a schema, climbs from prose, and names the check and the cost on the closing line', async () => {
    const { io, ollama } = await setUp(prose(), jsonAnswer());
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--ledger', '.rung/ledger.sqlite', 'Give me the capital of France and its population as a JSON object.'],
      io,
      (location, opener, _options, said) => openStore(location, { clock: opener.clock, log: () => {}, ...said }),
    );
    expect(code).toBe(0);
    expect(io.out).toContain('escalated from qwen2.5:3b to openai/gpt-4o-mini: no JSON in the answer');
    expect(io.err).toMatch(
      /rung chat: answered by openai\/gpt-4o-mini \(pass: valid JSON \(the whole answer\)\); checked: JSON; cost \$0\.0000\d{3}\n/,
    );
    // The words are the check: the provider is not put into JSON mode, nor sent a schema.
    expect(JSON.parse(ollama.requests.find((request) => request.path === '/api/chat')?.body ?? '{}').format).toBeUndefined();
    const { rows } = parseDecisionLines(readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows.map((row) => [row.class, row.model, row.verdict, row.checks])).toEqual([
      ['plan', 'qwen2.5:3b', 'fail', ['JSON']],
      ['plan', 'openai/gpt-4o-mini', 'pass', ['JSON']],
    ]);
  });

  it('says on the closing line that an answer no check could judge went unchecked', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    expect(await runChatCommand(['--panel', 'panel.json', 'Describe Paris'], io)).toBe(0);
    expect(io.err).toContain(
      'rung chat: answered by qwen2.5:3b (unverified: no confidence from qwen2.5:3b: its server sent no log-probabilities); unchecked; cost $0\n',
    );
  });

  it('asks the providers for JSON and sends the key only to the cloud provider', async () => {
    const { io, ollama, cloud } = await setUp(prose(), jsonAnswer());
    await runChatCommand(['--panel', 'panel.json', '--schema', 'city.schema.json', '--json', 'Give me Paris as JSON'], io);
    const ollamaBody = JSON.parse(ollama.requests.find((request) => request.path === '/api/chat')?.body ?? '{}');
    expect(ollamaBody.format).toBe('json');
    expect(ollamaBody.messages[0].content).toContain('"required":["city","population"]');
    expect(ollama.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(cloud.requests.find((request) => request.path === '/api/v1/chat/completions')?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("says once on stderr that the cloud provider's catalog could not be fetched, and still answers", async () => {
    const { io, cloud } = await setUp(prose(), jsonAnswer());
    cloud.on('GET', '/api/v1/models', recordedStatus('openai/500-server-error.json'));
    const code = await runChatCommand(['--panel', 'panel.json', '--schema', 'city.schema.json', 'Give me Paris as JSON'], io);
    expect(code).toBe(EXIT_OK);
    expect(io.err.split('\n').filter((line) => line.includes('catalog'))).toEqual([
      "rung chat: openrouter's catalog: fetch failed (HTTP 500) and there is no cache",
    ]);
  });

  it('prunes a cloud provider without a key, says which variable to set, and exits 1 when no answer stands', async () => {
    const { io, cloud } = await setUp(prose(), jsonAnswer(), {});
    const code = await runChatCommand(['--panel', 'panel.json', '--schema', 'city.schema.json', '--json', 'Give me Paris as JSON'], io);
    expect(code).toBe(1);
    expect(JSON.parse(io.out)).toMatchObject({ answer: null, model: null, attempts: [{ model: 'qwen2.5:3b', verdict: 'fail' }] });
    expect(io.err).toContain('pruned openai/gpt-4o-mini: ');
    expect(io.err).toContain('set RUNG_OPENROUTER_API_KEY');
    expect(cloud.requests).toHaveLength(0);
  });

  it('never prints a key the provider rejected', async () => {
    const { io } = await setUp(
      recordedStatus('ollama/chat-500-server-error.json'),
      recordedStatus('openai/401-key-rejected.json', { KEY }),
    );
    const code = await runChatCommand(['--panel', 'panel.json', '--json', 'hello'], io);
    expect(code).toBe(1);
    expect(JSON.parse(io.out).attempts).toEqual([
      {
        model: 'qwen2.5:3b',
        verdict: 'provider-error',
        reason: expect.stringMatching(/^provider-error: ollama: server error \(500\)/),
        checks: [],
      },
      {
        model: 'openai/gpt-4o-mini',
        verdict: 'provider-error',
        reason: 'unavailable: openrouter: the API key was rejected (401)',
        checks: [],
      },
    ]);
    expect(`${io.out}${io.err}`).not.toContain(KEY);
  });

  it('says each verdict once in the lines it prints for failed attempts', async () => {
    const { io } = await setUp(
      recordedStatus('ollama/chat-500-server-error.json'),
      recordedStatus('openai/401-key-rejected.json', { KEY }),
    );
    expect(await runChatCommand(['--panel', 'panel.json', 'hello'], io)).toBe(1);
    expect(io.err).toMatch(
      /rung chat: skipped qwen2\.5:3b \(provider-error: ollama: server error \(500\).*\); trying openai\/gpt-4o-mini\n/,
    );
    expect(io.err).toContain(
      'rung chat: no answer stands; last attempt openai/gpt-4o-mini (provider-error: unavailable: openrouter: the API key was rejected (401))\n',
    );
    expect(io.err).not.toContain('provider-error: provider-error');
    // No model said a word, so stdout holds none: not even a blank line for a script to read as the answer.
    expect(io.out).toBe('');
  });

  it('says "stopped" once when the user stops the call mid-answer, and exits 130', async () => {
    const stop = new AbortController();
    // The stop comes as the model is asked, and the answer never does.
    const { io } = await setUp(() => stop.abort(), jsonAnswer());
    expect(await runChatCommand(['--panel', 'panel.json', 'hello'], { ...io, signal: stop.signal })).toBe(130);
    expect(io.err).toContain('rung chat: no answer stands; last attempt qwen2.5:3b (stopped: stopped by the user)\n');
    expect(io.err).not.toContain('stopped: stopped: ');
  });

  it('does not pass a prose answer on a workspace the answer never touched: the command check is unverified', async () => {
    const { io, cloud } = await setUp(prose(), jsonAnswer());
    const command = `${JSON.stringify(process.execPath)} -e "process.exit(0)"`;
    const code = await runChatCommand(['--panel', 'panel.json', '--verify-command', command, '--json', 'Describe Paris'], io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({
      model: 'qwen2.5:3b',
      attempts: [{ model: 'qwen2.5:3b', verdict: 'unverified', reason: expect.stringContaining('not run: the answer was not applied') }],
    });
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });

  it('gives each rung the --attempt-timeout it was given, then climbs, naming the flag', async () => {
    const chunk = JSON.stringify({ model: 'qwen2.5:3b', message: { role: 'assistant', content: 'and so on ' }, done: false });
    const talker = endless({ contentType: 'application/x-ndjson', piece: `${chunk}\n` });
    const { io } = await setUp(talker.route, jsonAnswer());
    const code = await runChatCommand(
      [
        '--panel',
        'panel.json',
        '--schema',
        'city.schema.json',
        '--attempt-timeout',
        String(ATTEMPT_TIMEOUT_SECONDS),
        '--json',
        'Give me Paris as JSON',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({
      model: 'openai/gpt-4o-mini',
      attempts: [
        {
          model: 'qwen2.5:3b',
          verdict: 'provider-error',
          reason: expect.stringContaining(
            `ollama: qwen2.5:3b gave no whole answer within ${ATTEMPT_TIMEOUT_SECONDS} s, the time one attempt may take; for a slower model raise`,
          ),
        },
        { model: 'openai/gpt-4o-mini', verdict: 'pass' },
      ],
    });
    expect(io.err).toContain('rung chat --attempt-timeout');
  });

  it('refuses an --attempt-timeout that is not a number of seconds above 0', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    for (const value of ['0', 'soon', '1e3', '86401']) {
      expect(await runChatCommand(['--panel', 'panel.json', '--attempt-timeout', value, 'hi'], io)).toBe(EXIT_USAGE);
      expect(io.err).toContain(`--attempt-timeout must be a number of seconds above 0 and at most 86400, not "${value}"`);
    }
  });

  it('calls a chat answer whose confidence cannot be read unverified and lets it stand', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    const code = await runChatCommand(['--panel', 'panel.json', '--json', 'Describe Paris'], io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({
      model: 'qwen2.5:3b',
      attempts: [{ verdict: 'unverified', reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities' }],
    });
  });

  it('asks the local model the confidence question by default, none with --confidence-check off, and refuses a mode it does not know', async () => {
    const { io, ollama } = await setUp(prose(), jsonAnswer());
    const chats = (): number => ollama.requests.filter((request) => request.path === '/api/chat').length;
    await runChatCommand(['--panel', 'panel.json', '--json', 'Describe Paris'], io);
    expect(chats()).toBe(2);
    const off = new CapturedIo(workspace, io.env);
    await runChatCommand(['--panel', 'panel.json', '--confidence-check', 'off', '--json', 'Describe Paris'], off);
    expect(chats()).toBe(3);
    expect(JSON.parse(off.out)).toMatchObject({
      checked: 'unchecked',
      attempts: [{ verdict: 'unverified', reason: 'no verifier configured' }],
    });
    const bad = new CapturedIo(workspace, io.env);
    expect(await runChatCommand(['--panel', 'panel.json', '--confidence-check', 'paid', 'Describe Paris'], bad)).toBe(EXIT_USAGE);
    expect(bad.err).toContain('--confidence-check must be off, local, all, not "paid"');
  });

  it('checks an edit class for code but not a class that merely starts with "edit"', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    await runChatCommand(['--panel', 'panel.json', '--class', 'editor', '--json', 'Describe Paris'], io);
    expect(JSON.parse(io.out)).toMatchObject({
      attempts: [{ verdict: 'unverified', reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities' }],
    });
    const again = new CapturedIo(workspace, io.env);
    await runChatCommand(['--panel', 'panel.json', '--class', 'edit/typescript', '--json', 'Describe Paris'], again);
    // Neither answer holds code, so neither stands as an edit.
    expect(JSON.parse(again.out)).toMatchObject({
      answer: null,
      attempts: [
        { verdict: 'fail', reason: 'code in the answer: the edit has neither a code block nor a tool call' },
        { verdict: 'fail', reason: 'code in the answer: the edit has neither a code block nor a tool call' },
      ],
    });
  });

  it('learns into the workspace ledger and writes both decision rows beside it with --ledger', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--schema', 'city.schema.json', '--ledger', '.rung/ledger.sqlite', '--json', 'Give me Paris as JSON'],
      io,
      (location, opener, _options, said) => openStore(location, { clock: opener.clock, log: () => {}, ...said }),
    );
    expect(code).toBe(0);
    const { rows } = parseDecisionLines(readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows.map((row) => [row.model, row.verdict])).toEqual([
      ['qwen2.5:3b', 'fail'],
      ['openai/gpt-4o-mini', 'pass'],
    ]);
    const ledger = await WorkspaceLedger.open({ path: join(workspace, '.rung', 'ledger.sqlite'), clock: io.clock, readOnly: true });
    expect(ledger.entries().map((entry) => [entry.model, entry.classKey, entry.graded, entry.ok])).toEqual(
      expect.arrayContaining([
        ['qwen2.5:3b', 'plan', 1, 0],
        ['openai/gpt-4o-mini', 'plan', 1, 1],
      ]),
    );
    await ledger.close();
    expect(readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8')).not.toContain(KEY);
  });

  it('exits 2 for a --schema the check cannot read, asking no model and grading none in the ledger', async () => {
    const { io, ollama, cloud } = await setUp(prose(), jsonAnswer());
    const opened: string[] = [];
    writeFileSync(join(workspace, 'nonsense.json'), '{"type": "nonsense"}');
    writeFileSync(join(workspace, 'list.json'), '[1, 2]');
    const code = await runChatCommand(
      ['--panel', 'panel.json', '--schema', 'nonsense.json', '--ledger', '.rung/ledger.sqlite', 'hi'],
      io,
      (location, opener, _options, said) => {
        opened.push(JSON.stringify(location));
        return openStore(location, { clock: opener.clock, log: () => {}, ...said });
      },
    );
    expect(code).toBe(EXIT_USAGE);
    expect(io.err).toContain(
      'rung chat: --schema nonsense.json is not a JSON Schema Rung can check: #/type: unknown type "nonsense" (the types are array, boolean, integer, null, number, object, string)',
    );
    expect(await runChatCommand(['--panel', 'panel.json', '--schema', 'list.json', 'hi'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain('--schema list.json is not a JSON Schema Rung can check: #: a schema is an object or a boolean, not an array');
    expect([...ollama.requests, ...cloud.requests].filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(opened).toEqual([]);
    expect(io.out).toBe('');
  });

  it('refuses --ledger when no ledger opener was wired in', async () => {
    const { io } = await setUp(prose(), jsonAnswer());
    expect(await runChatCommand(['--panel', 'panel.json', '--ledger', 'l.sqlite', 'hi'], io)).toBe(2);
    expect(io.err).toContain('--ledger is not available in this build');
  });

  it('exits 130 and blames no provider when the user stops it while the providers are being probed', async () => {
    // Both servers accept the connection and never answer: the Ollama probe and the catalog fetch hang.
    const silent: Route = () => undefined;
    const { io } = await setUp(prose(), jsonAnswer());
    servers[0]?.on('GET', '/api/tags', silent);
    servers[1]?.on('GET', '/api/v1/models', silent);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const code = await runChatCommand(['--panel', 'panel.json', '--json', 'hello'], { ...io, signal: stop.signal });
    expect(code).toBe(130);
    expect(JSON.parse(io.out)).toEqual({ answer: null, model: null, checks: [], checked: 'unchecked', cost: 0, attempts: [] });
    expect(io.err).toBe('rung chat: stopped by the user\n');
  });

  it('starts a notice that follows streamed text on its own line', async () => {
    const { io } = await setUp(replay(fixture('ollama/chat-error-mid-stream.ndjson')), jsonAnswer());
    // Both streams in the order a terminal shows them.
    let transcript = '';
    const both = { ...io, stdout: (text: string) => void (transcript += text), stderr: (text: string) => void (transcript += text) };
    expect(await runChatCommand(['--panel', 'panel.json', 'hello'], both)).toBe(0);
    expect(transcript).toContain('Let me\nrung chat: skipped qwen2.5:3b (provider-error: ');
    expect(transcript).not.toMatch(/[^\n]rung chat: /);
  });

  it('names each pruned model once, without repeating "pruned"', async () => {
    const { io } = await setUp(prose(), jsonAnswer(), {});
    await runChatCommand(['--panel', 'panel.json', 'Describe Paris'], io);
    expect(io.err).toContain(
      'rung chat: pruned openai/gpt-4o-mini: provider openrouter unavailable: openrouter: no API key (set RUNG_OPENROUTER_API_KEY)\n',
    );
    expect(io.err).not.toContain('pruned: ');
  });

  it('refuses a prompt no model on the panel can hold, naming the tokens it needs and the largest context', async () => {
    const { io, ollama } = await setUp(prose(), jsonAnswer());
    const panel = JSON.parse(readFileSync(join(workspace, 'panel.json'), 'utf8')) as { models: { context?: number }[] };
    for (const model of panel.models) model.context = 4000;
    writeFileSync(join(workspace, 'panel.json'), JSON.stringify(panel));
    expect(await runChatCommand(['--panel', 'panel.json', 'x'.repeat(100 * 1024)], io)).toBe(1);
    expect(io.err).toContain('needs about 25601 tokens of context');
    expect(io.err).toContain('the largest context is 4000 (qwen2.5:3b)');
    expect(ollama.requests.filter((request) => request.path === '/api/chat')).toHaveLength(0);
  });

  it('keeps no routing rule of its own: it reaches the router, the verifiers and the providers only through the session', () => {
    const source = readFileSync(join(__dirname, '../../../src/cli/chatCommand.ts'), 'utf8');
    const imported = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    expect(imported.filter((path) => /core\/(routing\/router|verifiers|chat|providers|ledger|classKey)/.test(path ?? ''))).toEqual([]);
    expect(imported).toContain('../core/session/session');
  });

  it('reaches the provider with the whole of a 1 MB prompt piped in as -', async () => {
    const { io, ollama } = await setUp(prose(), jsonAnswer());
    // What `head -c 1000000 big.txt | rung chat --panel panel.json -` gives the command: a stream, not a terminal.
    const line = 'the quick brown fox jumps over the lazy dog, and then it naps in the sun.\n';
    writeFileSync(join(workspace, 'big.txt'), line.repeat(Math.ceil(1_000_000 / line.length)).slice(0, 1_000_000));
    const stdin = { isTTY: false, readAll: () => readStreamText(createReadStream(join(workspace, 'big.txt'))) };
    expect(await main(['chat', '--panel', 'panel.json', '--json', '-'], { ...io, stdin })).toBe(EXIT_OK);
    const sent = JSON.parse(ollama.requests.find((request) => request.path === '/api/chat')?.body ?? '{}') as {
      messages: { content: string }[];
    };
    expect(sent.messages.at(-1)?.content).toBe(readFileSync(join(workspace, 'big.txt'), 'utf8'));
  });

  it('reads the prompt from --prompt-file', async () => {
    const { io, ollama } = await setUp(prose(), jsonAnswer());
    writeFileSync(join(workspace, 'prompt.txt'), '  Describe Paris\n  in two lines.\n');
    expect(await runChatCommand(['--panel', 'panel.json', '--prompt-file', 'prompt.txt'], io)).toBe(EXIT_OK);
    const sent = JSON.parse(ollama.requests.find((request) => request.path === '/api/chat')?.body ?? '{}') as {
      messages: { content: string }[];
    };
    expect(sent.messages.at(-1)?.content).toBe('  Describe Paris\n  in two lines.\n');
  });

  it('answers --help and -h with every flag described, and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const io = new CapturedIo(workspace, {});
      expect(await main(['chat', flag], io)).toBe(EXIT_OK);
      for (const name of ['--panel', '--class', '--schema', '--verify-command', '--verify-timeout', '--ledger', '--json', '--prompt-file'])
        expect(io.out).toContain(name);
      const direct = new CapturedIo(workspace, {});
      expect(await runChatCommand([flag], direct)).toBe(EXIT_OK);
      expect(direct.out).toBe(io.out);
    }
  });

  it('exits 2 for an invalid panel, through main as when called directly', async () => {
    const io = new CapturedIo(workspace, {});
    writeFileSync(join(workspace, 'panel.json'), JSON.stringify({ models: [] }));
    expect(await main(['chat', '--panel', 'panel.json', 'hello'], io)).toBe(EXIT_USAGE);
    expect(io.err).toMatch(/^rung chat: .*panel\.json: invalid panel/);
  });

  it('refuses --verify-timeout without a command, and one that is not a number of milliseconds', async () => {
    const io = new CapturedIo(workspace, {});
    expect(await runChatCommand(['--panel', 'panel.json', '--verify-timeout', '300', 'hi'], io)).toBe(EXIT_USAGE);
    expect(io.err).toContain('--verify-timeout limits --verify-command, which is missing');
    expect(await runChatCommand(['--panel', 'panel.json', '--verify-command', 'true', '--verify-timeout', 'soon', 'hi'], io)).toBe(
      EXIT_USAGE,
    );
    expect(io.err).toContain('--verify-timeout must be a whole number of milliseconds');
  });

  it('exits 2 with the usage when called without a panel it can find, or without a prompt', async () => {
    const io = new CapturedIo(workspace, { OLLAMA_HOST: (await vacantAddress()).url });
    expect(await runChatCommand(['hello'], io)).toBe(2);
    expect(io.err).toContain('missing --panel FILE: there is no');
    expect(await runChatCommand(['--panel', 'panel.json'], io)).toBe(2);
    expect(io.err).toContain('usage: rung chat');
    expect(io.out).toBe('');
  });
});

describe('rung chat with an OpenAI-compatible server on loopback', () => {
  /** The recorded OpenRouter answer as a local server would send it: its own model name and no cost. */
  const localAnswer = () =>
    replay(
      fixture('openai/chat-normal.sse').replaceAll('openai/gpt-4o-mini', 'qwen2.5-7b-instruct').replaceAll('"cost":0.00001455,', ''),
      sse,
    );

  it('opens with the keyless local model before a cloud model listed first, says why, and sends the cloud nothing', async () => {
    const local = new WireServer().on('POST', '/v1/chat/completions', localAnswer());
    const cloud = new WireServer().on('POST', '/api/v1/chat/completions', jsonAnswer());
    servers.push(local, cloud);
    const [localUrl, cloudUrl] = await Promise.all([local.start(), cloud.start()]);
    writeFileSync(
      join(workspace, 'panel.json'),
      JSON.stringify({
        models: [
          { slug: 'openai/gpt-4o-mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 } },
          { slug: 'qwen2.5-7b-instruct', provider: 'lmstudio' },
        ],
        routing: { explore: 0 },
        providers: {
          openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
          lmstudio: { kind: 'openai-compatible', baseUrl: `${localUrl}/v1` },
        },
      }),
    );
    const io = new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY });
    const code = await main(
      [
        'chat',
        '--panel',
        'panel.json',
        '--schema',
        'city.schema.json',
        '--ledger',
        '.rung/ledger.sqlite',
        '--json',
        'Give me Paris as JSON',
      ],
      io,
    );
    expect(code).toBe(EXIT_OK);
    expect(JSON.parse(io.out)).toEqual({
      answer: '{"city": "Paris", "population": 2102650}',
      model: 'qwen2.5-7b-instruct',
      checks: ['JSON schema'],
      checked: 'checked: JSON schema',
      cost: 0,
      attempts: [{ model: 'qwen2.5-7b-instruct', verdict: 'pass', reason: 'JSON matches the schema (bare)', checks: ['JSON schema'] }],
    });
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
    expect(local.requests.find((request) => request.path === '/v1/chat/completions')?.headers.authorization).toBeUndefined();
    const { rows } = parseDecisionLines(readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      candidates: ['qwen2.5-7b-instruct', 'openai/gpt-4o-mini'],
      model: 'qwen2.5-7b-instruct',
      reason: `no-measured-profiles tier1 (local server ${new URL(localUrl).host})`,
      mode: 'local',
      cost: 0,
    });
  });
});
