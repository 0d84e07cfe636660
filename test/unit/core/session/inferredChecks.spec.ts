import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../../src/core/providers/provider';
import {
  asksForChange,
  asksForCode,
  asksForJson,
  inferChecks,
  readRequest,
  routedClass,
  writesFiles,
} from '../../../../src/core/session/inferredChecks';

/*
 * Real-looking requests, each read both ways. Most were written before the rules were run on them,
 * and the rules were then tuned until each reads right (but those in CODE_MISSED): the tables show
 * what the rules do, not how often they are right on requests nobody has tried them on.
 */

/** Requests whose answer must be JSON. */
const ASKS_FOR_JSON = [
  'Answer in JSON.',
  'Respond as a JSON object with keys a and b.',
  'Output valid JSON.',
  'Return a JSON array of the weekdays.',
  'Return the three largest US states by area as a JSON array of objects with name and area.',
  'Respond only with JSON containing keys summary and risk.',
  'give me a json list of the http status codes for client errors',
  'Please output the result as valid JSON.',
  'Can you format these contacts as JSON? Alice 555-1234, Bob 555-9876',
  'Reply in JSON: {"answer": <yes|no>}. Is 17 prime?',
  'Extract every email address from the text below and return them as a JSON array.\n\nContact us at a@b.com or c@d.org',
  'Summarize the following review in JSON with fields sentiment and score.',
  'Turn this table into JSON:\n| name | age |\n| Ada | 36 |',
  'I want the answer in JSON format please',
  'JSON only. List 5 prime numbers.',
  'Your output must be a single JSON object.',
  'Create a JSON object describing a book with title, author and year',
  'Write the list of dependencies as JSON',
  'Answer strictly in JSON.',
  'Provide the steps as a JSON array.',
  'Classify each sentence as positive or negative, output as JSON.',
  'Output format: JSON',
  'Generate a sample JSON payload for a user signup event',
  'Convert the following XML to JSON: <user><name>Ada</name></user>',
  'No markdown, just the raw JSON.',
  'Parse this log line into JSON fields: 2024-01-01 ERROR db timeout',
  'What are the phases of the moon? Please answer with a JSON array.',
  'Give me a JSON representation of this object',
  'List the top 3 rivers in Europe in JSON.',
  'list all the env vars this service reads, json please',
  'Dump the parsed AST as JSON so I can diff it',
  'Respond using this JSON shape: {"ok": boolean}',
  'Give the answer in the form of a JSON object',
  'Return your findings as a JSON list of {file, line, issue}',
  'Please produce JSON, nothing else.',
  'I need this as JSON.',
  'Can you give me the data in JSON?',
  'Output a JSON with the keys title and tags',
  'Write me some JSON for a fake user',
  'whats the weather api response look like? give me an example as json',
  'Return ONLY a JSON object, no backticks.',
  'pls answer in json',
  'Tell me the 5 biggest cities in Japan (JSON array, no explanation)',
  'Analyze this stack trace and reply with a JSON object {cause, fix}.',
  'Respond in the following JSON format: {"name": string}',
  'Here is a list of tasks. Rank them by priority and output JSON.',
  'Break the feature into subtasks; return JSON.',
  'Could you put that into JSON?',
  'Map these error codes to messages, as a JSON object',
];

