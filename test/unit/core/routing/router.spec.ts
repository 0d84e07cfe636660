import { describe, expect, it } from 'vitest';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import { ProviderFailure, ProviderUnavailable } from '../../../../src/core/providers/provider';
import { RoutingError } from '../../../../src/core/routing/rank';
import type { AttemptOutcome } from '../../../../src/core/routing/types';
import { alphaBetaPanel } from '../../support/panels';
import { RouterHarness, request } from '../../support/routerHarness';
import { FAIL, PASS, ScriptedAttempts, UNVERIFIED } from '../../support/ScriptedAttempts';

const providerError = (): AttemptOutcome => {
  throw new ProviderFailure('provider-error', 'HTTP 503 from upstream');
};
const unavailable = (): AttemptOutcome => {
  throw new ProviderUnavailable('no key for openai');
};
const stopped = (): AttemptOutcome => {
  throw new ProviderFailure('stopped', 'cancelled by the user');
};

/** alpha and beta as in the origin examples, plus gamma, whose output price is over the cap. */
function cascadePanel(): Panel {
  return parsePanel(
    {
      models: [
        { slug: 'alpha', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
        { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        { slug: 'gamma', provider: 'openai', price: { input: 15, output: 75 } },
      ],
      maxOutputPrice: 20,
      routing: { explore: 0 },
    },
    'cascade panel',
  );
}

describe('Router: verdicts that are not evidence', () => {
  const cases: [string, ScriptedAttempts][] = [
    ['unverified', new ScriptedAttempts().on('alpha', UNVERIFIED).on('beta', PASS)],
    [
      'a returned provider-error',
      new ScriptedAttempts().on('alpha', { verdict: 'provider-error' }).on('beta', { verdict: 'provider-error' }),
    ],
    ['a thrown ProviderFailure', new ScriptedAttempts().on('alpha', providerError).on('beta', providerError)],
    ['a thrown ProviderUnavailable', new ScriptedAttempts().on('alpha', unavailable).on('beta', unavailable)],
    ['a returned stopped', new ScriptedAttempts().on('alpha', { verdict: 'stopped' }).on('beta', PASS)],
    ['a thrown stop', new ScriptedAttempts().on('alpha', stopped).on('beta', PASS)],
  ];
  for (const [name, attempts] of cases) {
    it(`moves no rating on ${name}`, async () => {
      const harness = new RouterHarness(alphaBetaPanel());
      for (let i = 0; i < 3; i++) await harness.router.route(request(), attempts.fn);
      expect(attempts.calls.length).toBeGreaterThanOrEqual(3);
      expect(harness.ledger.entries()).toEqual([]);
    });
  }
});

describe('Router: the cascade', () => {
  it('escalates a plan call on a verified failure and records both attempts', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const result = await harness.router.route(request({ callId: 'c-esc', runId: 'run-1' }), attempts.fn);

    expect(attempts.calls).toEqual([
      { model: 'alpha', attempt: 0, escalation: [] },
      { model: 'beta', attempt: 1, escalation: ['alpha'] },
    ]);
    expect(result.answer?.model).toBe('beta');
    const pruned = [{ model: 'gamma', reason: 'pruned: output price 75.00 > cap 20.00' }];
    expect(harness.sink.rows).toHaveLength(2);
    expect(harness.sink.rows[0]).toMatchObject({
      call: 'c-esc',
      run: 'run-1',
      class: 'plan',
      shape: null,
      candidates: ['alpha', 'beta'],
      rung: 0,
      escalation: [],
      model: 'alpha',
      verdict: 'fail',
      verdictReason: 'check failed',
      reason: 'no-measured-profiles tier4',
      pruned,
      explore: false,
      propensity: 1,
      final: false,
      mode: 'cloud',
    });
    expect(harness.sink.rows[1]).toMatchObject({
      call: 'c-esc',
      rung: 1,
      escalation: ['alpha'],
      model: 'beta',
      verdict: 'pass',
      pruned,
      candidates: ['alpha', 'beta'],
    });
    expect(harness.ledger.entries().map((e) => [e.model, e.graded, e.ok])).toEqual([
      ['beta', 1, 1],
      ['alpha', 1, 0],
    ]);
  });

  it('records the class and shape of a shaped key, and learns under the shape and its class', async () => {
    const harness = new RouterHarness(cascadePanel());
    await harness.router.route(request({ classKey: 'edit/typescript' }), new ScriptedAttempts().on('alpha', PASS).fn);
    expect(harness.sink.rows[0]).toMatchObject({ class: 'edit', shape: 'typescript' });
    expect(harness.ledger.entries().map((e) => [e.model, e.classKey, e.graded, e.ok])).toEqual([
      ['alpha', 'edit', 1, 1],
      ['alpha', 'edit/typescript', 1, 1],
    ]);
  });

  it('keeps an avoided model off the opener even when its measured rating would make it the best bet', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
    for (let i = 0; i < 8; i++) await harness.router.route({ ...request(), callId: `warm-${i}` }, attempts.fn);
    const before = attempts.models().length;
    const result = await harness.router.route({ ...request({ avoid: 'alpha' }), callId: 'avoiding' }, attempts.fn);
    expect(attempts.models().slice(before)).toEqual(['beta']);
    expect(result.answer?.model).toBe('beta');
    const fallback = new ScriptedAttempts().on('alpha', PASS).on('beta', FAIL);
    const second = await harness.router.route({ ...request({ avoid: 'alpha' }), callId: 'avoiding-2' }, fallback.fn);
    // The avoided model stays a fallback.
    expect(fallback.models()).toEqual(['beta', 'alpha']);
    expect(second.answer?.model).toBe('alpha');
  });

  it('lets a measured class stand in for a shape below the gate, and says so', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
    for (let i = 0; i < 8; i++) await harness.router.route({ ...request({ classKey: 'edit/go' }), callId: `go-${i}` }, attempts.fn);
    const ranking = harness.router.rank(request({ classKey: 'edit/typescript' }));
    expect(ranking.candidates[0]).toMatchObject({ slug: 'alpha', measured: true, graded: 8, ok: 8 });
    expect(ranking.candidates[0]?.reason).toBe('measured 8/8 success class=edit (edit/typescript: 0/8 graded)');
  });

  it('skips to the next rung on a provider error without grading the model that erred', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', providerError).on('beta', PASS);
    const result = await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['alpha', 'beta']);
    expect(harness.sink.rows.map((r) => [r.model, r.verdict, r.verdictReason])).toEqual([
      ['alpha', 'provider-error', 'provider-error: HTTP 503 from upstream'],
      ['beta', 'pass', 'check passed'],
    ]);
    // A provider error is no failure of the model: the next rung is not an escalation from it.
    expect(attempts.calls[1]?.escalation).toEqual([]);
    expect(result.answer?.model).toBe('beta');
    expect(harness.ledger.entries().map((e) => e.model)).toEqual(['beta']);
  });

  it('skips past an unavailable provider and ends unanswered when every rung errs, grading nobody', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', unavailable).on('beta', providerError);
    const result = await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['alpha', 'beta']);
    expect(result.answer).toBeUndefined();
    expect(harness.sink.rows.map((r) => r.verdictReason)).toEqual([
      'unavailable: no key for openai',
      'provider-error: HTTP 503 from upstream',
    ]);
    expect(harness.ledger.entries()).toEqual([]);
  });

  it("carries a failure's kind as data beside its message, not as a prefix of it", async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', unavailable).on('beta', stopped);
    const result = await harness.router.route(request(), attempts.fn);
    expect(result.attempts.map((a) => [a.verdict, a.failure, a.verdictReason])).toEqual([
      ['provider-error', 'unavailable', 'no key for openai'],
      ['stopped', 'stopped', 'cancelled by the user'],
    ]);
  });

  it('ends the call on a stop', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', stopped).on('beta', PASS);
    const result = await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['alpha']);
    expect(result.answer).toBeUndefined();
    expect(harness.sink.rows.map((r) => r.verdict)).toEqual(['stopped']);
  });

  it('reads a failure after the signal was aborted as a stop', async () => {
    const harness = new RouterHarness(cascadePanel());
    const controller = new AbortController();
    const attempts = new ScriptedAttempts()
      .on('alpha', () => {
        controller.abort();
        return FAIL;
      })
      .on('beta', PASS);
    await harness.router.route(request(), attempts.fn, controller.signal);
    expect(attempts.models()).toEqual(['alpha']);
    expect(harness.sink.rows.map((r) => r.verdict)).toEqual(['stopped']);
    expect(harness.ledger.entries()).toEqual([]);
  });

  it('routes a leaf once and does not escalate its failure', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const result = await harness.router.route(request({ classKey: 'leaf/oversized' }), attempts.fn);
    expect(attempts.models()).toEqual(['alpha']);
    expect(result.answer).toBeUndefined();
    expect(harness.sink.rows).toHaveLength(1);
    expect(harness.ledger.entries().map((e) => [e.model, e.classKey, e.graded, e.ok])).toEqual([
      ['alpha', 'leaf', 1, 0],
      ['alpha', 'leaf/oversized', 1, 0],
    ]);
  });

  it('lets an unverified answer stand and grades nobody', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', UNVERIFIED).on('beta', PASS);
    const result = await harness.router.route(request(), attempts.fn);
    expect(attempts.models()).toEqual(['alpha']);
    expect(result.answer?.model).toBe('alpha');
    expect(result.answer?.verdict).toBe('unverified');
    expect(harness.ledger.entries()).toEqual([]);
  });

  it('holds a spawn in the ledger while an attempt runs and ends it after', async () => {
    const harness = new RouterHarness(cascadePanel());
    let during = -1;
    const attempts = new ScriptedAttempts().on('alpha', () => {
      during = harness.ledger.snapshot(harness.clock.now()).inFlight('alpha');
      return PASS;
    });
    await harness.router.route(request(), attempts.fn);
    expect(during).toBe(1);
    expect(harness.ledger.snapshot(harness.clock.now()).inFlight('alpha')).toBe(0);
  });
});

