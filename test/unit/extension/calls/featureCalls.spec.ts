import { afterEach, describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import {
  ProviderUnavailable,
  type ChatMessage,
  type ChatOptions,
  type ProviderAdapter,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
} from '../../../../src/core/providers/provider';
import type { Candidate } from '../../../../src/core/routing/types';
import { RungSession } from '../../../../src/core/session/session';
import type { SessionChatRequest, SessionChatResult, SessionEvent, VerdictWithReason } from '../../../../src/core/session/types';
import { FEEDBACK_WEIGHT } from '../../../../src/extension/calls/feedback';
import { ASKED_AGAIN_WITHIN_MS } from '../../../../src/extension/calls/askedAgain';
import {
  FeatureCalls,
  type CallLog,
  type CallState,
  type Cancellation,
  type ChatSession,
} from '../../../../src/extension/calls/featureCalls';
import { FixedClock } from '../../support/FixedClock';
import { toolsSent } from '../../../../src/core/providers/tokens';
import { PlainError } from '../../../../src/extension/calls/plainErrors';
import { answerFooter } from '../../../../src/extension/calls/answerLine';

/** The pin, the avoid and the calls recorded, as the extension's state keeps them. */
class MemoryState implements CallState {
  readonly recorded: { callId: string; origin: string; model: string | undefined }[] = [];
  constructor(
    public pinned: string | undefined = undefined,
    public avoided: string | undefined = undefined,
  ) {}
  recordCall(result: SessionChatResult, origin: string): void {
    this.recorded.push({ callId: result.callId, origin, model: result.answer?.model });
  }
}

class RecordingLog implements CallLog {
  readonly lines: string[] = [];
  info(text: string): void {
    this.lines.push(`info ${text}`);
  }
  warn(text: string): void {
    this.lines.push(`warn ${text}`);
  }
}

/** The editor's cancellation token: cancelled by the test, counting the listeners still attached. */
class TestCancellation implements Cancellation {
  isCancellationRequested = false;
  private readonly listeners = new Set<() => void>();
  onCancellationRequested(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
  cancel(): void {
    this.isCancellationRequested = true;
    for (const listener of this.listeners) listener();
  }
  get attached(): number {
    return this.listeners.size;
  }
}

function candidate(slug: string, tier: Candidate['tier']): Candidate {
  const local = tier < 4;
  return {
    slug,
    provider: local ? 'ollama' : 'cloud',
    spec: { slug, provider: local ? 'ollama' : 'cloud' },
    tier,
    local,
    resolved: slug,
    ability: 0.5,
    graded: 0,
    ok: 0,
    measured: false,
    cost: local ? 0 : 0.002,
    reason: `no-measured-profiles tier${tier}`,
  };
}

const LADDER = [candidate('small', 2), candidate('cloud', 4)];

/**
 * A session that answers every call with the first model of its chain the request leaves (`above`
 * prunes the rungs not above it), records each request and emits the events a real one would.
 */
class ScriptedSession implements ChatSession {
  readonly requests: SessionChatRequest[] = [];
  /** Every verdict settled on an earlier call, in order. */
  readonly settled: { callId: string; verdict: VerdictWithReason }[] = [];

  settle(callId: string, verdict: VerdictWithReason): boolean {
    this.settled.push({ callId, verdict });
    return true;
  }
  /** The tool calls every answer makes. */
  toolCalls: ToolCall[] = [];
  /** When set, the call waits for its signal to abort and ends stopped. */
  waitForStop = false;
  /** USD each answer costs. */
  cost = 0;
  private calls = 0;

  async chat(request: SessionChatRequest, onEvent?: (event: SessionEvent) => void): Promise<SessionChatResult> {
    this.requests.push(request);
    const callId = `c${++this.calls}`;
    const classKey = request.classKey === undefined || request.classKey === 'infer' ? 'chat' : request.classKey;
    const aboveTier = LADDER.find((entry) => entry.slug === request.above)?.tier;
    const candidates = LADDER.filter((entry) => aboveTier === undefined || entry.tier > aboveTier);
    const ranking = { classKey, candidates, pruned: [] };
    onEvent?.({ type: 'routed', callId, classKey, ranking });
    if (this.waitForStop) {
      await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }));
      return {
        callId,
        classKey,
        answer: undefined,
        attempts: [],
        ranking,
        stopped: true,
        interrupted: false,
        cost: 0,
        checks: [],
        checked: 'unchecked',
      };
    }
    const model = request.pinned ?? candidates[0]?.slug;
    if (model === undefined) throw new Error('no model can take this call');
    const opener = candidates.findIndex((entry) => entry.slug === model);
    const attempt = {
      model,
      provider: model === 'cloud' ? 'cloud' : 'ollama',
      rung: Math.max(0, opener),
      verdict: { kind: 'unverified' as const, reason: 'no verifier configured' },
      resolvedModel: model,
      cost: this.cost,
      latencyMs: 1,
      explore: false,
      checks: [],
    };
    // What the tool schemas took of the input, as the session counts them, at a price of the test's.
    const tools = toolsSent(request.messages, request.tools ?? [], request.droppedTools ?? []);
    return {
      callId,
      classKey,
      answer: { text: `answer from ${model}`, reasoning: '', toolCalls: this.toolCalls, model, resolvedModel: model },
      attempts: [attempt],
      ranking,
      stopped: false,
      interrupted: false,
      cost: this.cost,
      checks: [],
      checked: 'unchecked',
      ...(tools ? { tools: { ...tools, cost: 0.0123 } } : {}),
    };
  }
}

