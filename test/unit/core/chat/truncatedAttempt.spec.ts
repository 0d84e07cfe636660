import { afterEach, describe, expect, it } from 'vitest';
import { CUT_AT_OUTPUT_LIMIT, providerAttempt } from '../../../../src/core/chat/providerAttempt';
import { OllamaAdapter } from '../../../../src/core/providers/ollamaAdapter';
import type { ChatOptions } from '../../../../src/core/providers/provider';
import type { Candidate } from '../../../../src/core/routing/types';
import type { Verifier } from '../../../../src/core/verifiers/verifier';
import { FixedClock } from '../../support/FixedClock';
import { PassingVerifier } from '../../support/PassingVerifier';
import { serveBytes, WireServer } from '../../support/wireServer';

let server: WireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const candidate: Candidate = {
  slug: 'qwen3:14b',
  provider: 'ollama',
  spec: { slug: 'qwen3:14b', provider: 'ollama' },
  tier: 2,
  local: true,
  resolved: 'qwen3:14b',
  ability: 0.6,
  graded: 0,
  ok: 0,
  measured: false,
  cost: 0,
  reason: 'no-measured-profiles tier2',
};

/** Ollama's stream for an answer that ends as `doneReason` says: a few words, then the done line. */
function stream(doneReason: 'stop' | 'length'): Buffer {
  const words = ['The', ' proof', ' goes', ' as', ' follows:', ' first,'];
  const lines = words.map((word, index) =>
    JSON.stringify({
      model: 'qwen3:14b',
      created_at: `2025-06-12T08:14:03.${500 + index}Z`,
      message: { role: 'assistant', content: word },
      done: false,
    }),
  );
  lines.push(
    JSON.stringify({
      model: 'qwen3:14b',
      created_at: '2025-06-12T08:14:04.100Z',
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: doneReason,
      prompt_eval_count: 21,
      eval_count: words.length,
    }),
  );
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function attemptOn(doneReason: 'stop' | 'length', verifier: Verifier, chatOptions?: Omit<ChatOptions, 'signal'>) {
  server = new WireServer().on('POST', '/api/chat', serveBytes(stream(doneReason), { every: 7 }, 'application/x-ndjson'));
  const clock = new FixedClock();
  const adapter = new OllamaAdapter({ baseUrl: await server.start(), clock });
  const attempt = providerAttempt({
    adapters: new Map([['ollama', adapter]]),
    messages: [{ role: 'user', content: 'Prove that there are infinitely many primes.' }],
    tools: [],
    verifier,
    clock,
    ...(chatOptions ? { chatOptions } : {}),
  });
  return attempt(candidate, { attempt: 0, escalation: [] });
}

describe('an answer cut off at the model output limit', () => {
  it('fails, so the call climbs, without asking a verifier that would have passed it', async () => {
    const verifier = new PassingVerifier();
    const outcome = await attemptOn('length', verifier);
    expect(outcome).toMatchObject({ verdict: 'fail', verdictReason: CUT_AT_OUTPUT_LIMIT, inputTokens: 21, outputTokens: 6 });
    expect(outcome.value?.text).toBe('The proof goes as follows: first,');
    expect(verifier.asked).toEqual([]);
  });

  it('is left to the verifier when the caller set the output limit itself', async () => {
    const verifier = new PassingVerifier();
    const outcome = await attemptOn('length', verifier, { maxOutputTokens: 6 });
    expect(outcome).toMatchObject({ verdict: 'pass', verdictReason: 'anything passes' });
    expect(verifier.asked).toHaveLength(1);
  });

  it('does not touch an answer that ended of its own accord', async () => {
    const verifier = new PassingVerifier();
    const outcome = await attemptOn('stop', verifier);
    expect(outcome).toMatchObject({ verdict: 'pass', verdictReason: 'anything passes' });
    expect(verifier.asked).toHaveLength(1);
  });
});
