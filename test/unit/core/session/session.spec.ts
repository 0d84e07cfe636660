import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseDecisionLines, type DecisionRow } from '../../../../src/core/decisions/decision';
import { CROSS_FIT_FOLDS } from '../../../../src/core/evaluation/crossFit';
import { estimatePolicy, OutcomeModel } from '../../../../src/core/evaluation/estimate';
import { readLoggedCalls } from '../../../../src/core/evaluation/loggedCalls';
import { FLUSH_INTERVAL_MS } from '../../../../src/core/files/flushTimer';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import { PROBE_CACHE_MS } from '../../../../src/core/providers/ollamaAdapter';
import type { ChatMessage, ChatOptions, ProviderAdapter, StreamPart, ToolSpec } from '../../../../src/core/providers/provider';
import { OUTPUT_TOKENS_BOUND } from '../../../../src/core/routing/spendLimits';
import { ContextRefusalError, MAX_ESTIMATED_CALLS, RungSession, type RungSessionOptions } from '../../../../src/core/session/session';
import type { ProviderFactory, SessionChange, SessionEvent } from '../../../../src/core/session/types';
import { seededRandom } from '../../../../src/core/random';
import { InvalidSchemaError } from '../../../../src/core/verifiers/jsonSchema';
import { INTERRUPTED_REASON, reopenedReason } from '../../../../src/core/verdict';
import { decisionRow } from '../../support/decisionRow';
import { ManualScheduler } from '../../support/doubles';
import { FixedClock } from '../../support/FixedClock';
import { makeTempDir } from '../../support/tempDir';
import { endless, fixture, json, recordedStatus, replay, WireServer, type Route } from '../../support/wireServer';
import { scaled } from '../../../timeScale';

/**
 * The whole-attempt deadline of the tests that climb past an endless answer: long enough for the next rung's
 * local answer to arrive whole on a crowded machine (0.3 s was not, at load 30), scaled by RUNG_TEST_TIME_SCALE.
 */
const ATTEMPT_TIMEOUT_SECONDS = scaled(2_000) / 1000;

const KEY = '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';
const sse = { contentType: 'text/event-stream' };
const schema = {
  type: 'object',
  required: ['city', 'population'],
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
};

let dir: ReturnType<typeof makeTempDir>;
const servers: WireServer[] = [];
const sessions: RungSession[] = [];

beforeEach(() => {
  dir = makeTempDir('rung-session-');
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  dir.remove();
});

/** A local Ollama and a local OpenRouter on 127.0.0.1, and their addresses. */
async function providers(ollamaChat: Route, cloudChat: Route) {
  const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', ollamaChat);
  const cloud = new WireServer()
    .on('POST', '/api/v1/chat/completions', cloudChat)
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  servers.push(ollama, cloud);
  const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
  return { ollama, cloud, ollamaUrl: ollamaUrl as string, cloudUrl: `${cloudUrl}/api/v1` };
}

/** Ollama and a stand-in for a paid cloud: keyed (`key: "required"`), so it ranks as cloud though it listens on loopback. */
function twoRungPanel(ollamaUrl: string, cloudUrl: string, models: Record<string, unknown>[] = []): Panel {
  return parsePanel(
    {
      models: models.length
        ? models
        : [
            { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
            { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
          ],
      routing: { explore: 0 },
      providers: {
        ollama: { kind: 'ollama', baseUrl: ollamaUrl },
        openrouter: { kind: 'openai-compatible', baseUrl: cloudUrl, key: 'required' },
      },
    },
    'session panel',
  );
}

async function open(options: Partial<RungSessionOptions> & { panel: Panel }): Promise<RungSession> {
  const session = await RungSession.open({
    clock: new FixedClock(),
    keys: async (provider) => {
      // Answers after a turn, as SecretStorage does.
      await new Promise((resolve) => setImmediate(resolve));
      return provider === 'openrouter' ? KEY : undefined;
    },
    store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') },
    ...options,
  });
  sessions.push(session);
  return session;
}

/** Whether a request body is the confidence check's question (its system message, as JSON escapes it). */
const isConfidenceQuestion = (body: string): boolean => body.includes('judge whether a proposed answer to a request is correct');

const prose = () => replay(fixture('ollama/chat-prose-instead-of-json.ndjson'));
const jsonAnswer = () => replay(fixture('openai/chat-normal.sse'), sse);
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

/** An event's type and the model or rung it is about, for comparing sequences. */
function outline(event: SessionEvent): string {
  switch (event.type) {
    case 'rung-started':
      return `rung-started ${event.candidate.slug}`;
    case 'part':
      return `part ${event.model}`;
    case 'verdict':
      return `verdict ${event.model} ${event.verdict.kind}`;
    case 'escalated':
      return `escalated ${event.from} -> ${event.to}`;
    case 'skipped':
      return `skipped ${event.model} -> ${event.next}`;
    default:
      return event.type;
  }
}

/** Drops repeated outlines, so a stream's many parts read as one. */
function collapsed(events: SessionEvent[]): string[] {
  return events.map(outline).filter((line, index, all) => line !== all[index - 1]);
}

describe('RungSession: what is named before an attempt', () => {
  it("says each rung's checks and price as it starts: the schema check, a local model's price as free, an unknown price as null", async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const events: SessionEvent[] = [];
    await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } }, (event) => events.push(event));
    const started = events.flatMap((event) => (event.type === 'rung-started' ? [[event.candidate.slug, event.checks, event.price]] : []));
    expect(started).toEqual([
      ['qwen2.5:3b', ['JSON schema'], { input: 0, output: 0 }],
      ['openai/gpt-4o-mini', ['JSON schema'], null],
    ]);
  });

  it('names the confidence check only for an answer it would judge: none while no threshold is learned', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), confidenceCheck: 'local' });
    const events: SessionEvent[] = [];
    await session.chat({ messages: user('What is the capital of France?') }, (event) => events.push(event));
    const started = events.flatMap((event) => (event.type === 'rung-started' ? [event.checks] : []));
    expect(started[0]).toEqual([]);
  });
});