describe('Router.settle', () => {
  it('appends a final row and grades an unverified attempt exactly once', async () => {
    const harness = new RouterHarness(cascadePanel());
    await harness.router.route(request({ callId: 'c-settle' }), new ScriptedAttempts().on('alpha', UNVERIFIED).fn);
    expect(harness.ledger.entries()).toEqual([]);

    harness.clock.advance(5_000);
    expect(harness.router.settle('c-settle', 'fail', 'thumbs down')).toBe(true);
    const last = harness.sink.rows.at(-1) as DecisionRow;
    expect(last).toMatchObject({
      call: 'c-settle',
      model: 'alpha',
      verdict: 'fail',
      verdictReason: 'thumbs down',
      final: true,
      at: harness.clock.now(),
    });
    expect(harness.ledger.entries().map((e) => [e.model, e.graded, e.ok])).toEqual([['alpha', 1, 0]]);

    expect(harness.router.settle('c-settle', 'fail', 'thumbs down again')).toBe(true);
    expect(harness.sink.rows.filter((r) => r.final)).toHaveLength(2);
    expect(harness.ledger.entries().map((e) => [e.model, e.graded, e.ok])).toEqual([['alpha', 1, 0]]);
  });

  it('does not grade again an attempt its checker already graded', async () => {
    const harness = new RouterHarness(cascadePanel());
    await harness.router.route(request({ callId: 'c-graded' }), new ScriptedAttempts().on('alpha', PASS).fn);
    harness.router.settle('c-graded', 'fail', 'thumbs down');
    expect(harness.ledger.entries().map((e) => [e.model, e.graded, e.ok])).toEqual([['alpha', 1, 1]]);
  });

  it('grades a later verdict at the weight it is given: a weighted failure moves the rating less than a whole one', async () => {
    const moved = async (weight?: number): Promise<number> => {
      const harness = new RouterHarness(cascadePanel());
      await harness.router.route(request({ callId: 'c-weighed' }), new ScriptedAttempts().on('alpha', UNVERIFIED).fn);
      harness.router.settle('c-weighed', 'fail', 'the user asked again', weight);
      const [entry] = harness.ledger.entries();
      expect(entry?.graded).toBe(1);
      return entry?.rating ?? Number.NaN;
    };
    const whole = await moved();
    const half = await moved(0.5);
    // Both start from the same prior and fall; the weighted one falls by about half as much.
    expect(half).toBeGreaterThan(whole);
    const prior = await (async () => {
      const harness = new RouterHarness(cascadePanel());
      await harness.router.route(request({ callId: 'c-weighed' }), new ScriptedAttempts().on('alpha', UNVERIFIED).fn);
      harness.router.settle('c-weighed', 'fail', 'nothing moves', 0);
      return harness.ledger.entries()[0]?.rating ?? Number.NaN;
    })();
    expect((prior - half) / (prior - whole)).toBeCloseTo(0.5, 1);
  });

  it('answers false for a call it never routed', () => {
    const harness = new RouterHarness(cascadePanel());
    expect(harness.router.settle('nope', 'pass', 'ok')).toBe(false);
    expect(harness.sink.rows).toEqual([]);
  });
});

