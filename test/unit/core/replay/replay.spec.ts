import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/core/clock';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import type { ModelOutcome, OutcomeRow } from '../../../../src/core/replay/outcomes';
import { REPLAY_SAVE_INTERVAL_MS, runReplay, spearman, type ReplayOptions } from '../../../../src/core/replay/replay';
import { MIN_GRADED } from '../../../../src/core/ratings';
import { parsePanel } from '../../../../src/core/panel';
import { makeOutcomes, type FixtureModel } from '../../support/outcomesFixture';

const rows = makeOutcomes();
const models = ['tiny', 'small', 'mid', 'large'];

function replay(extra: Partial<ReplayOptions> = {}): ReturnType<typeof runReplay> {
  return runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1, ...extra });
}

const outcome = (row: OutcomeRow, model: string): ModelOutcome => row.m[model] as ModelOutcome;
const meanCost = (model: string): number => rows.reduce((sum, row) => sum + outcome(row, model).cost, 0) / rows.length;

/** An in-memory ledger that remembers how many graded observations it held at each save. */
class SaveRecordingLedger extends MemoryLedger {
  readonly gradedAtSaves: number[] = [];
  override async flush(): Promise<void> {
    this.gradedAtSaves.push(this.entries().reduce((sum, entry) => sum + entry.graded, 0));
  }
}

/** A sink that holds rows back for batching, as the decision log does, and counts its saves. */
class BatchingSink extends MemoryDecisionSink {
  saves = 0;
  async flush(): Promise<void> {
    this.saves++;
  }
}

/** A wall clock that moves `stepMs` every time it is read: a pass that takes as long as the test says. */
class SteppingClock implements Clock {
  private time = 0;
  constructor(private readonly stepMs: number) {}
  now(): number {
    return (this.time += this.stepMs);
  }
}

describe('runReplay saving as it goes', () => {
  it('saves what it has learned each second of wall time while the run goes on, not only at its end', async () => {
    const ledger = new SaveRecordingLedger();
    const sink = new BatchingSink();
    await replay({ ledger, sink, wallClock: new SteppingClock(REPLAY_SAVE_INTERVAL_MS / 4) });
    const duringRun = ledger.gradedAtSaves.slice(0, -1);
    // About one save per four prompts of this clock, each holding more than the one before.
    expect(duringRun.length).toBeGreaterThanOrEqual(Math.floor(rows.length / 5));
    expect(duringRun[0]).toBeGreaterThan(0);
    for (let i = 1; i < duringRun.length; i++) expect(duringRun[i]).toBeGreaterThan(duringRun[i - 1] as number);
    expect(sink.saves).toBe(duringRun.length);
  });

  it('saves only at the end of a run that takes less than a second', async () => {
    const ledger = new SaveRecordingLedger();
    await replay({ ledger, wallClock: { now: () => 0 } });
    expect(ledger.gradedAtSaves).toHaveLength(1);
  });
});

describe('runReplay with caps', () => {
  it('counts a prompt no candidate may take as unanswered and goes on with the run', async () => {
    const traced = rows.slice(0, 6).map((row) => ({ ...row, trace: 'one-run' }));
    const panel = parsePanel(
      {
        models: models.map((slug) => ({ slug, provider: 'shared' })),
        providers: { shared: { kind: 'replay' } },
        diversity: { maxTotalPerProvider: 2 },
        routing: { explore: 0 },
      },
      'capped',
    );
    const summary = await runReplay({ rows: traced, models, panel, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1 });
    // Two calls of the run may use the one provider; the other four find every candidate capped.
    expect(summary.policy.unroutable).toBe(4);
    expect(summary.items).toBe(6);
    expect(summary.policy.accuracy).toBeLessThanOrEqual(2 / 6);
  });
});