describe('RungSession.chat', () => {
  it('escalates an Ollama rung that fails its check to an OpenAI-compatible rung, reporting each event in order', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const events: SessionEvent[] = [];
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } }, (event) => events.push(event));

    expect(collapsed(events)).toEqual([
      'routed',
      'rung-started qwen2.5:3b',
      'part qwen2.5:3b',
      'verdict qwen2.5:3b fail',
      'escalated qwen2.5:3b -> openai/gpt-4o-mini',
      'rung-started openai/gpt-4o-mini',
      'part openai/gpt-4o-mini',
      'verdict openai/gpt-4o-mini pass',
      'done',
    ]);
    const escalated = events.find((event) => event.type === 'escalated');
    expect(escalated).toMatchObject({
      reason: 'escalated from qwen2.5:3b to openai/gpt-4o-mini: no JSON found in the answer (neither bare nor in a ```json fence)',
    });
    expect(result.classKey).toBe('plan');
    expect(result.answer).toMatchObject({ text: '{"city": "Paris", "population": 2102650}', model: 'openai/gpt-4o-mini' });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.provider, attempt.verdict.kind])).toEqual([
      ['qwen2.5:3b', 'ollama', 'fail'],
      ['openai/gpt-4o-mini', 'openrouter', 'pass'],
    ]);
    expect(result.cost).toBeCloseTo(0.00001455, 12);
    expect(events.at(-1)).toEqual({ type: 'done', callId: result.callId, result });

    const { rows } = parseDecisionLines(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows.map((row) => [row.call, row.model, row.verdict])).toEqual([
      [result.callId, 'qwen2.5:3b', 'fail'],
      [result.callId, 'openai/gpt-4o-mini', 'pass'],
    ]);
    expect(session.explain(result.callId).map((row) => row.model)).toEqual(['qwen2.5:3b', 'openai/gpt-4o-mini']);
  });

  it('names a rating by the panel slug that served it, not by the snapshot the provider reported', async () => {
    // The panel says gpt-4o-mini; the server answers as openai/gpt-4o-mini, the key the ledger learns under.
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'gpt-4o-mini', provider: 'openrouter', role: 'top' },
    ]);
    const session = await open({ panel });
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.answer?.model).toBe('gpt-4o-mini');
    expect(session.explain(result.callId).at(-1)?.resolved).toBe('openai/gpt-4o-mini');
    const rated = session
      .snapshot({ limit: 0 })
      .ratings.filter((rating) => rating.classKey === 'plan')
      .map((rating) => rating.model);
    expect(rated.sort()).toEqual(['gpt-4o-mini', 'qwen2.5:3b']);
  });

  it('refuses a schema the check cannot read before any model is asked, and grades nobody for it', async () => {
    const { ollamaUrl, cloudUrl, ollama, cloud } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const events: SessionEvent[] = [];
    const refusal = session.chat({ messages: user('Give me Paris as JSON'), checks: { schema: { type: 'nonsense' } } }, (event) =>
      events.push(event),
    );
    await expect(refusal).rejects.toBeInstanceOf(InvalidSchemaError);
    await expect(refusal).rejects.toThrow('the JSON Schema cannot be used: #/type: unknown type "nonsense"');
    expect(events).toEqual([]);
    expect([...ollama.requests, ...cloud.requests].filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(session.snapshot().ratings).toEqual([]);
  });

  it('infers chat without a schema, never explores it, and where the server gives no log-probabilities leaves the answer unverified', async () => {
    const { ollamaUrl, cloudUrl, ollama, cloud } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const result = await session.chat({ messages: user('Describe Paris') });
    expect(result.classKey).toBe('chat');
    // Nothing else can judge a chat answer, so the model was asked how sure it is; this server said nothing.
    expect(result.attempts.map((attempt) => attempt.verdict)).toEqual([
      { kind: 'unverified', reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities' },
    ]);
    expect(ollama.requests.filter((request) => isConfidenceQuestion(request.body))).toHaveLength(1);
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });

  it('takes keys from the async lookup, sends them only to their provider, and keeps them out of every event and row', async () => {
    const { ollamaUrl, cloudUrl, ollama, cloud } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const events: SessionEvent[] = [];
    const changes: SessionChange[] = [];
    session.onChange((change) => changes.push(change));
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } }, (event) => events.push(event));
    expect(cloud.requests.find((request) => request.path.endsWith('/chat/completions'))?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(ollama.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(changes)).not.toContain(KEY);
    expect(JSON.stringify(session.snapshot())).not.toContain(KEY);
    expect(JSON.stringify(session.explain(result.callId))).not.toContain(KEY);
    expect(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8')).not.toContain(KEY);
    expect(changes.filter((change) => change.type === 'decision-written')).toHaveLength(2);
  });

  it('answers through a keyless OpenAI-compatible server on loopback without sending an Authorization header', async () => {
    // LM Studio, llama.cpp's server or vLLM on this machine: no key was ever set for it.
    const local = new WireServer().on('POST', '/v1/chat/completions', replay(fixture('openai/chat-normal.sse'), sse));
    servers.push(local);
    const panel = parsePanel(
      {
        models: [{ slug: 'qwen2.5-coder-7b-instruct', provider: 'lmstudio' }],
        routing: { explore: 0 },
        providers: { lmstudio: { kind: 'openai-compatible', baseUrl: `${await local.start()}/v1` } },
      },
      'keyless panel',
    );
    const asked: string[] = [];
    const session = await open({
      panel,
      keys: async (provider) => {
        asked.push(provider);
        return undefined;
      },
    });
    const events: SessionEvent[] = [];
    const result = await session.chat({ messages: user('Give me Paris as JSON') }, (event) => events.push(event));
    expect(asked).toEqual(['lmstudio']);
    expect(JSON.parse(result.answer?.text ?? '')).toEqual({ city: 'Paris', population: 2102650 });
    expect(events.filter((event) => event.type === 'part').length).toBeGreaterThan(1);
    const sent = local.requests.filter((request) => request.path === '/v1/chat/completions');
    // The answer, then the confidence check's question about it: neither carries a key.
    expect(sent.filter((request) => !isConfidenceQuestion(request.body))).toHaveLength(1);
    for (const request of sent) expect(request.headers).not.toHaveProperty('authorization');
  });

  it('builds a provider of a kind the core does not know through the factory it was given', async () => {
    const seen: { name: string; baseUrl: string | undefined; apiKey: string | undefined }[] = [];
    const factory: ProviderFactory = ({ name, baseUrl, apiKey }) => {
      seen.push({ name, baseUrl, apiKey });
      return new EditorModels(name, 'Bonjour from the editor.');
    };
    const panel = parsePanel(
      { models: [{ slug: 'copilot-gpt-4o', provider: 'editor' }], routing: { explore: 0 }, providers: { editor: { kind: 'vscode-lm' } } },
      'editor panel',
    );
    const session = await open({ panel, providerFactories: { 'vscode-lm': factory }, keys: async () => 'editor-key' });
    const result = await session.chat({ messages: user('Say hello') });
    expect(seen).toEqual([{ name: 'editor', baseUrl: undefined, apiKey: 'editor-key' }]);
    expect(result.answer).toMatchObject({ text: 'Bonjour from the editor.', model: 'copilot-gpt-4o' });
  });

  it('prunes the models of a kind no factory builds, with the reason', async () => {
    const panel = parsePanel(
      { models: [{ slug: 'copilot-gpt-4o', provider: 'editor' }], routing: { explore: 0 }, providers: { editor: { kind: 'vscode-lm' } } },
      'editor panel',
    );
    const session = await open({ panel });
    expect(session.rank({ classKey: 'chat' }).pruned).toEqual([
      {
        model: 'copilot-gpt-4o',
        reason: 'pruned: provider editor unavailable: provider kind vscode-lm has no adapter here',
        cause: 'provider editor unavailable: provider kind vscode-lm has no adapter here',
      },
    ]);
    await expect(session.chat({ messages: user('hi') })).rejects.toThrow('no model can take this call');
  });

  it('writes a decision row for a call every rung refused, with each reason, so the log says why', async () => {
    const panel = parsePanel(
      { models: [{ slug: 'copilot-gpt-4o', provider: 'editor' }], routing: { explore: 0 }, providers: { editor: { kind: 'vscode-lm' } } },
      'editor panel',
    );
    const session = await open({ panel, store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') } });
    await expect(session.chat({ messages: user('hi'), callId: 'refused-1' })).rejects.toThrow('no model can take this call');
    const [row, ...others] = session.explain('refused-1');
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      call: 'refused-1',
      class: 'chat',
      candidates: [],
      rung: -1,
      model: '',
      verdict: 'refused',
      verdictReason:
        'no model can take this call (copilot-gpt-4o: pruned: provider editor unavailable: provider kind vscode-lm has no adapter here)',
      cost: null,
      pruned: [{ model: 'copilot-gpt-4o', reason: 'pruned: provider editor unavailable: provider kind vscode-lm has no adapter here' }],
    });
    expect(session.snapshot().spend.byDay).toEqual([]);
    await session.dispose();
  });

  it('writes a decision row for a prompt no model on the panel can hold, naming each context', async () => {
    const panel = parsePanel(
      {
        models: [{ slug: 'small', provider: 'editor', context: 10 }],
        routing: { explore: 0 },
        providers: { editor: { kind: 'vscode-lm' } },
      },
      'small panel',
    );
    const session = await open({
      panel,
      store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') },
      providerFactories: { 'vscode-lm': ({ name }) => new EditorModels(name, 'never asked') },
    });
    await expect(
      session.chat({ messages: user('a prompt far longer than ten tokens of context, for certain'), callId: 'too-long' }),
    ).rejects.toThrow(/needs about \d+ tokens of context/);
    const rows = session.explain('too-long');
    expect(rows.map((row) => [row.verdict, row.model, row.pruned.map((entry) => entry.reason)])).toEqual([
      ['refused', '', [expect.stringMatching(/^pruned: needs context \d+ > 10$/)]],
    ]);
    await session.dispose();
  });
});

