import { describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main';
import { CONFIDENCE_FAILURE_MULTIPLE, ConfidenceLearner, OPENING } from '../../../../src/core/confidence/confidenceLearner';
import type { DecisionRow, DecisionSink } from '../../../../src/core/decisions/decision';
import type { ModelOutcome, OutcomeRow } from '../../../../src/core/replay/outcomes';
import { runReplay } from '../../../../src/core/replay/replay';
import { CapturedIo } from '../../support/CapturedIo';
import { makeOutcomes } from '../../support/outcomesFixture';

const rows = makeOutcomes(40);
const models = ['tiny', 'small', 'mid', 'large'];
const byId = new Map(rows.map((row) => [row.id, row]));

type Entry = { kind: 'attempt'; call: string; model: string } | { kind: 'grade'; model: string; correct: boolean; incoming: number };

/** Writes every attempt and every grade the learner is given into one log, in the order they happen. */
class LoggingSink implements DecisionSink {
  constructor(readonly log: Entry[]) {}
  append(row: DecisionRow): void {
    this.log.push({ kind: 'attempt', call: row.call, model: row.model });
  }
}

class LoggingLearner extends ConfidenceLearner {
  constructor(readonly log: Entry[]) {
    super();
  }
  override observeGrade(classKey: string, model: string, logprob: number, correct: boolean, incoming: number = OPENING): void {
    this.log.push({ kind: 'grade', model, correct, incoming });
    super.observeGrade(classKey, model, logprob, correct, incoming);
  }
  override observeUnread(classKey: string, model: string, correct: boolean, incoming: number = OPENING): void {
    this.log.push({ kind: 'grade', model, correct, incoming });
    super.observeUnread(classKey, model, correct, incoming);
  }
}

/** The fixture with a confidence that is a second call: reading a model's costs `times` its answer. */
function asked(times: number): OutcomeRow[] {
  return rows.map((row) => ({
    ...row,
    m: Object.fromEntries(Object.entries(row.m).map(([model, outcome]) => [model, { ...outcome, cost_src: outcome.cost * (1 + times) }])),
  }));
}

describe('runReplay with the learned confidence check', () => {
  it('teaches the learner only the grades of the models the call tried, after the call, each the grade of that prompt', async () => {
    const log: Entry[] = [];
    await runReplay({
      rows,
      models,
      verifier: { kind: 'learned-confidence', multiple: 10 },
      classKey: 'family',
      seed: 3,
      sink: new LoggingSink(log),
      confidenceLearner: new LoggingLearner(log),
    });
    let call: string | undefined;
    let tried = new Set<string>();
    let grades = 0;
    let lastWasGrade = false;
    for (const entry of log) {
      if (entry.kind === 'attempt') {
        // A grade never arrives in the middle of a call: once grades have come, the next attempt opens a new call.
        if (entry.call !== call) {
          call = entry.call;
          tried = new Set();
        } else expect(lastWasGrade).toBe(false);
        tried.add(entry.model);
        lastWasGrade = false;
        continue;
      }
      grades++;
      lastWasGrade = true;
      expect(tried.has(entry.model)).toBe(true);
      const row = byId.get(call as string) as OutcomeRow;
      expect(entry.correct).toBe((row.m[entry.model] as ModelOutcome).c === 1);
    }
    expect(grades).toBe(log.filter((entry) => entry.kind === 'attempt').length);
  });

  it('marks each verdict as the confidence check and names the learned threshold it was held to', async () => {
    const decisions: DecisionRow[] = [];
    await runReplay({
      rows,
      models,
      verifier: { kind: 'learned-confidence', multiple: 10 },
      classKey: 'family',
      seed: 1,
      sink: { append: (row) => decisions.push(row) },
    });
    expect(decisions.length).toBeGreaterThan(rows.length);
    for (const row of decisions) {
      // An answer the plan takes without reading its confidence stands unverified, and says why.
      if (row.verdict === 'unverified') {
        expect(row.verdictReason).toMatch(new RegExp(`^confidence not read for ${row.model}: `));
        continue;
      }
      expect(['pass', 'fail']).toContain(row.verdict);
      expect(row.verdictReason).toMatch(
        new RegExp(
          `^confidence −?[\\d.e−]+ (≥|<) (learned threshold (−?[\\d.e−]+|−∞)|no learned threshold \\(never accepted\\)) for ${row.model} in ${row.class} \\(P\\(right\\) `,
        ),
      );
    }
  });

  it("never reads the top rung's answer: nothing is left to climb to, so nothing it says could change the call", async () => {
    const decisions: DecisionRow[] = [];
    await runReplay({
      rows,
      models,
      verifier: { kind: 'learned-confidence', multiple: 10 },
      classKey: 'family',
      seed: 1,
      sink: { append: (row) => decisions.push(row) },
    });
    const top = decisions.filter((row) => row.model === 'large');
    expect(top.length).toBeGreaterThan(0);
    for (const row of top) {
      expect(row.verdict).toBe('unverified');
      expect(row.confidence).toBeUndefined();
    }
  });

  it('charges a read that is a second call, and only where it reads', async () => {
    const decisions: DecisionRow[] = [];
    const paid = asked(2);
    const summary = await runReplay({
      rows: paid,
      models,
      verifier: { kind: 'learned-confidence', multiple: 10 },
      classKey: 'family',
      seed: 1,
      sink: { append: (row) => decisions.push(row) },
    });
    const byCall = new Map(paid.map((row) => [row.id, row]));
    let expected = 0;
    for (const row of decisions) {
      const outcome = (byCall.get(row.call) as OutcomeRow).m[row.model] as ModelOutcome;
      const read = row.confidence !== undefined;
      expect(row.cost).toBeCloseTo(outcome.cost * (read ? 3 : 1), 12);
      expected += outcome.cost * (read ? 3 : 1);
    }
    expect(summary.policy.cost).toBeCloseTo(expected, 12);
  });

  it('reads less where a read costs more than the answer', async () => {
    const reads = async (times: number) => {
      const decisions: DecisionRow[] = [];
      await runReplay({
        rows: asked(times),
        models,
        verifier: { kind: 'learned-confidence', multiple: 10 },
        classKey: 'family',
        seed: 1,
        sink: { append: (row) => decisions.push(row) },
      });
      return decisions.filter((row) => row.confidence !== undefined).length;
    };
    expect(await reads(20)).toBeLessThan(await reads(0));
  });

  it('climbs on a wrong, unsure answer and gets more right than accepting every opener would', async () => {
    // The fixture's models say −0.05 when right and −0.8 when wrong: a check that learns that is nearly perfect.
    const summary = await runReplay({ rows, models, verifier: { kind: 'learned-confidence', multiple: 10 }, classKey: 'family', seed: 2 });
    const acceptAll = await runReplay({ rows, models, verifier: { kind: 'confidence', threshold: -100 }, classKey: 'family', seed: 2 });
    expect(summary.policy.accuracy).toBeGreaterThan(acceptAll.policy.accuracy + 0.1);
    expect(summary.policy.attempts).toBeGreaterThan(rows.length);
  });

  it('leaves an answer with no confidence recorded unverified, never failed', async () => {
    const silent = rows.map((row) => ({
      ...row,
      m: Object.fromEntries(Object.entries(row.m).map(([model, outcome]) => [model, { ...outcome, conf: null }])),
    }));
    const decisions: DecisionRow[] = [];
    const summary = await runReplay({
      rows: silent,
      models,
      verifier: { kind: 'learned-confidence', multiple: 10 },
      classKey: 'family',
      seed: 1,
      sink: { append: (row) => decisions.push(row) },
    });
    expect(summary.policy.attempts).toBe(rows.length);
    expect(new Set(decisions.map((row) => row.verdict))).toEqual(new Set(['unverified']));
  });

  it('states in rung replay --help the multiples the learned check uses when --confidence-multiple is absent', async () => {
    const io = new CapturedIo(process.cwd());
    expect(await main(['replay', '--help'], io)).toBe(0);
    expect(io.out.replace(/\s+/g, ' ')).toContain(
      `(default: ${CONFIDENCE_FAILURE_MULTIPLE.quality} for quality, ${CONFIDENCE_FAILURE_MULTIPLE.economy} for economy)`,
    );
  });
});
