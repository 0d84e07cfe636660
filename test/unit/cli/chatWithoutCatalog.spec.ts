import type { ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { parseDecisionLines } from '../../../src/core/decisions/decision';
import { CapturedIo } from '../support/CapturedIo';
import { fixtureBytes, serveBytes, WireServer, type Route } from '../support/wireServer';

/**
 * A local llama.cpp build that has no `/v1/models` (the list arrived in later builds), keyed, so Rung
 * asks it for its catalog: the call to a model whose price the panel declares goes ahead, and costs
 * what the panel says. Reproduced on 127.0.0.1 before this test was written: every way of not giving a
 * catalog below answered, and the call was recorded at the declared price.
 */

let workspace: string;
let server: WireServer | undefined;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-no-catalog-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

/** llama.cpp's answer for a path it does not serve: 404, "File Not Found" as plain text. */
const notFound: Route = (response: ServerResponse) => void response.writeHead(404, { 'content-type': 'text/plain' }).end('File Not Found');
/** A web page where the list should be, as a server's UI answers any path. */
const webPage: Route = (response: ServerResponse) =>
  void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>llama.cpp</title>');
/** The connection dropped without an answer. */
const dropped: Route = (response: ServerResponse) => void response.socket?.destroy();

/** Each way, and the reason the catalog's one line gives for it. */
const WAYS: [string, Route, string][] = [
  ['answers 404', notFound, 'HTTP 404'],
  ['answers a web page', webPage, 'the answer was not JSON (text/html)'],
  ['drops the connection', dropped, 'network error'],
];

describe("rung chat when the provider's catalog cannot be fetched", () => {
  it.each(WAYS)(
    'answers through a model with a declared price when the server %s for its model list, and costs it at that price',
    async (_way, models, reason) => {
      server = new WireServer()
        .on('GET', '/v1/models', models)
        .on('POST', '/v1/chat/completions', serveBytes(fixtureBytes('openai/chat-openai-no-cost.sse'), { every: 7 }));
      const url = await server.start();
      writeFileSync(
        join(workspace, 'panel.json'),
        JSON.stringify({
          models: [{ slug: 'local-model', provider: 'llamacpp', price: { input: 0.1, output: 0.2 }, context: 8192 }],
          routing: { explore: 0 },
          providers: { llamacpp: { kind: 'openai-compatible', baseUrl: `${url}/v1`, key: 'required' } },
        }),
      );
      const io = new CapturedIo(workspace, { RUNG_LLAMACPP_API_KEY: 'sk-local-0123456789', OLLAMA_HOST: 'http://127.0.0.1:9' });
      expect(await main(['chat', '--panel', 'panel.json', '--ledger', '.rung/ledger.sqlite', 'hello'], io)).toBe(0);
      expect(io.err).toContain('rung chat: answered by local-model');
      expect(io.err.split('\n').filter((line) => line.includes('catalog'))).toEqual([
        `rung chat: llamacpp's catalog: fetch failed (${reason}) and there is no cache`,
      ]);
      const { rows } = parseDecisionLines(readFileSync(join(workspace, '.rung', 'decisions.jsonl'), 'utf8'));
      // 1,000,000 input and 2,000,000 output tokens at $0.1 and $0.2 per million: the panel's price, with no catalog.
      expect(rows.map((row) => [row.model, row.verdict, row.cost])).toEqual([['local-model', 'unverified', 0.5]]);
    },
  );
});