describe('RungSession: provider health', () => {
  it('asks a provider that was down at open again before routing, and uses it once it is back', async () => {
    const ollama = new WireServer()
      .on('GET', '/api/tags', recordedStatus('ollama/chat-503-server-busy.json'), json(JSON.parse(fixture('ollama/tags.json'))))
      .on('POST', '/api/chat', prose());
    servers.push(ollama);
    const panel = parsePanel(
      {
        models: [{ slug: 'qwen2.5:3b', provider: 'ollama' }],
        routing: { explore: 0 },
        providers: { ollama: { kind: 'ollama', baseUrl: await ollama.start() } },
      },
      'ollama only',
    );
    const clock = new FixedClock();
    const session = await open({ panel, clock });
    expect(session.snapshot().providers).toEqual([{ name: 'ollama', healthy: false, reason: 'GET /api/tags answered 503' }]);
    clock.advance(PROBE_CACHE_MS);
    const result = await session.chat({ messages: user('Describe Paris') });
    expect(result.answer?.model).toBe('qwen2.5:3b');
    expect(session.snapshot().providers).toEqual([{ name: 'ollama', healthy: true }]);
  });
});

describe('RungSession: what connecting could not learn', () => {
  it("logs a catalog that could not be fetched once, as a notice the panel hears too, and again only when a new panel's fetch fails", async () => {
    const { ollamaUrl, cloud, cloudUrl } = await providers(prose(), jsonAnswer());
    cloud.on('GET', '/api/v1/models', recordedStatus('openai/500-server-error.json'));
    const logged: string[] = [];
    const session = await open({
      panel: twoRungPanel(ollamaUrl, cloudUrl),
      catalogDir: join(dir.path, '.rung'),
      log: (level, message) => logged.push(`${level}: ${message}`),
    });
    const heard: SessionChange[] = [];
    session.onChange((change) => heard.push(change));
    const line = "info: openrouter's catalog: fetch failed (HTTP 500) and there is no cache";
    expect(logged.filter((entry) => entry.includes('catalog'))).toEqual([line]);
    await session.chat({ messages: user('Describe Paris') });
    expect(logged.filter((entry) => entry.includes('catalog'))).toEqual([line]);
    await session.setPanel(twoRungPanel(ollamaUrl, cloudUrl));
    expect(logged.filter((entry) => entry.includes('catalog'))).toEqual([line, line]);
    expect(heard).toContainEqual({ type: 'notice', level: 'info', message: line.slice('info: '.length) });
  });
});

describe('RungSession: panels set one after another', () => {
  it('keeps the panel set last when the one set before it finishes connecting after it', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    // The first key lookup after `holding` is set waits for the test: that panel's connecting is slow.
    let holding = false;
    let release: (() => void) | undefined;
    const session = await open({
      panel: twoRungPanel(ollamaUrl, cloudUrl),
      keys: async (provider) => {
        if (holding) {
          holding = false;
          await new Promise<void>((resolve) => (release = resolve));
        }
        return provider === 'openrouter' ? KEY : undefined;
      },
    });
    const older = twoRungPanel(ollamaUrl, cloudUrl);
    const newer = parsePanel(
      { models: [{ slug: 'qwen2.5:3b', provider: 'ollama' }], providers: { ollama: { kind: 'ollama', baseUrl: ollamaUrl } } },
      'newer',
    );
    holding = true;
    const first = session.setPanel(older);
    await vi.waitFor(() => expect(release).toBeDefined());
    await session.setPanel(newer);
    release?.();
    await first;
    expect(session.currentPanel).toBe(newer);
    expect(session.rank({ classKey: 'chat' }).candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b']);
  });
});

describe('RungSession: notices raised while opening', () => {
  it('keeps them for the first listener, which is the only one to hear them, each logged once', async () => {
    const { ollamaUrl, cloud, cloudUrl } = await providers(prose(), jsonAnswer());
    cloud.on('GET', '/api/v1/models', recordedStatus('openai/500-server-error.json'));
    const ledgerPath = join(dir.path, '.rung', 'ledger.sqlite');
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    writeFileSync(ledgerPath, 'these bytes were a ledger once\n'.repeat(50));
    const logged: string[] = [];
    const session = await open({
      panel: twoRungPanel(ollamaUrl, cloudUrl),
      store: { kind: 'file', path: ledgerPath },
      catalogDir: join(dir.path, '.rung'),
      log: (level, message) => logged.push(`${level}: ${message}`),
    });
    const first: SessionChange[] = [];
    const second: SessionChange[] = [];
    session.onChange((change) => first.push(change));
    session.onChange((change) => second.push(change));
    const moved = first.filter(
      (change) => change.type === 'notice' && change.level === 'warning' && /moved to .*ledger\.sqlite\.corrupt-/.test(change.message),
    );
    expect(moved).toHaveLength(1);
    expect(second).toEqual([]);
    expect(logged.filter((line) => line.includes('.corrupt-'))).toHaveLength(1);
    const catalog = "openrouter's catalog: fetch failed (HTTP 500) and there is no cache";
    expect(first).toContainEqual({ type: 'notice', level: 'info', message: catalog });
    // A later notice goes to every listener as it happens.
    await session.setPanel(twoRungPanel(ollamaUrl, cloudUrl));
    expect(second.filter((change) => change.type === 'notice')).toEqual([{ type: 'notice', level: 'info', message: catalog }]);
    expect(first.filter((change) => change.type === 'notice' && change.message === catalog)).toHaveLength(2);
  });
});

describe('RungSession: the time an attempt may take', () => {
  it("ends a rung whose answer never stops at the panel's attemptTimeoutSeconds, grades nobody, and climbs", async () => {
    const chunk = JSON.stringify({ model: 'qwen2.5:3b', message: { role: 'assistant', content: 'and so on ' }, done: false });
    // Content, not keep-alives: every idle timer is satisfied, and only the whole attempt's deadline can end it.
    const talker = endless({ contentType: 'application/x-ndjson', piece: `${chunk}\n` });
    const { ollamaUrl, cloudUrl } = await providers(talker.route, jsonAnswer());
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
        ],
        routing: { explore: 0, attemptTimeoutSeconds: ATTEMPT_TIMEOUT_SECONDS },
        providers: {
          ollama: { kind: 'ollama', baseUrl: ollamaUrl },
          openrouter: { kind: 'openai-compatible', baseUrl: cloudUrl, key: 'required' },
        },
      },
      'session panel',
    );
    const session = await open({ panel });
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['qwen2.5:3b', 'provider-error'],
      ['openai/gpt-4o-mini', 'pass'],
    ]);
    expect(result.attempts[0]?.verdict.reason).toBe(
      `ollama: qwen2.5:3b gave no whole answer within ${ATTEMPT_TIMEOUT_SECONDS} s, the time one attempt may take; for a slower model raise routing.attemptTimeoutSeconds in the panel, the rung.routing.attemptTimeoutSeconds setting, or rung chat --attempt-timeout`,
    );
    await talker.closed;
  });
});

describe('RungSession: provider health known at open', () => {
  it('tells the first listener of a provider that was down from the start', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), keys: async () => undefined });
    const heard: SessionChange[] = [];
    session.onChange((change) => heard.push(change));
    expect(heard.filter((change) => change.type === 'provider-health')).toEqual([
      { type: 'provider-health', provider: 'openrouter', healthy: false, reason: expect.stringMatching(/no API key/) },
    ]);
  });
});

describe('RungSession: verdicts', () => {
  it('reports a provider failure as its verdict, its kind and its message, each once', async () => {
    const { ollamaUrl, cloudUrl } = await providers(
      recordedStatus('ollama/chat-500-server-error.json'),
      recordedStatus('openai/401-key-rejected.json', { KEY }),
    );
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const events: SessionEvent[] = [];
    const changes: SessionChange[] = [];
    session.onChange((change) => changes.push(change));
    const result = await session.chat({ messages: user('hello') }, (event) => events.push(event));
    expect(changes.filter((change) => change.type === 'provider-health')).toEqual([
      { type: 'provider-health', provider: 'ollama', healthy: false, reason: 'cooling down after 500 for 30000 ms' },
      { type: 'provider-health', provider: 'openrouter', healthy: false, reason: 'openrouter: the API key was rejected (401)' },
    ]);
    expect(result.attempts.map((attempt) => attempt.verdict)).toEqual([
      { kind: 'provider-error', failure: 'provider-error', reason: expect.stringMatching(/^ollama: server error \(500\)/) },
      { kind: 'provider-error', failure: 'unavailable', reason: 'openrouter: the API key was rejected (401)' },
    ]);
    expect(collapsed(events)).toEqual([
      'routed',
      'rung-started qwen2.5:3b',
      'verdict qwen2.5:3b provider-error',
      'skipped qwen2.5:3b -> openai/gpt-4o-mini',
      'rung-started openai/gpt-4o-mini',
      'verdict openai/gpt-4o-mini provider-error',
      'done',
    ]);
    expect(result.answer).toBeUndefined();
  });
});