describe('Router: resolved models', () => {
  it('puts the observation on the model the response named and remembers the alias', async () => {
    const harness = new RouterHarness(cascadePanel());
    await harness.router.route(request(), new ScriptedAttempts().on('alpha', { ...PASS, resolvedModel: 'alpha-2026-05-01' }).fn);
    expect(harness.ledger.entries().map((e) => e.model)).toEqual(['alpha-2026-05-01']);
    expect(harness.sink.rows[0]).toMatchObject({ model: 'alpha', resolved: 'alpha-2026-05-01' });
    const next = harness.router.rank(request());
    expect(next.candidates[0]).toMatchObject({ slug: 'alpha', resolved: 'alpha-2026-05-01', graded: 1 });
  });

  it("does not put a provider's failures on the rating of another provider's model it claims to be", async () => {
    const harness = new RouterHarness(cascadePanel());
    harness.ledger.observe(Array.from({ length: 3 }, () => ({ model: 'beta', classKey: 'plan', success: true, at: 0 })));
    // alpha's provider (openrouter) answers as beta, which openai serves; then as gamma-2026, which gamma resolves to.
    harness.ledger.alias('gamma', 'gamma-2026');
    const attempts = new ScriptedAttempts()
      .on('alpha', { ...FAIL, resolvedModel: 'beta' }, { ...FAIL, resolvedModel: 'gamma-2026' })
      .on('beta', PASS);
    await harness.router.route(request({ callId: 'claims-beta' }), attempts.fn);
    await harness.router.route(request({ callId: 'claims-gamma' }), attempts.fn);
    const rated = new Map(harness.ledger.entries().map((entry) => [entry.model, [entry.graded, entry.ok]]));
    expect(rated.get('alpha')).toEqual([2, 0]);
    expect(rated.get('beta')).toEqual([5, 5]);
    expect(rated.has('gamma-2026')).toBe(false);
    // The decision row still says what the provider claimed.
    expect(harness.sink.rows[0]).toMatchObject({ model: 'alpha', resolved: 'beta', verdict: 'fail' });
    expect(harness.router.rank(request()).candidates.find((candidate) => candidate.slug === 'alpha')?.resolved).toBe('alpha');
  });

  it('takes an alias only under the vendor its slug names, and ignores one another provider already claimed', () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'cheap/model', provider: 'openrouter' },
          { slug: 'dear/model', provider: 'openai' },
        ],
        routing: { explore: 0 },
      },
      'claims',
    );
    const harness = new RouterHarness(panel);
    // An alias a provider's claim left in the ledger before it was checked.
    harness.ledger.alias('cheap/model', 'dear/model');
    harness.ledger.observe([{ model: 'dear/model', classKey: 'plan', success: true, at: 0 }]);
    const ranked = harness.router.rank(request());
    expect(ranked.candidates.map((candidate) => [candidate.slug, candidate.resolved, candidate.graded])).toEqual([
      ['cheap/model', 'cheap/model', 0],
      ['dear/model', 'dear/model', 1],
    ]);
  });
});

/** Routes `count` plan calls in one run, each answered by whichever model opens, and lists the openers. */
async function openers(harness: RouterHarness, count: number, runId: string, classKey = 'plan'): Promise<string[]> {
  const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
  const served: string[] = [];
  for (let i = 0; i < count; i++) {
    const result = await harness.router.route(request({ runId, classKey }), attempts.fn);
    served.push(result.answer?.model ?? '-');
  }
  return served;
}