/** Requests that mention JSON without asking for a JSON answer: about JSON, or about code that handles it. */
const DOES_NOT_ASK_FOR_JSON = [
  'Why does this JSON fail to parse?\n```json\n{"a": 1,}\n```',
  'Explain this JSON: {"a": 1}',
  "Why does JSON.parse throw 'Unexpected token u in JSON at position 0'?",
  'Explain what this JSON does:\n```json\n{"compilerOptions": {"strict": true}}\n```',
  'How do I pretty-print JSON in Python?',
  'Is there a difference between JSON and JSON5?',
  'Write a function that returns the user as JSON',
  "My API returns JSON but fetch gives me a string. What's wrong?",
  'Fix the JSON parse error in config.ts',
  'Add a JSON schema for the settings file',
  'How can I make Express respond with JSON?',
  'What does the json field in package.json do?',
  "Why is this not valid JSON? {'a': 1}",
  'Update package.json to add a test script',
  'Make the endpoint return JSON instead of HTML',
  'Create a Python script that converts CSV files to JSON',
  'Read the settings as JSON and print the port',
  'Should config be stored as YAML or JSON?',
  'Describe the structure of a GeoJSON feature.',
  'Can you explain the JSON response from this API?',
  'Log the incoming request body as JSON for debugging',
  'Serialize the Date objects properly when converting to JSON in the API layer',
  'The tests expect a JSON response; why do they fail?',
  'Document the JSON format the CLI accepts',
  'Where is the JSON schema for panel.json defined?',
  "What's the max size of a JSON document in Postgres?",
  'Use JSON.stringify with a replacer to drop undefined fields',
  'Return the error as JSON from the API handler',
  'Write the output as JSON to disk',
  'Format the response as JSON in the controller',
  'Print the config as JSON when --verbose is set',
  'Return early if the body is not JSON',
  'Send the metrics as JSON to the collector',
  'Emit JSON lines instead of plain text',
  'Show me an example of nested JSON',
  'Store the cache as JSON instead of pickle',
  'Rewrite the exporter to output JSON',
  'Make the logger write JSON instead of text',
  'Return the parsed JSON from loadConfig instead of the raw string',
  'Why does my JSON have escaped slashes?',
  'Add a --json flag that prints the result as JSON',
  'Validate the request body against the JSON schema',
  'How should I version a JSON API?',
  'Write a unit test that checks the output is valid JSON',
  'The JSON below fails to parse, can you tell me why?\n```json\n{a:1}\n```',
  'Explain the JSON that this endpoint returns',
  'Output from the server: {"error": "timeout"}. What does it mean?',
];

/** Requests for a change, made with tools when an edit tool is offered. */
const ASKS_FOR_A_CHANGE = [
  'Fix the off-by-one error in pagination.ts',
  'Rename getUser to fetchUser everywhere',
  'Add a unit test for the parseDate function',
  'Please refactor this class to use dependency injection',
  'Can you update the README with install instructions?',
  'Remove the unused imports in src/app.ts',
  'Make the save function async',
  'Implement the TODO in cache.go',
  'Write tests for the tokenizer',
  'Create a Dockerfile for this Node app',
  'Replace the for loop with a map call',
  'Convert this component to TypeScript',
  'Add error handling to the fetch call',
  'Delete the deprecated v1 routes',
  'Move the helpers into a utils folder',
  'Bump the version to 2.1.0',
  'Now add logging to every handler.',
  "Let's split this file into two modules",
  'Handle the case where the list is empty',
  'Update the changelog for this release',
  'the tests in auth.spec.ts are failing, fix them',
  'pls make parse() handle empty input',
  'go through the codebase and replace var with let',
  'Could you add types to utils.js?',
  'I want you to write a migration for the new column',
  '<attachments><attachment id="a">const x = 1;</attachment></attachments><userRequest>add a retry to the http client</userRequest>',
  'ok now rename the class to Ledger',
  'this crashes on empty arrays. fix it',
  'Write a script in scripts/ that seeds the database',
  'Can you make the button blue?',
  'please get rid of the console.logs',
  'Extract the validation into its own function',
  'Upgrade vitest to the latest version',
];

/** Requests that change nothing: questions, explanations, reviews, and change verbs used otherwise. */
const ASKS_FOR_NO_CHANGE = [
  'Why does this function return undefined?',
  'What does this regex match?',
  'Explain the difference between map and forEach',
  'How do I add a dependency with npm?',
  'Is there a bug in this loop?',
  'Review this function for performance issues',
  'Where is the config loaded?',
  'Summarize what this file does',
  'Should I rename this variable?',
  'Can I use async in a constructor?',
  'Find all usages of parseDate',
  'What would happen if I removed this line?',
  'Tell me about the architecture of this project',
  'Add 2 and 3',
  'Which tests are failing and why?',
  'Describe how the router ranks models',
  'Make a list of the risks in this plan',
  'List the files in src',
  'Compare these two implementations',
  'Translate this error message to English',
  'Add more detail to your explanation',
  'Change of plans: just explain the bug',
  'Update me on what you found',
  'Simplify your answer',
  'Use simpler words',
  'What changed in the last commit?',
  "Explain what 'fix' means in this context",
  'I think we should refactor this later. Thoughts?',
  'Before you change anything, tell me your plan',
  'Update: the tests pass now. What next?',
  'Handle with care: this is production code. What does it do?',
  'Add-ons like this are risky, right?',
];

