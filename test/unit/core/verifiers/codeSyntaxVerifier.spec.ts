import { describe, expect, it } from 'vitest';
import { CodeSyntaxVerifier, MAX_CHECKED_BLOCKS } from '../../../../src/core/verifiers/codeSyntaxVerifier';

const answer = (text: string) => ({ text, toolCalls: [], model: 'qwen3:14b' });
const fence = (language: string, body: string) => `\`\`\`${language}\n${body}\n\`\`\``;

describe('CodeSyntaxVerifier', () => {
  it('passes TypeScript, JavaScript and JSON blocks that parse', async () => {
    const text = [
      'Change the adapter:',
      fence('ts', 'interface Probe { ok: boolean }\nexport const probe: Probe = { ok: true };'),
      fence('javascript', 'const total = [1, 2].reduce((a, b) => a + b, 0);'),
      fence('json', '{"compilerOptions": {"strict": true}}'),
    ].join('\n\n');
    expect(await new CodeSyntaxVerifier().verify(answer(text))).toEqual({
      verdict: 'pass',
      reason: '3 code blocks parse (typescript, javascript, json)',
      checks: ['TypeScript syntax', 'JavaScript syntax', 'JSON syntax'],
    });
  });

  it('fails a TypeScript block with a syntax error and says where', async () => {
    const text = `Try this:\n\n${fence('typescript', 'function add(a: number, b: number {\n  return a + b;\n}')}`;
    const check = await new CodeSyntaxVerifier().verify(answer(text));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^syntax error: block 1 \(typescript, from answer line 4\): 1:\d+ '[,)]' expected\.$/);
  });

  it('fails type annotations in a JavaScript block', async () => {
    const check = await new CodeSyntaxVerifier().verify(answer(fence('js', 'const port: number = 11434;')));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/Type annotations can only be used in TypeScript files/);
  });

  it('fails a JSON block that does not parse', async () => {
    const check = await new CodeSyntaxVerifier().verify(answer(fence('json', '{"a": 1,}')));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^syntax error: block 1 \(json, from answer line 2\): /);
  });

  it('parses no more than its limit of blocks: a failure among them fails, and otherwise the answer is unverified', async () => {
    const good = fence('ts', 'export const a: number = 1;');
    const many = Array.from({ length: 5_000 }, () => good);
    expect(await new CodeSyntaxVerifier().verify(answer(many.join('\n')))).toEqual({
      verdict: 'unverified',
      reason: `the first ${MAX_CHECKED_BLOCKS} of 5000 code blocks parse; the rest were not checked (more blocks than an edit writes)`,
    });
    many[3] = fence('ts', 'export const a: number = ;');
    const check = await new CodeSyntaxVerifier().verify(answer(many.join('\n')));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^syntax error: block 4 \(typescript, from answer line 11\): 1:\d+ Expression expected\.$/);
  });

  it('fails a block nested too deep for the parser, rather than calling the answer a provider error', async () => {
    // A hostile server's answer: 300,000 nested brackets overflowed the parser's stack, and the thrown
    // RangeError made the attempt a provider error, which grades nobody, at every rung it served.
    const depth = 300_000;
    for (const [language, body] of [
      ['ts', `const a = ${'['.repeat(depth)}${']'.repeat(depth)};`],
      ['json', `${'['.repeat(depth)}${']'.repeat(depth)},`],
    ] as const) {
      for (const verifier of [new CodeSyntaxVerifier(), new CodeSyntaxVerifier({ fragments: true })]) {
        const check = await verifier.verify(answer(fence(language, body)));
        expect(check.verdict, language).toBe('fail');
        if (language === 'ts') expect(check.reason).toContain('nested too deep for the parser to read');
      }
    }
  });

  it('calls an answer without a code block it can read unverified', async () => {
    const check = await new CodeSyntaxVerifier().verify(answer(`Run this:\n${fence('bash', 'npm test')}`));
    expect(check).toEqual({ verdict: 'unverified', reason: 'no TypeScript, JavaScript or JSON code block in the answer' });
  });
});

describe('CodeSyntaxVerifier on fragments', () => {
  const fragments = (quotedFrom?: string) =>
    new CodeSyntaxVerifier({ fragments: true, ...(quotedFrom !== undefined ? { quotedFrom } : {}) });

  it('passes a method, class fields, interface members, object properties and case clauses that parse only in their place', async () => {
    const pieces = [
      fence('ts', '  async load(id: string): Promise<User> {\n    return this.store.get(id);\n  }'),
      fence('ts', '#count = 0;\n@Input() name: string;'),
      fence('ts', 'name: string;\nage?: number;'),
      fence('js', "name: 'rung',\nversion: 2,"),
      fence('js', "case 'a':\n  return 1;\ndefault:\n  return 0;"),
      fence('tsx', '<Header />\n<Footer />'),
    ];
    for (const piece of pieces) {
      expect(await new CodeSyntaxVerifier().verify(answer(piece)), piece).toMatchObject({ verdict: 'fail' });
      expect(await fragments().verify(answer(piece)), piece).toMatchObject({ verdict: 'pass' });
    }
  });

  it('reads "..." as code left out, alone on a line or inside brackets', async () => {
    expect(await fragments().verify(answer(fence('ts', 'function save() {\n  ...\n  return write(...);\n}')))).toMatchObject({
      verdict: 'pass',
    });
  });

  it('still fails a fragment that is broken wherever it goes, at its place in the block', async () => {
    const check = await fragments().verify(answer(fence('ts', 'function add(a: number, b: number {\n  return a + b;\n}')));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^syntax error: block 1 \(typescript, from answer line 2\): 1:\d+ '[,)]' expected\.$/);
    expect((await fragments().verify(answer(fence('ts', 'const answer = ;')))).verdict).toBe('fail');
    expect((await fragments().verify(answer(fence('ts', 'total(): number {\n  return 1;\n')))).verdict).toBe('fail');
  });

  it('passes JSON with comments, trailing commas, or that is a list of members', async () => {
    expect(await fragments().verify(answer(fence('json', '{\n  // strict mode\n  "strict": true,\n}')))).toMatchObject({
      verdict: 'pass',
      checks: ['JSON syntax'],
    });
    expect(await fragments().verify(answer(fence('json', '"scripts": { "test": "vitest" }')))).toMatchObject({ verdict: 'pass' });
    expect((await fragments().verify(answer(fence('json', '{"a": [1, 2}')))).verdict).toBe('fail');
  });

  it("does not judge the user's own code quoted back, and judges the model's", async () => {
    const request =
      'Why does this not compile?\n```ts\nfunction total(items: number[] {\n  return items.reduce((a, b) => a + b, 0);\n}\n```';
    const quotedBack = `Your code:\n${fence('ts', 'function total(items: number[] {\n  return items.reduce((a, b) => a + b, 0);\n}')}\nis missing a parenthesis. Fixed:\n${fence('ts', 'function total(items: number[]) {\n  return items.reduce((a, b) => a + b, 0);\n}')}`;
    expect(await fragments(request).verify(answer(quotedBack))).toEqual({
      verdict: 'pass',
      reason: '1 code block parses (typescript)',
      checks: ['TypeScript syntax'],
    });
    const onlyQuoted = `Your code:\n${fence('ts', 'function total(items: number[] {\n  return items.reduce((a, b) => a + b, 0);\n}')}\nneeds a ")" after the parameter.`;
    expect(await fragments(request).verify(answer(onlyQuoted))).toEqual({
      verdict: 'unverified',
      reason: 'the only TypeScript, JavaScript or JSON code in the answer is quoted from the request',
    });
  });
});