const hello: ChatMessage[] = [{ role: 'user', content: 'hello' }];
const editTool: ToolSpec = {
  name: 'edit_file',
  description: 'Edits a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
};
/** Nine of Agent mode's tools: five the editor files as core, four that a greeting does not name. */
const AGENT_TOOLS: ToolSpec[] = [
  'read_file',
  'replace_string_in_file',
  'grep_search',
  'list_dir',
  'create_file',
  'fetch_webpage',
  'github_repo',
  'run_notebook_cell',
  'install_extension',
].map((name) => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties: {} },
}));

function setUp(state = new MemoryState()) {
  const log = new RecordingLog();
  const clock = new FixedClock();
  const calls = new FeatureCalls({ state, log, clock });
  return { calls, state, log, clock, session: new ScriptedSession() };
}

describe("the session's cost", () => {
  it("adds every feature's calls in the window, and the short line says it once there is more to it than the answer", async () => {
    const { calls, session } = setUp();
    session.cost = 0.01;
    const first = await calls.prepare({ feature: '@rung', messages: hello }).run(session);
    expect(first.summary.sessionCost).toBeCloseTo(0.01);
    expect(first.line).not.toContain('session');
    const second = await calls.prepare({ feature: 'Rung Auto', messages: [{ role: 'user', content: 'again' }] }).run(session);
    expect(second.summary.sessionCost).toBeCloseTo(0.02);
    expect(second.line).toMatch(/ · \$0\.01 · session \$0\.02$/);
  });
});

