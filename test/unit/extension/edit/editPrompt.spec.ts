import { describe, expect, it } from 'vitest';
import { callVerification } from '../../../../src/core/session/callChecks';
import { checkedLine } from '../../../../src/core/session/session';
import {
  chatEditMessages,
  editMessages,
  EDIT_WHOLE_FILE_CHARS,
  extractEdit,
  fenceTag,
  readChatEditProposal,
  replacementFor,
  SELECTION_MARKER,
  SplicedSyntaxVerifier,
  spliceText,
  textDigest,
} from '../../../../src/extension/edit/editPrompt';

const answer = (text: string) => ({ text, toolCalls: [], model: 'qwen3:14b' });

describe('edit prompt', () => {
  it('asks for the block under the tag the syntax check reads for the editor language', () => {
    expect(fenceTag('typescript')).toBe('ts');
    expect(fenceTag('javascriptreact')).toBe('jsx');
    expect(fenceTag('python')).toBe('python');
    const [system, user] = editMessages({
      instruction: 'rename x to y',
      documentText: 'const x = 1;',
      start: 0,
      end: 12,
      languageId: 'typescript',
      fileName: 'a.ts',
    });
    expect(system?.content).toContain('```ts');
    expect(user?.content).toContain('```ts\nconst x = 1;\n```');
    expect(user?.content).toContain('rename x to y');
  });

  it('sends the whole file alone, with no context block, when the whole file is the code to replace', () => {
    const documentText = 'const x = 1;\nconst y = 2;\n';
    const [, user] = editMessages({
      instruction: 'add types',
      documentText,
      start: 0,
      end: documentText.length,
      languageId: 'typescript',
      fileName: 'a.ts',
    });
    expect(user?.content).toBe(
      'Instruction: add types\n\nThe code to replace, from a.ts (lines 1–2):\n```ts\nconst x = 1;\nconst y = 2;\n\n```',
    );
    expect(user?.content).not.toContain(SELECTION_MARKER);
  });

  it('sends the file around a selected method as context to read, with the method marked in its place', () => {
    const documentText =
      'import { z } from "zod";\n\nexport class Cart {\n  private items: number[] = [];\n\n  total(): number {\n    return this.items.reduce((a, b) => a + b, 0);\n  }\n}\n';
    const start = documentText.indexOf('  total()');
    const end = documentText.indexOf('  }\n}') + 4;
    const [, user] = editMessages({
      instruction: 'return 0 for an empty cart',
      documentText,
      start,
      end,
      languageId: 'typescript',
      fileName: 'cart.ts',
    });
    expect(user?.content).toBe(
      'Instruction: return 0 for an empty cart\n\n' +
        'The code to replace, from cart.ts (lines 6–8):\n```ts\n  total(): number {\n    return this.items.reduce((a, b) => a + b, 0);\n  }\n\n```\n\n' +
        'For context only, the rest of cart.ts around it. Do not repeat, rewrite or answer with any of it:\n' +
        '```ts\nimport { z } from "zod";\n\nexport class Cart {\n  private items: number[] = [];\n\n' +
        `${SELECTION_MARKER}\n}\n\`\`\``,
    );
  });

  it('marks a selection inside a line where it stands on that line', () => {
    const documentText = 'function f() {\n  const total = price * count;\n  return total;\n}\n';
    const start = documentText.indexOf('price');
    const end = documentText.indexOf(';');
    const [, user] = editMessages({ instruction: 'round it', documentText, start, end, languageId: 'javascript', fileName: 'f.js' });
    expect(user?.content).toContain(`\`\`\`js\nfunction f() {\n  const total = ${SELECTION_MARKER};\n  return total;\n}\n\`\`\``);
    expect(user?.content).toContain('(line 2)');
  });

  it('keeps the context within its budget, nearest lines first, and says how many lines it left out', () => {
    const lines = Array.from({ length: 2_000 }, (_, index) => `const value${index} = ${index};`);
    const documentText = `${lines.join('\n')}\n`;
    const start = documentText.indexOf('const value1000 ');
    const end = documentText.indexOf('\n', start);
    const budget = 400;
    const [, user] = editMessages({
      instruction: 'double it',
      documentText,
      start,
      end,
      languageId: 'typescript',
      fileName: 'values.ts',
      contextBudgetChars: budget,
    });
    const context = user?.content.split('Do not repeat, rewrite or answer with any of it:\n')[1] ?? '';
    const shown = context.replace(/^```ts\n|\n```$/g, '').split('\n');
    const marker = shown.indexOf(SELECTION_MARKER);
    // Nearest first: the lines just above and below the selection, taken in turn, so as many on each side give or take one.
    expect(shown[marker - 1]).toBe('const value999 = 999;');
    expect(shown[marker + 1]).toBe('const value1001 = 1001;');
    expect(Math.abs(marker - (shown.length - 1 - marker))).toBeLessThanOrEqual(1);
    expect(shown.join('\n').length - SELECTION_MARKER.length).toBeLessThanOrEqual(budget);
    expect(shown.length).toBeGreaterThan(10);
    const above = 1000 - marker;
    const below = 2000 - 1001 - (shown.length - 1 - marker);
    expect(user?.content).toContain(`the rest of values.ts around it (${above} lines above and ${below} lines below not shown)`);
  });

  it('fences code that holds a fence in a longer one, so it cannot close the block early', () => {
    const documentText = 'const readme = `\n```sh\nnpm test\n```\n`;\n';
    const [, user] = editMessages({
      instruction: 'trim it',
      documentText,
      start: 0,
      end: documentText.length,
      languageId: 'typescript',
      fileName: 'r.ts',
    });
    expect(user?.content).toContain(`\`\`\`\`ts\n${documentText}\n\`\`\`\``);
  });

  it('reads the code back from the block with the language tag, before any other block', () => {
    expect(extractEdit('Here:\n```text\nnot this\n```\n```ts\nconst y = 1;\n```\n', 'typescript')).toBe('const y = 1;');
    expect(extractEdit('```\nconst y = 1;\n```', 'typescript')).toBe('const y = 1;');
    expect(extractEdit('const y = 1;', 'typescript')).toBeUndefined();
  });

  it("keeps the line break the replaced text ended with, which a block's code is read without", () => {
    const text = 'const a = 1;\nconst b = 2;\n';
    expect(replacementFor(text, 0, text.length, 'const a = 3;\nconst b = 2;')).toBe('const a = 3;\nconst b = 2;\n');
    expect(replacementFor(text, 0, 13, 'const a = 3;')).toBe('const a = 3;\n');
    expect(replacementFor(text, 0, 12, 'const a = 3;')).toBe('const a = 3;');
    expect(replacementFor(text, 0, 13, 'const a = 3;\n')).toBe('const a = 3;\n');
  });

  it('splices the replacement into the document', () => {
    expect(spliceText('a\nbb\nc', 2, 4, 'XX')).toBe('a\nXX\nc');
  });
});

