import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatLogprob } from '../../../../src/core/confidence/confidenceClimb';
import { MIN_CONFIDENCE_GRADED } from '../../../../src/core/confidence/confidenceLearner';
import { parseDecisionLines } from '../../../../src/core/decisions/decision';
import { parsePanel, type Panel } from '../../../../src/core/panel';
import { RungSession } from '../../../../src/core/session/session';
import type { ConfidenceCheckMode, SessionChatResult } from '../../../../src/core/session/types';
import { FixedClock } from '../../support/FixedClock';
import { makeTempDir } from '../../support/tempDir';
import { fixture, json, replay, WireServer, type Route, type SeenRequest } from '../../support/wireServer';

const KEY = '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';
const sse = { contentType: 'text/event-stream' };
const schema = {
  type: 'object',
  required: ['city', 'population'],
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
};

/** log P("Y") in the recorded Ollama question: "Y" and "Yes" among the alternatives, summed. */
const OLLAMA_YES = Math.log(Math.exp(-0.014218) + Math.exp(-9.01722));
/** log P("Y") in the OpenAI question: "N" was chosen and "Y" came second. */
const OPENAI_YES = -1.3132617;

let dir: ReturnType<typeof makeTempDir>;
const servers: WireServer[] = [];
const sessions: RungSession[] = [];

beforeEach(() => {
  dir = makeTempDir('rung-confidence-');
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  dir.remove();
});

/** Whether a request is the confidence check's question (its system message, as JSON carries it). */
const isQuestion = (request: SeenRequest): boolean => request.body.includes('judge whether a proposed answer to a request is correct');

/** Answers the confidence question with `question` and every other chat with `answer`. */
const chat =
  (answer: Route, question: Route): Route =>
  (response, request) =>
    (isQuestion(request) ? question : answer)(response, request);

const ollamaAnswer = () => replay(fixture('ollama/chat-prose-instead-of-json.ndjson'));
const ollamaYes = () => replay(fixture('ollama/chat-self-check-logprobs.ndjson'));
/** The recorded shape of the Ollama question with "Y" made near certain (log-probability −2e−6), for answers the model was sure of. */
const ollamaSureYes = () => replay(fixture('ollama/chat-self-check-logprobs.ndjson').replaceAll('-0.014218', '-0.000002'));
const cloudAnswer = () => replay(fixture('openai/chat-normal.sse'), sse);
const cloudNo = () => replay(fixture('openai/chat-self-check-top-logprobs.sse'), sse);
/** The question's cost as OpenRouter reports it in the usage (the recording, from OpenAI itself, has none). */
const QUESTION_USD = 0.0000147;
const cloudNoPriced = () =>
  replay(
    fixture('openai/chat-self-check-top-logprobs.sse').replace('"total_tokens":97}', `"total_tokens":97,"cost":${QUESTION_USD}}`),
    sse,
  );

