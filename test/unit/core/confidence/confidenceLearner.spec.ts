import { describe, expect, it } from 'vitest';
import {
  confidenceBin,
  ConfidenceLearner,
  EXPLORE_OPENINGS,
  isotonic,
  OPENING,
  RATE_PRIOR,
  type PlanRung,
} from '../../../../src/core/confidence/confidenceLearner';

const CLASS = 'chat';
/** A cheap rung and a dear one; a wrong answer costs 10 calls to the dear one. */
const RUNGS: PlanRung[] = [
  { slug: 'cheap', price: 0.0001 },
  { slug: 'dear', price: 0.002 },
];
const MULTIPLE = 10;

/** Teaches `times` calls where `model` opened at `logprob` and was graded `correct`. */
function grade(learner: ConfidenceLearner, model: string, logprob: number, correct: boolean, times: number): void {
  for (let i = 0; i < times; i++) {
    learner.observeReads(CLASS, [{ model, logprob, incoming: OPENING, state: 0 }]);
    learner.observeGrade(CLASS, model, logprob, correct);
  }
}

describe('confidenceBin', () => {
  it('puts a certain answer in the top bin and no confidence at all in the bottom one', () => {
    expect(confidenceBin(0)).toBe(12);
    expect(confidenceBin(-1e-9)).toBe(12);
    expect(confidenceBin(-0.05)).toBe(5);
    expect(confidenceBin(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(confidenceBin(Number.NaN)).toBe(0);
  });
});

describe('isotonic', () => {
  it('pools neighbours that run the wrong way, weighted by their evidence', () => {
    expect(isotonic([0.2, 0.8, 0.4, 0.9], [1, 1, 3, 1])).toEqual([0.2, 0.5, 0.5, 0.9]);
  });
});

describe('ConfidenceLearner calibration', () => {
  it('believes a model that says it is sure only as far as its graded answers at that confidence were right', () => {
    const learner = new ConfidenceLearner();
    const before = learner.probability(CLASS, 'cheap', -1e-8);
    grade(learner, 'cheap', -1e-8, false, 30);
    grade(learner, 'cheap', -1e-8, true, 10);
    const after = learner.probability(CLASS, 'cheap', -1e-8);
    // Before any grade it leans on what the model states, above the rate assumed for any answer.
    expect(before).toBeGreaterThan(RATE_PRIOR + 0.05);
    expect(after).toBeGreaterThan(0.2);
    expect(after).toBeLessThan(0.35);
  });

  it('keeps a higher confidence at least as believable as a lower one', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -0.5, true, 20);
    grade(learner, 'cheap', -0.01, false, 20);
    const table = learner.calibration(CLASS, 'cheap');
    for (let bin = 1; bin < table.length; bin++) expect(table[bin]).toBeGreaterThanOrEqual(table[bin - 1] as number);
  });

  it("lends a model's grades in one class to its calibration in another it has not been graded in", () => {
    const learner = new ConfidenceLearner();
    const unseen = learner.probability('other', 'cheap', -1e-8);
    grade(learner, 'cheap', -1e-8, false, 40);
    expect(learner.probability('other', 'cheap', -1e-8)).toBeLessThan(unseen - 0.3);
  });

  it('reads the same tables back from its counts, as a reopened ledger would', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -0.02, true, 7);
    grade(learner, 'dear', -0.3, false, 5);
    learner.observeReads(CLASS, [
      { model: 'cheap', logprob: -0.3, incoming: OPENING, state: 1 },
      { model: 'dear', logprob: -0.001, incoming: 1, state: 5 },
    ]);
    learner.observeGrade(CLASS, 'dear', -0.001, true, 1);
    const reopened = new ConfidenceLearner({ counts: learner.counts() });
    expect(reopened.counts()).toEqual(learner.counts());
    for (const logprob of [-3, -0.3, -0.02, -0.001, 0]) {
      expect(reopened.probability(CLASS, 'dear', logprob, 1)).toBe(learner.probability(CLASS, 'dear', logprob, 1));
      expect(reopened.follows(CLASS, 'cheap', 1, 'dear')).toEqual(learner.follows(CLASS, 'cheap', 1, 'dear'));
    }
  });

  it('skips stored counts of another layout instead of misreading them', () => {
    const learner = new ConfidenceLearner({
      counts: [
        ['v0\u0000grade\u0000chat\u0000cheap\u00003', { n: 50, ok: 0 }],
        ['v1\u0000grade\u0000chat\u0000cheap\u000099', { n: 50, ok: 0 }],
        ['v1\u0000follow\u0000chat\u0000cheap', { n: 5, ok: 0 }],
      ],
    });
    expect(learner.counts()).toEqual([]);
    expect(learner.probability(CLASS, 'cheap', -0.02)).toBe(new ConfidenceLearner().probability(CLASS, 'cheap', -0.02));
  });

  it('tells its owner every increment it counts', () => {
    const told: string[] = [];
    const learner = new ConfidenceLearner({
      onCount: (increments) => told.push(...increments.map((each) => each.key.split('\u0000')[1] as string)),
    });
    learner.observeGrade(CLASS, 'cheap', -0.02, true, OPENING);
    expect(told).toEqual(['grade', 'grade-after']);
  });
});