/** Requests for code to be written or changed. */
const ASKS_FOR_CODE = [
  'Write a Python function that checks whether a string is a palindrome',
  'Implement binary search in Rust',
  'Create a React component that shows a counter',
  'Write a SQL query that returns the ten newest orders',
  'Add input validation to this function:\n```ts\nfunction f(x) { return x * 2 }\n```',
  'Refactor this to use async/await:\n```js\nfetch(u).then(r => r.json())\n```',
  'Fix the bug in this code:\n```py\nfor i in range(10) print(i)\n```',
  'Give me a bash script that backs up my home folder',
  'Write a regex that matches ISO dates',
  'Generate unit tests for the slugify function',
  'write me a debounce function in typescript',
  'Give me a Dockerfile for a Python Flask app',
  'Can you convert this to async/await?\n```js\nfs.readFile(p, cb)\n```',
  'Implement LRU cache',
];

/** Requests that carry or mention code without asking for any, or ask for writing that is not code. */
const ASKS_FOR_NO_CODE = [
  'What does this function do?\n```ts\nfunction f() {}\n```',
  'Explain recursion with an example',
  'Why is my loop infinite?\n```js\nwhile (true) {}\n```',
  'How do I write a for loop in Go?',
  'Write a haiku about autumn',
  'Write an email to my team about the release',
  'Is this code thread-safe?\n```java\nclass A {}\n```',
  'Compare Python and Rust for CLI tools',
  'Summarize this function:\n```py\ndef f(): pass\n```',
  'Create a plan for migrating to Postgres',
  'Write a blog post about TypeScript generics',
  "What's the best way to write tests for this?",
  'Write down the steps to reproduce',
  'Draft a message to the team about the outage',
  'Explain this function step by step\n```py\ndef f(x): return x\n```',
];

/**
 * Requests the rules read wrongly, kept so that a change to the rules shows up here: a GitHub Actions
 * workflow is YAML, which no syntax check reads, so missing it as code costs nothing but its class.
 */
const CODE_MISSED = ['Create a GitHub Actions workflow that runs npm test'];

const codeIn = (content: string): boolean =>
  asksForCode(readRequest([{ role: 'user', content }]).words, readRequest([{ role: 'user', content }]).carriesCode);

describe('asksForJson', () => {
  it.each(ASKS_FOR_JSON)('reads a request for a JSON answer: %s', (prompt) => {
    expect(asksForJson(readRequest([{ role: 'user', content: prompt }]).words)).toBe(true);
  });

  it.each(DOES_NOT_ASK_FOR_JSON)('reads no request for a JSON answer: %s', (prompt) => {
    expect(asksForJson(readRequest([{ role: 'user', content: prompt }]).words)).toBe(false);
  });
});

describe('asksForChange', () => {
  it.each(ASKS_FOR_A_CHANGE)('reads a request for a change: %s', (prompt) => {
    expect(asksForChange(readRequest([{ role: 'user', content: prompt }]).words)).toBe(true);
  });

  it.each(ASKS_FOR_NO_CHANGE)('reads no request for a change: %s', (prompt) => {
    expect(asksForChange(readRequest([{ role: 'user', content: prompt }]).words)).toBe(false);
  });
});

describe('asksForCode', () => {
  it.each(ASKS_FOR_CODE)('reads a request for code: %s', (prompt) => {
    expect(codeIn(prompt)).toBe(true);
  });

  it.each(ASKS_FOR_NO_CODE)('reads no request for code: %s', (prompt) => {
    expect(codeIn(prompt)).toBe(false);
  });

  it.each(CODE_MISSED)('still misses: %s', (prompt) => {
    expect(codeIn(prompt)).toBe(false);
  });
});

