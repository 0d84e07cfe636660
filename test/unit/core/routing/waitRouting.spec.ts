import { describe, expect, it } from 'vitest';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import type { AttemptOutcome } from '../../../../src/core/routing/types';
import { RouterHarness, request } from '../../support/routerHarness';
import { ScriptedAttempts } from '../../support/ScriptedAttempts';

/** A small local model and a cloud model at $0.50/$2 per million tokens: the panel of a laptop with one key. */
function laptopPanel(routing: Record<string, unknown> = {}): Panel {
  return parsePanel(
    {
      models: [
        { slug: 'qwen2.5-coder:1.5b', provider: 'ollama', role: 'base' },
        { slug: 'acme/coder-large', provider: 'openrouter', role: 'top', price: { input: 0.5, output: 2 } },
      ],
      routing,
    },
    'laptop panel',
  );
}

const edit = (extra = {}) => request({ classKey: 'edit', inputTokens: 2000, outputTokens: 500, ...extra });
const failsSlowly: AttemptOutcome = { verdict: 'fail', verdictReason: 'syntax error', latencyMs: 3000 };
const passesSlowly: AttemptOutcome = { verdict: 'pass', latencyMs: 3000 };
const cloudPasses: AttemptOutcome = { verdict: 'pass', latencyMs: 4000, cost: 0.002 };

/** The small model passes the first of every nine edits and fails the rest; the cloud model passes all. */
function oneInNine(): ScriptedAttempts {
  const small: AttemptOutcome[] = [];
  for (let i = 0; i < 900; i++) small.push(i % 9 === 0 ? passesSlowly : failsSlowly);
  return new ScriptedAttempts().on('qwen2.5-coder:1.5b', ...small).on('acme/coder-large', cloudPasses);
}

async function warm(harness: RouterHarness, attempts: ScriptedAttempts, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await harness.router.route(edit(), attempts.fn);
}

describe('Router: the user’s wait', () => {
  it('opens on the cloud model once the gate says the free one rarely passes, and says why', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0 }));
    const attempts = oneInNine();
    await warm(harness, attempts, 8);
    expect(harness.ledger.entries().find((entry) => entry.model === 'qwen2.5-coder:1.5b')).toMatchObject({ graded: 8, ok: 1 });

    const ranking = harness.router.rank(edit());
    expect(ranking.candidates[ranking.opening?.index ?? -1]?.slug).toBe('acme/coder-large');
    expect(ranking.opening?.openedForWait).toMatchObject({
      model: 'qwen2.5-coder:1.5b',
      graded: 8,
      ok: 1,
      classKey: 'edit',
      meanMs: 3000,
      waitWorth: 0.1,
    });

    const before = harness.sink.rows.length;
    const result = await harness.router.route(edit(), attempts.fn);
    expect(result.attempts.map((attempt) => attempt.model)).toEqual(['acme/coder-large']);
    expect(result.attempts[0]?.openedForWait?.model).toBe('qwen2.5-coder:1.5b');
    expect(harness.sink.rows[before]?.reason).toContain(
      '; opened past qwen2.5-coder:1.5b for the wait: it passed 1 of 8 graded at edit and a try takes about 3.0 s (wait worth $0.1/min)',
    );
  });

  it('keeps opening on the free model with the wait valued at 0, as a money-only router does', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0, waitWorth: 0 }));
    const attempts = oneInNine();
    await warm(harness, attempts, 8);
    expect(harness.router.rank(edit()).opening).toEqual({ index: 0 });
    const result = await harness.router.route(edit(), attempts.fn);
    expect(result.attempts[0]?.model).toBe('qwen2.5-coder:1.5b');
    expect(result.attempts[0]?.openedForWait).toBeUndefined();
  });

  it('still opens on the free model below the gate: one bad streak does not reroute a class', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0 }));
    const attempts = oneInNine();
    await warm(harness, attempts, 7);
    expect(attempts.calls.filter((call) => call.attempt === 0).map((call) => call.model)).toEqual(Array(7).fill('qwen2.5-coder:1.5b'));
    expect(harness.router.rank(edit()).opening?.index).toBe(0);
  });

  it('explores the displaced model at the exploration rate, with that propensity, so it can earn its place back', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0.05 }), { seed: 3 });
    const attempts = oneInNine();
    await warm(harness, attempts, 12);
    const start = harness.sink.rows.length;
    const calls = 400;
    await warm(harness, attempts, calls);
    const openers = harness.sink.rows.slice(start).filter((row) => row.escalation.length === 0 && !row.final);
    expect(openers).toHaveLength(calls);
    const explored = openers.filter((row) => row.model === 'qwen2.5-coder:1.5b');
    // 5% of 400 is 20; a binomial's spread is about 4.4.
    expect(explored.length).toBeGreaterThanOrEqual(8);
    expect(explored.length).toBeLessThanOrEqual(35);
    for (const row of explored) expect(row).toMatchObject({ explore: true, propensity: 0.05 });
    for (const row of openers.filter((row) => row.model === 'acme/coder-large'))
      expect(row).toMatchObject({ explore: false, propensity: 0.95 });
  });

  it('gives the free model its place back once it is fast enough to be worth its chance', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0 }));
    const quick: AttemptOutcome[] = [];
    for (let i = 0; i < 900; i++) quick.push(i % 9 === 0 ? { verdict: 'pass', latencyMs: 20 } : { ...failsSlowly, latencyMs: 20 });
    const attempts = new ScriptedAttempts().on('qwen2.5-coder:1.5b', ...quick).on('acme/coder-large', cloudPasses);
    await warm(harness, attempts, 10);
    expect(harness.router.rank(edit()).opening).toMatchObject({ index: 0 });
  });

  it('counts a call another window is already making on the local server as wait, and says so', async () => {
    const harness = new RouterHarness(laptopPanel({ explore: 0 }));
    const able: AttemptOutcome[] = [];
    for (let i = 0; i < 900; i++) able.push(i % 5 === 0 ? failsSlowly : passesSlowly);
    const attempts = new ScriptedAttempts().on('qwen2.5-coder:1.5b', ...able).on('acme/coder-large', cloudPasses);
    await warm(harness, attempts, 12);
    expect(harness.router.rank(edit()).opening?.index).toBe(0);
    // Another window's edit has just started on the same server: it has about 3 s left.
    harness.ledger.spawnStarted({
      spawnId: 'other#0',
      traceId: 'other-window',
      model: 'qwen2.5-coder:1.5b',
      startedAt: harness.clock.now(),
    });
    const ranking = harness.router.rank(edit());
    expect(ranking.opening?.index).toBe(1);
    expect(ranking.opening?.openedForWait).toMatchObject({ model: 'qwen2.5-coder:1.5b', queuedCalls: 1, queuedMs: 3000 });
    const before = harness.sink.rows.length;
    await harness.router.route(edit(), attempts.fn);
    expect(harness.sink.rows[before]?.reason).toContain('busy with 1 other call (about 3.0 s left)');
  });
});
