import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import { toolsSent } from '../../../../src/core/providers/tokens';
import { chooseTools } from '../../../../src/core/providers/toolChoice';
import { RungSession } from '../../../../src/core/session/session';
import { FixedClock } from '../../support/FixedClock';
import { makeTempDir } from '../../support/tempDir';
import { fixture, json, replay, WireServer, type SeenRequest } from '../../support/wireServer';

const KEY = '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';
/** USD per million tokens the panel gives the cloud model: a price so the schemas' cost is known. */
const CLOUD_PRICE = { input: 2.5, output: 10 };

/**
 * Agent mode's tools (test/fixtures/agent/SOURCES.md), with `read_file` taking the `path` the recorded
 * answers send, and a `search` tool of another extension's, which the recorded answers also call.
 */
const AGENT_TOOLS: ToolSpec[] = [
  ...(JSON.parse(readFileSync(join(__dirname, '../../../fixtures/agent/vscode-1.139-agent-mode-tools.json'), 'utf8')) as ToolSpec[]).map(
    (tool) =>
      tool.name === 'read_file'
        ? { ...tool, parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }
        : tool,
  ),
  {
    name: 'search',
    description: 'Searches the project index.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } },
  },
];

const agentTurn = (request: string): ChatMessage[] => [{ role: 'user', content: `<userRequest>${request}</userRequest>` }];

let dir: ReturnType<typeof makeTempDir>;
const servers: WireServer[] = [];
const sessions: RungSession[] = [];

beforeEach(() => {
  dir = makeTempDir('rung-session-tools-');
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  dir.remove();
});

/** A local Ollama and a keyed OpenAI-compatible cloud on loopback, each answering with its recorded tool calls (read_file, search). */
async function open(): Promise<{ session: RungSession; ollama: WireServer; cloud: WireServer }> {
  const ollama = new WireServer()
    .on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))))
    .on('POST', '/api/chat', replay(fixture('ollama/chat-tool-calls.ndjson')));
  const cloud = new WireServer()
    .on('POST', '/api/v1/chat/completions', replay(fixture('openai/chat-tool-calls.sse'), { contentType: 'text/event-stream' }))
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  servers.push(ollama, cloud);
  const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
  const panel: Panel = parsePanel(
    {
      models: [
        { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', tools: true },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', tools: true, price: CLOUD_PRICE },
      ],
      routing: { explore: 0 },
      providers: {
        ollama: { kind: 'ollama', baseUrl: ollamaUrl },
        openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
      },
    },
    'tools panel',
  );
  const session = await RungSession.open({
    clock: new FixedClock(),
    keys: async (provider) => (provider === 'openrouter' ? KEY : undefined),
    store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') },
    panel,
  });
  sessions.push(session);
  return { session, ollama, cloud };
}

/** The tool names a chat request put on the wire, in either protocol's shape. */
function toolsOnWire(request: SeenRequest | undefined): string[] {
  const body = JSON.parse(request?.body ?? '{}') as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

const chatRequests = (server: WireServer): SeenRequest[] =>
  server.requests.filter((request) => request.method === 'POST' && /\/chat(\/completions)?$/.test(request.path));

describe('a call with tools', () => {
  it('puts only the tools sent on the wire, and records their share, their cost and the tools left out on the row', async () => {
    const { session, ollama, cloud } = await open();
    const messages = agentTurn('Search for apiKeyVariable and say where it is set');
    const choice = chooseTools({ messages, tools: AGENT_TOOLS, mode: 'relevant' });
    expect(choice.dropped).toContain('run_notebook_cell');
    const result = await session.chat({ messages, tools: choice.sent, droppedTools: choice.dropped });

    const sentNames = choice.sent.map((tool) => tool.name);
    expect(sentNames).toContain('search');
    expect(toolsOnWire(chatRequests(ollama)[0])).toEqual(sentNames);
    // The local rung's calls name tools it was sent, with arguments that match: its answer stands.
    expect(result.answer?.toolCalls.map((call) => call.name)).toEqual(['read_file', 'search']);
    expect(chatRequests(cloud)).toEqual([]);
    const share = toolsSent(messages, choice.sent, choice.dropped);
    expect(result.tools).toEqual({ sent: sentNames.length, tokens: share?.tokens, input: share?.input, dropped: choice.dropped, cost: 0 });
    const rows = session.explain(result.callId);
    expect(rows.map((row) => row.tools)).toEqual([
      { sent: sentNames.length, tokens: share?.tokens, input: share?.input, dropped: choice.dropped, cost: 0 },
    ]);
  });

  it('fails an answer that calls a tool left out, on every rung, so no such call stands', async () => {
    const { session, ollama, cloud } = await open();
    // Nothing in the request names `search`: it is left out, and both recorded answers call it.
    const messages = agentTurn('Explain how the panel file is read');
    const choice = chooseTools({ messages, tools: AGENT_TOOLS, mode: 'relevant' });
    expect(choice.dropped).toContain('search');
    const result = await session.chat({ messages, tools: choice.sent, droppedTools: choice.dropped });

    const sentNames = choice.sent.map((tool) => tool.name);
    expect(toolsOnWire(chatRequests(ollama)[0])).toEqual(sentNames);
    expect(toolsOnWire(chatRequests(cloud)[0])).toEqual(sentNames);
    expect(sentNames).not.toContain('search');
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['qwen3:14b', 'fail'],
      ['openai/gpt-4o-mini', 'fail'],
    ]);
    for (const attempt of result.attempts) expect(attempt.verdict.reason).toMatch(/called search, which was not offered/);
    expect(result.answer?.toolCalls.some((call) => call.name === 'search') ?? false).toBe(false);
    // Both attempts carried the schemas: their cost is the cloud rung's, the local one free.
    const share = toolsSent(messages, choice.sent, choice.dropped);
    expect(result.tools?.cost).toBeCloseTo(((share?.tokens ?? 0) * CLOUD_PRICE.input) / 1_000_000, 10);
  });

  it('records nothing about tools on a call that offered none', async () => {
    const { session } = await open();
    const result = await session.chat({ messages: agentTurn('hello') });
    expect(result.tools).toBeUndefined();
    for (const row of session.explain(result.callId)) expect(row.tools).toBeUndefined();
  });
});