describe('runReplay baselines', () => {
  it('uses a fixture of about 200 rows over three families and four models', () => {
    expect(rows.length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((row) => row.family)).size).toBe(3);
  });

  it('scores the best single model, the oracle and the price-order cascade as computed here', async () => {
    const summary = await replay();
    expect(summary.items).toBe(rows.length);

    const singles = models.map((model) => ({
      model,
      accuracy: rows.filter((row) => outcome(row, model).c === 1).length / rows.length,
      cost: rows.reduce((sum, row) => sum + outcome(row, model).cost, 0),
    }));
    const best = [...singles].sort((a, b) => b.accuracy - a.accuracy || a.cost - b.cost)[0];
    expect(summary.bestSingle.model).toBe(best?.model);
    expect(summary.bestSingle.accuracy).toBeCloseTo(best?.accuracy ?? -1, 12);
    expect(summary.bestSingle.cost).toBeCloseTo(best?.cost ?? -1, 12);

    const priceOrder = [...models].sort((a, b) => meanCost(a) - meanCost(b));
    expect(priceOrder).toEqual(['tiny', 'small', 'mid', 'large']);
    let oracleRight = 0;
    let oracleCost = 0;
    let cascadeRight = 0;
    let cascadeCost = 0;
    for (const row of rows) {
      const first = priceOrder.find((model) => outcome(row, model).c === 1);
      if (first) {
        oracleRight++;
        oracleCost += outcome(row, first).cost;
      }
      for (const model of priceOrder) {
        cascadeCost += outcome(row, model).cost;
        if (outcome(row, model).c === 1) break;
      }
      if (first) cascadeRight++;
    }
    expect(summary.oracle.accuracy).toBeCloseTo(oracleRight / rows.length, 12);
    expect(summary.oracle.cost).toBeCloseTo(oracleCost, 12);
    expect(summary.priceOrderCascade.accuracy).toBeCloseTo(cascadeRight / rows.length, 12);
    expect(summary.priceOrderCascade.cost).toBeCloseTo(cascadeCost, 12);
    // The fixture is not degenerate: the oracle beats the best single model, and the cascade costs more than the oracle.
    expect(summary.oracle.accuracy).toBeGreaterThan(summary.bestSingle.accuracy);
    expect(summary.priceOrderCascade.cost).toBeGreaterThan(summary.oracle.cost);
  });

  it("reports the policy's own accuracy, cost and attempts, matching its decision rows", async () => {
    const sink = new MemoryDecisionSink();
    const summary = await replay({ sink });
    expect(summary.policy.attempts).toBe(sink.rows.length);
    expect(summary.policy.cost).toBeCloseTo(
      sink.rows.reduce((sum, row) => sum + (row.cost ?? 0), 0),
      12,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const lastModel = new Map(sink.rows.map((row) => [row.call, row.model]));
    const right = [...lastModel].filter(([call, model]) => outcome(byId.get(call) as OutcomeRow, model).c === 1).length;
    expect(summary.policy.accuracy).toBeCloseTo(right / rows.length, 12);
    expect(lastModel.size).toBe(rows.length);
  });
});

describe('runReplay honesty', () => {
  it("reads a model's grade only when the router has chosen that model, in the order it chose", async () => {
    const log: string[] = [];
    const watched: OutcomeRow[] = rows.map((row) => {
      const m: OutcomeRow['m'] = {};
      for (const [model, graded] of Object.entries(row.m)) {
        const { c, ...rest } = graded;
        m[model] = Object.defineProperty({ ...rest }, 'c', {
          enumerable: true,
          get: () => {
            log.push(`read ${row.id} ${model}`);
            return c;
          },
        }) as ModelOutcome;
      }
      return { ...row, m };
    });
    const sink = { append: (row: { call: string; model: string }) => log.push(`row ${row.call} ${row.model}`) };
    await runReplay({ rows: watched, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 3, sink });

    // Everything after the last decision row is the hindsight baselines, which read every grade on purpose.
    const lastRow = log.length - 1 - [...log].reverse().findIndex((entry) => entry.startsWith('row '));
    const routing = log.slice(0, lastRow + 1);
    const attempted = new Map<string, string[]>();
    const read = new Map<string, string[]>();
    for (const entry of routing) {
      const [kind, id, model] = entry.split(' ') as [string, string, string];
      const target = kind === 'row' ? attempted : read;
      const list = target.get(id) ?? [];
      if (!list.includes(model)) list.push(model);
      target.set(id, list);
    }
    expect(read.size).toBeGreaterThan(0);
    for (const [id, models] of read) {
      const chosen = attempted.get(id) ?? [];
      // Each read grade belongs to a model the router tried, and the reads come in the order it tried them.
      expect(chosen.slice(0, models.length)).toEqual(models);
    }
    // A grade is read just before its attempt's decision row: never ahead of the router's choice.
    routing.forEach((entry, i) => {
      if (!entry.startsWith('read ')) return;
      const later = routing.slice(i + 1).find((next) => next.startsWith('row ') || next.startsWith('read '));
      const [, id, model] = entry.split(' ');
      if (later?.startsWith('row ')) expect(later).toBe(`row ${id} ${model}`);
    });
  });

  it('gives the same bytes for the same seed and another order for another seed', async () => {
    const run = async (seed: number) => {
      const sink = new MemoryDecisionSink();
      const summary = await replay({ seed, sink, explore: 0.1 });
      return { summary: JSON.stringify(summary), rows: JSON.stringify(sink.rows), order: [...new Set(sink.rows.map((row) => row.call))] };
    };
    const first = await run(5);
    const again = await run(5);
    const other = await run(6);
    expect(again.summary).toBe(first.summary);
    expect(again.rows).toBe(first.rows);
    expect(other.order).not.toEqual(first.order);
  });

  it('refuses a panel naming a model the outcomes do not grade', async () => {
    const panel = {
      models: [
        { slug: 'tiny', provider: 'p' },
        { slug: 'ghost', provider: 'p' },
      ],
      maxOutputPrice: null,
      diversity: { maxConsecutivePerProvider: null, maxTotalPerProvider: null },
      profiles: {},
      routing: { explore: 0, requireEvidence: false, tradeoff: 'quality' as const },
      providers: { p: { kind: 'replay' as const } },
    };
    await expect(replay({ panel })).rejects.toThrow(/models\[\d+\]\.slug: "ghost" is not graded by the outcomes/);
  });
});

