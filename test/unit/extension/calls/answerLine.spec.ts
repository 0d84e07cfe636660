import { describe, expect, it } from 'vitest';
import type { Candidate, Ranking, Tier } from '../../../../src/core/routing/types';
import type { SessionChatResult } from '../../../../src/core/session/types';
import {
  answerFooter,
  answerLine,
  callLogLine,
  hasStrongerRung,
  plainAnswerLine,
  summarizeAnswer,
  withoutFooter,
  type AnsweredSummary,
} from '../../../../src/extension/calls/answerLine';

function candidate(slug: string, overrides: Partial<Candidate> = {}): Candidate {
  return {
    slug,
    provider: slug.includes('/') ? 'openrouter' : 'ollama',
    spec: {
      slug,
      provider: slug.includes('/') ? 'openrouter' : 'ollama',
      ...(slug.includes('/') ? { price: { input: 0.15, output: 0.6 } } : {}),
    },
    tier: slug.includes('/') ? 4 : 2,
    local: !slug.includes('/'),
    resolved: slug,
    ability: 0.62,
    graded: 3,
    ok: 2,
    measured: false,
    cost: 0,
    reason: 'no-measured-profiles tier2',
    ...overrides,
  };
}

const ranking: Ranking = {
  classKey: 'plan',
  candidates: [
    candidate('qwen3:14b'),
    candidate('openai/gpt-4o-mini', { ability: 0.9, graded: 10, ok: 9, measured: true, reason: 'measured 9/10 success class=plan' }),
  ],
  pruned: [{ model: 'anthropic/claude-opus-4', reason: 'pruned: output price 75.00 > cap 20.00' }],
};

const climbed: SessionChatResult = {
  callId: 'c1',
  classKey: 'plan',
  answer: { text: '{}', reasoning: '', toolCalls: [], model: 'openai/gpt-4o-mini', resolvedModel: 'openai/gpt-4o-mini-2024-07-18' },
  attempts: [
    {
      model: 'qwen3:14b',
      provider: 'ollama',
      rung: 0,
      verdict: { kind: 'fail', reason: 'no JSON found' },
      resolvedModel: 'qwen3:14b',
      cost: 0,
      latencyMs: 10,
      explore: false,
      checks: [],
    },
    {
      model: 'openai/gpt-4o-mini',
      provider: 'openrouter',
      rung: 1,
      verdict: { kind: 'pass', reason: 'matches the schema' },
      resolvedModel: 'x',
      cost: 0.00039,
      latencyMs: 10,
      explore: false,
      checks: [],
    },
  ],
  ranking,
  stopped: false,
  interrupted: false,
  cost: 0.00039,
  checks: ['JSON schema'],
  checked: 'checked: JSON schema',
};