describe('Router: diversity caps (the origin examples)', () => {
  it('routes alpha, alpha, beta with maxTotalPerProvider=2', async () => {
    const harness = new RouterHarness(alphaBetaPanel({ diversity: { maxTotalPerProvider: 2 } }));
    expect(await openers(harness, 3, 'run-total')).toEqual(['alpha', 'alpha', 'beta']);
    expect(harness.sink.rows[2]?.pruned).toEqual([{ model: 'alpha', reason: 'pruned: maxTotalPerProvider=2 reached for openrouter' }]);
  });

  it('routes alpha, alpha, beta, alpha, alpha with maxConsecutivePerProvider=2', async () => {
    const harness = new RouterHarness(alphaBetaPanel({ diversity: { maxConsecutivePerProvider: 2 } }));
    expect(await openers(harness, 5, 'run-consecutive')).toEqual(['alpha', 'alpha', 'beta', 'alpha', 'alpha']);
  });

  it('counts each run apart', async () => {
    const harness = new RouterHarness(alphaBetaPanel({ diversity: { maxTotalPerProvider: 2 } }));
    expect(await openers(harness, 2, 'run-a')).toEqual(['alpha', 'alpha']);
    expect(await openers(harness, 2, 'run-b')).toEqual(['alpha', 'alpha']);
  });

  it('lets a per-class profile value beat the global default', async () => {
    const harness = new RouterHarness(
      alphaBetaPanel({ diversity: { maxTotalPerProvider: 1 }, profiles: { plan: { maxTotalPerProvider: 2 } } }),
    );
    expect(await openers(harness, 3, 'run-plan', 'plan')).toEqual(['alpha', 'alpha', 'beta']);
    expect(await openers(harness, 2, 'run-chat', 'chat')).toEqual(['alpha', 'beta']);
  });

  it('counts a call whose answer failed its check against the provider that gave it', async () => {
    const harness = new RouterHarness(
      alphaBetaPanel({ diversity: { maxTotalPerProvider: 1 }, profiles: { leaf: { maxTotalPerProvider: 1 } } }),
    );
    const failing = new ScriptedAttempts().on('alpha', FAIL).on('beta', FAIL);
    // A leaf is routed once: alpha answers, the check fails, and alpha's provider has served the run.
    await harness.router.route(request({ runId: 'run-fail', classKey: 'leaf' }), failing.fn);
    const next = harness.router.rank(request({ runId: 'run-fail', classKey: 'leaf' }));
    expect(next.pruned).toEqual([
      {
        model: 'alpha',
        reason: 'pruned: maxTotalPerProvider=1 reached for openrouter',
        cause: 'maxTotalPerProvider=1 reached for openrouter',
      },
    ]);
  });

  it('does not count a call that only met provider errors against its provider', async () => {
    const harness = new RouterHarness(alphaBetaPanel({ diversity: { maxTotalPerProvider: 1 } }));
    const erring = new ScriptedAttempts().on('alpha', providerError).on('beta', providerError);
    await harness.router.route(request({ runId: 'run-err' }), erring.fn);
    await harness.router.route(request({ runId: 'run-err' }), erring.fn);
    expect(await openers(harness, 1, 'run-err')).toEqual(['alpha']);
  });

  it("lets a profile's null lift the global cap for its class", async () => {
    const harness = new RouterHarness(
      alphaBetaPanel({ diversity: { maxTotalPerProvider: 1 }, profiles: { plan: { maxTotalPerProvider: null } } }),
    );
    expect(await openers(harness, 3, 'run-plan', 'plan')).toEqual(['alpha', 'alpha', 'alpha']);
  });

  it('gives byte-identical decision rows with caps left null and with no diversity or profiles keys at all', async () => {
    const script = async (panel: Panel): Promise<string> => {
      const harness = new RouterHarness(panel, { seed: 7 });
      const attempts = new ScriptedAttempts().on('alpha', FAIL, PASS, PASS, UNVERIFIED, PASS, FAIL, PASS).on('beta', PASS, FAIL, PASS);
      const calls = [
        { runId: 'r1', classKey: 'plan' },
        { runId: 'r1', classKey: 'plan' },
        { runId: 'r1', classKey: 'chat' },
        { runId: 'r2', classKey: 'edit/typescript' },
        { runId: 'r1', classKey: 'plan' },
        { runId: 'r1', classKey: 'leaf' },
        { runId: 'r2', classKey: 'plan' },
        { runId: 'r1', classKey: 'plan' },
      ];
      for (const [i, call] of calls.entries()) {
        harness.clock.advance(1_000);
        await harness.router.route({ callId: `same-${i}`, verifiable: true, ...call }, attempts.fn);
      }
      harness.router.settle('same-3', 'pass', 'accepted');
      return JSON.stringify(harness.sink.rows);
    };
    const routing = { explore: 0.3 };
    const bare = await script(parsePanel({ models: alphaBetaPanel().models, routing }, 'bare'));
    const nulls = await script(
      parsePanel(
        {
          models: alphaBetaPanel().models,
          routing,
          diversity: { maxConsecutivePerProvider: null, maxTotalPerProvider: null },
          profiles: { plan: { maxConsecutivePerProvider: null, maxTotalPerProvider: null } },
        },
        'nulls',
      ),
    );
    expect(nulls).toBe(bare);
    // The walk with caps that never bind decides exactly as the walk without them.
    const loose = await script(
      parsePanel(
        { models: alphaBetaPanel().models, routing, diversity: { maxConsecutivePerProvider: 100, maxTotalPerProvider: 100 } },
        'loose',
      ),
    );
    expect(loose).toBe(bare);
    // The comparison can fail: a real cap changes the rows.
    const capped = await script(
      parsePanel({ models: alphaBetaPanel().models, routing, diversity: { maxConsecutivePerProvider: 1 } }, 'capped'),
    );
    expect(capped).not.toBe(bare);
  });
});

describe('Router: stopping the climb', () => {
  it('writes the decision to stop climbing into the row of the attempt that prompted it', async () => {
    const harness = new RouterHarness(alphaBetaPanel({ routing: { explore: 0, tradeoff: 'economy' } }));
    // alpha passes half the time; beta, tried only after alpha fails, passes once in twenty.
    const training = new ScriptedAttempts()
      .on('alpha', ...Array.from({ length: 40 }, (_, i) => (i % 2 ? FAIL : PASS)))
      .on('beta', PASS, ...Array.from({ length: 19 }, () => FAIL));
    for (let i = 0; i < 40; i++) await harness.router.route(request(), training.fn);
    const rowsBefore = harness.sink.rows.length;
    const result = await harness.router.route(request(), new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS).fn);
    expect(result.attempts.map((a) => a.model)).toEqual(['alpha']);
    const row = harness.sink.rows[rowsBefore];
    expect(harness.sink.rows).toHaveLength(rowsBefore + 1);
    expect(row?.pruned).toEqual([
      {
        model: 'beta',
        reason: expect.stringMatching(
          /^skipped: stopped climbing after 1 failed; expected cost of going on \$[\d.e-]+ > unanswered \$[\d.e-]+ \(economy\)$/,
        ),
      },
    ]);
  });
});