describe('RungSession.settle', () => {
  it('grades a late verdict once, writes a final row, and refuses a call it does not know', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const result = await session.chat({ messages: user('Describe Paris') });
    const graded = () => session.snapshot().ratings.find((rating) => rating.model === 'qwen2.5:3b' && rating.classKey === 'chat');
    expect(graded()).toBeUndefined();

    expect(session.settle(result.callId, { kind: 'fail', reason: 'thumbs down' })).toBe(true);
    expect(graded()).toMatchObject({ graded: 1, ok: 0, measured: false });
    expect(session.settle(result.callId, { kind: 'pass', reason: 'thumbs up after all' })).toBe(true);
    expect(graded()).toMatchObject({ graded: 1, ok: 0 });
    expect(session.settle('no-such-call', { kind: 'pass', reason: 'x' })).toBe(false);

    await session.dispose();
    const { rows } = parseDecisionLines(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows.map((row) => [row.verdict, row.verdictReason, row.final])).toEqual([
      ['unverified', 'no confidence from qwen2.5:3b: its server sent no log-probabilities', false],
      ['fail', 'thumbs down', true],
      ['pass', 'thumbs up after all', true],
    ]);
  });

  it("passes a late verdict's weight to the rating: a failure at half weight moves it about half as far", async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    // Each from a class forgotten first, so every rating starts at the same prior; weight 0 leaves it there.
    const ratingAfter = async (weight: number | undefined): Promise<number> => {
      await session.resetClass('chat');
      const result = await session.chat({ messages: user('Describe Paris') });
      session.settle(result.callId, { kind: 'fail', reason: 'asked again', ...(weight !== undefined ? { weight } : {}) });
      return session.snapshot().ratings.find((entry) => entry.model === 'qwen2.5:3b' && entry.classKey === 'chat')?.rating ?? Number.NaN;
    };
    const prior = await ratingAfter(0);
    const half = prior - (await ratingAfter(0.5));
    const whole = prior - (await ratingAfter(undefined));
    expect(half).toBeGreaterThan(0);
    expect(half / whole).toBeCloseTo(0.5, 1);
    await session.dispose();
  });
});

describe('RungSession: context', () => {
  const smallModels = [
    { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base', context: 4000 },
    { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', context: 4000 },
  ];
  const prompt = 'x'.repeat(100 * 1024);

  it('refuses a 100 KB prompt on a panel of 4,000-token models, naming the tokens needed and the largest context', async () => {
    const { ollamaUrl, cloudUrl, ollama, cloud } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl, smallModels) });
    const refusal = session.chat({ messages: user(prompt) });
    await expect(refusal).rejects.toBeInstanceOf(ContextRefusalError);
    await expect(refusal).rejects.toThrow(/needs about 25601 tokens of context .*the largest context is 4000 \(qwen2\.5:3b\)/);
    expect([...ollama.requests, ...cloud.requests].filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(session.rank({ classKey: 'chat', messages: user(prompt) }).pruned.map((pruned) => pruned.reason)).toEqual([
      'pruned: needs context 25601 > 4000',
      'pruned: needs context 25601 > 4000',
    ]);
  });

  it('sends a 100 KB prompt to the one model that can hold it, with the others pruned by the reason rank gives', async () => {
    const { ollamaUrl, cloudUrl, cloud } = await providers(prose(), jsonAnswer());
    const models = [smallModels[0] as Record<string, unknown>, { ...smallModels[1], context: 128000 }];
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl, models) });
    const result = await session.chat({ messages: user(prompt) });
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['openai/gpt-4o-mini']);
    expect(result.ranking.pruned).toEqual([
      { model: 'qwen2.5:3b', reason: 'pruned: needs context 25601 > 4000', cause: 'needs context 25601 > 4000' },
    ]);
    const sent = JSON.parse(cloud.requests.find((request) => request.path.endsWith('/chat/completions'))?.body ?? '{}') as {
      messages: ChatMessage[];
    };
    expect(sent.messages.at(-1)?.content).toBe(prompt);
  });
});

describe('RungSession: a daily budget', () => {
  it('keeps paid models off once today has spent the budget, names the budget, and still runs local ones', async () => {
    const { ollamaUrl, cloudUrl, cloud } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 2, 15));
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const earlier = [
      // Yesterday's spend does not count; a settling final row repeats its attempt's cost and does not either.
      decisionRow({ call: 'y', at: Date.UTC(2026, 0, 1, 23), model: 'openai/gpt-4o-mini', cost: 5 }),
      decisionRow({ call: 'a', at: Date.UTC(2026, 0, 2, 9), model: 'openai/gpt-4o-mini', cost: 0.6 }),
      decisionRow({ call: 'a', at: Date.UTC(2026, 0, 2, 9, 5), model: 'openai/gpt-4o-mini', cost: 0.6, final: true }),
      decisionRow({ call: 'b', at: Date.UTC(2026, 0, 2, 10), model: 'openai/gpt-4o-mini', cost: 0.42 }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), earlier.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), clock, dailyBudgetUsd: 1 });

    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['qwen2.5:3b']);
    expect(result.ranking.pruned).toEqual([
      {
        model: 'openai/gpt-4o-mini',
        reason: 'pruned: daily budget $1.00 reached ($1.02 spent today)',
        cause: 'daily budget $1.00 reached ($1.02 spent today)',
      },
    ]);
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });

  it('keeps the budget when the log holds a row with a negative cost: a forged row cannot buy back spend', async () => {
    const { ollamaUrl, cloudUrl, cloud } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 2, 15));
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const earlier = [
      decisionRow({ call: 'a', at: Date.UTC(2026, 0, 2, 9), model: 'openai/gpt-4o-mini', cost: 1.02 }),
      decisionRow({ call: 'forged', at: Date.UTC(2026, 0, 2, 10), model: 'openai/gpt-4o-mini', cost: -450 }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), earlier.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), clock, dailyBudgetUsd: 1 });
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.ranking.pruned.map((entry) => entry.reason)).toEqual(['pruned: daily budget $1.00 reached ($1.02 spent today)']);
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
    expect(session.snapshot().spend.today).toBeCloseTo(1.02);
  });

  it('lets paid models run while today has spent less than the budget', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), dailyBudgetUsd: 1 });
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['qwen2.5:3b', 'openai/gpt-4o-mini']);
  });

  it('sends a paid rung no more output than its attempt was priced at, and no limit to the local one', async () => {
    const { ollamaUrl, cloudUrl, ollama, cloud } = await providers(prose(), jsonAnswer());
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 1, output: 2 } },
    ]);
    const session = await open({ panel, dailyBudgetUsd: 1 });
    await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    const paid = cloud.requests.find((request) => request.path.endsWith('/chat/completions'));
    expect((JSON.parse(paid?.body ?? '{}') as Record<string, unknown>).max_tokens).toBe(OUTPUT_TOKENS_BOUND);
    const local = ollama.requests.find((request) => request.path === '/api/chat');
    const options = (JSON.parse(local?.body ?? '{}') as { options?: Record<string, unknown> }).options;
    expect(options?.num_predict).toBeUndefined();
  });

  it('leaves out a paid rung whose known input and bounded output would take the day past its budget', async () => {
    const { ollamaUrl, cloudUrl, cloud } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 2, 15));
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const spent = decisionRow({ call: 'a', at: Date.UTC(2026, 0, 2, 9), model: 'openai/gpt-4o-mini', cost: 0.178 });
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), `${JSON.stringify(spent)}\n`);
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 1, output: 2 } },
    ]);
    const session = await open({ panel, clock, dailyBudgetUsd: 0.2 });
    // About 18,000 tokens of input at 4 characters a token, as an Agent mode request with its tools.
    const result = await session.chat({ messages: user(`Give me Paris as JSON. ${'context '.repeat(9_000)}`), checks: { schema } });
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['qwen2.5:3b']);
    expect(result.ranking.pruned.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(
        /^pruned: daily budget \$0\.20 would be crossed: this attempt may cost up to \$0\.034 \(18\d{3} tokens in, at most 8192 out\), \$0\.18 spent today$/,
      ),
    ]);
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });
});