describe('runReplay robustness (a cheap model always wrong in one family)', () => {
  const trap: FixtureModel[] = [
    { slug: 'cheap', cost: 0.00001, accuracy: { alpha: 0, beta: 1.1 } },
    { slug: 'steady', cost: 0.0005, accuracy: { alpha: 0.9, beta: 0.9 } },
    { slug: 'strong', cost: 0.003, accuracy: { alpha: 1.1, beta: 1.1 } },
  ];
  const trapRows = makeOutcomes(60, trap, 9);

  it('stops trying it in that family after its 8th graded failure and keeps trying it in the other', async () => {
    const sink = new MemoryDecisionSink();
    await runReplay({ rows: trapRows, models: trap.map((m) => m.slug), verifier: { kind: 'perfect' }, classKey: 'family', seed: 2, sink });
    const inAlpha = sink.rows.filter((row) => row.class === 'alpha');
    const cheapInAlpha = inAlpha.filter((row) => row.model === 'cheap');
    expect(cheapInAlpha).toHaveLength(8);
    expect(cheapInAlpha.every((row) => row.verdict === 'fail')).toBe(true);
    const eighth = inAlpha.indexOf(cheapInAlpha[7] as (typeof inAlpha)[number]);
    const after = inAlpha.slice(eighth + 1).filter((row) => row.rung === 0 || row.escalation.length === 0);
    expect(after.length).toBeGreaterThan(40);
    expect(after.every((row) => row.model !== 'cheap')).toBe(true);
    expect(
      after.every((row) =>
        row.pruned.some(
          (p) =>
            p.model === 'cheap' &&
            /^pruned: measured 0\/8 success class=alpha, rated 0\.\d\d < 0\.25 against the calls' difficulty$/.test(p.reason),
        ),
      ),
    ).toBe(true);

    const betaCalls = new Set(sink.rows.filter((row) => row.class === 'beta').map((row) => row.call));
    const cheapInBeta = new Set(sink.rows.filter((row) => row.class === 'beta' && row.model === 'cheap').map((row) => row.call));
    expect(cheapInBeta.size).toBe(betaCalls.size);
  });
});

describe('the learned order against the truth', () => {
  it('correlates ratings with true accuracy over the models past the gate only, beside all of them', async () => {
    const summary = await replay();
    const truth = (model: string, cls: string): number => {
      const members = rows.filter((row) => row.family === cls);
      return members.filter((row) => outcome(row, model).c === 1).length / members.length;
    };
    let belowGateSomewhere = false;
    for (const entry of summary.rankCorrelation) {
      const ratings = summary.ratings.filter((rating) => rating.class === entry.class);
      const past = ratings.filter((rating) => rating.graded >= MIN_GRADED);
      if (past.length < ratings.length) belowGateSomewhere = true;
      if (past.length < 3) expect(entry.pastGateRho).toBeUndefined();
      else
        expect(entry.pastGateRho).toBeCloseTo(
          spearman(
            past.map((rating) => rating.rating),
            past.map((rating) => truth(rating.model, entry.class)),
          ),
          12,
        );
    }
    expect(summary.rankCorrelation.length).toBeGreaterThan(0);
    expect(belowGateSomewhere).toBe(true);
  });
});
