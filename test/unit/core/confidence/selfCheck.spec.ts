import { afterEach, describe, expect, it } from 'vitest';
import { askConfidence, SELF_CHECK_QUOTE_CHARS, selfCheckMessages, yesLogprob } from '../../../../src/core/confidence/selfCheck';
import { OllamaAdapter } from '../../../../src/core/providers/ollamaAdapter';
import { OpenAiCompatibleAdapter } from '../../../../src/core/providers/openAiCompatibleAdapter';
import type { ChatMessage } from '../../../../src/core/providers/provider';
import { FixedClock } from '../../support/FixedClock';
import { fixture, json, recordedStatus, replay, WireServer, type Route } from '../../support/wireServer';

const KEY = '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';
const conversation: ChatMessage[] = [{ role: 'user', content: 'What is the capital of France?' }];

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function openAi(route: Route): Promise<OpenAiCompatibleAdapter> {
  server = new WireServer().on('POST', '/api/v1/chat/completions', route);
  return new OpenAiCompatibleAdapter({
    name: 'openrouter',
    baseUrl: `${await server.start()}/api/v1`,
    clock: new FixedClock(),
    apiKey: KEY,
  });
}

async function ollama(route: Route): Promise<OllamaAdapter> {
  server = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', route);
  return new OllamaAdapter({ name: 'ollama', baseUrl: (await server.start()) as string, clock: new FixedClock() });
}

describe('yesLogprob', () => {
  it('sums every spelling of yes among the chosen token and its alternatives', () => {
    const read = yesLogprob({
      token: 'Y',
      logprob: -0.2,
      top: [
        { token: 'Y', logprob: -0.2 },
        { token: ' yes', logprob: -3 },
        { token: 'N', logprob: -2 },
      ],
    });
    expect(read).toBeCloseTo(Math.log(Math.exp(-0.2) + Math.exp(-3)), 12);
  });

  it('reads a yes the model ranked second when it answered no', () => {
    expect(
      yesLogprob({
        token: 'N',
        logprob: -0.3,
        top: [
          { token: 'N', logprob: -0.3 },
          { token: 'Y', logprob: -1.4 },
        ],
      }),
    ).toBe(-1.4);
  });

  it('bounds yes by what a no left, as a finite number, when yes is not among the alternatives or there are none', () => {
    const alone = yesLogprob({ token: 'N', logprob: -0.1 });
    expect(alone).toBeCloseTo(Math.log(1 - Math.exp(-0.1)), 12);
    const listed = yesLogprob({
      token: 'No',
      logprob: -0.01,
      top: [
        { token: 'No', logprob: -0.01 },
        { token: 'Maybe', logprob: -6 },
      ],
    });
    expect(listed).toBeLessThanOrEqual(-6);
    expect(Number.isFinite(listed)).toBe(true);
    expect(Number.isFinite(yesLogprob({ token: 'N', logprob: 0 }))).toBe(true);
  });

  it('reads a no with a million alternatives without overflowing the stack', () => {
    // 300,000 overflowed the stack of a process's main thread (the extension host's, the CLI's); a test's
    // worker thread has a larger one.
    const top = Array.from({ length: 1_000_000 }, (_, index) => ({ token: `t${index}`, logprob: -20 - index / 1_000 }));
    top.unshift({ token: 'N', logprob: -0.01 });
    expect(yesLogprob({ token: 'N', logprob: -0.01, top })).toBe(-20 - 999_999 / 1_000);
  });

  it('reads nothing from a token that is neither yes nor no', () => {
    expect(yesLogprob({ token: 'Perhaps', logprob: -0.5, top: [{ token: 'Perhaps', logprob: -0.5 }] })).toBeNull();
  });
});

describe('selfCheckMessages', () => {
  it('quotes the last request and the answer, bounded, under the judging instruction', () => {
    const long = 'x'.repeat(SELF_CHECK_QUOTE_CHARS + 50);
    const [system, user] = selfCheckMessages(
      [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'What is 2 + 2?' },
      ],
      long,
    );
    expect(system?.content).toContain('Only respond with "Y" or "N"');
    expect(user?.content).toContain('<request>\nWhat is 2 + 2?\n</request>');
    expect(user?.content).not.toContain('first');
    expect(user?.content).toContain(`${'x'.repeat(SELF_CHECK_QUOTE_CHARS)} […]`);
    expect(user?.content).not.toContain('x'.repeat(SELF_CHECK_QUOTE_CHARS + 1));
  });
});

describe('askConfidence on the wire', () => {
  it("reads an OpenAI-compatible server's yes among the alternatives of a no, with the tokens the question cost", async () => {
    const adapter = await openAi(replay(fixture('openai/chat-self-check-top-logprobs.sse'), { contentType: 'text/event-stream' }));
    const read = await askConfidence(adapter, 'openai/gpt-4o-mini', conversation, 'Paris');
    expect(read).toMatchObject({ logprob: -1.3132617, inputTokens: 96, outputTokens: 1 });
    const body = JSON.parse(server?.requests[0]?.body ?? '{}');
    expect(body).toMatchObject({ logprobs: true, top_logprobs: 5, max_tokens: 1, temperature: 0 });
  });

  it("reads Ollama's yes from its streamed log-probabilities", async () => {
    const adapter = await ollama(replay(fixture('ollama/chat-self-check-logprobs.ndjson')));
    const read = await askConfidence(adapter, 'qwen3:14b', conversation, 'Paris');
    expect(read.logprob).toBeCloseTo(Math.log(Math.exp(-0.014218) + Math.exp(-9.01722)), 12);
    expect(read).toMatchObject({ inputTokens: 88, outputTokens: 1 });
  });

  it('says the server sent none when a recorded answer carries no log-probabilities', async () => {
    const adapter = await openAi(replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }));
    expect(await askConfidence(adapter, 'openai/gpt-4o-mini', conversation, 'Paris')).toMatchObject({
      logprob: null,
      noLogprobs: true,
      silentBecause: 'its server sent no log-probabilities',
    });
  });

  it('stays silent, without failing, when the question itself is refused', async () => {
    const adapter = await openAi(recordedStatus('openai/404-model-not-found.json'));
    const read = await askConfidence(adapter, 'openai/gpt-4o-mini', conversation, 'Paris');
    expect(read.logprob).toBeNull();
    expect(read.noLogprobs).toBeUndefined();
    expect(read.silentBecause).toMatch(/^the confidence question failed: /);
  });
});