describe('Router: economy and rungs below the gate', () => {
  // alpha, measured, answers 9 calls in 10; beta, ten times dearer and tried only on alpha's failures,
  // stays below the gate.
  async function trained(
    tradeoff: 'quality' | 'economy',
    alphaSteps = Array.from({ length: 20 }, (_, i) => (i % 10 === 9 ? FAIL : PASS)),
  ): Promise<RouterHarness> {
    const harness = new RouterHarness(alphaBetaPanel({ routing: { explore: 0, tradeoff } }));
    const training = new ScriptedAttempts().on('alpha', ...alphaSteps).on('beta', PASS);
    for (let i = 0; i < alphaSteps.length; i++) await harness.router.route(request(), training.fn);
    return harness;
  }

  it('climbs to a dear rung below the gate when the cheaper measured rung says the class is answerable', async () => {
    const harness = await trained('economy');
    expect(harness.ledger.entries().find((e) => e.model === 'beta')?.graded).toBeLessThan(8);
    // Planned at its role's prior (ability 0.5) beta would be a poor bet after able alpha failed;
    // planned at its presumed prior (alpha's rating) it is worth its price.
    const result = await harness.router.route(request(), new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS).fn);
    expect(result.attempts.map((a) => a.model)).toEqual(['alpha', 'beta']);
  });

  it('stops before a dear rung below the gate in economy when the class gives it no reason to be a good bet, and says why', async () => {
    // alpha answers half the calls: no cheaper rung vouches for beta beyond the role's prior.
    const halves = Array.from({ length: 20 }, (_, i) => (i % 2 ? FAIL : PASS));
    const economy = await trained('economy', halves);
    expect(economy.ledger.entries().find((e) => e.model === 'beta')?.graded ?? 0).toBeLessThan(8);
    const rowsBefore = economy.sink.rows.length;
    const result = await economy.router.route(request(), new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS).fn);
    expect(result.attempts.map((a) => a.model)).toEqual(['alpha']);
    expect(economy.sink.rows[rowsBefore]?.pruned).toEqual([
      { model: 'beta', reason: expect.stringMatching(/^skipped: stopped climbing after 1 failed; .* \(economy\)$/) },
    ]);
    // Quality keeps climbing to it until it is measured.
    const quality = await trained('quality', halves);
    const climbed = await quality.router.route(request(), new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS).fn);
    expect(climbed.attempts.map((a) => a.model)).toEqual(['alpha', 'beta']);
  });
});

describe('Router: quality releases its hold on calls that look unanswerable', () => {
  // Three cheap rungs have each answered 40 hard calls: when all three fail, the call most likely has
  // no answer. beta, ten times dearer, is below the gate with one try; what it did there decides.
  const cheap = ['alpha', 'gamma', 'delta'];
  function afterBetaTried(betaPassed: boolean): RouterHarness {
    const panel = parsePanel(
      {
        models: [
          ...cheap.map((slug) => ({ slug, provider: 'openrouter', price: { input: 0.1, output: 0.1 } })),
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        ],
        routing: { explore: 0, tradeoff: 'quality' },
        diversity: { maxTotalPerProvider: null, maxConsecutivePerProvider: null },
      },
      'released hold',
    );
    const harness = new RouterHarness(panel);
    const hard = { mean: 3, sd: 0.5, unanswerable: 0 };
    for (const model of cheap)
      harness.ledger.observe(Array.from({ length: 40 }, () => ({ model, classKey: 'plan', success: true, difficulty: hard, at: 0 })));
    harness.ledger.observe([{ model: 'beta', classKey: 'plan', success: betaPassed, at: 0 }]);
    return harness;
  }
  const allCheapFail = (): ScriptedAttempts =>
    new ScriptedAttempts().on('alpha', FAIL).on('gamma', FAIL).on('delta', FAIL).on('beta', PASS);

  it('stops before a rung below the gate that failed its only try, and the reason says the hold was released', async () => {
    const harness = afterBetaTried(false);
    const result = await harness.router.route(request(), allCheapFail().fn);
    expect(result.attempts.map((a) => a.model)).toEqual(cheap);
    expect(harness.sink.rows[2]?.pruned).toEqual([
      {
        model: 'beta',
        reason: expect.stringMatching(
          /^skipped: stopped climbing after 3 failed; expected cost of going on \$[\d.e-]+ > unanswered \$[\d.e-]+ \(quality; looks unanswerable at 0\.\d\d, and each rung left below the gate has failed every try at the class\)$/,
        ),
      },
    ]);
  });

  it('keeps climbing to a rung below the gate that passed its try', async () => {
    const harness = afterBetaTried(true);
    const result = await harness.router.route(request(), allCheapFail().fn);
    expect(result.attempts.map((a) => a.model)).toEqual([...cheap, 'beta']);
  });
});

