import { describe, expect, it } from 'vitest';
import { isEditorAgentReference } from '../../../../src/extension/chat/promptReferences';

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