describe('readRequest', () => {
  it("reads only the user's words from a Copilot prompt, not its attachments or reminders", () => {
    const content =
      '<attachments>\n<attachment id="config.ts">\nexport function respondInJson() { return "Return the result as JSON"; }\n</attachment>\n</attachments>\n' +
      '<userRequest>\nWhat does respondInJson do?\n</userRequest>\n<reminderInstructions>Answer in Markdown.</reminderInstructions>';
    const request = readRequest([{ role: 'user', content }]);
    expect(request.words).toBe('What does respondInJson do?');
    expect(request.carriesCode).toBe(true);
    expect(asksForJson(request.words)).toBe(false);
  });

  it('reads the words outside code blocks, and the request from the last user turn', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Return the config as JSON.' },
      { role: 'assistant', content: '{"port": 1}' },
      { role: 'user', content: 'Why is the port 1?\n```ts\n// Return the port as JSON\nconst port = 1;\n```' },
    ];
    const request = readRequest(messages);
    expect(request.words).toBe('Why is the port 1?');
    expect(request.acted).toBe(false);
  });

  it('finds the request before the tool calls and results of its own turn, and says the turn has acted', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: '<userRequest>Fix the failing test</userRequest>' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path": "a.spec.ts"}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'it("adds", …)' },
    ];
    expect(readRequest(messages)).toMatchObject({ words: 'Fix the failing test', acted: true });
  });
});

const editTool: ToolSpec = { name: 'replace_string_in_file', parameters: { type: 'object' } };
const readTool: ToolSpec = { name: 'read_file', description: 'Read the contents of a file', parameters: { type: 'object' } };
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

describe('inferChecks', () => {
  it('asks for a tool call only when a tool that can change something is offered, and the front end did not say otherwise', () => {
    expect(inferChecks({ messages: user('Rename getUser to fetchUser'), tools: [readTool, editTool] }).toolCall).toBe(
      'the request asks for a change and a tool that writes files is offered',
    );
    expect(inferChecks({ messages: user('Rename getUser to fetchUser'), tools: [readTool] }).toolCall).toBeUndefined();
    expect(
      inferChecks({ messages: user('Rename getUser to fetchUser'), tools: [editTool], checks: { toolCall: 'optional' } }).toolCall,
    ).toBeUndefined();
    expect(inferChecks({ messages: user('explain this'), tools: [readTool], checks: { toolCall: 'required' } }).toolCall).toBe(
      'the caller said a tool call is needed',
    );
    expect(inferChecks({ messages: user('explain this'), checks: { toolCall: 'required' } }).toolCall).toBeUndefined();
  });

  it('asks an edit the front end named for code, but not a code request read from words', () => {
    expect(inferChecks({ messages: user('add a null check'), classKey: 'edit/typescript' })).toMatchObject({
      code: 'the call is an edit',
      needsCode: 'an edit must come with code',
    });
    const read = inferChecks({ messages: user('Fix the bug in parser.ts') });
    expect(read.code).toBe('the request asks for code to be written or changed');
    expect(read.needsCode).toBeUndefined();
    expect(inferChecks({ messages: user('add a null check'), classKey: 'editor' }).needsCode).toBeUndefined();
  });

  it('finds the language of the code a request is about when only one shows', () => {
    expect(inferChecks({ messages: user('Write a debounce function in TypeScript') }).language).toBe('typescript');
    expect(inferChecks({ messages: user('Fix the bug in parser.py') }).language).toBe('python');
    expect(inferChecks({ messages: user('Add types to this:\n```tsx\nconst A = () => <div/>;\n```') }).language).toBe('typescriptreact');
    expect(inferChecks({ messages: user('Port this Python to Rust:\n```py\nprint(1)\n```') }).language).toBeUndefined();
    expect(inferChecks({ messages: user('Write a Node.js server') }).language).toBeUndefined();
  });
});

