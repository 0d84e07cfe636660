import { describe, expect, it } from 'vitest';
import { AgentTurns, turnFooter, type Turn } from '../../../../src/extension/calls/agentTurns';
import { withoutFooter, type AnsweredSummary } from '../../../../src/extension/calls/answerLine';

/** A step's summary as answerLine.ts makes it, with what a test varies. */
function answered(callId: string, model: string, fields: Partial<AnsweredSummary> = {}): AnsweredSummary {
  return {
    kind: 'answered',
    callId,
    classKey: 'edit',
    candidates: ['tiny', 'strong'],
    cost: 0,
    model,
    provider: model === 'strong' ? 'cloud' : 'ollama',
    rung: 1,
    rungs: 2,
    exploring: false,
    why: undefined,
    triedBefore: [],
    check: { kind: 'unverified', reason: 'no check' },
    checked: false,
    checkedLine: 'unchecked',
    stronger: model !== 'strong',
    ...fields,
  };
}

const editStep = answered('c1', 'strong', {
  cost: 0.056,
  rung: 2,
  triedBefore: [{ model: 'tiny', verdict: { kind: 'fail', reason: 'tool call: answered in text where a tool call was needed' } }],
  check: { kind: 'pass', reason: '1 tool call' },
  checked: true,
  checkedLine: 'checked: tool call, tool call arguments',
  stronger: false,
});

describe("an agent's turn", () => {
  it('gathers the steps of one request, and gives the turn from its second step on', () => {
    const turns = new AgentTurns();
    const request = 'Make the greeting say welcome';
    expect(turns.step({ words: request, acted: false }, editStep, ['tool call', 'tool call arguments'])).toBeUndefined();
    const turn = turns.step({ words: request, acted: true }, answered('c2', 'tiny'), []);
    expect(turn?.steps.map((step) => [step.callId, step.model, step.failedBefore, step.cost])).toEqual([
      ['c1', 'strong', ['tiny'], 0.056],
      ['c2', 'tiny', [], 0],
    ]);
  });

  it('starts again when the request has not acted: the same words asked again are a new turn', () => {
    const turns = new AgentTurns();
    turns.step({ words: 'Fix it', acted: false }, editStep, ['tool call']);
    expect(turns.step({ words: 'Fix it', acted: false }, answered('c2', 'tiny'), [])).toBeUndefined();
    expect(turns.step({ words: 'Something else', acted: true }, answered('c3', 'tiny'), [])).toBeUndefined();
  });
});

describe("the line that ends an agent's turn", () => {
  const turn: Turn = {
    steps: [
      {
        callId: 'c1',
        model: 'strong',
        failedBefore: ['tiny'],
        checks: ['tool call', 'tool call arguments'],
        cost: 0.056,
        retryClimbs: false,
      },
      { callId: 'c2', model: 'tiny', failedBefore: [], checks: [], cost: 0, retryClimbs: true },
    ],
  };

  it("names the turn's models, what was checked on any step and the turn's whole cost, not the last step's", () => {
    expect(turnFooter(turn, { retryClimbs: true })).toBe(
      'Rung · this turn: 2 steps, by strong and tiny; tiny failed its check once · checked: tool call, tool call arguments · $0.056',
    );
  });

  it("offers Retry to a stronger model only when the turn's first step went unchecked below a stronger rung", () => {
    const unchecked: Turn = {
      steps: turn.steps.map((step, index) => ({ ...step, checks: [], retryClimbs: index === 0, failedBefore: [] })),
    };
    expect(turnFooter(unchecked, { retryClimbs: true })).toBe(
      'Rung · this turn: 2 steps, by strong and tiny · unchecked · $0.056 · Retry asks a stronger model',
    );
  });

  it('is taken off an answer sent back, as every short line is', () => {
    expect(withoutFooter(`Done: it says welcome now.\n\n${turnFooter(turn)}`)).toBe('Done: it says welcome now.');
  });
});
