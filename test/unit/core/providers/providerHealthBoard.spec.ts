import { describe, expect, it } from 'vitest';
import {
  ProviderHealthBoard,
  RECHECK_AFTER_MS,
  SERVER_ERROR_COOL_DOWN_MS,
  TRANSPORT_FAULT_COOL_DOWN_MS,
  UNWATCHED_NO_SERVER_MS,
} from '../../../../src/core/providers/providerHealthBoard';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { parsePanel } from '../../../../src/core/panel';
import { seededRandom } from '../../../../src/core/random';
import { Router } from '../../../../src/core/routing/router';
import { ProviderError, ProviderStopped, ProviderUnavailable } from '../../../../src/core/providers/provider';
import { FixedClock } from '../../support/FixedClock';

describe('ProviderHealthBoard', () => {
  it('cools a provider down for the retry-after a 429 named, then lets it back', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('openrouter', new ProviderError('rate limited', { status: 429, retryAfterMs: 7_000 }));
    expect(board.unavailableReason('openrouter', clock.now())).toBe('cooling down after 429 for 7000 ms');
    expect(board.unavailableReason('openrouter', clock.now() + 6_999)).not.toBeNull();
    expect(board.unavailableReason('openrouter', clock.now() + 7_000)).toBeNull();
  });

  it('cools a provider down after a 5xx', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('ollama', new ProviderError('server error', { status: 503 }));
    expect(board.unavailableReason('ollama', clock.now())).toBe(`cooling down after 503 for ${SERVER_ERROR_COOL_DOWN_MS} ms`);
    expect(board.unavailableReason('ollama', clock.now() + SERVER_ERROR_COOL_DOWN_MS)).toBeNull();
  });

  it('marks a provider unavailable after a failed probe until a good one', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordProbe('ollama', false, 'no server at http://127.0.0.1:11434 (ECONNREFUSED)');
    expect(board.unavailableReason('ollama', clock.now() + 3_600_000)).toBe('no server at http://127.0.0.1:11434 (ECONNREFUSED)');
    board.recordProbe('ollama', true);
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
  });

  it('marks a provider whose key was rejected, but not one that lacks a single model', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('ollama', new ProviderUnavailable('model qwen9:1b is not pulled', { status: 404 }));
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
    board.recordFailure('openai', new ProviderUnavailable('openai: the API key was rejected (401)', { status: 401 }));
    expect(board.unavailableReason('openai', clock.now())).toBe('openai: the API key was rejected (401)');
  });

  it('learns nothing about a provider from a user stop', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('ollama', new ProviderStopped());
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
  });

  it('cools a provider down briefly after a timeout or a stream cut mid-way, which carry no status', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('ollama', new ProviderError('ollama: timed out: no first byte within 120000 ms', { provider: 'ollama' }));
    board.recordFailure('openrouter', new ProviderError('openrouter: stream cut mid-way (UND_ERR_SOCKET)', { provider: 'openrouter' }));
    expect(board.unavailableReason('ollama', clock.now())).toBe(
      `cooling down after a provider error for ${TRANSPORT_FAULT_COOL_DOWN_MS} ms: ollama: timed out: no first byte within 120000 ms`,
    );
    expect(board.unavailableReason('openrouter', clock.now() + TRANSPORT_FAULT_COOL_DOWN_MS - 1)).toMatch(/stream cut mid-way/);
    expect(board.unavailableReason('openrouter', clock.now() + TRANSPORT_FAULT_COOL_DOWN_MS)).toBeNull();
  });

  it('does not cool a provider down for a request it rejected with a 4xx', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('openrouter', new ProviderError('openrouter: request rejected (400)', { status: 400 }));
    expect(board.unavailableReason('openrouter', clock.now())).toBeNull();
  });

  it('reads without changing anything: a read past a cool-down does not end it for an earlier instant', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('openrouter', new ProviderError('rate limited', { status: 429, retryAfterMs: 7_000 }));
    expect(board.unavailableReason('openrouter', clock.now() + 7_000)).toBeNull();
    expect(board.unavailableReason('openrouter', clock.now())).toBe('cooling down after 429 for 7000 ms');
  });

  it('prunes a cool-down that is over when it records something new, and keeps one that is not', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('openrouter', new ProviderError('rate limited', { status: 429, retryAfterMs: 7_000 }));
    board.recordFailure('openai', new ProviderError('rate limited', { status: 429, retryAfterMs: 60_000 }));
    clock.advance(7_000);
    board.recordFailure('ollama', new ProviderError('server error', { status: 503 }));
    expect(board.unavailableReason('openrouter', clock.now() - 1)).toBeNull();
    expect(board.unavailableReason('openai', clock.now())).toBe('cooling down after 429 for 60000 ms');
  });

  it('rechecks a provider with no server through its probe, but not a rejected key, which a probe cannot see', async () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    const asked: string[] = [];
    board.watch('ollama', async () => (asked.push('ollama'), { ok: true }));
    board.watch('openai', async () => (asked.push('openai'), { ok: true }));
    board.recordFailure('ollama', new ProviderUnavailable('ollama: no server at http://127.0.0.1:11434 (ECONNREFUSED)'));
    board.recordFailure('openai', new ProviderUnavailable('openai: the API key was rejected (401)', { status: 401 }));
    clock.advance(RECHECK_AFTER_MS);
    await board.recheck();
    expect(asked).toEqual(['ollama']);
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
    expect(board.unavailableReason('openai', clock.now())).toBe('openai: the API key was rejected (401)');
  });

  it('finds a watched server that stopped since its last good probe, before any call is sent to it, and finds it back', async () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    let up = true;
    board.watch('ollama', async () => (up ? { ok: true } : { ok: false, reason: 'no server at http://127.0.0.1:11434 (ECONNREFUSED)' }));
    await board.probeAll();
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
    up = false;
    // recheck asks only about a provider already marked: it cannot see a server that went away.
    await board.recheck();
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
    await board.probeAll();
    expect(board.unavailableReason('ollama', clock.now())).toBe('no server at http://127.0.0.1:11434 (ECONNREFUSED)');
    up = true;
    await board.probeAll();
    expect(board.unavailableReason('ollama', clock.now())).toBeNull();
  });

  it('lets a cloud provider with no prober back in after a "no server" blip', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    const panel = parsePanel(
      {
        models: [{ slug: 'openai/gpt-4o-mini', provider: 'openrouter' }],
        providers: { openrouter: { kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' } },
      },
      'test panel',
    );
    const router = new Router({
      panel,
      ledger: new MemoryLedger(),
      clock,
      sink: new MemoryDecisionSink(),
      random: seededRandom(1),
      health: board,
    });
    const request = { callId: 'call-1', classKey: 'chat', verifiable: false };
    board.recordFailure('openrouter', new ProviderUnavailable('openrouter: no server at https://openrouter.ai (EAI_AGAIN)'));
    expect(router.rank(request).candidates).toEqual([]);
    clock.advance(UNWATCHED_NO_SERVER_MS - 1);
    expect(board.unavailableReason('openrouter', clock.now())).toBe('openrouter: no server at https://openrouter.ai (EAI_AGAIN)');
    clock.advance(1);
    expect(board.unavailableReason('openrouter', clock.now())).toBeNull();
    expect(router.rank(request).candidates.map((candidate) => candidate.slug)).toEqual(['openai/gpt-4o-mini']);
  });

  it('keeps a watched provider with no server down until its probe finds it, however long that takes', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.watch('ollama', async () => ({ ok: false }));
    board.recordFailure('ollama', new ProviderUnavailable('ollama: no server at http://127.0.0.1:11434 (ECONNREFUSED)'));
    expect(board.unavailableReason('ollama', clock.now() + 3_600_000)).toBe('ollama: no server at http://127.0.0.1:11434 (ECONNREFUSED)');
  });

  it('does not end a cool-down on a good probe', () => {
    const clock = new FixedClock();
    const board = new ProviderHealthBoard({ clock });
    board.recordFailure('ollama', new ProviderError('server error', { status: 503 }));
    board.recordProbe('ollama', true);
    expect(board.unavailableReason('ollama', clock.now())).toBe(`cooling down after 503 for ${SERVER_ERROR_COOL_DOWN_MS} ms`);
  });
});