describe('routedClass', () => {
  const route = (content: string, extra: { classKey?: string; tools?: ToolSpec[]; json?: boolean } = {}): string => {
    const checks = extra.classKey === undefined ? undefined : {};
    return routedClass(extra.classKey, checks, inferChecks({ messages: user(content), ...extra }));
  };

  it('routes a JSON answer as plan, code and changes as edit in their language, and anything else as chat', () => {
    expect(route('List three colours as a JSON array.')).toBe('plan');
    expect(route('Colours?', { json: true })).toBe('plan');
    expect(route('Write a debounce function in TypeScript')).toBe('edit/typescript');
    expect(route('Fix the bug in this code:\n```py\nprint(1\n```')).toBe('edit/python');
    expect(route('Update the README with install steps', { tools: [editTool] })).toBe('edit');
    expect(route('Update the README with install steps')).toBe('chat');
    expect(route('Why does this JSON fail to parse?')).toBe('chat');
  });

  it('routes JSON asked of code as plan: the answer is JSON', () => {
    expect(route('Convert this YAML to JSON:\n```yaml\na: 1\n```')).toBe('plan');
  });

  it('keeps a class the front end gave, shaped as it would be', () => {
    expect(route('List three colours as a JSON array.', { classKey: 'chat' })).toBe('chat');
    expect(route('Write a debounce function in TypeScript', { classKey: ' explain ' })).toBe('explain');
    expect(route('anything', { classKey: 'infer' })).toBe('chat');
  });
});

describe('reading a long request', () => {
  const pasted = 'x'.repeat(20_000);

  it('reads what is asked at the start or the end of a long paste, and not in its middle', () => {
    expect(asksForJson(readRequest(user(`${pasted}\nSummarize the errors above as a JSON array.`)).words)).toBe(true);
    expect(asksForJson(readRequest(user(`Return the errors below as a JSON array.\n${pasted}`)).words)).toBe(true);
    expect(asksForJson(readRequest(user(`${pasted}\nReturn them as JSON.\n${pasted}`)).words)).toBe(false);
  });

  it('leaves a context tag that is never closed as it is, and strips the closed ones', () => {
    const content = '<attachment id="a.ts">Return it as JSON</attachment> <attachment id="b">Fix the bug in b.ts\nReturn the list as JSON.';
    expect(readRequest(user(content)).words).toBe('<attachment id="b">Fix the bug in b.ts\nReturn the list as JSON.');
  });
});

/** The tools the Chat view sent with one request in VS Code 1.139, recorded in the test host (test/fixtures/agent/SOURCES.md). */
function recordedTools(mode: 'ask' | 'agent'): ToolSpec[] {
  return JSON.parse(readFileSync(join(__dirname, `../../../fixtures/agent/vscode-1.139-${mode}-mode-tools.json`), 'utf8')) as ToolSpec[];
}

describe('tools that write files', () => {
  const ask = recordedTools('ask');
  const agent = recordedTools('agent');

  it("finds none among Ask mode's 19 read-only tools, though their descriptions speak of editing and creating", () => {
    expect(ask).toHaveLength(19);
    expect(ask.some((tool) => /edit|creat|chang/i.test(tool.description ?? ''))).toBe(true);
    expect(ask.filter(writesFiles).map((tool) => tool.name)).toEqual([]);
  });

  it("finds Agent mode's editing tools among its 39, and nothing that only reads, runs or remembers", () => {
    expect(agent.filter(writesFiles).map((tool) => tool.name)).toEqual([
      'create_directory',
      'create_file',
      'create_new_jupyter_notebook',
      'edit_notebook_file',
      'insert_edit_into_file',
      'replace_string_in_file',
      'vscode_renameSymbol',
    ]);
  });

  it('takes a tool of another extension by its schema: a file and what goes into it, both required', () => {
    const writeFile: ToolSpec = {
      name: 'write_file',
      description: 'Writes a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    };
    const search: ToolSpec = {
      name: 'search_files',
      description: 'Search before you edit, change or create files.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, pattern: { type: 'string' } }, required: ['path', 'pattern'] },
    };
    const notes: ToolSpec = {
      name: 'notes',
      parameters: { type: 'object', properties: { path: { type: 'string' }, file_text: { type: 'string' } }, required: ['path'] },
    };
    expect([writeFile, search, notes].map(writesFiles)).toEqual([true, false, false]);
  });

  it('asks no tool call of "write a function" in Ask mode: the answer is code, checked as code', () => {
    const request = user('Write a TypeScript function formatCents(cents) that formats cents as dollars.');
    const inAsk = inferChecks({ messages: request, tools: ask });
    expect(inAsk.toolCall).toBeUndefined();
    expect(inAsk.code).toBe('the request asks for code to be written or changed');
    expect(routedClass(undefined, undefined, inAsk)).toBe('edit');
    expect(inferChecks({ messages: request, tools: agent }).toolCall).toBe(
      'the request asks for a change and a tool that writes files is offered',
    );
  });
});
