import { afterEach, describe, expect, it } from 'vitest';
import { providerAttempt } from '../../../../src/core/chat/providerAttempt';
import { OpenAiCompatibleAdapter } from '../../../../src/core/providers/openAiCompatibleAdapter';
import type { StreamPart } from '../../../../src/core/providers/provider';
import type { Candidate } from '../../../../src/core/routing/types';
import type { Verifier } from '../../../../src/core/verifiers/verifier';
import { FixedClock } from '../../support/FixedClock';
import { PassingVerifier } from '../../support/PassingVerifier';
import { fixtureBytes, serveBytes, WireServer } from '../../support/wireServer';

const REFUSAL = "I'm very sorry, but I can't assist with that request.";
let server: WireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const candidate: Candidate = {
  slug: 'gpt-4o',
  provider: 'openai',
  spec: { slug: 'gpt-4o', provider: 'openai' },
  tier: 4,
  local: false,
  resolved: 'gpt-4o',
  ability: 0.8,
  graded: 0,
  ok: 0,
  measured: false,
  cost: 0,
  reason: 'no-measured-profiles tier4',
};

async function attemptOn(fixture: string, verifier: Verifier, parts: StreamPart[]) {
  server = new WireServer().on('POST', '/v1/chat/completions', serveBytes(fixtureBytes(fixture), { every: 7 }));
  const clock = new FixedClock();
  const adapter = new OpenAiCompatibleAdapter({ name: 'openai', baseUrl: `${await server.start()}/v1`, clock, apiKey: 'sk-test-refusal' });
  const attempt = providerAttempt({
    adapters: new Map([['openai', adapter]]),
    messages: [{ role: 'user', content: 'Something the model will not do' }],
    tools: [],
    verifier,
    clock,
    onPart: (_model, part) => parts.push(part),
  });
  return attempt(candidate, { attempt: 0, escalation: [] });
}

describe('a refused attempt', () => {
  it('fails with a reason that quotes the refusal, without asking a verifier that would have passed it', async () => {
    const verifier = new PassingVerifier();
    const outcome = await attemptOn('openai/chat-openai-refusal.sse', verifier, []);
    expect(outcome).toMatchObject({
      verdict: 'fail',
      verdictReason: `the model refused: ${REFUSAL}`,
      resolvedModel: 'gpt-4o-2024-08-06',
      inputTokens: 17,
      outputTokens: 13,
    });
    expect(outcome.value?.text).toBe(REFUSAL);
    expect(verifier.asked).toEqual([]);
  });

  it('streams the refusal to the caller as text, so a front end shows it', async () => {
    const parts: StreamPart[] = [];
    await attemptOn('openai/chat-openai-refusal.sse', new PassingVerifier(), parts);
    expect(parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('')).toBe(REFUSAL);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', refusal: REFUSAL });
  });

  it('leaves an ordinary answer to the verifier', async () => {
    const verifier = new PassingVerifier();
    const outcome = await attemptOn('openai/chat-normal.sse', verifier, []);
    expect(outcome).toMatchObject({ verdict: 'pass', verdictReason: 'anything passes' });
    expect(verifier.asked).toHaveLength(1);
  });
});
