import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';
import { fixture, fixtureBytes, json, serveBytes, WireServer, type Route } from '../support/wireServer';

/**
 * `rung chat` through its CLI entry against an OpenAI-compatible server on 127.0.0.1 that replays
 * recorded streams byte for byte, cut every 5 bytes.
 */

const KEY = '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';
const REFUSAL = "I'm very sorry, but I can't assist with that request.";
const everyFiveBytes = { every: 5 };

let workspace: string;
let server: WireServer | undefined;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-chat-wire-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(workspace, { recursive: true, force: true });
});

/** One cloud provider with two models (a cheap one the cascade tries first, a dear one above it) answering with `answers` in turn. */
async function setUp(...answers: Route[]): Promise<CapturedIo> {
  server = new WireServer()
    .on('POST', '/api/v1/chat/completions', ...answers)
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  const url = await server.start();
  writeFileSync(
    join(workspace, 'panel.json'),
    JSON.stringify({
      models: [
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'base', price: { input: 0.15, output: 0.6 } },
        { slug: 'openai/gpt-4o', provider: 'openrouter', role: 'top', price: { input: 2.5, output: 10 } },
      ],
      routing: { explore: 0 },
      providers: {
        openrouter: { kind: 'openai-compatible', baseUrl: `${url}/api/v1` },
        ollama: { kind: 'ollama', baseUrl: `${url}/no-ollama-here` },
      },
    }),
  );
  return new CapturedIo(workspace, { RUNG_OPENROUTER_API_KEY: KEY });
}

const refusal = () => serveBytes(fixtureBytes('openai/chat-openai-refusal.sse'), everyFiveBytes);
const answer = () => serveBytes(fixtureBytes('openai/chat-normal.sse'), everyFiveBytes);

describe('rung chat on the wire as it really is', () => {
  it('prints a refusal, says the model refused, and escalates from it to the next rung', async () => {
    const io = await setUp(refusal(), answer());
    const code = await main(['chat', '--panel', 'panel.json', 'Describe Paris'], io);
    expect(code).toBe(0);
    expect(io.out).toContain(REFUSAL);
    expect(io.out).toContain(`escalated from openai/gpt-4o-mini to openai/gpt-4o: the model refused: ${REFUSAL}`);
    expect(io.out).toContain('{"city": "Paris", "population": 2102650}');
    expect(io.out.indexOf(REFUSAL)).toBeLessThan(io.out.indexOf('escalated'));
    expect(io.err).toContain(
      'answered by openai/gpt-4o (unverified: no confidence from openai/gpt-4o: its server sent no log-probabilities)',
    );
  });

  it('exits 1 when every rung refuses, with the last refusal printed and graded as a failure', async () => {
    const io = await setUp(refusal());
    const code = await main(['chat', '--panel', 'panel.json', 'Describe Paris'], io);
    expect(code).toBe(1);
    expect(io.out).toContain(`escalated from openai/gpt-4o-mini to openai/gpt-4o: the model refused: ${REFUSAL}`);
    expect(io.out.trimEnd().endsWith(REFUSAL)).toBe(true);
    expect(io.err).toContain(`rung chat: no answer stands; last attempt openai/gpt-4o (fail: the model refused: ${REFUSAL})`);
  });

  it('reports a refusal in --json as a failed attempt and no answer', async () => {
    const io = await setUp(refusal());
    const code = await main(['chat', '--panel', 'panel.json', '--json', 'Describe Paris'], io);
    expect(code).toBe(1);
    expect(JSON.parse(io.out)).toEqual({
      answer: null,
      model: null,
      checks: [],
      checked: 'unchecked',
      cost: expect.any(Number),
      // A refusal is failed before any check is asked, so no check judged it.
      attempts: [
        { model: 'openai/gpt-4o-mini', verdict: 'fail', reason: `the model refused: ${REFUSAL}`, checks: [] },
        { model: 'openai/gpt-4o', verdict: 'fail', reason: `the model refused: ${REFUSAL}`, checks: [] },
      ],
    });
  });

  it("reports llama.cpp's error: field as a provider error in the server's words and exits 1", async () => {
    const io = await setUp(serveBytes(fixtureBytes('openai/chat-llamacpp-error-field.sse'), everyFiveBytes));
    const code = await main(['chat', '--panel', 'panel.json', 'Summarise this long file'], io);
    expect(code).toBe(1);
    const said =
      'openrouter: the server reported an error mid-stream: the request exceeds the available context size. try increasing the context size or enable context shift';
    expect(io.err).toContain(`rung chat: skipped openai/gpt-4o-mini (provider-error: ${said}); trying openai/gpt-4o\n`);
    expect(io.err).toContain(`rung chat: no answer stands; last attempt openai/gpt-4o (provider-error: ${said})\n`);
  });

  it("reports an event named error as a provider error in the server's words", async () => {
    const io = await setUp(serveBytes(fixtureBytes('openai/chat-error-event.sse'), everyFiveBytes));
    const code = await main(['chat', '--panel', 'panel.json', '--json', 'Look it up'], io);
    expect(code).toBe(1);
    expect(JSON.parse(io.out).attempts).toEqual([
      {
        model: 'openai/gpt-4o-mini',
        verdict: 'provider-error',
        reason: 'provider-error: openrouter: the server reported an error mid-stream: Overloaded: the upstream model is at capacity',
        checks: [],
      },
      {
        model: 'openai/gpt-4o',
        verdict: 'provider-error',
        reason: 'provider-error: openrouter: the server reported an error mid-stream: Overloaded: the upstream model is at capacity',
        checks: [],
      },
    ]);
  });
});