/** A local Ollama (free) below a keyed OpenRouter stand-in, both on 127.0.0.1, and the panel over them. */
async function providers(ollamaChat: Route, cloudChat: Route): Promise<{ ollama: WireServer; cloud: WireServer; panel: Panel }> {
  const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', ollamaChat);
  const cloud = new WireServer()
    .on('POST', '/api/v1/chat/completions', cloudChat)
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  servers.push(ollama, cloud);
  const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
  const panel = parsePanel(
    {
      models: [
        { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
        { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
      ],
      routing: { explore: 0 },
      providers: {
        ollama: { kind: 'ollama', baseUrl: ollamaUrl },
        openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
      },
    },
    'confidence panel',
  );
  return { ollama, cloud, panel };
}

async function open(panel: Panel, confidenceCheck?: ConfidenceCheckMode): Promise<RungSession> {
  const session = await RungSession.open({
    clock: new FixedClock(),
    keys: async (provider) => (provider === 'openrouter' ? KEY : undefined),
    store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') },
    panel,
    ...(confidenceCheck ? { confidenceCheck } : {}),
  });
  sessions.push(session);
  return session;
}

const ask = (session: RungSession): Promise<SessionChatResult> => session.chat({ messages: [{ role: 'user', content: 'Describe Paris' }] });

/** Answers `times` calls on the local model and grades each as the user would, then closes the session. */
async function gradeLocalAnswers(panel: Panel, correct: boolean, times: number): Promise<void> {
  const session = await open(panel);
  for (let i = 0; i < times; i++) {
    const result = await ask(session);
    expect(result.answer?.model).toBe('qwen2.5:3b');
    session.settle(result.callId, { kind: correct ? 'pass' : 'fail', reason: correct ? 'thumbs up' : 'thumbs down' });
  }
  sessions.splice(sessions.indexOf(session), 1);
  await session.dispose();
}

function decisionRows() {
  return parseDecisionLines(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8')).rows;
}

describe('the confidence check in a session', () => {
  it('reads the confidence of a chat answer, keeps it on the answer and the decision row, and lets the answer stand unjudged before any grade', async () => {
    const { ollama, cloud, panel } = await providers(chat(ollamaAnswer(), ollamaYes()), cloudAnswer());
    const session = await open(panel);
    const result = await ask(session);
    await session.dispose();
    expect(result.answer).toMatchObject({ model: 'qwen2.5:3b' });
    expect(result.answer?.confidence).toBeCloseTo(OLLAMA_YES, 9);
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]?.confidence).toBeCloseTo(OLLAMA_YES, 9);
    expect(result.attempts[0]?.verdict).toEqual({
      kind: 'unverified',
      reason: `confidence ${formatLogprob(OLLAMA_YES)} read, not judged: no learned threshold yet for qwen2.5:3b in chat (0 of ${MIN_CONFIDENCE_GRADED} graded answers)`,
    });
    // The question went to the model that answered, for one token with its alternatives; the cloud was never asked.
    const question = ollama.requests.filter(isQuestion).map((request) => JSON.parse(request.body));
    expect(question).toHaveLength(1);
    expect(question[0]).toMatchObject({ model: 'qwen2.5:3b', logprobs: true, top_logprobs: 5, options: { num_predict: 1 } });
    expect(question[0]?.messages.at(-1)?.content).toContain('Describe Paris');
    expect(cloud.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(decisionRows().map((row) => [row.model, row.verdict, row.confidence])).toEqual([
      ['qwen2.5:3b', 'unverified', result.attempts[0]?.confidence],
    ]);
    // Read but not judged: nothing checked the answer, and the result says so.
    expect([result.checks, result.checked, result.attempts[0]?.checks]).toEqual([[], 'unchecked', []]);
  });

  it("judges the local model's answer once its grades are kept in the ledger, and passes one as sure as those that were right", async () => {
    let question = ollamaSureYes();
    const { cloud, panel } = await providers(
      chat(ollamaAnswer(), (response, request) => question(response, request)),
      cloudAnswer(),
    );
    // Right whenever it was sure, wrong when it was less sure: what it says can change the call, so it is asked.
    await gradeLocalAnswers(panel, true, MIN_CONFIDENCE_GRADED);
    question = ollamaYes();
    await gradeLocalAnswers(panel, false, 3);
    question = ollamaSureYes();
    // A new session: what the learner knows came back from the ledger file.
    const result = await ask(await open(panel));
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['qwen2.5:3b', 'pass']]);
    expect(result.attempts[0]?.verdict.reason).toMatch(/^confidence \S+ ≥ learned threshold .* for qwen2\.5:3b in chat/);
    expect([result.checks, result.checked, result.attempts[0]?.checks]).toEqual([['confidence'], 'checked: confidence', ['confidence']]);
    expect(decisionRows().at(-1)).toMatchObject({ model: 'qwen2.5:3b', verdict: 'pass', checks: ['confidence'] });
    expect(cloud.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it("takes the local model's answer without asking, once it would accept whatever the model said", async () => {
    const { ollama, panel } = await providers(chat(ollamaAnswer(), ollamaYes()), cloudAnswer());
    await gradeLocalAnswers(panel, true, MIN_CONFIDENCE_GRADED);
    const asked = ollama.requests.filter(isQuestion).length;
    const result = await ask(await open(panel));
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['qwen2.5:3b', 'unverified']]);
    expect(result.attempts[0]?.verdict.reason).toMatch(
      /^confidence not read for qwen2\.5:3b: nothing it could say would change the call \(P\(right\) 0\.\d\d unread\)$/,
    );
    expect(ollama.requests.filter(isQuestion)).toHaveLength(asked);
    expect(result.answer).not.toHaveProperty('confidence');
  });

  it('stops judging a class by counts the user reset', async () => {
    let question = ollamaSureYes();
    const { panel } = await providers(
      chat(ollamaAnswer(), (response, request) => question(response, request)),
      cloudAnswer(),
    );
    await gradeLocalAnswers(panel, true, MIN_CONFIDENCE_GRADED);
    question = ollamaYes();
    await gradeLocalAnswers(panel, false, 3);
    question = ollamaSureYes();
    const session = await open(panel);
    expect((await ask(session)).attempts[0]?.verdict.kind).toBe('pass');
    await session.resetClass('chat');
    expect((await ask(session)).attempts[0]?.verdict.reason).toContain(
      `not judged: no learned threshold yet for qwen2.5:3b in chat (0 of ${MIN_CONFIDENCE_GRADED} graded answers)`,
    );
  });

  it('climbs from a local answer as unsure as ones that were wrong before, and lets the next rung stand unjudged while it has no grades', async () => {
    let question = ollamaSureYes();
    const { cloud, panel } = await providers(
      chat(ollamaAnswer(), (response, request) => question(response, request)),
      chat(cloudAnswer(), cloudNo()),
    );
    // Right whenever it was sure, and wrong the three times it stated the confidence it states now.
    await gradeLocalAnswers(panel, true, MIN_CONFIDENCE_GRADED);
    question = ollamaYes();
    await gradeLocalAnswers(panel, false, 3);
    const result = await ask(await open(panel, 'all'));
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['qwen2.5:3b', 'fail'],
      ['openai/gpt-4o-mini', 'unverified'],
    ]);
    expect(result.attempts[0]?.verdict.reason).toMatch(
      new RegExp(`^confidence ${formatLogprob(OLLAMA_YES)} < .* for qwen2\\.5:3b in chat .*climbing to openai/gpt-4o-mini`),
    );
    expect(result.attempts[1]?.verdict.reason).toBe(
      `confidence ${formatLogprob(OPENAI_YES)} read, not judged: no learned threshold yet for openai/gpt-4o-mini in chat (0 of ${MIN_CONFIDENCE_GRADED} graded answers)`,
    );
    expect(result.answer).toMatchObject({ model: 'openai/gpt-4o-mini', confidence: OPENAI_YES });
    // The cloud's question was asked with its key, like its answer, and its price counted in the attempt.
    const questions = cloud.requests.filter(isQuestion);
    expect(questions).toHaveLength(1);
    expect(JSON.parse(questions[0]?.body ?? '{}')).toMatchObject({ logprobs: true, top_logprobs: 5, max_tokens: 1 });
  });

  it('says there is no confidence from a model whose server sends no log-probabilities, leaves the answer unchecked, and does not ask it again', async () => {
    const { ollama, panel } = await providers(ollamaAnswer(), cloudAnswer());
    const session = await open(panel);
    const first = await ask(session);
    const second = await ask(session);
    expect(first.attempts.map((attempt) => attempt.verdict)).toEqual([
      { kind: 'unverified', reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities' },
    ]);
    expect(second.attempts.map((attempt) => attempt.verdict)).toEqual([
      {
        kind: 'unverified',
        reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities when asked before in this session',
      },
    ]);
    expect(first.answer).toMatchObject({ model: 'qwen2.5:3b' });
    expect(first.answer).not.toHaveProperty('confidence');
    expect(ollama.requests.filter(isQuestion)).toHaveLength(1);
  });

  it('keeps the answer, with no confidence, when the log-probabilities of the question are malformed', async () => {
    const malformed = [
      '{"model":"qwen2.5:3b","message":{"role":"assistant","content":"Y"},"done":false,"logprobs":[{"token":"Y","logprob":"very sure"}]}',
      '{"model":"qwen2.5:3b","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","prompt_eval_count":80,"eval_count":1}',
    ].join('\n');
    const { panel } = await providers(chat(ollamaAnswer(), replay(`${malformed}\n`)), cloudAnswer());
    const result = await ask(await open(panel));
    expect(result.answer?.text).toContain('Paris');
    expect(result.answer).not.toHaveProperty('confidence');
    expect(result.attempts.map((attempt) => attempt.verdict)).toEqual([
      { kind: 'unverified', reason: 'no confidence from qwen2.5:3b: its server sent no log-probabilities' },
    ]);
  });

  it("lets the model's own word decide the climb but counts it in no rating, so the user's later grade still does", async () => {
    // A server that says "Y" at log-probability 0 to every question: certain, whatever the answer.
    const alwaysYes = () => replay(fixture('ollama/chat-self-check-logprobs.ndjson').replaceAll('-0.014218', '0'));
    const { panel } = await providers(chat(ollamaAnswer(), alwaysYes()), cloudAnswer());
    await gradeLocalAnswers(panel, true, MIN_CONFIDENCE_GRADED);
    const graded = (session: RungSession): number | undefined =>
      session.snapshot({ limit: 0 }).ratings.find((rating) => rating.model === 'qwen2.5:3b' && rating.classKey === 'chat')?.graded;
    const session = await open(panel);
    expect(graded(session)).toBe(MIN_CONFIDENCE_GRADED);
    let last: SessionChatResult | undefined;
    for (let call = 0; call < 6; call++) {
      last = await ask(session);
      // Every graded answer was right, so the plan accepts this one whatever its word: it is taken unread,
      // and neither a read nor the answer counts in a rating until the user grades it.
      expect(last.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['qwen2.5:3b', 'unverified']]);
    }
    expect(graded(session)).toBe(MIN_CONFIDENCE_GRADED);
    session.settle(last?.callId as string, { kind: 'fail', reason: 'thumbs down' });
    expect(graded(session)).toBe(MIN_CONFIDENCE_GRADED + 1);
  });

  it('refuses a log-probability above 0, or one that is not a number, as no confidence', async () => {
    // JSON reads -1e999 as -Infinity; 0.5 would be a probability of 1.6.
    for (const written of ['0.5', '-1e999']) {
      const question = () =>
        replay(fixture('ollama/chat-self-check-logprobs.ndjson').replace('"logprob":-0.014218', `"logprob":${written}`));
      const { panel } = await providers(chat(ollamaAnswer(), question()), cloudAnswer());
      const result = await ask(await open(panel));
      expect(result.answer, written).not.toHaveProperty('confidence');
      expect(result.attempts[0]?.verdict.kind, written).toBe('unverified');
      expect(result.attempts[0]?.verdict.reason, written).toMatch(
        written === '0.5'
          ? /^no confidence from qwen2\.5:3b: its server sent a log-probability above 0 or not a number, which no probability has$/
          : /^no confidence from qwen2\.5:3b: its server sent /,
      );
    }
  });

  it('asks a paid model nothing by default (local), and asks it with all, adding the question to its cost', async () => {
    const { cloud, panel } = await providers(chat(ollamaAnswer(), ollamaYes()), chat(cloudAnswer(), cloudNoPriced()));
    const pinned = (session: RungSession): Promise<SessionChatResult> =>
      session.chat({ messages: [{ role: 'user', content: 'Describe Paris' }], pinned: 'openai/gpt-4o-mini' });
    const local = await pinned(await open(panel));
    expect(local.attempts.map((attempt) => [attempt.model, attempt.verdict])).toEqual([
      [
        'openai/gpt-4o-mini',
        {
          kind: 'unverified',
          reason:
            'no confidence from openai/gpt-4o-mini: not asked, since it is not on a local provider and the confidence check is "local" ("all" asks paid models too)',
        },
      ],
    ]);
    expect(local.answer).not.toHaveProperty('confidence');
    expect(cloud.requests.filter(isQuestion)).toHaveLength(0);
    const all = await pinned(await open(panel, 'all'));
    expect(all.attempts[0]?.verdict.reason).toContain(`confidence ${formatLogprob(OPENAI_YES)} read, not judged`);
    expect(all.answer?.confidence).toBe(OPENAI_YES);
    expect(cloud.requests.filter(isQuestion)).toHaveLength(1);
    // The same answer, with the question's price on top.
    expect(all.attempts[0]?.cost).toBeCloseTo((local.attempts[0]?.cost ?? Number.NaN) + QUESTION_USD, 12);
  });

  it('asks a local model by default, as with all', async () => {
    const { ollama, panel } = await providers(chat(ollamaAnswer(), ollamaYes()), cloudAnswer());
    const result = await ask(await open(panel, 'local'));
    expect(result.answer?.confidence).toBeCloseTo(OLLAMA_YES, 9);
    expect(ollama.requests.filter(isQuestion)).toHaveLength(1);
  });

  it('does not ask for confidence where another check judges the call, or when the session was opened without the check', async () => {
    const { ollama, panel } = await providers(chat(ollamaAnswer(), ollamaYes()), cloudAnswer());
    const session = await open(panel);
    await session.chat({ messages: [{ role: 'user', content: 'Describe Paris' }], checks: { schema } });
    expect(ollama.requests.filter(isQuestion)).toHaveLength(0);
    // Checks the request implies, with no check from the caller: JSON asked for in words, code asked for.
    const json = await session.chat({ messages: [{ role: 'user', content: 'Return the city and its population as a JSON object.' }] });
    expect(json.attempts[0]?.verdict.reason).not.toContain('confidence');
    const code = await session.chat({ messages: [{ role: 'user', content: 'Write a TypeScript function that adds two numbers.' }] });
    expect(code.attempts[0]?.verdict.reason).not.toContain('confidence');
    // An edit in a language no syntax check reads is checked only for having code: still checked, and that check is kept.
    const python = await session.chat({ messages: [{ role: 'user', content: 'Describe Paris' }], classKey: 'edit/python' });
    expect(python.attempts[0]?.verdict.reason).toContain('the edit has neither a code block nor a tool call');
    expect(ollama.requests.filter(isQuestion)).toHaveLength(0);
    const without = await RungSession.open({
      clock: new FixedClock(),
      keys: async () => KEY,
      store: { kind: 'file', path: join(dir.path, 'other', 'ledger.sqlite') },
      panel,
      confidenceCheck: 'off',
    });
    sessions.push(without);
    const result = await ask(without);
    expect(result.attempts.map((attempt) => attempt.verdict)).toEqual([{ kind: 'unverified', reason: 'no verifier configured' }]);
    expect(ollama.requests.filter(isQuestion)).toHaveLength(0);
  });
});