describe('RungSession: a ceiling on one answer', () => {
  it('leaves out a paid rung whose attempt may cost more than one answer may', async () => {
    const { ollamaUrl, cloudUrl, cloud } = await providers(prose(), jsonAnswer());
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 1, output: 2 } },
    ]);
    const session = await open({ panel, answerCeilingUsd: 0.01 });
    const result = await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['qwen2.5:3b']);
    expect(result.ranking.pruned.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/^pruned: answer ceiling \$0\.01 would be crossed: this attempt may cost up to \$0\.016 /),
    ]);
    expect(cloud.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });
});

describe('RungSession.snapshot', () => {
  it('pages recent decisions newest first with a filter, and sums spend by day and model with the dearest model as an estimate', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 3, 12));
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const rows = Array.from({ length: 300 }, (_, i) =>
      decisionRow({
        call: `c-${i}`,
        at: Date.UTC(2026, 0, 2) + i * 60_000,
        model: i % 3 === 0 ? 'openai/gpt-4o-mini' : 'qwen2.5:3b',
        verdict: i % 2 === 0 ? 'pass' : 'fail',
        cost: i % 3 === 0 ? 0.01 : 0,
        inputTokens: 1000,
        outputTokens: 1000,
      }),
    );
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 1, output: 3 } },
    ]);
    const session = await open({ panel, clock });

    const page = session.snapshot({ limit: 5, offset: 2 }).decisions;
    expect(page.rows.map((row) => row.call)).toEqual(['c-297', 'c-296', 'c-295', 'c-294', 'c-293']);
    expect(page.total).toBe(300);
    const failedCloud = session.snapshot({ limit: 3, filter: { model: 'openai/gpt-4o-mini', verdict: 'fail' } }).decisions;
    expect(failedCloud.rows.map((row) => row.call)).toEqual(['c-297', 'c-291', 'c-285']);
    expect(failedCloud.total).toBe(50);

    const spend = session.snapshot().spend;
    expect(spend.byDay).toEqual([
      { day: '2026-01-02', model: 'openai/gpt-4o-mini', provider: 'openrouter', cost: expect.closeTo(1, 9), calls: 100 },
      { day: '2026-01-02', model: 'qwen2.5:3b', provider: 'ollama', cost: 0, calls: 200 },
    ]);
    expect(spend.total).toBeCloseTo(1, 9);
    expect(spend.today).toBe(0);
    expect(spend.strongestModel).toBe('openai/gpt-4o-mini');
    // 300 calls of 1,000 tokens in and out at $1 and $3 per million.
    expect(spend.strongestEstimate).toBeCloseTo(1.2, 9);
  });

  it("prices an escalated call once on the dearest model, at its opening attempt's tokens", async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 3, 12));
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const at = Date.UTC(2026, 0, 3, 9);
    const rows = [
      decisionRow({ call: 'c', at, model: 'qwen2.5:3b', verdict: 'fail', inputTokens: 1000, outputTokens: 2000 }),
      decisionRow({
        call: 'c',
        at: at + 1,
        rung: 1,
        escalation: ['qwen2.5:3b'],
        model: 'openai/gpt-4o-mini',
        cost: 0.007,
        inputTokens: 1500,
        outputTokens: 500,
      }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const panel = twoRungPanel(ollamaUrl, cloudUrl, [
      { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
      { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 1, output: 3 } },
    ]);
    const session = await open({ panel, clock });

    const spend = session.snapshot().spend;
    expect(spend.total).toBeCloseTo(0.007, 9);
    // One call, 1,000 tokens in and 2,000 out at $1 and $3 per million: the escalation is not priced again.
    expect(spend.strongestEstimate).toBeCloseTo(0.007, 9);
  });

  it('pages the decision log by call: a call that climbed three rungs is never split across two pages', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    // Oldest first on disk: c-0 one row, c-1 three rungs, c-2 one row, c-3 two rungs.
    const rungs = [1, 3, 1, 2];
    const rows = rungs.flatMap((count, call) =>
      Array.from({ length: count }, (_, rung) => decisionRow({ call: `c-${call}`, rung, at: Date.UTC(2026, 0, 2) + call * 60_000 + rung })),
    );
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const calls = (page: { rows: { call: string }[] }) => page.rows.map((row) => row.call);

    // Newest first: c-3 c-3 c-2 | c-1 c-1 c-1 | c-0. A 4-row page would have cut c-1 after its first row.
    const first = session.snapshot({ offset: 0, limit: 4 }).decisions;
    expect(calls(first)).toEqual(['c-3', 'c-3', 'c-2']);
    expect(first.total).toBe(7);
    const second = session.snapshot({ offset: first.offset + first.rows.length, limit: 4 }).decisions;
    expect(calls(second)).toEqual(['c-1', 'c-1', 'c-1', 'c-0']);
    expect(second.offset).toBe(3);
    // An offset inside c-1 (as "Newer" from a shorter page may ask for) starts where c-1 starts.
    const inside = session.snapshot({ offset: 4, limit: 4 }).decisions;
    expect(inside.offset).toBe(3);
    expect(calls(inside)).toEqual(['c-1', 'c-1', 'c-1', 'c-0']);
  });

  it('shows a verdict settled after a page of other calls on the page of its call, beside its attempts', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const at = Date.UTC(2026, 0, 2);
    // Oldest first on disk: call a (two rungs, both passed), five one-row failed calls, then a's thumbs down.
    const rows = [
      decisionRow({ call: 'a', at, model: 'qwen2.5:3b', verdict: 'fail' }),
      decisionRow({ call: 'a', at: at + 1, rung: 1, model: 'openai/gpt-4o-mini' }),
      ...Array.from({ length: 5 }, (_, index) => decisionRow({ call: `c-${index}`, at: at + 60_000 * (index + 1), verdict: 'fail' })),
      decisionRow({ call: 'a', at: at + 600_000, model: 'openai/gpt-4o-mini', verdict: 'fail', verdictReason: 'thumbs down', final: true }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const rowsOf = (page: { rows: { call: string; final: boolean }[] }) => page.rows.map((row) => (row.final ? `${row.call}!` : row.call));

    const first = session.snapshot({ offset: 0, limit: 5 }).decisions;
    expect(rowsOf(first)).toEqual(['c-4', 'c-3', 'c-2', 'c-1', 'c-0']);
    expect(first.total).toBe(8);
    const second = session.snapshot({ offset: first.offset + first.rows.length, limit: 5 }).decisions;
    expect(rowsOf(second)).toEqual(['a!', 'a', 'a']);
    expect(second.offset).toBe(5);

    // Filtered on fail, a is shown whole, its passed second rung too; its verdict still sits where a was routed.
    const failed = session.snapshot({ offset: 0, limit: 3, filter: { verdict: 'fail' } }).decisions;
    expect(rowsOf(failed)).toEqual(['c-4', 'c-3', 'c-2']);
    const older = session.snapshot({ offset: 3, limit: 5, filter: { verdict: 'fail' } }).decisions;
    expect(rowsOf(older)).toEqual(['c-1', 'c-0', 'a!', 'a', 'a']);
    expect(older.total).toBe(8);
  });

  it('with a verdict filter, shows a call whole when any of its rows has the verdict, and counts its rows in the total', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const at = Date.UTC(2026, 0, 2);
    // Oldest first: a passed, then b failed its first rung and passed its second, c passed, then a got a thumbs down.
    const rows = [
      decisionRow({ call: 'a', at }),
      decisionRow({ call: 'b', at: at + 1, verdict: 'fail' }),
      decisionRow({
        call: 'b',
        at: at + 2,
        rung: 1,
        escalation: ['qwen2.5:3b'],
        model: 'openai/gpt-4o-mini',
        resolved: 'openai/gpt-4o-mini',
      }),
      decisionRow({ call: 'c', at: at + 3 }),
      decisionRow({ call: 'a', at: at + 4, verdict: 'fail', verdictReason: 'thumbs down', final: true }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const shown = (page: { rows: { call: string; final: boolean; rung: number }[] }) =>
      page.rows.map((row) => (row.final ? `${row.call}!` : `${row.call}${row.rung}`));

    // Filtering rows, this page was ['b0', 'a!']: a rung without the answer it climbed to, and a verdict without its call.
    const failed = session.snapshot({ limit: 10, filter: { verdict: 'fail' } }).decisions;
    expect(shown(failed)).toEqual(['b1', 'b0', 'a!', 'a0']);
    expect(failed.total).toBe(4);
    const passed = session.snapshot({ limit: 10, filter: { verdict: 'pass' } }).decisions;
    expect(shown(passed)).toEqual(['c0', 'b1', 'b0', 'a!', 'a0']);
    expect(passed.total).toBe(5);
    // The model still picks rows: b's rung on the cloud model, which failed nowhere, is not a failed call's row.
    expect(shown(session.snapshot({ limit: 10, filter: { verdict: 'fail', model: 'qwen2.5:3b' } }).decisions)).toEqual(['b0', 'a!', 'a0']);
    expect(session.snapshot({ limit: 10, filter: { verdict: 'fail', model: 'openai/gpt-4o-mini' } }).decisions.total).toBe(0);
  });

  it('pages two calls whose attempts the log holds in turns (routed at once) each as one call with all its rungs', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const at = Date.UTC(2026, 0, 2);
    // Oldest first: a and b each failed a rung and climbed, their rows in turns; then c.
    const rows = [
      decisionRow({ call: 'a', at, verdict: 'fail' }),
      decisionRow({ call: 'b', at: at + 1, verdict: 'fail' }),
      decisionRow({ call: 'a', at: at + 2, rung: 1, escalation: ['qwen2.5:3b'], model: 'openai/gpt-4o-mini' }),
      decisionRow({ call: 'b', at: at + 3, rung: 1, escalation: ['qwen2.5:3b'], model: 'openai/gpt-4o-mini' }),
      decisionRow({ call: 'c', at: at + 4 }),
    ];
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const shown = (page: { rows: { call: string; rung: number }[] }) => page.rows.map((row) => `${row.call}${row.rung}`);

    // Paged as runs of the log, these were ['c0', 'b1', 'a1'] and ['b0', 'a0']: each call cut in two.
    const first = session.snapshot({ limit: 3 }).decisions;
    expect(shown(first)).toEqual(['c0', 'b1', 'b0']);
    const second = session.snapshot({ offset: first.offset + first.rows.length, limit: 3 }).decisions;
    expect(shown(second)).toEqual(['a1', 'a0']);
    expect(second.offset).toBe(3);
    expect(second.total).toBe(5);
  });

  it('pages back to newer rows from where the page on screen starts, without skipping a call', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    // Oldest first: c climbed three rungs, b two, a three. Newest first, four to a page: a a a | b b | c c c.
    const rungs = { c: 3, b: 2, a: 3 };
    const rows = Object.entries(rungs).flatMap(([call, count], index) =>
      Array.from({ length: count }, (_, rung) => decisionRow({ call, rung, at: Date.UTC(2026, 0, 2) + index * 60_000 + rung })),
    );
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const calls = (page: { rows: { call: string }[] }) => page.rows.map((row) => row.call).join('');
    expect(calls(session.snapshot({ offset: 5, limit: 4 }).decisions)).toBe('ccc');
    // Stepped back by the three rows on screen, the page started inside a, moved to a's start and ended before b: aaa.
    const newer = session.snapshot({ limit: 4, before: 5 }).decisions;
    expect(calls(newer)).toBe('bb');
    expect(newer.offset).toBe(3);
    expect(calls(session.snapshot({ limit: 4, before: 3 }).decisions)).toBe('aaa');
  });

  it('says where a row just written goes in the list a filter shows, reading rows not yet in the file', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const first = await session.chat({ messages: user('Describe Paris') });
    await session.chat({ messages: user('Describe Lyon') });
    await session.chat({ messages: user('Describe Nice') });
    await session.exportLedger();
    const places: unknown[] = [];
    session.onChange((change) => {
      // Asked as the panel asks, while the row is still queued for the file.
      if (change.type !== 'decision-written') return;
      places.push([
        session.placeOf(change.row),
        session.placeOf(change.row, { verdict: 'fail' }),
        session.placeOf(change.row, { model: 'openai/gpt-4o-mini' }),
      ]);
      places.push(session.snapshot({ limit: 10 }).decisions.total);
    });
    session.settle(first.callId, { kind: 'fail', reason: 'thumbs down' });
    expect(places).toEqual([
      // Unfiltered: counted above the first call's attempt, below the two newer calls. On fail: the call comes in whole, at the top.
      [
        { offset: 2, added: 1 },
        { offset: 0, added: 2 },
        { offset: null, added: 0 },
      ],
      4,
    ]);
    const later = await session.chat({ messages: user('Describe Lille') });
    expect(session.placeOf(session.explain(later.callId)[0] as DecisionRow)).toEqual({ offset: 0, added: 1 });
  });

  it.each([
    ['in memory', null],
    ['in the decision log file', 'file'],
  ])('pages a call settled after two newer calls with its attempt, %s', async (_where, store) => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), ...(store === null ? { store: { kind: 'memory' } } : {}) });
    const first = await session.chat({ messages: user('Describe Paris') });
    const second = await session.chat({ messages: user('Describe Lyon') });
    const third = await session.chat({ messages: user('Describe Nice') });
    expect(session.settle(first.callId, { kind: 'fail', reason: 'thumbs down' })).toBe(true);
    // Settling starts a flush it does not wait for; an export waits for the queued rows to land.
    await session.exportLedger();
    const page = (offset: number) => session.snapshot({ offset, limit: 1 }).decisions;
    const shown = (decisions: { rows: { call: string; final: boolean }[] }) => decisions.rows.map((row) => [row.call, row.final]);

    expect(shown(page(0))).toEqual([[third.callId, false]]);
    expect(shown(page(1))).toEqual([[second.callId, false]]);
    // The first call's verdict and attempt, a run longer than the page of one: its first row.
    expect(shown(page(2))).toEqual([[first.callId, true]]);
    expect(shown(session.snapshot({ offset: 2, limit: 2 }).decisions)).toEqual([
      [first.callId, true],
      [first.callId, false],
    ]);
    expect(page(0).total).toBe(4);
  });

  it('counts rows appended after an earlier count without losing the ones before', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    expect(session.snapshot().decisions.total).toBe(0);
    expect(session.snapshot().spend.byDay).toEqual([]);
    await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    expect(session.snapshot().decisions.total).toBe(2);
    expect(session.snapshot().spend.today).toBeCloseTo(0.00001455, 12);
    await session.chat({ messages: user('Describe Paris') });
    expect(session.snapshot({ filter: { classKey: 'chat' } }).decisions.total).toBe(1);
    expect(session.snapshot().decisions.total).toBe(3);
    expect(session.snapshot().spend.byDay.map((group) => [group.model, group.calls])).toEqual([
      ['openai/gpt-4o-mini', 1],
      ['qwen2.5:3b', 2],
    ]);
  });

  it('counts and sums again from the start when the log shrank under it (compacted)', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock(Date.UTC(2026, 0, 2, 12));
    const logPath = join(dir.path, '.rung', 'decisions.jsonl');
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const write = (count: number) =>
      writeFileSync(
        logPath,
        Array.from(
          { length: count },
          (_, i) => `${JSON.stringify(decisionRow({ call: `k-${i}`, at: Date.UTC(2026, 0, 2, 9), cost: 0.1 }))}\n`,
        ).join(''),
      );
    write(10);
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), clock });
    expect(session.snapshot().decisions.total).toBe(10);
    expect(session.snapshot().spend.today).toBeCloseTo(1, 9);
    write(3);
    expect(session.snapshot().decisions.total).toBe(3);
    expect(session.snapshot().spend.today).toBeCloseTo(0.3, 9);
  });

  it('reports the ratings a call taught, with their graded counts and an uncertainty', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), store: { kind: 'memory' } });
    await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    const ratings = session.snapshot().ratings.filter((rating) => rating.classKey === 'plan');
    expect(ratings.map((rating) => [rating.model, rating.graded, rating.ok])).toEqual([
      ['openai/gpt-4o-mini', 1, 1],
      ['qwen2.5:3b', 1, 0],
    ]);
    for (const rating of ratings) expect(rating.uncertainty).toBeGreaterThan(0);
    expect(session.snapshot().ledgerPath).toBeNull();
    expect(session.snapshot().decisions.rows.map((row) => row.verdict)).toEqual(['pass', 'fail']);
  });
});