describe('a feature call', () => {
  describe('from Rung Auto in the model picker', () => {
    it('carries the tools, the schema check and the conversation, lets the session infer the class, and applies the pin and the avoid', async () => {
      const { calls, session, state } = setUp(new MemoryState('small', 'cloud'));
      const schema = { type: 'object' };
      const call = calls.prepare({
        feature: 'Rung Auto',
        messages: hello,
        tools: [editTool],
        checks: { schema },
        conversationId: 'conv-1',
        climbWhenAskedAgain: true,
      });
      await call.run(session);
      expect(session.requests[0]).toMatchObject({
        messages: hello,
        tools: [editTool],
        checks: { schema },
        conversationId: 'conv-1',
        classKey: 'infer',
        pinned: 'small',
        avoid: 'cloud',
      });
      expect(session.requests[0]?.above).toBeUndefined();
      expect(state.recorded).toEqual([{ callId: 'c1', origin: 'Rung Auto', model: 'small' }]);
    });

    it('sends every tool offered unless the user chose relevant ones, and then all of them when a tool call is required', async () => {
      const { calls, session } = setUp();
      await calls.prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS, climbWhenAskedAgain: true }).run(session);
      expect(session.requests[0]?.tools).toEqual(AGENT_TOOLS);
      expect(session.requests[0]?.droppedTools).toBeUndefined();
      const relevant = calls.prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS, agentTools: 'relevant' });
      expect(relevant.request.tools?.map((tool) => tool.name)).toEqual([
        'read_file',
        'replace_string_in_file',
        'grep_search',
        'list_dir',
        'create_file',
      ]);
      expect(relevant.request.droppedTools).toEqual(['fetch_webpage', 'github_repo', 'run_notebook_cell', 'install_extension']);
      const required = calls.prepare({
        feature: 'Rung Auto',
        messages: hello,
        tools: AGENT_TOOLS,
        agentTools: 'relevant',
        toolCallRequired: true,
      });
      expect(required.request.tools).toEqual(AGENT_TOOLS);
      expect(required.request.droppedTools).toBeUndefined();
    });

    it('logs what the tool schemas took of the input, their cost and which tools were dropped', async () => {
      const { calls, session, log } = setUp();
      await calls
        .prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS, agentTools: 'relevant', climbWhenAskedAgain: true })
        .run(session);
      const share = toolsSent(hello, AGENT_TOOLS.slice(0, 5));
      expect(log.lines).toEqual([
        `info Rung Auto c1 chat over [small, cloud]: answered by small on rung 1 of 2, unchecked (unverified: no verifier configured), $0; 5 tools ≈ ${share?.tokens} of ${share?.input} input tokens, $0.012 of the input; dropped 4 (rung.agentTools): fetch_webpage, github_repo, run_notebook_cell, install_extension`,
      ]);
    });

    it('never passes on a call to a tool that was not sent, and says why in one sentence', async () => {
      const { calls, session, log } = setUp();
      session.toolCalls = [{ id: 'call-1', name: 'fetch_webpage', arguments: '{"urls":["https://example.com"]}' }];
      const trimmed = calls.prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS, agentTools: 'relevant' });
      await expect(trimmed.run(session)).rejects.toThrow(
        new PlainError(
          'small called fetch_webpage, which was not sent to it, so nothing was run. Ask again, or set rung.agentTools to "all" to send every tool.',
        ),
      );
      expect(log.lines.at(-1)).toBe(
        'warn Rung Auto c1: small called fetch_webpage, which Rung did not send; the tool calls were not passed on',
      );
      // Sent, the same call is the answer's.
      const all = await calls.prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS }).run(session);
      expect(all.result.answer?.toolCalls.map((call) => call.name)).toEqual(['fetch_webpage']);
      // A tool never offered is no setting's doing.
      session.toolCalls = [{ id: 'call-2', name: 'open_browser_page', arguments: '{}' }];
      await expect(calls.prepare({ feature: 'Rung Auto', messages: hello, tools: AGENT_TOOLS }).run(session)).rejects.toThrow(
        new PlainError('small called open_browser_page, which was not sent to it, so nothing was run. Ask again.'),
      );
    });

    it("climbs past the model that answered when the same request comes again, without the user's avoid, and says so in the log", async () => {
      const { calls, session, log } = setUp(new MemoryState(undefined, 'cloud'));
      const ask = { feature: 'Rung Auto', messages: hello, tools: [editTool], climbWhenAskedAgain: true };
      const first = await calls.prepare(ask).run(session);
      expect(first.result.answer?.model).toBe('small');
      const again = calls.prepare(ask);
      expect(again.climb).toEqual({ above: 'small', because: 'asked-again' });
      expect(again.request.above).toBe('small');
      expect(again.request.avoid).toBeUndefined();
      const second = await again.run(session);
      expect(second.result.answer?.model).toBe('cloud');
      expect(second.line).toContain('Asked again above small');
      expect(log.lines).toHaveLength(3);
      expect(log.lines[1]).toMatch(/^info feedback on c1 \(small\): failed at weight/);
      expect(log.lines[2]).toBe(
        'info Rung Auto c2 chat over [cloud]: answered by cloud on rung 1 of 1, unchecked (unverified: no verifier configured), $0; the same request again, after small answered it (c1): climbing past small; 1 tool ≈ 31 of 33 input tokens, $0.012 of the input',
      );
    });

    it('routes the same request afresh when no stronger rung was eligible, when the tools differ, or when the answer is old', async () => {
      const { calls, session, log, clock } = setUp();
      const ask = { feature: 'Rung Auto', messages: hello, climbWhenAskedAgain: true };
      await calls.prepare(ask).run(session);
      expect(calls.prepare({ ...ask, tools: [editTool] }).climb).toBeUndefined();
      clock.advance(ASKED_AGAIN_WITHIN_MS + 1);
      expect(calls.prepare(ask).climb).toBeUndefined();
      // The top rung answered: asked again, there is nowhere to climb, and the log says why it routed as before.
      await calls.prepare(ask).run(session);
      await calls.prepare(ask).run(session);
      const top = calls.prepare(ask);
      expect(top.climb).toBeUndefined();
      await top.run(session);
      expect(log.lines.at(-1)).toContain('no eligible model sits above cloud, so it is routed as before');
    });
  });

  describe('feedback read from what the user does next', () => {
    it('settles an answer the same request asks again as failed at the weight of feedback, once, before the climb', async () => {
      const { calls, session, log } = setUp();
      const ask = { feature: 'Rung Auto', messages: hello, climbWhenAskedAgain: true };
      await calls.prepare(ask).run(session);
      expect(session.settled).toEqual([]);
      const again = calls.prepare(ask);
      expect(again.feedback).toMatchObject({ callId: 'c1', model: 'small', verdict: { kind: 'fail', weight: FEEDBACK_WEIGHT } });
      await again.run(session);
      expect(session.settled).toEqual([
        {
          callId: 'c1',
          verdict: { kind: 'fail', reason: "the user asked the same again (the Chat view's Retry)", weight: FEEDBACK_WEIGHT },
        },
      ]);
      expect(log.lines).toContain(
        `info feedback on c1 (small): failed at weight ${FEEDBACK_WEIGHT}, the user asked the same again (the Chat view's Retry)`,
      );
      // The request the retry answered (c2) may be asked again in its turn, but c1 is not settled twice.
      await calls.prepare(ask).run(session);
      expect(session.settled.map((entry) => entry.callId)).toEqual(['c1', 'c2']);
    });

    it('settles the answer a follow-up says was wrong, found from the turn the editor sends back', async () => {
      const { calls, session } = setUp();
      const first = await calls
        .prepare({ feature: 'Rung Auto', messages: [{ role: 'user', content: 'What is six times seven?' }], climbWhenAskedAgain: true })
        .run(session);
      const shown = `${first.result.answer?.text ?? ''}\n\nRung · small · rung 1 of 2 · unchecked · $0`;
      const followUp = (words: string): ChatMessage[] => [
        { role: 'user', content: 'What is six times seven?' },
        { role: 'assistant', content: shown },
        { role: 'user', content: `<context>the time</context>\n<userRequest>\n${words}\n</userRequest>` },
      ];
      expect(
        calls.prepare({ feature: 'Rung Auto', messages: followUp('Thanks! And eight times nine?'), climbWhenAskedAgain: true }).feedback,
      ).toBeUndefined();
      // Not from a feature that keeps no conversation.
      expect(calls.prepare({ feature: 'Edit Selection', messages: followUp("That's wrong.") }).feedback).toBeUndefined();
      const wrong = calls.prepare({ feature: 'Rung Auto', messages: followUp("That's wrong, it is 42."), climbWhenAskedAgain: true });
      expect(wrong.feedback).toMatchObject({
        callId: 'c1',
        verdict: { kind: 'fail', reason: "the user's next message said the answer was wrong", weight: FEEDBACK_WEIGHT },
      });
      await wrong.run(session);
      expect(session.settled.map((entry) => entry.callId)).toEqual(['c1']);
    });

    it('climbs past the model a follow-up says was wrong, as the same request again does, and the line says why', async () => {
      const { calls, session, log } = setUp();
      const first = await calls
        .prepare({ feature: 'Rung Auto', messages: [{ role: 'user', content: 'What is six times seven?' }], climbWhenAskedAgain: true })
        .run(session);
      const conversation: ChatMessage[] = [
        { role: 'user', content: 'What is six times seven?' },
        {
          role: 'assistant',
          content: `${first.result.answer?.text ?? ''}\n\n${first.summary.kind === 'answered' ? answerFooter(first.summary) : ''}`,
        },
        { role: 'user', content: "<userRequest>\nThat's wrong.\n</userRequest>" },
      ];
      const wrong = calls.prepare({ feature: 'Rung Auto', messages: conversation, climbWhenAskedAgain: true });
      expect(wrong.climb).toEqual({ above: 'small', because: 'said-wrong' });
      expect(wrong.request.above).toBe('small');
      const corrected = await wrong.run(session);
      expect(corrected.result.answer?.model).toBe('cloud');
      expect(corrected.summary.kind === 'answered' && answerFooter(corrected.summary)).toBe(
        'Rung · cloud · asked again after you said small was wrong · unchecked · $0',
      );
      expect(corrected.line).toContain("You said small's answer was wrong, so it was asked again above it");
      expect(log.lines.at(-1)).toMatch(/; the user said small's answer \(c1\) was wrong: climbing past it$/);
      // The top of the ladder said to be wrong is settled as failed, and asked again where it is.
      const top: ChatMessage[] = [
        ...conversation,
        { role: 'assistant', content: corrected.result.answer?.text ?? '' },
        { role: 'user', content: '<userRequest>\nStill wrong.\n</userRequest>' },
      ];
      const again = calls.prepare({ feature: 'Rung Auto', messages: top, climbWhenAskedAgain: true });
      expect(again.feedback?.callId).toBe('c2');
      expect(again.climb).toBeUndefined();
    });

    it('keeps a picked model where it is when a follow-up says its answer was wrong, and only settles the answer', async () => {
      const { calls, session } = setUp();
      const ask = (messages: ChatMessage[]) =>
        calls.prepare({ feature: 'Rung: small', messages, picked: 'small', climbWhenAskedAgain: true });
      const first = await ask([{ role: 'user', content: 'What is six times seven?' }]).run(session);
      const wrong = ask([
        { role: 'user', content: 'What is six times seven?' },
        { role: 'assistant', content: first.result.answer?.text ?? '' },
        { role: 'user', content: "That's wrong." },
      ]);
      expect(wrong.feedback?.callId).toBe('c1');
      expect(wrong.climb).toBeUndefined();
    });

    it('climbs for a check of an unchecked answer without settling anything, and says so in the log', async () => {
      const { calls, session, log } = setUp();
      const call = calls.prepare({ feature: '@rung', messages: hello, above: 'small', aboveBecause: 'check' });
      expect(call.climb).toEqual({ above: 'small', because: 'check' });
      await call.run(session);
      expect(session.requests[0]?.above).toBe('small');
      expect(session.settled).toEqual([]);
      expect(log.lines.at(-1)).toMatch(/; a check of an unchecked answer, above small$/);
    });
  });

  describe("an agent's turn of several calls", () => {
    it('hands the step that ends the turn every step so far, and a lone call none', async () => {
      const { calls, session } = setUp();
      const asked: ChatMessage[] = [{ role: 'user', content: '<userRequest>\nMake the greeting say welcome\n</userRequest>' }];
      const first = await calls
        .prepare({ feature: 'Rung Auto', messages: asked, tools: [editTool], climbWhenAskedAgain: true })
        .run(session);
      expect(first.turn).toBeUndefined();
      const acted: ChatMessage[] = [
        ...asked,
        { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'edit_file', arguments: '{"path": "a.ts"}' }] },
        { role: 'tool', toolCallId: 't1', content: 'edited' },
      ];
      const last = await calls
        .prepare({ feature: 'Rung Auto', messages: acted, tools: [editTool], climbWhenAskedAgain: true })
        .run(session);
      expect(last.turn?.steps.map((step) => step.callId)).toEqual(['c1', 'c2']);
    });
  });

  describe('from a panel model picked in the model picker', () => {
    it('opens with the picked model ahead of the pin, keeps an avoid of another model, and does not climb when asked again', async () => {
      const { calls, session } = setUp(new MemoryState('cloud', 'other'));
      const ask = { feature: 'Rung: small', messages: hello, picked: 'small', climbWhenAskedAgain: true };
      await calls.prepare(ask).run(session);
      const again = calls.prepare(ask);
      expect(again.climb).toBeUndefined();
      expect(again.request).toMatchObject({ pinned: 'small', avoid: 'other' });
      expect(calls.prepare({ ...ask, picked: 'other' }).request.avoid).toBeUndefined();
    });
  });

  describe('from @rung', () => {
    it("climbs past the model a retry set aside in place of the user's avoid, and names it in the closing line", async () => {
      const { calls, session, state, log } = setUp(new MemoryState(undefined, 'cloud'));
      const call = calls.prepare({ feature: '@rung', messages: hello, classKey: 'plan', above: 'small', climbWhenAskedAgain: true });
      expect(call.climb).toEqual({ above: 'small', because: 'retry' });
      expect(call.request).toMatchObject({ classKey: 'plan', above: 'small' });
      expect(call.request.avoid).toBeUndefined();
      const finished = await call.run(session);
      expect(finished.line).toBe(
        'Answered by **cloud** (cloud) for `plan` — not yet graded in this class: a cloud model (ladder tier 4). Asked again above small: the rungs at or below it were left out.\n\nRung · cloud · asked again above small · unchecked · $0',
      );
      expect(state.recorded.map((entry) => entry.origin)).toEqual(['@rung']);
      expect(log.lines).toEqual([
        'info @rung c1 plan over [cloud]: answered by cloud on rung 1 of 1, unchecked (unverified: no verifier configured), $0; a retry above small',
      ]);
    });

    it("shares one memory with Rung Auto, so the Chat view's Retry under either climbs", async () => {
      const { calls, session } = setUp();
      await calls.prepare({ feature: 'Rung Auto', messages: hello, climbWhenAskedAgain: true }).run(session);
      expect(calls.prepare({ feature: '@rung', messages: hello, climbWhenAskedAgain: true }).climb).toEqual({
        above: 'small',
        because: 'asked-again',
      });
    });
  });

  describe('from Edit Selection', () => {
    it('sends its checks and class, remembers nothing for a repeat, and gives the closing line without Markdown', async () => {
      const { calls, session, state } = setUp(new MemoryState('small'));
      const ask = { feature: 'Edit Selection', messages: hello, classKey: 'edit/typescript', checks: { answerSyntax: false } };
      const finished = await calls.prepare(ask).run(session);
      expect(session.requests[0]).toMatchObject({ classKey: 'edit/typescript', checks: { answerSyntax: false }, pinned: 'small' });
      expect(calls.prepare({ ...ask, picked: undefined }).climb).toBeUndefined();
      expect(finished.plainLine).toMatch(
        /^Answered by small \(ollama\) for edit\/typescript .* Rung · small · rung 1 of 2 · unchecked · \$0$/,
      );
      expect(finished.plainLine).not.toMatch(/\*\*|`/);
      expect(state.recorded.map((entry) => entry.origin)).toEqual(['Edit Selection']);
    });
  });

  describe('from Ask', () => {
    it('stops the call when the editor cancels it, lets go of the token, and still records and logs it', async () => {
      const { calls, session, state, log } = setUp();
      session.waitForStop = true;
      const cancellation = new TestCancellation();
      const running = calls.prepare({ feature: 'Ask', messages: hello, cancellation }).run(session);
      await new Promise((resolve) => setImmediate(resolve));
      expect(cancellation.attached).toBe(1);
      cancellation.cancel();
      const finished = await running;
      expect(session.requests[0]?.signal?.aborted).toBe(true);
      expect(finished.stopped).toBe(true);
      expect(finished.line).toBe('Stopped.');
      expect(cancellation.attached).toBe(0);
      expect(state.recorded).toEqual([{ callId: 'c1', origin: 'Ask', model: undefined }]);
      expect(log.lines).toEqual(['info Ask c1 chat over [small, cloud]: stopped by the user, $0']);
    });

    it('logs a call the session refused and passes the error on, recording nothing', async () => {
      const { calls, state, log } = setUp();
      const refusing: ChatSession = { chat: async () => Promise.reject(new Error('no model can take this call')), settle: () => false };
      await expect(calls.prepare({ feature: 'Ask', messages: hello }).run(refusing)).rejects.toThrow('no model can take this call');
      expect(state.recorded).toEqual([]);
      expect(log.lines).toEqual(['warn Ask infer: not routed: no model can take this call']);
    });
  });
});

/** Two models on one in-memory provider, each answering with its own name. */
class NamedAnswers implements ProviderAdapter {
  constructor(readonly name: string) {}
  async available(): Promise<boolean> {
    return true;
  }
  async *chat(model: string, _messages: ChatMessage[], _tools: ToolSpec[], _options: ChatOptions): AsyncIterable<StreamPart> {
    yield { type: 'text-delta', text: `${model} says hello` };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 3 }, resolvedModel: model };
  }
}

describe('a feature call on a real session', () => {
  const sessions: RungSession[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.dispose();
  });

  it('climbs past the model that answered when Rung Auto is asked the same thing again', async () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'small', provider: 'editor', role: 'base', price: { input: 0, output: 0 } },
          { slug: 'large', provider: 'editor', role: 'top', price: { input: 5, output: 15 } },
        ],
        routing: { explore: 0 },
        providers: { editor: { kind: 'vscode-lm' } },
      },
      'two editor models',
    );
    const clock = new FixedClock();
    const session = await RungSession.open({
      panel,
      clock,
      keys: async () => 'editor-key',
      providerFactories: { 'vscode-lm': ({ name }) => new NamedAnswers(name) },
    });
    sessions.push(session);
    const { calls, state } = setUp();
    const ask = { feature: 'Rung Auto', messages: hello, climbWhenAskedAgain: true };
    const first = await calls.prepare(ask).run(session);
    expect(first.result.answer?.text).toBe('small says hello');
    const second = await calls.prepare(ask).run(session);
    expect(second.climb).toEqual({ above: 'small', because: 'asked-again' });
    expect(second.result.answer?.text).toBe('large says hello');
    expect(state.recorded.map((entry) => entry.model)).toEqual(['small', 'large']);
  });
});

/** A cloud provider whose server is gone: every call is refused the way a stopped server refuses it. */
class StoppedServer implements ProviderAdapter {
  calls = 0;
  constructor(readonly name: string) {}
  async available(): Promise<boolean> {
    return true;
  }
  // eslint-disable-next-line require-yield
  async *chat(): AsyncIterable<StreamPart> {
    this.calls++;
    throw new ProviderUnavailable(`${this.name}: no server at http://127.0.0.1:9 (ECONNREFUSED)`, { provider: this.name });
  }
}

describe('the same request asked again while the stronger model is down', () => {
  const sessions: RungSession[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.dispose();
  });

  async function openWithStrongDown() {
    const panel = parsePanel(
      {
        models: [
          { slug: 'small', provider: 'editor', role: 'base', price: { input: 0, output: 0 } },
          { slug: 'large', provider: 'acme', role: 'top', price: { input: 5, output: 15 } },
        ],
        routing: { explore: 0 },
        providers: { editor: { kind: 'vscode-lm' }, acme: { kind: 'vscode-lm' } },
      },
      'a local model and a stopped cloud one',
    );
    const acme = new StoppedServer('acme');
    const session = await RungSession.open({
      panel,
      clock: new FixedClock(),
      keys: async () => 'key',
      providerFactories: { 'vscode-lm': ({ name }) => (name === 'acme' ? acme : new NamedAnswers(name)) },
    });
    sessions.push(session);
    return { session, acme };
  }

  it('says the provider is unreachable and has the local model answer, and the next time routes around it', async () => {
    const { session, acme } = await openWithStrongDown();
    const { calls, state } = setUp();
    const ask = { feature: 'Rung Auto', messages: hello, climbWhenAskedAgain: true };
    await calls.prepare(ask).run(session);
    const said: string[] = [];
    const first = await calls.prepare(ask).run(session, undefined, (sentence) => said.push(sentence));
    expect(first.result.answer?.text).toBe('small says hello');
    expect(first.fellBack).toBe('acme is unreachable (connection refused at http://127.0.0.1:9); small answers instead.');
    expect(said).toEqual(['acme is unreachable (connection refused at http://127.0.0.1:9); asking the ladder as before.']);
    // Asked once more, the ladder knows acme is down: nothing stronger is eligible, so the local model answers, no dead end.
    const second = await calls.prepare(ask).run(session);
    expect(second.result.answer?.text).toBe('small says hello');
    expect(second.result.ranking.pruned).toEqual([
      expect.objectContaining({ model: 'large', reason: expect.stringContaining('provider acme unavailable') }),
    ]);
    expect(acme.calls).toBe(1);
    expect(state.recorded.at(-1)?.model).toBe('small');
  });

  it("does not fall back on a graded retry: the user set that model's answer aside", async () => {
    const { session } = await openWithStrongDown();
    const { calls } = setUp();
    const retry = await calls.prepare({ feature: '@rung', messages: hello, above: 'small' }).run(session);
    expect(retry.result.answer).toBeUndefined();
    expect(retry.fellBack).toBeUndefined();
  });
});
