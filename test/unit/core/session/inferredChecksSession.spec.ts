import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDecisionLines } from '../../../../src/core/decisions/decision';
import { parsePanel } from '../../../../src/core/panel';
import type { ChatMessage, ToolCall, ToolSpec } from '../../../../src/core/providers/provider';
import { RungSession } from '../../../../src/core/session/session';
import type { SessionChatRequest, SessionEvent } from '../../../../src/core/session/types';
import { FixedClock } from '../../support/FixedClock';
import { MockProvider } from '../../support/MockProvider';

const sessions: RungSession[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
});

/** A small model and a strong one behind one scripted provider; the small one is the cheaper opener. */
async function open(
  provider: MockProvider,
  routing: Record<string, unknown> = { explore: 0 },
  random?: () => number,
): Promise<RungSession> {
  const panel = parsePanel(
    {
      models: [
        { slug: 'small', provider: 'editor', role: 'base', price: { input: 0.1, output: 0.1 }, tools: true },
        { slug: 'strong', provider: 'editor', role: 'top', price: { input: 1, output: 4 }, tools: true },
      ],
      routing,
      providers: { editor: { kind: 'vscode-lm' } },
    },
    'mock panel',
  );
  const session = await RungSession.open({
    panel,
    clock: new FixedClock(),
    keys: async () => undefined,
    providerFactories: { 'vscode-lm': () => provider },
    ...(random ? { random } : {}),
  });
  sessions.push(session);
  return session;
}

const user = (content: string): ChatMessage[] => [{ role: 'user', content }];
const call = (name: string, args: string): ToolCall => ({ id: `call-${name}`, name, arguments: args });
const replaceString: ToolSpec = {
  name: 'replace_string_in_file',
  description: 'Replace a string in a file',
  parameters: {
    type: 'object',
    properties: { filePath: { type: 'string' }, oldString: { type: 'string' }, newString: { type: 'string' } },
    required: ['filePath', 'oldString', 'newString'],
  },
};
const readFile: ToolSpec = {
  name: 'read_file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

async function chat(session: RungSession, request: SessionChatRequest) {
  const events: SessionEvent[] = [];
  const result = await session.chat(request, (event) => events.push(event));
  const escalations = events.flatMap((event) => (event.type === 'escalated' ? [event.reason] : []));
  return { result, escalations, rows: session.explain(result.callId) };
}

describe('checks inferred from the request: JSON', () => {
  it("fails a small model's invalid JSON when the words ask for JSON, and climbs to the next rung, which passes", async () => {
    const provider = new MockProvider('editor')
      .on('small', 'Here you go:\n```json\n{"city": "Paris", "population": 2102650,}\n```')
      .on('strong', '{"city": "Paris", "population": 2102650}');
    const session = await open(provider);
    const { result, escalations, rows } = await chat(session, {
      messages: user('Return the capital of France and its population as a JSON object.'),
    });

    expect(result.classKey).toBe('plan');
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind, attempt.checks])).toEqual([
      ['small', 'fail', ['JSON']],
      ['strong', 'pass', ['JSON']],
    ]);
    expect(escalations).toEqual([
      'escalated from small to strong: invalid JSON in the ```json block at line 2: Expected double-quoted property name at line 3 column 41',
    ]);
    expect(result.answer?.model).toBe('strong');
    expect(result.checks).toEqual(['JSON']);
    expect(result.checked).toBe('checked: JSON');
    expect(rows.map((row) => [row.model, row.verdict, row.checks])).toEqual([
      ['small', 'fail', ['JSON']],
      ['strong', 'pass', ['JSON']],
    ]);
  });

  it('checks for JSON when the caller sets a JSON response format, whatever the words', async () => {
    const provider = new MockProvider('editor').on('small', 'Paris, about two million people.').on('strong', '["Paris", 2102650]');
    const session = await open(provider);
    const { result } = await chat(session, { messages: user('Capital of France and its population'), chatOptions: { json: true } });
    expect(result.classKey).toBe('plan');
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['small', 'fail'],
      ['strong', 'pass'],
    ]);
    expect(provider.requests.every((request) => request.options.json === true)).toBe(true);
  });

  it('does not ask a JSON answer of a question about some JSON, and says the answer went unchecked', async () => {
    const provider = new MockProvider('editor').on('small', 'The comma after the last property is not allowed in JSON.');
    const session = await open(provider);
    const { result, rows } = await chat(session, { messages: user('Why does this JSON fail to parse?\n```json\n{"a": 1,}\n```') });
    expect(result.classKey).toBe('chat');
    // No check judged it: with none inferred, only the confidence check may read it, and it asks no paid model by default.
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['small', 'unverified']]);
    expect(result.attempts[0]?.verdict.reason).not.toContain('JSON');
    expect(result.checks).toEqual([]);
    expect(result.checked).toBe('unchecked');
    expect(rows.map((row) => row.checks)).toEqual([[]]);
  });

  it("keeps a caller's schema as the stricter check, and an explicitly given class as given", async () => {
    const schema = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };
    const provider = new MockProvider('editor').on('small', '{"town": "Paris"}').on('strong', '{"city": "Paris"}');
    const session = await open(provider);
    const { result } = await chat(session, {
      messages: user('Return the capital of France as JSON.'),
      classKey: 'chat',
      checks: { schema },
    });
    expect(result.classKey).toBe('chat');
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind, attempt.checks])).toEqual([
      ['small', 'fail', ['JSON schema']],
      ['strong', 'pass', ['JSON schema']],
    ]);
  });
});

