import { describe, expect, it } from 'vitest';
import { editMessages, extractEdit, fenceTag, SplicedSyntaxVerifier, spliceText } from '../../../src/extension/editPrompt';

const answer = (text: string) => ({ text, toolCalls: [], model: 'qwen3:14b' });

describe('edit prompt', () => {
  it('asks for the block under the tag the syntax check reads for the editor language', () => {
    expect(fenceTag('typescript')).toBe('ts');
    expect(fenceTag('javascriptreact')).toBe('jsx');
    expect(fenceTag('python')).toBe('python');
    const [system, user] = editMessages({ instruction: 'rename x to y', code: 'const x = 1;', languageId: 'typescript', fileName: 'a.ts' });
    expect(system?.content).toContain('```ts');
    expect(user?.content).toContain('```ts\nconst x = 1;\n```');
    expect(user?.content).toContain('rename x to y');
  });

  it('reads the code back from the block with the language tag, before any other block', () => {
    expect(extractEdit('Here:\n```text\nnot this\n```\n```ts\nconst y = 1;\n```\n', 'typescript')).toBe('const y = 1;');
    expect(extractEdit('```\nconst y = 1;\n```', 'typescript')).toBe('const y = 1;');
    expect(extractEdit('const y = 1;', 'typescript')).toBeUndefined();
  });

  it('splices the replacement into the document', () => {
    expect(spliceText('a\nbb\nc', 2, 4, 'XX')).toBe('a\nXX\nc');
  });
});

describe('SplicedSyntaxVerifier', () => {
  const documentText = 'class A {\n  f() {\n    return 1;\n  }\n}\n';
  const start = documentText.indexOf('  f()');
  const end = documentText.indexOf('}\n}') + 2;

  it('passes an edit that parses in its place though it would not parse alone', async () => {
    const verifier = new SplicedSyntaxVerifier({ documentText, start, end, languageId: 'typescript' });
    const check = await verifier.verify(answer('```ts\n  f() {\n    return 2;\n  }\n```'));
    expect(check).toEqual({ verdict: 'pass', reason: 'the file parses with the edit in place' });
  });

  it('fails an edit that breaks its file, saying where', async () => {
    const verifier = new SplicedSyntaxVerifier({ documentText, start, end, languageId: 'typescript' });
    const check = await verifier.verify(answer('```ts\n  f() {\n    return (2;\n  }\n```'));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^the file does not parse with the edit in place: \d+:\d+ /);
  });

  it('fails an answer with no code block to apply', async () => {
    const verifier = new SplicedSyntaxVerifier({ documentText, start, end, languageId: 'typescript' });
    expect((await verifier.verify(answer('I would rename it.'))).verdict).toBe('fail');
  });

  it('judges nothing in a language the syntax check does not know', async () => {
    const verifier = new SplicedSyntaxVerifier({ documentText: 'x = 1\n', start: 0, end: 5, languageId: 'python' });
    expect((await verifier.verify(answer('```python\nx = (\n```'))).verdict).toBe('unverified');
  });
});