describe('ConfidencePlan thresholds', () => {
  it('lowers a rung threshold when its answers below it turn out right, and raises it when its confident answers turn out wrong', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'dear', -0.001, true, 40);
    grade(learner, 'dear', -0.5, true, 30);
    grade(learner, 'dear', -0.5, false, 10);
    // Before its own grades the cheap model's answers are accepted from some threshold, or never (null).
    const start = learner.plan(CLASS, RUNGS, MULTIPLE).threshold('cheap') ?? Number.POSITIVE_INFINITY;

    // The cheap model turns out right at −0.05: answers there are worth accepting.
    grade(learner, 'cheap', -0.05, true, 60);
    const lowered = learner.plan(CLASS, RUNGS, MULTIPLE).threshold('cheap') as number;
    expect(lowered).toBeLessThan(start);
    expect(lowered).toBeLessThanOrEqual(-0.05);

    // Then it turns out wrong even when it says it is certain: only the climb is worth anything.
    grade(learner, 'cheap', -1e-8, false, 200);
    grade(learner, 'cheap', -0.05, false, 400);
    const raised = learner.plan(CLASS, RUNGS, MULTIPLE).threshold('cheap');
    expect(raised === null || raised > lowered).toBe(true);
  });

  it('accepts whatever the dearest rung says, as nothing is left to climb to', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'dear', -3, false, 50);
    const plan = learner.plan(CLASS, RUNGS, MULTIPLE);
    const judgement = plan.judge('dear', -3);
    expect(judgement).toMatchObject({ accept: true, next: null });
    expect(plan.threshold('dear')).toBe(Number.NEGATIVE_INFINITY);
  });

  it('climbs from an unsure answer to the rung above and stays with a sure one it has seen be right', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -1e-8, true, 50);
    grade(learner, 'cheap', -0.7, false, 50);
    grade(learner, 'dear', -0.001, true, 50);
    const plan = learner.plan(CLASS, RUNGS, MULTIPLE);
    expect(plan.opener).toBe('cheap');
    expect(plan.judge('cheap', -0.7)).toMatchObject({ accept: false, next: 'dear' });
    expect(learner.plan(CLASS, RUNGS, MULTIPLE).judge('cheap', -1e-8)).toMatchObject({ accept: true });
  });

  it('opens with the dear rung when a wrong answer costs enough and the cheap one is seldom right', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -0.2, false, 80);
    grade(learner, 'cheap', -0.2, true, 20);
    grade(learner, 'dear', -0.001, true, 50);
    expect(learner.plan(CLASS, RUNGS, 1000).opener).toBe('dear');
    expect(learner.plan(CLASS, RUNGS, 0.01).opener).toBe('cheap');
  });

  it('values a climb by how the next rung fared after answers like this one, not by its spread over every call', () => {
    // The copula the source fitted, learned as counts: when the cheap model is unsure the dear one is
    // too, and when it is fairly sure the dear one is sure. Over all calls the dear one is half and half.
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -0.7, false, 60);
    grade(learner, 'cheap', -0.05, true, 40);
    grade(learner, 'cheap', -0.05, false, 20);
    grade(learner, 'dear', -0.8, false, 60);
    grade(learner, 'dear', -0.001, true, 60);
    const stateAt = (logprob: number): number => {
      const plan = learner.plan(CLASS, RUNGS, MULTIPLE);
      plan.judge('cheap', logprob);
      return plan.answers()[0]?.state as number;
    };
    const [unsure, fair] = [stateAt(-0.7), stateAt(-0.05)];
    expect(unsure).not.toBe(fair);
    for (let i = 0; i < 60; i++) {
      learner.observeReads(CLASS, [
        { model: 'cheap', logprob: -0.7, incoming: OPENING, state: unsure },
        { model: 'dear', logprob: -0.8, incoming: unsure, state: 0 },
      ]);
      learner.observeReads(CLASS, [
        { model: 'cheap', logprob: -0.05, incoming: OPENING, state: fair },
        { model: 'dear', logprob: -0.001, incoming: fair, state: 5 },
      ]);
    }
    const climbFrom = (logprob: number): number => learner.plan(CLASS, RUNGS, MULTIPLE).judge('cheap', logprob).climbValue;
    expect(climbFrom(-0.7)).toBeLessThan(climbFrom(-0.05) - 0.3);
  });

  it('judges one answer the same way when the check and the climb both ask', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'cheap', -0.05, true, 10);
    const plan = learner.plan(CLASS, RUNGS, MULTIPLE);
    const first = plan.judge('cheap', -0.4);
    expect(plan.judge('cheap', -0.4)).toEqual(first);
    expect(plan.answers()).toHaveLength(1);
    plan.judge('dear', -0.01);
    expect(plan.answers().map((answer) => answer.incoming)).toEqual([OPENING, plan.answers()[0]?.state]);
  });

  it('opens with a cheaper rung it has too few grades of at the class before settling on a dearer one', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'dear', -0.001, true, 50);
    // Nothing known of the cheap rung here: a plan that only believed its priors would never learn it.
    expect(learner.plan(CLASS, RUNGS, 1000).opener).toBe('cheap');
    grade(learner, 'cheap', -0.2, false, EXPLORE_OPENINGS - 1);
    expect(learner.plan(CLASS, RUNGS, 1000).opener).toBe('cheap');
    grade(learner, 'cheap', -0.2, false, 1);
    expect(learner.plan(CLASS, RUNGS, 1000).opener).toBe('dear');
    // Grades in another class do not count for this one.
    expect(learner.plan('other', RUNGS, 1000).opener).toBe('cheap');
    // Never to learn a rung whose answer the check would not judge: that answer would stand unchecked.
    const unjudged: PlanRung[] = [{ ...(RUNGS[0] as PlanRung), judged: false }, RUNGS[1] as PlanRung];
    expect(learner.plan('other', unjudged, 1000).opener).toBe('dear');
    const greedy = new ConfidenceLearner({ exploreOpenings: 0 });
    grade(greedy, 'dear', -0.001, true, 50);
    expect(greedy.plan(CLASS, RUNGS, 1000).opener).toBe('dear');
  });

  it('picks the best start among the rungs left when the opener gave nothing to judge', () => {
    const learner = new ConfidenceLearner();
    const plan = learner.plan(CLASS, [...RUNGS, { slug: 'mid', price: 0.0005 }], MULTIPLE);
    const tried = new Set([plan.opener]);
    const next = plan.fallback(tried);
    expect(next).not.toBeNull();
    expect(tried.has(next as string)).toBe(false);
  });

  it('treats a panel where every model is free as nothing to trade, and still plans', () => {
    const learner = new ConfidenceLearner();
    grade(learner, 'a', -0.5, false, 20);
    grade(learner, 'b', -0.01, true, 20);
    const plan = learner.plan(
      CLASS,
      [
        { slug: 'a', price: 0 },
        { slug: 'b', price: 0 },
      ],
      MULTIPLE,
    );
    expect(plan.judge('a', -0.5)).toMatchObject({ accept: false, next: 'b' });
  });
});