describe('the words about a finished call', () => {
  it('names the model that answered, the reason it was chosen, what was tried before it, and ends with the short line', () => {
    const line = (result: SessionChatResult, options: { above?: string } = {}) => answerLine(summarizeAnswer(result, options));
    expect(line(climbed)).toBe(
      'Answered by **openai/gpt-4o-mini** (openrouter) for `plan` — 9 of 10 graded answers passed in plan. Tried before it: qwen3:14b (fail: no JSON found).\n\nRung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
    expect(
      line({
        ...climbed,
        answer: { ...(climbed.answer as NonNullable<SessionChatResult['answer']>), model: 'qwen3:14b' },
        attempts: climbed.attempts.slice(0, 1),
      }),
    ).not.toContain('Tried before it');
    expect(line({ ...climbed, answer: undefined })).toBe(
      'No answer stands: the last attempt, openai/gpt-4o-mini, ended pass: matches the schema. Left out of this call: anthropic/claude-opus-4 (pruned: output price 75.00 > cap 20.00).',
    );
    expect(line(climbed, { above: 'llama3.2:1b' })).toContain(
      '— 9 of 10 graded answers passed in plan. Asked again above llama3.2:1b: the rungs at or below it were left out. Tried before it:',
    );
    expect(line({ ...climbed, answer: undefined, stopped: true })).toBe('Stopped.');
  });

  it('names what was left out of a call no rung answered, the first three and a count of the rest', () => {
    const failed: SessionChatResult = {
      callId: 'c2',
      classKey: 'chat',
      answer: undefined,
      attempts: [
        {
          model: 'qwen3:14b',
          provider: 'ollama',
          rung: 0,
          verdict: { kind: 'provider-error', reason: 'ollama: no server at http://127.0.0.1:11434' },
          resolvedModel: 'qwen3:14b',
          cost: 0,
          latencyMs: 5,
          explore: false,
          checks: [],
        },
      ],
      ranking: { classKey: 'chat', candidates: [candidate('qwen3:14b')], pruned: [] },
      stopped: false,
      interrupted: false,
      cost: 0,
      checks: [],
      checked: 'unchecked',
    };
    expect(answerLine(summarizeAnswer(failed))).toBe(
      'No answer stands: the last attempt, qwen3:14b, ended provider-error: ollama: no server at http://127.0.0.1:11434.',
    );
    const keyless = (model: string) => ({
      model,
      reason: 'pruned: provider openrouter unavailable: openrouter: no API key (run "Rung: Set Provider Key" for openrouter)',
    });
    const pruned = ['openai/gpt-4o-mini', 'openai/gpt-4o', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-pro', 'x-ai/grok-4'].map(
      keyless,
    );
    const footer = answerLine(summarizeAnswer({ ...failed, ranking: { ...failed.ranking, pruned } }));
    expect(footer).toContain(
      '. Left out of this call: openai/gpt-4o-mini (openrouter cannot answer now: no API key (run "Rung: Set Provider Key" for openrouter)); openai/gpt-4o (',
    );
    expect(footer).toMatch(/anthropic\/claude-sonnet-4 \([^;]*\); and 2 more\.$/);
    expect(footer).not.toContain('gemini');
    expect(answerLine(summarizeAnswer({ ...failed, attempts: [] }))).toBe('No rung could take this chat call.');
  });

  it('tells an answer a check judged from one nothing could check', () => {
    const checked = summarizeAnswer(climbed);
    expect(checked).toMatchObject({ kind: 'answered', model: 'openai/gpt-4o-mini', rung: 2, rungs: 2, checked: true, cost: 0.00039 });
    const unverified = {
      ...climbed,
      attempts: [
        climbed.attempts[0],
        {
          ...(climbed.attempts[1] as SessionChatResult['attempts'][number]),
          verdict: { kind: 'unverified' as const, reason: 'no verifier configured' },
        },
      ],
    } as SessionChatResult;
    expect(summarizeAnswer(unverified)).toMatchObject({
      kind: 'answered',
      checked: false,
      check: { kind: 'unverified', reason: 'no verifier configured' },
    });
  });

  it('says the closing line without Markdown for a notification, on one line', () => {
    expect(plainAnswerLine(summarizeAnswer(climbed))).toBe(
      'Answered by openai/gpt-4o-mini (openrouter) for plan — 9 of 10 graded answers passed in plan. Tried before it: qwen3:14b (fail: no JSON found). Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
  });

  it('ends every answer with one short line: the model, its rung, the check or that there was none, the cost', () => {
    const checked = summarizeAnswer(climbed) as AnsweredSummary;
    expect(answerFooter(checked)).toBe(
      'Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
    const unchecked = summarizeAnswer({
      ...climbed,
      answer: { ...(climbed.answer as NonNullable<SessionChatResult['answer']>), model: 'qwen3:14b' },
      attempts: [
        {
          ...(climbed.attempts[0] as SessionChatResult['attempts'][number]),
          verdict: { kind: 'unverified', reason: 'no verifier configured' },
        },
      ],
      cost: 0,
      checks: [],
      checked: 'unchecked',
    }) as AnsweredSummary;
    expect(answerFooter(unchecked)).toBe('Rung · qwen3:14b · rung 1 of 2 · unchecked · $0');
    // Where the one click is the editor's own Retry (Rung Auto), the line says what it does.
    expect(answerFooter(unchecked, { retryClimbs: true })).toBe(
      'Rung · qwen3:14b · rung 1 of 2 · unchecked · $0 · Retry asks a stronger model',
    );
    // A checked answer, or one with nothing above it, offers no climb.
    expect(answerFooter(checked, { retryClimbs: true })).not.toContain('Retry');
    expect(answerFooter({ ...unchecked, stronger: false }, { retryClimbs: true })).not.toContain('Retry');
  });

  it("says the session's cost beside the answer's once earlier answers cost something, and the line still comes off", () => {
    const first = summarizeAnswer(climbed, { sessionCost: climbed.cost }) as AnsweredSummary;
    expect(answerFooter(first)).toBe(
      'Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
    const later = summarizeAnswer(climbed, { sessionCost: 0.041 }) as AnsweredSummary;
    const footer = answerFooter(later, { retryClimbs: true });
    expect(footer).toBe(
      'Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004 · session $0.041',
    );
    expect(withoutFooter(`The answer is 42.\n\n${footer}`)).toBe('The answer is 42.');
  });

  it('says after a climb which try answered and how each model before it ended, not its place in a ladder of one', () => {
    const third = summarizeAnswer({
      ...climbed,
      attempts: [
        {
          ...(climbed.attempts[0] as SessionChatResult['attempts'][number]),
          model: 'tiny:1b',
          verdict: { kind: 'provider-error', reason: 'ollama: no server at http://127.0.0.1:11434' },
        },
        climbed.attempts[0] as SessionChatResult['attempts'][number],
        { ...(climbed.attempts[1] as SessionChatResult['attempts'][number]), rung: 2 },
      ],
    }) as AnsweredSummary;
    expect(answerFooter(third)).toBe(
      'Rung · openai/gpt-4o-mini · 3rd try, after tiny:1b had a provider error and qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
    // The same request asked again above a model is a new call whose ranking holds only the rungs above it: "rung 1 of 1" said nothing true.
    const again = summarizeAnswer(
      {
        ...climbed,
        attempts: climbed.attempts.slice(1).map((attempt) => ({ ...attempt, rung: 0 })),
        ranking: { ...ranking, candidates: ranking.candidates.slice(1) },
      },
      { above: 'qwen3:14b' },
    ) as AnsweredSummary;
    expect(answerFooter(again)).toBe('Rung · openai/gpt-4o-mini · asked again above qwen3:14b · checked: JSON schema · $0.0004');
    expect(answerFooter(summarizeAnswer(climbed, { above: 'tiny:1b' }) as AnsweredSummary)).toBe(
      'Rung · openai/gpt-4o-mini · asked again above tiny:1b; 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
  });

  it('says what the tool schemas took of the input when they are most of it', () => {
    const agent = summarizeAnswer({
      ...climbed,
      tools: { sent: 39, tokens: 14_420, input: 18_130, dropped: [], cost: 0.0433 },
    }) as AnsweredSummary;
    expect(answerFooter(agent, { retryClimbs: true })).toBe(
      'Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004 · 39 tools ≈ 14k of 18k input tokens',
    );
    // The editor sends the answer back with its line: the tools figure does not keep the line on it.
    expect(withoutFooter(`The answer is 42.\n\n${answerFooter(agent)}`)).toBe('The answer is 42.');
    // A few small tools beside a long conversation are not what the call cost.
    const few = summarizeAnswer({
      ...climbed,
      tools: { sent: 2, tokens: 300, input: 18_130, dropped: [], cost: 0.0009 },
    }) as AnsweredSummary;
    expect(answerFooter(few)).toBe(
      'Rung · openai/gpt-4o-mini · 2nd try, after qwen3:14b failed its check · checked: JSON schema · $0.0004',
    );
  });

  it('takes its own closing line off an answer the editor sends back, and nothing else', () => {
    const footer = answerFooter(summarizeAnswer(climbed) as AnsweredSummary);
    expect(withoutFooter(`The answer is 42.\n\n${footer}`)).toBe('The answer is 42.');
    expect(withoutFooter(`The answer is 42.\n\n${footer} · Retry asks a stronger model\n`)).toBe('The answer is 42.');
    expect(withoutFooter('The answer is 42.')).toBe('The answer is 42.');
    // A line written before the climb was said in words, in a conversation the editor sends back, goes too.
    expect(withoutFooter('The answer is 42.\n\nRung · cloud · rung 1 of 1 · unchecked · $0')).toBe('The answer is 42.');
    expect(
      withoutFooter('The answer is 42.\n\nRung · cloud · asked again above small · unchecked · $0 · Retry asks a stronger model'),
    ).toBe('The answer is 42.');
    // A line that only looks like one, in the middle of an answer, stays.
    expect(withoutFooter(`Rung · is a word here\nand the answer goes on.`)).toBe('Rung · is a word here\nand the answer goes on.');
  });

  it('says, when the wait moved the opener, which model money alone would have opened on and why not, and takes that off too', () => {
    const opener = climbed.attempts[1] as SessionChatResult['attempts'][number];
    const forWait = summarizeAnswer({
      ...climbed,
      attempts: [
        {
          ...opener,
          rung: 1,
          openedForWait: {
            model: 'qwen3:14b',
            graded: 9,
            ok: 1,
            classKey: 'edit',
            meanMs: 3100,
            queuedMs: 0,
            queuedCalls: 0,
            waitWorth: 0.1,
          },
        },
      ],
    }) as AnsweredSummary;
    const footer = answerFooter(forWait, { retryClimbs: true });
    expect(footer).toBe(
      'Rung · openai/gpt-4o-mini · rung 2 of 2 · checked: JSON schema · $0.0004 · opened on openai/gpt-4o-mini: qwen3:14b passed 1 of 9 edits, and each failed try cost you about 3.1 s',
    );
    expect(withoutFooter(`The answer is 42.\n\n${footer}`)).toBe('The answer is 42.');
  });

  it('logs a call as one line: the feature, the call, its chain, how it ended and the cost', () => {
    expect(callLogLine('Ask', summarizeAnswer(climbed))).toBe(
      'Ask c1 plan over [qwen3:14b, openai/gpt-4o-mini]: answered by openai/gpt-4o-mini on rung 2 of 2 after qwen3:14b, pass: matches the schema, $0.0004',
    );
    const unverified = {
      ...climbed,
      attempts: climbed.attempts
        .slice(0, 1)
        .map((attempt) => ({ ...attempt, verdict: { kind: 'unverified' as const, reason: 'no verifier configured' } })),
      answer: { ...(climbed.answer as NonNullable<SessionChatResult['answer']>), model: 'qwen3:14b' },
    };
    expect(callLogLine('Rung Auto', summarizeAnswer(unverified), 'a retry above tiny')).toBe(
      'Rung Auto c1 plan over [qwen3:14b, openai/gpt-4o-mini]: answered by qwen3:14b on rung 1 of 2, unchecked (unverified: no verifier configured), $0.0004; a retry above tiny',
    );
    expect(callLogLine('@rung', summarizeAnswer({ ...climbed, answer: undefined }))).toBe(
      '@rung c1 plan over [qwen3:14b, openai/gpt-4o-mini]: no answer stands (last: openai/gpt-4o-mini, pass: matches the schema), $0.0004',
    );
    expect(callLogLine('Edit Selection', summarizeAnswer({ ...climbed, answer: undefined, stopped: true }))).toContain(
      ': stopped by the user, $0.0004',
    );
  });
});

describe('a stronger rung', () => {
  function ladderCandidate(slug: string, tier: Tier, cost: number | null): Candidate {
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
      cost,
      reason: '',
    };
  }

  function answeredBy(model: string, candidates: Candidate[]): Parameters<typeof hasStrongerRung>[0] {
    return { answer: { model }, ranking: { classKey: 'chat', candidates, pruned: [] } };
  }

  it('is found only where the ladder puts an eligible one above the answering model', () => {
    const ladder = [ladderCandidate('small', 1, 0), ladderCandidate('mid', 2, 0), ladderCandidate('cloud', 4, 0.002)];
    expect(hasStrongerRung(answeredBy('small', ladder))).toBe(true);
    expect(hasStrongerRung(answeredBy('cloud', ladder))).toBe(false);
    // The order of the ranking is not the ladder: a retry's ranking may put the top first.
    expect(hasStrongerRung(answeredBy('cloud', [ladder[2] as Candidate, ladder[0] as Candidate]))).toBe(false);
    expect(hasStrongerRung({ answer: undefined, ranking: { classKey: 'chat', candidates: ladder, pruned: [] } })).toBe(false);
  });
});