describe('checks inferred from the request: tool calls', () => {
  it('fails an answer in text where the front end said a tool call is needed, and climbs to the rung that calls the tool', async () => {
    const provider = new MockProvider('editor').on('small', '```ts\nexport async function load() {}\n```').on('strong', {
      toolCalls: [call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "function load", "newString": "async function load"}')],
    });
    const session = await open(provider);
    const { result, escalations, rows } = await chat(session, {
      messages: user('make this async'),
      tools: [replaceString],
      checks: { toolCall: 'required' },
    });

    expect(result.classKey).toBe('edit');
    expect(escalations).toEqual([
      'escalated from small to strong: tool call: answered in text where a tool call was needed (offered: replace_string_in_file)',
    ]);
    expect(result.answer?.toolCalls.map((toolCall) => toolCall.name)).toEqual(['replace_string_in_file']);
    expect(result.checked).toBe('checked: tool call, tool call arguments');
    expect(rows.map((row) => row.checks)).toEqual([['tool call'], ['tool call', 'tool call arguments']]);
  });

  it('reads a change asked of an edit tool from the words when the front end does not say', async () => {
    const provider = new MockProvider('editor').on('small', 'You could rename it to fetchUser.').on('strong', {
      toolCalls: [call('replace_string_in_file', '{"filePath": "user.ts", "oldString": "getUser", "newString": "fetchUser"}')],
    });
    const session = await open(provider);
    const { result } = await chat(session, { messages: user('Rename getUser to fetchUser in user.ts'), tools: [readFile, replaceString] });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([
      ['small', 'fail'],
      ['strong', 'pass'],
    ]);
  });

  it('lets a text answer stand when no change was asked, or the front end said no tool call is needed', async () => {
    const provider = new MockProvider('editor').on('small', 'It reads the file and parses it.');
    const session = await open(provider);
    const question = await chat(session, { messages: user('What does loadConfig do?'), tools: [readFile, replaceString] });
    expect(question.result.attempts.map((attempt) => [attempt.model, attempt.verdict])).toEqual([
      ['small', { kind: 'unverified', reason: 'no tool call to check' }],
    ]);
    expect(question.result.classKey).toBe('chat');
    const told = await chat(session, {
      messages: user('Rename getUser to fetchUser'),
      tools: [replaceString],
      checks: { toolCall: 'optional' },
    });
    expect(told.result.attempts.map((attempt) => attempt.verdict.kind)).toEqual(['unverified']);
  });

  it('climbs from a tool call whose arguments break its schema, naming the tool and the argument', async () => {
    const provider = new MockProvider('editor')
      .on('small', { toolCalls: [call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "x"}')] })
      .on('strong', { toolCalls: [call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "x", "newString": "y"}')] });
    const session = await open(provider);
    const { result, escalations } = await chat(session, {
      messages: user('make x y'),
      tools: [replaceString],
      checks: { toolCall: 'required' },
    });
    expect(escalations).toEqual([
      'escalated from small to strong: tool call, tool call arguments: replace_string_in_file: the arguments: missing required argument "newString"',
    ]);
    expect(result.answer?.model).toBe('strong');
  });

  it('climbs from arguments that are not JSON, and from a call to a tool that was not offered', async () => {
    const provider = new MockProvider('editor')
      .on('small', { toolCalls: [call('read_file', '{"path": "a.ts"')] }, { toolCalls: [call('delete_file', '{"path": "a.ts"}')] })
      .on('strong', { toolCalls: [call('read_file', '{"path": "a.ts"}')] });
    const session = await open(provider);
    const broken = await chat(session, { messages: user('What is in a.ts?'), tools: [readFile] });
    expect(broken.escalations).toEqual([
      "escalated from small to strong: read_file: the arguments are not JSON: Expected ',' or '}' after property value at character 16",
    ]);
    const unknown = await chat(session, { messages: user('What is in a.ts?'), tools: [readFile] });
    expect(unknown.escalations).toEqual(['escalated from small to strong: called delete_file, which was not offered (offered: read_file)']);
  });

  it('answers Ask mode\'s "write a function" with code, checked as code, with the 19 tools Ask mode really sends', async () => {
    const askTools = JSON.parse(
      readFileSync(join(__dirname, '../../../fixtures/agent/vscode-1.139-ask-mode-tools.json'), 'utf8'),
    ) as ToolSpec[];
    const provider = new MockProvider('editor').on(
      'small',
      'Here it is:\n```ts\nexport function formatCents(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n```',
    );
    const session = await open(provider);
    const { result, rows } = await chat(session, {
      messages: user('<userRequest>\nWrite a TypeScript function formatCents(cents) that formats cents as dollars.\n</userRequest>'),
      tools: askTools,
    });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['small', 'pass']]);
    expect(result.checked).toBe('checked: TypeScript syntax');
    expect(rows.map((row) => [row.class, row.verdict])).toEqual([['edit', 'pass']]);
  });

  it('needs no further tool call once the turn has called one: the summary after the edit stands', async () => {
    const provider = new MockProvider('editor').on('small', 'Done: load is now async.');
    const session = await open(provider);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'make load async' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "function", "newString": "async function"}')],
      },
      { role: 'tool', toolCallId: 'call-replace_string_in_file', content: 'ok' },
    ];
    const { result } = await chat(session, { messages, tools: [replaceString], checks: { toolCall: 'required' } });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['small', 'unverified']]);
    expect(result.answer?.text).toBe('Done: load is now async.');
  });
});

