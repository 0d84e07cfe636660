import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import { ASKED_AGAIN_WITHIN_MS, AskedAgain, climbAfter } from '../../../../src/extension/calls/askedAgain';

class StepClock {
  time = 1_000_000;
  now(): number {
    return this.time;
  }
}

const question: ChatMessage[] = [
  { role: 'system', content: 'You are an expert AI programming assistant.' },
  { role: 'user', content: 'What is six times seven?' },
];
const tools: ToolSpec[] = [{ name: 'read_file', description: 'reads a file', parameters: { type: 'object', properties: {} } }];

describe('a request asked again', () => {
  it('is recognised by its messages and tools, with the model that answered it and whether a stronger rung was eligible', () => {
    const clock = new StepClock();
    const again = new AskedAgain(clock);
    expect(again.previous(question, tools)).toBeUndefined();
    again.answered(question, tools, { callId: 'c1', model: 'tiny-coder:1b', stronger: true });
    clock.time += 60_000;
    expect(again.previous([...question.map((message) => ({ ...message }))], tools)).toEqual({
      callId: 'c1',
      model: 'tiny-coder:1b',
      stronger: true,
      at: 1_000_000,
    });
  });

  it('is not a request that differs in any message, in the tools offered, or in a tool result', () => {
    const again = new AskedAgain(new StepClock());
    again.answered(question, tools, { callId: 'c1', model: 'tiny-coder:1b', stronger: true });
    expect(again.previous([question[0] as ChatMessage, { role: 'user', content: 'What is six times eight?' }], tools)).toBeUndefined();
    expect(again.previous(question, [])).toBeUndefined();
    // An agent's next turn carries the tool's result: a new request, not the same one again.
    expect(again.previous([...question, { role: 'tool', toolCallId: 't1', content: '42' }], tools)).toBeUndefined();
  });

  it('forgets an answer older than the window, so a question asked afresh later is routed afresh', () => {
    const clock = new StepClock();
    const again = new AskedAgain(clock);
    again.answered(question, tools, { callId: 'c1', model: 'tiny-coder:1b', stronger: true });
    clock.time += ASKED_AGAIN_WITHIN_MS;
    expect(again.previous(question, tools)?.callId).toBe('c1');
    clock.time += 1;
    expect(again.previous(question, tools)).toBeUndefined();
  });

  it('remembers the latest answer to a request, and at most fifty requests, the oldest forgotten first', () => {
    const clock = new StepClock();
    const again = new AskedAgain(clock);
    again.answered(question, tools, { callId: 'c1', model: 'tiny-coder:1b', stronger: true });
    again.answered(question, tools, { callId: 'c2', model: 'test/strong-model', stronger: false });
    expect(again.previous(question, tools)).toMatchObject({ callId: 'c2', model: 'test/strong-model', stronger: false });
    for (let index = 0; index < 50; index++)
      again.answered([{ role: 'user', content: `question ${index}` }], [], { callId: `q${index}`, model: 'm', stronger: true });
    expect(again.previous(question, tools)).toBeUndefined();
    expect(again.previous([{ role: 'user', content: 'question 0' }], [])?.callId).toBe('q0');
  });

  it('climbs past the model that answered only when a stronger rung was eligible, and says which in the log', () => {
    expect(climbAfter({ callId: 'c1', model: 'tiny-coder:1b', stronger: true, at: 0 })).toEqual({
      above: 'tiny-coder:1b',
      note: 'the same request again, after tiny-coder:1b answered it (c1): climbing past tiny-coder:1b',
    });
    expect(climbAfter({ callId: 'c2', model: 'test/strong-model', stronger: false, at: 0 })).toEqual({
      above: undefined,
      note: 'the same request again, after test/strong-model answered it (c2): no eligible model sits above test/strong-model, so it is routed as before',
    });
  });
});