describe('RungSession: how sure a rating is', () => {
  it('shows a wide interval for a rating whose failures were all on calls nobody could answer, and a narrow one where its evidence was informative', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const path = join(dir.path, '.rung', 'ledger.sqlite');
    const seeded = await WorkspaceLedger.open({ path, clock: new FixedClock() });
    const hopeless = { mean: 0, sd: 1.5, unanswerable: 0.999 };
    const ordinary = { mean: 0, sd: 0.5, unanswerable: 0 };
    seeded.observe(
      Array.from({ length: 30 }, (_, i) => [
        { model: 'openai/gpt-4o-mini', classKey: 'plan', success: false, difficulty: hopeless, prior: 1, at: i },
        { model: 'qwen2.5:3b', classKey: 'plan', success: i % 2 === 0, difficulty: ordinary, prior: 0, at: i },
      ]).flat(),
    );
    await seeded.close();
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl), store: { kind: 'file', path } });
    const ratings = new Map(session.snapshot().ratings.map((rating) => [rating.model, rating]));
    // Both hold 30 graded outcomes; only the cheap model's say anything about it.
    expect(ratings.get('openai/gpt-4o-mini')?.graded).toBe(30);
    expect(ratings.get('openai/gpt-4o-mini')?.uncertainty).toBeGreaterThan(2);
    expect(ratings.get('qwen2.5:3b')?.uncertainty).toBeLessThan(0.8);
  });
});