describe('Router: the gate of 8 graded observations', () => {
  it('keeps the opener after five verified failures in a class', async () => {
    const harness = new RouterHarness(alphaBetaPanel());
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    for (let i = 0; i < 5; i++) await harness.router.route(request(), attempts.fn);
    expect(harness.ledger.entries().find((e) => e.model === 'alpha')).toMatchObject({ graded: 5, ok: 0 });
    const sixth = await harness.router.route(request(), attempts.fn);
    expect(sixth.attempts[0]?.model).toBe('alpha');
  });

  it('keeps the opener through a below-gate streak when the panel gives roles', async () => {
    // Cold start puts alpha first (same tier, cheaper); a first observation must not reorder the class.
    const panel = parsePanel(
      {
        models: [
          { slug: 'alpha', provider: 'openrouter', role: 'base', price: { input: 0.2, output: 0.2 } },
          { slug: 'beta', provider: 'openai', role: 'top', price: { input: 0.15, output: 0.6 } },
        ],
        routing: { explore: 0 },
      },
      'roles',
    );
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    const opened: string[] = [];
    for (let i = 0; i < 6; i++) opened.push((await harness.router.route(request(), attempts.fn)).attempts[0]?.model ?? '-');
    expect(opened).toEqual(['alpha', 'alpha', 'alpha', 'alpha', 'alpha', 'alpha']);
  });

  it('excludes the opener after eight graded observations with no success', async () => {
    const harness = new RouterHarness(alphaBetaPanel());
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    for (let i = 0; i < 8; i++) {
      const result = await harness.router.route(request(), attempts.fn);
      expect(result.attempts[0]?.model).toBe('alpha');
    }
    const ninth = await harness.router.route(request(), attempts.fn);
    expect(ninth.attempts.map((a) => a.model)).toEqual(['beta']);
    expect(ninth.ranking.pruned).toEqual([
      {
        model: 'alpha',
        reason: expect.stringMatching(/^pruned: measured 0\/8 success class=plan, rated 0\.\d\d < 0\.25 against the calls' difficulty$/),
        cause: expect.stringMatching(/^measured 0\/8 success class=plan, rated 0\.\d\d < 0\.25 against the calls' difficulty$/),
      },
    ]);
    expect(harness.sink.rows.at(-1)?.pruned[0]?.reason).toMatch(/measured 0\/8 success class=plan/);
  });
});

describe('Router: exploration', () => {
  const threeModels = (explore: number): Panel =>
    parsePanel(
      {
        models: [
          { slug: 'alpha', provider: 'openrouter', price: { input: 0.1, output: 0.1 } },
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
          { slug: 'delta', provider: 'openai', price: { input: 2, output: 8 } },
        ],
        routing: { explore, explorePaid: true },
      },
      'explore',
    );
  const everyonePasses = () => new ScriptedAttempts().on('alpha', PASS).on('beta', PASS).on('delta', PASS);

  async function run(explore: number, seed: number, count: number, extra: Parameters<typeof request>[0] = {}): Promise<DecisionRow[]> {
    const harness = new RouterHarness(threeModels(explore), { seed });
    const attempts = everyonePasses();
    for (let i = 0; i < count; i++) await harness.router.route({ ...request(extra), callId: `x-${i}` }, attempts.fn);
    return harness.sink.rows;
  }

  it('never explores with routing.explore = 0 and records propensity 1', async () => {
    const rows = await run(0, 3, 40);
    expect(rows.some((r) => r.explore)).toBe(false);
    expect(rows.every((r) => r.propensity === 1)).toBe(true);
  });

  it('explores only rungs below the gate, recording rate/k over those k for explored openers and 1 − rate (+ rate/k) for the rest', async () => {
    const rate = 0.5;
    const rows = await run(rate, 11, 80);
    const graded = new Map<string, number>();
    let explored = 0;
    let greedy = 0;
    let afterGate = 0;
    for (const row of rows) {
      // Every call passes on its opener, so each row is one call; the pool is the models still below 8 graded.
      const pool = ['alpha', 'beta', 'delta'].filter((model) => (graded.get(model) ?? 0) < 8);
      if (row.explore) {
        explored++;
        expect(pool).toContain(row.model);
        expect(row.model).not.toBe('alpha');
        expect(row.propensity).toBeCloseTo(rate / pool.length, 12);
        expect(row.reason).toMatch(/^explore \(rate 0\.5\); /);
      } else {
        expect(row.model).toBe('alpha');
        if (pool.length === 0) {
          afterGate++;
          expect(row.propensity).toBe(1);
        } else {
          greedy++;
          expect(row.propensity).toBeCloseTo(1 - rate + (pool.includes('alpha') ? rate / pool.length : 0), 12);
        }
      }
      graded.set(row.model, (graded.get(row.model) ?? 0) + 1);
    }
    expect(explored).toBeGreaterThan(0);
    expect(greedy).toBeGreaterThan(0);
    // Once every rung has passed the gate the evidence is no longer missing, and exploring stops.
    expect(afterGate).toBeGreaterThan(0);
  });

  it('never explores a call no verifier checks', async () => {
    const rows = await run(1, 5, 20, { verifiable: false });
    expect(rows.some((r) => r.explore)).toBe(false);
    expect(rows.every((r) => r.propensity === 1 && r.model === 'alpha')).toBe(true);
  });

  it('never explores over a pinned model', async () => {
    const rows = await run(1, 5, 20, { pinned: 'beta' });
    expect(rows.some((r) => r.explore)).toBe(false);
    expect(rows.every((r) => r.model === 'beta' && r.propensity === 1)).toBe(true);
  });

  it('never explores a leaf', async () => {
    const rows = await run(1, 5, 20, { classKey: 'leaf' });
    expect(rows.some((r) => r.explore)).toBe(false);
  });

  it('gives identical rows for the same seed and different ones for another', async () => {
    const first = JSON.stringify(await run(0.5, 21, 40));
    const again = JSON.stringify(await run(0.5, 21, 40));
    const other = JSON.stringify(await run(0.5, 22, 40));
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });
});

describe('Router: exploration and paid models', () => {
  /** A local model the plan opens with, and two paid ones below the gate that exploration could pick. */
  const localFirst = (routing: Record<string, unknown>): Panel =>
    parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'qwen3:14b', provider: 'ollama', role: 'mid' },
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
          { slug: 'delta', provider: 'openai', price: { input: 2, output: 8 } },
        ],
        routing,
      },
      'local first',
    );

  async function openers(routing: Record<string, unknown>): Promise<DecisionRow[]> {
    const harness = new RouterHarness(localFirst(routing), { seed: 7 });
    const attempts = new ScriptedAttempts().on('qwen2.5:3b', PASS).on('qwen3:14b', PASS).on('beta', PASS).on('delta', PASS);
    for (let i = 0; i < 60; i++) await harness.router.route({ ...request(), callId: `p-${i}` }, attempts.fn);
    return harness.sink.rows.filter((row) => row.rung === row.candidates.indexOf(row.model) && row.escalation.length === 0);
  }

  it('never opens with a paid model by exploring on a fresh workspace unless routing.explorePaid is true', async () => {
    const rows = await openers({ explore: 1 });
    expect(rows.some((row) => row.explore)).toBe(true);
    expect(rows.filter((row) => row.explore).map((row) => row.model)).toEqual(rows.filter((row) => row.explore).map(() => 'qwen3:14b'));
    expect(rows.some((row) => row.mode === 'cloud')).toBe(false);
  });

  it('explores paid models too when routing.explorePaid is true', async () => {
    const rows = await openers({ explore: 1, explorePaid: true });
    expect(rows.some((row) => row.explore && row.mode === 'cloud')).toBe(true);
  });
});