describe('@rung /edit', () => {
  const documentText = 'export function add(a, b) {\n  return a + b;\n}\n\nexport const zero = 0;\n';

  it('sends the selection as the code to change, with the file around it as context, as Edit Selection does', () => {
    const end = documentText.indexOf('\n\n') + 1;
    const edit = chatEditMessages({
      instruction: 'add types',
      editor: { documentText, start: 0, end, languageId: 'typescript', fileName: 'math.ts' },
    });
    expect(edit).toEqual({
      messages: editMessages({ instruction: 'add types', documentText, start: 0, end, languageId: 'typescript', fileName: 'math.ts' }),
      sent: 'selection',
      start: 0,
      end,
    });
    const user = 'messages' in edit ? edit.messages.at(-1)?.content : '';
    expect(user).toContain('```ts\nexport function add(a, b) {\n  return a + b;\n}\n\n```');
    expect(user).toContain(`${SELECTION_MARKER}\n\nexport const zero = 0;`);
  });

  it('sends the whole active file when nothing is selected', () => {
    const edit = chatEditMessages({
      instruction: 'add types',
      editor: { documentText, start: 12, end: 12, languageId: 'typescript', fileName: 'math.ts' },
    });
    expect(edit).toMatchObject({ sent: 'file', start: 0, end: documentText.length });
    expect('messages' in edit ? edit.messages.at(-1)?.content : '').toContain(
      `The code to replace, from math.ts (lines 1–5):\n\`\`\`ts\n${documentText}\n\`\`\``,
    );
  });

  it('refuses a file too long to send whole, saying to select the code to change', () => {
    const long = 'x'.repeat(EDIT_WHOLE_FILE_CHARS + 1);
    expect(
      chatEditMessages({
        instruction: 'add types',
        editor: { documentText: long, start: 0, end: 0, languageId: 'typescript', fileName: 'big.ts' },
      }),
    ).toEqual({
      refused: `big.ts has ${long.length.toLocaleString('en-US')} characters, more than the ${EDIT_WHOLE_FILE_CHARS.toLocaleString('en-US')} /edit sends whole: select the code to change and ask again.`,
    });
    // A selection in it is sent with its bounded context, however long the file.
    expect(
      chatEditMessages({
        instruction: 'add types',
        editor: { documentText: long, start: 0, end: 10, languageId: 'typescript', fileName: 'big.ts' },
      }),
    ).toMatchObject({ sent: 'selection' });
  });

  it('sends the words alone when no editor is open', () => {
    expect(chatEditMessages({ instruction: 'write a constant holding the answer', editor: undefined })).toEqual({
      messages: [{ role: 'user', content: 'write a constant holding the answer' }],
      sent: 'words',
    });
  });
});

