import { describe, expect, it } from 'vitest';
import { isEditorAgentReference, MAX_REFERENCE_CHARS, referenceText } from '../../../../src/extension/chat/promptReferences';

describe('the references @rung sends', () => {
  it('leaves out the skills index and the instruction files the editor adds for its own agent', () => {
    expect(isEditorAgentReference({ id: 'vscode.customizations.index' })).toBe(true);
    expect(isEditorAgentReference({ id: 'vscode.instructions.file.root' })).toBe(true);
    expect(isEditorAgentReference({ id: 'vscode.instructions.file.reference' })).toBe(true);
  });

  it("keeps what the user attached: files, selections, symbols and other extensions' variables", () => {
    expect(isEditorAgentReference({ id: 'vscode.file' })).toBe(false);
    expect(isEditorAgentReference({ id: 'vscode.implicit.selection' })).toBe(false);
    expect(isEditorAgentReference({ id: 'file:///work/src/app.ts' })).toBe(false);
    expect(isEditorAgentReference({ id: 'copilot.terminalSelection' })).toBe(false);
  });
});

describe('a file attached to @rung', () => {
  /** 8,000 numbered lines of 40 characters: 320 KB, as the file in the report that was dropped. */
  const lines = Array.from({ length: 8_000 }, (_, index) =>
    `export const value${String(index + 1).padStart(5, '0')} = ${index};`.padEnd(39),
  );
  const text = lines.join('\n');
  const offsetOfLine = (line: number) => lines.slice(0, line - 1).reduce((sum, entry) => sum + entry.length + 1, 0);

  it('goes whole when it fits, with nothing said', () => {
    expect(referenceText({ name: 'a.ts', languageId: 'typescript', text: 'const a = 1;' })).toEqual({
      prompt: 'a.ts:\n```typescript\nconst a = 1;\n```',
    });
  });

  it('goes as the whole lines around the cursor when it does not, and the model and the user are told which', () => {
    const cursor = offsetOfLine(4_000);
    const sent = referenceText({
      name: 'big.ts',
      languageId: 'typescript',
      text,
      focus: { start: cursor, end: cursor },
      focusWord: 'around the cursor',
    });
    const shown = /lines ([\d,]+)–([\d,]+) of 8,000/.exec(sent.prompt);
    const [first, last] = [Number(shown?.[1]?.replace(/,/g, '')), Number(shown?.[2]?.replace(/,/g, ''))];
    expect(first).toBeLessThan(4_000);
    expect(last).toBeGreaterThan(4_000);
    expect(sent.prompt).toContain('value04000 = 3999;');
    expect(sent.prompt).not.toContain('value00001 ');
    expect(sent.prompt.length).toBeLessThanOrEqual(MAX_REFERENCE_CHARS + 300);
    expect(sent.note).toBe(
      `\`big.ts\` has ${text.length.toLocaleString('en-US')} characters, more than the 20,000 @rung sends of one file: sent lines ${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of 8,000, around the cursor.`,
    );
  });

  it('counts lines as an editor does: a last line break opens no line of its own', () => {
    expect(referenceText({ name: 'big.ts', languageId: 'typescript', text: `${text}\n` }).note).toMatch(/ of 8,000, from its start\.$/);
  });

  it('goes from its start when no editor shows where the user is, and cuts a single long line around the focus', () => {
    expect(referenceText({ name: 'big.ts', languageId: 'typescript', text }).note).toMatch(/sent lines 1–\d+ of 8,000, from its start\.$/);
    const minified = `${'a'.repeat(100_000)}TARGET${'b'.repeat(100_000)}`;
    const sent = referenceText({ name: 'min.js', languageId: 'javascript', text: minified, focus: { start: 100_000, end: 100_000 } });
    expect(sent.prompt).toContain('TARGET');
    expect(sent.note).toMatch(/sent line 1 of 1, around the cursor\.$/);
  });
});