describe('Router: a daily budget', () => {
  const mixed = (): Panel =>
    parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        ],
        routing: { explore: 0 },
      },
      'mixed',
    );

  it('prunes paid models with a reason naming the budget once today has spent it, and keeps local ones', () => {
    const harness = new RouterHarness(mixed());
    const ranking = harness.router.rank(request({ budget: { dailyUsd: 1, spentTodayUsd: 1.02 } }));
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b']);
    expect(ranking.pruned).toEqual([
      {
        model: 'beta',
        reason: 'pruned: daily budget $1.00 reached ($1.02 spent today)',
        cause: 'daily budget $1.00 reached ($1.02 spent today)',
      },
    ]);
  });

  it('keeps paid models while today has spent less than the budget', () => {
    const harness = new RouterHarness(mixed());
    const ranking = harness.router.rank(request({ budget: { dailyUsd: 1, spentTodayUsd: 0.99 } }));
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b', 'beta']);
  });

  it('prunes a paid model whose attempt, priced at its known input and bounded output, would cross the budget', () => {
    const harness = new RouterHarness(mixed());
    // 18,000 tokens in at $1/M and at most 8,192 out at $4/M: up to $0.051, over the $0.022 left of $0.20.
    const ranking = harness.router.rank(request({ contextTokens: 18_000, budget: { dailyUsd: 0.2, spentTodayUsd: 0.178 } }));
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b']);
    expect(ranking.pruned.map((entry) => entry.reason)).toEqual([
      'pruned: daily budget $0.20 would be crossed: this attempt may cost up to $0.051 (18000 tokens in, at most 8192 out), $0.18 spent today',
    ]);
  });

  it("prices the output at the request's own maximum when it states one", () => {
    const harness = new RouterHarness(mixed());
    // 18,000 in and at most 500 out: up to $0.020, inside the $0.022 left.
    const ranking = harness.router.rank(
      request({ contextTokens: 18_000, outputTokensBound: 500, budget: { dailyUsd: 0.2, spentTodayUsd: 0.178 } }),
    );
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b', 'beta']);
  });

  it('passes over a paid rung the climb can no longer afford after paying for the one before it', async () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'beta', provider: 'openai', role: 'mid', price: { input: 1, output: 1 } },
          { slug: 'gamma', provider: 'openai', role: 'top', price: { input: 2, output: 2 } },
        ],
        routing: { explore: 0 },
      },
      'three',
    );
    const harness = new RouterHarness(panel);
    const attempts = new ScriptedAttempts()
      .on('qwen2.5:3b', FAIL)
      .on('beta', { ...FAIL, cost: 0.05 })
      .on('gamma', PASS);
    // Each paid attempt may cost up to 10,000 tokens at its price: beta $0.010 + $0.0082, gamma $0.020 + $0.016.
    const result = await harness.router.route(
      request({ contextTokens: 10_000, budget: { dailyUsd: 0.1, spentTodayUsd: 0.02 } }),
      attempts.fn,
    );
    expect(attempts.calls.map((call) => call.model)).toEqual(['qwen2.5:3b', 'beta']);
    expect(result.answer).toBeUndefined();
    expect(result.ranking.pruned.map((entry) => entry.reason)).toEqual([
      'pruned: daily budget $0.10 would be crossed: this attempt may cost up to $0.036 (10000 tokens in, at most 8192 out), $0.07 spent today',
    ]);
  });
});

describe('Router: a ceiling on one answer', () => {
  const mixed = (): Panel =>
    parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        ],
        routing: { explore: 0 },
      },
      'mixed',
    );

  it('prunes a paid model whose attempt may cost more than one answer may, and keeps local ones', () => {
    const harness = new RouterHarness(mixed());
    const ranking = harness.router.rank(request({ contextTokens: 18_000, answerCeilingUsd: 0.05 }));
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b']);
    expect(ranking.pruned.map((entry) => entry.reason)).toEqual([
      'pruned: answer ceiling $0.05 would be crossed: this attempt may cost up to $0.051 (18000 tokens in, at most 8192 out)',
    ]);
  });

  it('keeps a paid model whose attempt fits under the ceiling', () => {
    const harness = new RouterHarness(mixed());
    const ranking = harness.router.rank(request({ contextTokens: 1_000, answerCeilingUsd: 0.05 }));
    expect(ranking.candidates.map((candidate) => candidate.slug)).toEqual(['qwen2.5:3b', 'beta']);
  });
});

