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
    expect(await new CodeSyntaxVerifier().verify(answer(text))).toEqual({ verdict: 'pass', reason: '3 code blocks parse (typescript, javascript, json)' });
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

  it('calls an answer without a code block it can read unverified', async () => {
    const check = await new CodeSyntaxVerifier().verify(answer(`Run this:\n${fence('bash', 'npm test')}`));
    expect(check).toEqual({ verdict: 'unverified', reason: 'no TypeScript, JavaScript or JSON code block in the answer' });
  });
});