describe('what the front end hears before the answer', () => {
  it('says when the call is routed whether a check may fail an answer given in text, so a front end can hold the text', async () => {
    const provider = new MockProvider('editor').on('small', 'It is 42.', '{"a": 1}', 'It reads a file.');
    const session = await open(provider);
    const heard = async (request: SessionChatRequest): Promise<boolean | undefined> => {
      const events: SessionEvent[] = [];
      await session.chat(request, (event) => events.push(event));
      const routed = events.find((event) => event.type === 'routed');
      return routed?.type === 'routed' ? routed.textChecked : undefined;
    };
    expect(await heard({ messages: user('What is six times seven?') })).toBe(false);
    expect(await heard({ messages: user('Return a JSON object with a set to 1.') })).toBe(true);
    // Tools offered but no change asked: only a tool call's arguments are checked, and a text answer cannot fail.
    expect(await heard({ messages: user('What does loadConfig do?'), tools: [readFile, replaceString] })).toBe(false);
  });
});

describe('checks inferred from the request: code', () => {
  it('syntax-checks the code of a code request, routed as an edit in its language, and climbs from a broken block', async () => {
    const provider = new MockProvider('editor')
      .on('small', 'Sure:\n```ts\nexport function debounce(fn: () => void, ms: number {\n  let timer;\n}\n```')
      .on(
        'strong',
        'Sure:\n```ts\nexport function debounce(fn: () => void, ms: number) {\n  let timer: NodeJS.Timeout | undefined;\n  return () => {\n    clearTimeout(timer);\n    timer = setTimeout(fn, ms);\n  };\n}\n```',
      );
    const session = await open(provider);
    const { result, escalations } = await chat(session, { messages: user('Write a debounce function in TypeScript') });
    expect(result.classKey).toBe('edit/typescript');
    expect(escalations).toEqual([
      "escalated from small to strong: syntax error: block 1 (typescript, from answer line 3): 1:53 ',' expected.",
    ]);
    expect(result.checked).toBe('checked: TypeScript syntax');
  });

  it('passes a method written as a fragment, and leaves a language it cannot read unchecked', async () => {
    const provider = new MockProvider('editor').on(
      'small',
      'Replace the method with:\n```ts\n  async total(): Promise<number> {\n    return this.items.length;\n  }\n```',
      'Use:\n```python\ndef total(items):\n    return len(items)\n```',
    );
    const session = await open(provider);
    const fragment = await chat(session, {
      messages: user('Make total async:\n```ts\nclass Cart {\n  total(): number {\n    return this.items.length;\n  }\n}\n```'),
    });
    expect(fragment.result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['small', 'pass']]);
    const python = await chat(session, { messages: user('Write a Python function that counts the items') });
    expect(python.result.attempts.map((attempt) => [attempt.model, attempt.verdict.kind])).toEqual([['small', 'unverified']]);
    expect(python.result.checked).toBe('unchecked');
  });

  it('fails an edit answer with no code in it, and climbs', async () => {
    const provider = new MockProvider('editor')
      .on('small', 'You could add a null check before the loop.')
      .on('strong', '```ts\nif (!items) return 0;\n```');
    const session = await open(provider);
    const { result, escalations } = await chat(session, { messages: user('add a null check'), classKey: 'edit/typescript' });
    expect(escalations).toEqual(['escalated from small to strong: code in the answer: the edit has neither a code block nor a tool call']);
    expect(result.classKey).toBe('edit/typescript');
    expect(result.checked).toBe('checked: code in the answer, TypeScript syntax');
  });
});