describe('Router: busy-skip by the clock it is given', () => {
  it('skips a model busy in another window until that spawn is 30 minutes old', async () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen3:14b', provider: 'ollama', role: 'mid', maxConcurrent: 1 },
          { slug: 'beta', provider: 'openai', price: { input: 1, output: 4 } },
        ],
        routing: { explore: 0 },
      },
      'busy',
    );
    const harness = new RouterHarness(panel);
    harness.ledger.spawnStarted({ spawnId: 'other-window#0', traceId: 'run-x', model: 'qwen3:14b', startedAt: harness.clock.now() });
    const attempts = new ScriptedAttempts().on('qwen3:14b', PASS).on('beta', PASS);

    const busy = await harness.router.route(request(), attempts.fn);
    expect(busy.attempts.map((a) => a.model)).toEqual(['beta']);
    expect(busy.ranking.pruned).toEqual([
      { model: 'qwen3:14b', reason: 'pruned: busy qwen3:14b 1/1 in flight', cause: 'busy qwen3:14b 1/1 in flight' },
    ]);

    harness.clock.advance(30 * 60 * 1000 + 1);
    const stale = await harness.router.route(request(), attempts.fn);
    expect(stale.attempts.map((a) => a.model)).toEqual(['qwen3:14b']);
  });
});

describe('Router: costs an attempt reports', () => {
  it('never writes a negative or non-finite cost or token count into a decision row', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts()
      .on('alpha', { verdict: 'fail', cost: -450, inputTokens: -1_000_000, outputTokens: Number.NaN })
      .on('beta', { verdict: 'pass', cost: Number.POSITIVE_INFINITY, inputTokens: 10, outputTokens: 5 });
    await harness.router.route(request(), attempts.fn);
    expect(harness.sink.rows.map((row) => [row.model, row.cost, row.inputTokens, row.outputTokens])).toEqual([
      ['alpha', null, null, null],
      ['beta', null, 10, 5],
    ]);
  });
});

describe('Router: a call no rung can take', () => {
  it('writes one refused row with every pruned rung and its reason, then throws, asking no model', async () => {
    const harness = new RouterHarness(cascadePanel());
    const attempts = new ScriptedAttempts().on('alpha', PASS).on('beta', PASS);
    await expect(harness.router.route(request({ callId: 'c-none', classKey: 'plan', needsTools: true }), attempts.fn)).rejects.toThrow(
      RoutingError,
    );
    expect(attempts.calls).toEqual([]);
    expect(harness.sink.rows).toHaveLength(1);
    expect(harness.sink.rows[0]).toMatchObject({
      call: 'c-none',
      verdict: 'refused',
      model: '',
      rung: -1,
      candidates: [],
      cost: null,
      final: false,
    });
    expect(harness.sink.rows[0]?.pruned.map((entry) => entry.model).sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(harness.ledger.entries()).toEqual([]);
  });
});

describe('Router: what a provider says is bounded where the row is written', () => {
  it("writes a 3 MiB provider error and a 600-character model id as marked truncations, and rates the model under its slug, the id being another vendor's", async () => {
    const harness = new RouterHarness(cascadePanel());
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const longId = `vendor/${'m'.repeat(593)}`;
    const attempts = new ScriptedAttempts()
      .on('alpha', () => {
        throw new ProviderFailure('provider-error', huge);
      })
      .on('beta', { ...FAIL, verdictReason: `syntax: ${'e'.repeat(29_000)}`, resolvedModel: longId });
    await harness.router.route(request({ callId: 'c-long' }), attempts.fn);
    const [first, second] = harness.sink.rows as [DecisionRow, DecisionRow];
    expect(first.verdictReason?.length).toBeLessThanOrEqual(4_000);
    expect(first.verdictReason).toMatch(/^provider-error: xxx.*… \[truncated, 3,145,744 characters\]$/s);
    expect(second.verdictReason).toMatch(/^syntax: eee.*… \[truncated, 29,008 characters\]$/s);
    expect(second.resolved?.length).toBeLessThanOrEqual(200);
    expect(second.resolved).toMatch(/^vendor\/mmm.*… \[truncated, 600 characters, #[0-9a-f]{8}\]$/s);
    expect(harness.ledger.entries().map((e) => e.model)).toEqual(['beta']);
    expect(harness.router.settle('c-long', 'fail', `thumbs down: ${'y'.repeat(10_000)}`)).toBe(true);
    expect(harness.sink.rows.at(-1)?.verdictReason).toMatch(/… \[truncated, 10,013 characters\]$/);
  });
});

describe("Router: the prompt's text", () => {
  const fourWay = { text: 'Which one?\nA: red\nB: green\nC: blue\nD: grey' };
  const ratingsAfter = async (promptSignal: boolean | undefined, prompt: { text: string } | undefined) => {
    const panel = cascadePanel();
    const harness = new RouterHarness({ ...panel, routing: { ...panel.routing, ...(promptSignal === undefined ? {} : { promptSignal }) } });
    const attempts = new ScriptedAttempts().on('alpha', FAIL).on('beta', PASS);
    await harness.router.route(request({ callId: 'c-text', ...(prompt ? { prompt } : {}) }), attempts.fn);
    return harness.ledger.entries().map((entry) => ({ model: entry.model, rating: entry.rating }));
  };

  it('is not read by default: a four-way choice moves the ratings as a call without text does', async () => {
    const withoutText = await ratingsAfter(undefined, undefined);
    expect(await ratingsAfter(undefined, fourWay)).toEqual(withoutText);
    expect(await ratingsAfter(false, fourWay)).toEqual(withoutText);
  });

  it("is read where the panel asks: the four-way choice's guessing floor scores the failure against a lucky guess too", async () => {
    const withoutText = await ratingsAfter(undefined, undefined);
    const read = await ratingsAfter(true, fourWay);
    const alpha = (ratings: { model: string; rating: number }[]) => ratings.find((entry) => entry.model === 'alpha')?.rating ?? Number.NaN;
    // A model that fails a four-way choice missed even the quarter a guess would have given it.
    expect(alpha(read)).toBeLessThan(alpha(withoutText));
  });
});