describe('RungSession: the decision log', () => {
  it('refuses to open, asking no model, when the decision log is not a file it could write', async () => {
    const { ollama, cloud, ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const logPath = join(dir.path, '.rung', 'decisions.jsonl');
    mkdirSync(logPath, { recursive: true });
    await expect(
      open({ panel: twoRungPanel(ollamaUrl, cloudUrl), store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') } }),
    ).rejects.toThrow(`refusing ${logPath}: it is a directory, not a file`);
    expect([...ollama.requests, ...cloud.requests].filter((seen) => seen.method === 'POST')).toEqual([]);
  });

  it("reports a decision log it cannot write once per failed write, retries on the ledger's timer, and lands the rows once it can", async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const clock = new FixedClock();
    const scheduler = new ManualScheduler(clock);
    const ledgerPath = join(dir.path, '.rung', 'ledger.sqlite');
    const logPath = join(dir.path, '.rung', 'decisions.jsonl');
    const session = await open({
      panel: twoRungPanel(ollamaUrl, cloudUrl),
      clock,
      store: { kind: 'file', path: ledgerPath },
      storeOptions: { schedule: scheduler.schedule },
    });
    // A folder where the log should be, once the session is open (at open it is refused outright):
    // every append fails, for root too.
    mkdirSync(logPath, { recursive: true });
    const notices: string[] = [];
    session.onChange((change) => {
      if (change.type === 'notice') notices.push(`${change.level}: ${change.message}`);
    });
    const result = await session.chat({ messages: user('Describe Paris') });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^error: could not write 1 decision row to .*decisions\.jsonl: .*; will retry$/);

    // The retry is on the ledger's timer: one more failed write, one more notice.
    clock.advance(FLUSH_INTERVAL_MS);
    scheduler.runDue();
    await new Promise((resolve) => setImmediate(resolve));
    expect(notices).toHaveLength(2);

    rmSync(logPath, { recursive: true });
    clock.advance(FLUSH_INTERVAL_MS);
    scheduler.runDue();
    await new Promise((resolve) => setImmediate(resolve));
    expect(notices).toHaveLength(2);
    expect(parseDecisionLines(readFileSync(logPath, 'utf8')).rows.map((row) => row.call)).toEqual([result.callId]);
  });
});

describe('RungSession: the ledger and the panel', () => {
  it('resets one class, exports the ledger as JSON lines, and tells listeners of a new panel', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const panel = twoRungPanel(ollamaUrl, cloudUrl);
    const session = await open({ panel });
    await session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    const exported = (await session.exportLedger())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(exported.filter((record) => record.type === 'rating').length).toBeGreaterThan(0);
    expect(exported.filter((record) => record.type === 'decision')).toHaveLength(2);

    const changes: SessionChange[] = [];
    session.onChange((change) => changes.push(change));
    await session.resetClass('plan');
    expect(session.snapshot().ratings.filter((rating) => rating.classKey.startsWith('plan'))).toEqual([]);
    const narrower = parsePanel(
      {
        ...JSON.parse(JSON.stringify({ models: [{ slug: 'qwen2.5:3b', provider: 'ollama' }] })),
        providers: { ollama: { kind: 'ollama', baseUrl: ollamaUrl } },
      },
      'narrower',
    );
    await session.setPanel(narrower);
    expect(changes.map((change) => change.type)).toEqual(['ledger-changed', 'panel-changed']);
    expect(session.currentPanel).toBe(narrower);
    expect(session.storeLocation).toEqual({ kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') });
    expect(session.rank({ classKey: 'chat' }).candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b']);
  });

  it('stops a call whose second rung is still streaming as interrupted, so the ledger on disk counts exactly the graded rows in the log', async () => {
    // The top rung sends its headers and then nothing, like a slow model mid-answer when the window reloads.
    let answering!: () => void;
    const secondRungAnswering = new Promise<void>((resolve) => (answering = resolve));
    const hanging: Route = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      answering();
    };
    const { ollamaUrl, cloudUrl } = await providers(prose(), hanging);
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const call = session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    await secondRungAnswering;

    await session.dispose();

    const { rows } = parseDecisionLines(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8'));
    expect(rows.map((row) => [row.model, row.verdict])).toEqual([
      ['qwen2.5:3b', 'fail'],
      ['openai/gpt-4o-mini', 'interrupted'],
    ]);
    expect(rows[1]?.verdictReason).toBe(INTERRUPTED_REASON);
    const onDisk = await WorkspaceLedger.open({ path: join(dir.path, '.rung', 'ledger.sqlite'), clock: new FixedClock(), readOnly: true });
    try {
      expect(onDisk.entries().map((entry) => [entry.model, entry.classKey, entry.graded, entry.ok])).toEqual([
        ['qwen2.5:3b', 'plan', 1, 0],
      ]);
    } finally {
      await onDisk.close();
    }
    const result = await call;
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['qwen2.5:3b', 'fail'],
      ['openai/gpt-4o-mini', 'interrupted'],
    ]);
    expect([result.stopped, result.interrupted]).toEqual([false, true]);
  });

  it('records a call cut off by reopening the session as interrupted by the reopening, not by a closed window', async () => {
    let answering!: () => void;
    const secondRungAnswering = new Promise<void>((resolve) => (answering = resolve));
    const hanging: Route = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      answering();
    };
    const { ollamaUrl, cloudUrl } = await providers(prose(), hanging);
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const call = session.chat({ messages: user('Give me Paris as JSON'), checks: { schema } });
    await secondRungAnswering;

    await session.dispose(reopenedReason('the key for openrouter changed'));

    const result = await call;
    expect(result.attempts.at(-1)?.verdict).toEqual({
      kind: 'interrupted',
      reason: 'Rung reopened its session (the key for openrouter changed) before the answer was finished',
    });
  });

  it('records a call the user stopped as stopped by the user, not as interrupted', async () => {
    let answering!: () => void;
    const secondRungAnswering = new Promise<void>((resolve) => (answering = resolve));
    const hanging: Route = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      answering();
    };
    const { ollamaUrl, cloudUrl } = await providers(prose(), hanging);
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    const stop = new AbortController();
    const call = session.chat({ messages: user('Give me Paris as JSON'), checks: { schema }, signal: stop.signal });
    await secondRungAnswering;
    stop.abort();
    const result = await call;

    expect([result.stopped, result.interrupted]).toEqual([true, false]);
    const rows = session.explain(result.callId);
    expect(rows.map((row) => [row.model, row.verdict, row.verdictReason])).toEqual([
      ['qwen2.5:3b', 'fail', expect.any(String)],
      ['openai/gpt-4o-mini', 'stopped', 'stopped: stopped by the user'],
    ]);
  });

  it('refuses every call after dispose', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    await session.dispose();
    expect(() => session.snapshot()).toThrow('the session was disposed');
  });
});