describe('exploration and the checks', () => {
  // A draw of 0.99 explores (it is below the rate of 1) and picks the second rung when the call may explore.
  const alwaysExplore = { explore: 1, explorePaid: true };

  it('explores a call with a check that judges the answer', async () => {
    const provider = new MockProvider('editor').on('small', '{"ok": true}').on('strong', '{"ok": true}');
    const session = await open(provider, alwaysExplore, () => 0.99);
    const { result } = await chat(session, { messages: user('Return {"ok": true} as JSON.') });
    expect(result.attempts.map((attempt) => [attempt.model, attempt.explore])).toEqual([['strong', true]]);
  });

  it('does not explore a call whose only check is a weak one, nor an unchecked one', async () => {
    const provider = new MockProvider('editor').on('small', 'It reads the file.').on('strong', 'It reads the file.');
    const session = await open(provider, alwaysExplore, () => 0.99);
    const weak = await chat(session, { messages: user('What does loadConfig do?'), tools: [readFile] });
    expect(weak.result.attempts.map((attempt) => [attempt.model, attempt.explore])).toEqual([['small', false]]);
    const unchecked = await chat(session, { messages: user('Describe Paris') });
    expect(unchecked.result.attempts.map((attempt) => [attempt.model, attempt.explore])).toEqual([['small', false]]);
  });
});

describe('decision rows and the checks', () => {
  it('reads a row written before checks were named, and one with them', () => {
    const old = { v: 1, at: 1, call: 'c1', model: 'small', verdict: 'pass' };
    const { rows } = parseDecisionLines(`${JSON.stringify(old)}\n${JSON.stringify({ ...old, call: 'c2', checks: ['JSON'] })}\n`);
    expect(rows.map((row) => [row.call, row.checks])).toEqual([
      ['c1', undefined],
      ['c2', ['JSON']],
    ]);
  });

  it('writes no checks on a verdict settled later: that verdict is the user’s', async () => {
    const provider = new MockProvider('editor').on('small', '{"ok": true}');
    const session = await open(provider);
    const { result } = await chat(session, { messages: user('Return {"ok": true} as JSON.') });
    session.settle(result.callId, { kind: 'fail', reason: 'the user marked the answer unhelpful' });
    expect(session.explain(result.callId).map((row) => [row.final, row.checks])).toEqual([
      [false, ['JSON']],
      [true, undefined],
    ]);
  });
});