describe('SplicedSyntaxVerifier', () => {
  const documentText = 'class A {\n  f() {\n    return 1;\n  }\n}\n';
  const start = documentText.indexOf('  f()');
  const end = documentText.indexOf('}\n}') + 2;

  it('is named in words where the toast and the short line say what checked the edit, not by its id', () => {
    const verifier = new SplicedSyntaxVerifier({ documentText, start, end, languageId: 'typescript' });
    expect(checkedLine([verifier.label ?? verifier.name])).toBe("checked: the file's syntax with the edit");
  });

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

  it('passes a selected method the model rewrote in place, which the check on the block alone would fail', async () => {
    const edited = answer('```ts\n  f() {\n    return 2;\n  }\n```');
    const spliced = new SplicedSyntaxVerifier({ documentText, start, end, languageId: 'typescript' });
    const asEditSelection = callVerification('edit/typescript', { answerSyntax: false, extra: [spliced] }, {}, []);
    expect(asEditSelection.verifiable).toBe(true);
    expect(await asEditSelection.verifier.verify(edited)).toMatchObject({ verdict: 'pass' });
    // With the block also checked alone, it is read as a fragment (a class member), and passes there too.
    const alsoAlone = callVerification('edit/typescript', { extra: [spliced] }, {}, []);
    expect(await alsoAlone.verifier.verify(edited)).toMatchObject({ verdict: 'pass' });
  });

  it('judges nothing in a language the syntax check does not know, but fails an answer there with no code', async () => {
    const verifier = new SplicedSyntaxVerifier({ documentText: 'x = 1\n', start: 0, end: 5, languageId: 'python' });
    expect((await verifier.verify(answer('```python\nx = (\n```'))).verdict).toBe('unverified');
    expect((await verifier.verify(answer('Set x to 2.'))).verdict).toBe('fail');
  });

  it("fails a whole file answered less its last brace, which the session's check on the block alone took for a quote", async () => {
    const file = 'export function greeting(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
    const broken = answer(`\`\`\`ts\n${file.slice(0, file.lastIndexOf('}'))}\`\`\`\n`);
    const spliced = new SplicedSyntaxVerifier({ documentText: file, start: 0, end: file.length, languageId: 'typescript' });
    expect((await spliced.verify(broken)).verdict).toBe('fail');
    const request = { messages: [{ role: 'user' as const, content: `Instruction: add a comment\n\n\`\`\`ts\n${file}\`\`\`` }] };
    const alone = callVerification('edit/typescript', undefined, {}, [], request);
    expect((await alone.verifier.verify(broken)).verdict).not.toBe('fail');
  });
});

describe("@rung /edit's diff button", () => {
  const proposal = {
    callId: 'c1',
    model: 'strong',
    classKey: 'edit/typescript',
    uri: 'file:///w/a.ts',
    digest: textDigest('const a = 1;\n'),
    start: 0,
    end: 12,
    replacement: 'const a = 2;',
    footer: "Rung · strong · rung 1 of 1 · checked: the file's syntax with the edit · $0.0002",
  };

  it('reads back the proposal it carries, and nothing that is not one', () => {
    expect(readChatEditProposal(JSON.parse(JSON.stringify(proposal)))).toEqual(proposal);
    expect(readChatEditProposal({ ...proposal, end: -1 })).toBeUndefined();
    expect(readChatEditProposal({ ...proposal, replacement: 3 })).toBeUndefined();
    expect(readChatEditProposal('c1')).toBeUndefined();
  });

  it('tells a changed file by its digest', () => {
    expect(textDigest('const a = 1;\n')).toBe(proposal.digest);
    expect(textDigest('const a = 1;\n\n')).not.toBe(proposal.digest);
  });
});