/** The editor's language models as a test double: one scripted answer, streamed in two parts. */
class EditorModels implements ProviderAdapter {
  constructor(
    readonly name: string,
    private readonly answer: string,
  ) {}

  async available(): Promise<boolean> {
    return true;
  }

  async *chat(model: string, _messages: ChatMessage[], _tools: ToolSpec[], _options: ChatOptions): AsyncIterable<StreamPart> {
    yield { type: 'text-delta', text: this.answer.slice(0, 8) };
    yield { type: 'text-delta', text: this.answer.slice(8) };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 5 }, resolvedModel: model };
  }
}

/**
 * A decision log of `count` calls climbing through `models` in panel order until one passes, a fifth of
 * them opening with a rung drawn at random (seeded) and the propensity recorded, over two classes; dearer
 * rungs pass more often and cost more, and some calls fail on every rung.
 */
function climbingLog(models: readonly string[], count: number, seed: number): DecisionRow[] {
  const random = seededRandom(seed);
  const rows: DecisionRow[] = [];
  for (let call = 0; call < count; call++) {
    const drawn = random() < 0.2;
    const opener = drawn ? Math.floor(random() * models.length) : 0;
    const propensity = 0.2 / models.length + (opener === 0 ? 0.8 : 0);
    const climb = [opener, ...models.map((_, index) => index).filter((index) => index !== opener)];
    for (const [position, index] of climb.entries()) {
      const passed = random() < 0.3 + 0.15 * index;
      const model = models[index] as string;
      rows.push(
        decisionRow({
          call: `c-${call}`,
          at: call,
          class: call % 2 === 0 ? 'chat' : 'plan',
          candidates: [...models],
          rung: index,
          escalation: climb.slice(0, position).map((earlier) => models[earlier] as string),
          model,
          resolved: model,
          explore: position === 0 && drawn && opener !== 0,
          propensity: position === 0 ? propensity : 1,
          verdict: passed ? 'pass' : 'fail',
          cost: 0.001 * (index + 1) * (1 + random()),
        }),
      );
      if (passed) break;
    }
  }
  return rows;
}

describe('RungSession.estimateOpeners', () => {
  const THREE = ['qwen2.5:3b', 'qwen3:14b', 'openai/gpt-4o-mini'];
  const threeRungs = [
    { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
    { slug: 'qwen3:14b', provider: 'ollama', role: 'mid' },
    { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
  ];

  it('estimates each panel model as an opener from the log: a number where calls opened with it at random, a plain refusal where none did', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    // 80 calls, each opened by a coin toss between the 3b ($0.001, passes) and the cloud model ($0.01,
    // passes); the 14b was a candidate every time and never opened.
    const rows = Array.from({ length: 80 }, (_, i) => {
      const model = i % 2 === 0 ? 'qwen2.5:3b' : 'openai/gpt-4o-mini';
      return decisionRow({
        call: `c-${i}`,
        at: i,
        candidates: THREE,
        model,
        resolved: model,
        propensity: 0.5,
        explore: true,
        cost: model === 'qwen2.5:3b' ? 0.001 : 0.01,
        verdict: 'pass',
      });
    });
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl, threeRungs) });

    const estimates = await session.estimateOpeners();
    expect(estimates.map((estimate) => [estimate.model, estimate.calls, estimate.refused ?? null])).toEqual([
      ['qwen2.5:3b', 80, null],
      ['qwen3:14b', 80, 'too-few'],
      ['openai/gpt-4o-mini', 80, null],
    ]);
    // The calls as routed cost (40 × $0.001 + 40 × $0.01) / 80 = $0.0055 a call. Opening with the 3b:
    // every call $0.001, (0.001 − 0.0055) / 0.0055 = −9/11; with the cloud model +9/11. All passed.
    const [cheap, , dear] = estimates;
    expect(cheap?.versusLog?.loggedCost).toBeCloseTo(0.0055, 12);
    expect(cheap?.versusLog?.costChange).toBeCloseTo(-9 / 11, 9);
    expect(dear?.versusLog?.costChange).toBeCloseTo(9 / 11, 9);
    expect(cheap?.versusLog?.successChange).toBeCloseTo(0, 12);
    expect(estimates[1]?.versusLog).toBeUndefined();
  });

  it('fits the outcome model once for every panel model, and gives the estimates each model gets with a fit of its own', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    const rows = climbingLog(THREE, 1_500, 7);
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl, threeRungs) });
    const log = readLoggedCalls(rows.map((row) => JSON.stringify(row)).join('\n'));
    const own = THREE.map((model) => estimatePolicy(log, { open: model, skip: [] }));
    const fits = vi.spyOn(OutcomeModel, 'fitting');
    try {
      const estimates = await session.estimateOpeners();
      // The whole log's model and the cross-fit's fold models, once each, for the three panel models.
      expect(fits).toHaveBeenCalledTimes(1 + CROSS_FIT_FOLDS);
      expect(estimates.map(({ model, calls, versusLog }) => ({ model, calls, versusLog }))).toStrictEqual(
        THREE.map((model, index) => ({ model, calls: 1500, versusLog: own[index]?.versusLog })),
      );
      // The panel sets no exploration floor, so what logging would narrow a wide one is said at the suggested 10%.
      for (const estimate of estimates) if (estimate.narrowing) expect(estimate.narrowing.floor).toBe(0.1);
    } finally {
      fits.mockRestore();
    }
  });

  it('estimates from the most recent calls only on a long log, and says how many the log holds', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    // Ten old calls that cost $1 each, then MAX_ESTIMATED_CALLS coin tosses as above.
    const old = Array.from({ length: 10 }, (_, i) =>
      decisionRow({ call: `old-${i}`, at: i, candidates: THREE, model: 'qwen2.5:3b', propensity: 0.5, cost: 1, verdict: 'pass' }),
    );
    const recent = Array.from({ length: MAX_ESTIMATED_CALLS }, (_, i) => {
      const model = i % 2 === 0 ? 'qwen2.5:3b' : 'openai/gpt-4o-mini';
      return decisionRow({
        call: `c-${i}`,
        at: 100 + i,
        candidates: THREE,
        model,
        resolved: model,
        propensity: 0.5,
        explore: true,
        cost: model === 'qwen2.5:3b' ? 0.001 : 0.01,
        verdict: 'pass',
      });
    });
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), [...old, ...recent].map((row) => `${JSON.stringify(row)}\n`).join(''));
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl, threeRungs) });

    const [cheap] = await session.estimateOpeners();
    expect(cheap?.calls).toBe(MAX_ESTIMATED_CALLS);
    expect(cheap?.logCalls).toBe(MAX_ESTIMATED_CALLS + 10);
    // The $1 calls are the oldest, so the calls as routed cost what the coin tosses did: $0.0055.
    expect(cheap?.versusLog?.loggedCost).toBeCloseTo(0.0055, 12);
  });

  it('says there are no calls to go on when the log is empty, and that a model off every call could not have opened', async () => {
    const { ollamaUrl, cloudUrl } = await providers(prose(), jsonAnswer());
    const session = await open({ panel: twoRungPanel(ollamaUrl, cloudUrl) });
    expect((await session.estimateOpeners()).map((estimate) => [estimate.model, estimate.refused])).toEqual([
      ['qwen2.5:3b', 'no-calls'],
      ['openai/gpt-4o-mini', 'no-calls'],
    ]);

    mkdirSync(join(dir.path, '.rung'), { recursive: true });
    // The cloud model was never among the candidates (say it was added to the panel later).
    const rows = Array.from({ length: 40 }, (_, i) => decisionRow({ call: `k-${i}`, at: i, candidates: ['qwen2.5:3b'], propensity: 1 }));
    writeFileSync(join(dir.path, '.rung', 'decisions.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    expect((await session.estimateOpeners()).map((estimate) => [estimate.model, estimate.refused])).toEqual([
      ['qwen2.5:3b', undefined],
      ['openai/gpt-4o-mini', 'not-a-candidate'],
    ]);
  });
});
