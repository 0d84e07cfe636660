import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Keybinding {
  command: string;
  key: string;
  mac?: string;
  when?: string;
}

const manifest = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { keybindings?: Keybinding[] };
};
const keybindings = manifest.contributes.keybindings ?? [];

/**
 * The keys GitHub Copilot Chat binds (microsoft/vscode-copilot-chat, package.json `contributes.keybindings`,
 * version 0.38): the chat and inline chat keys it once had (Ctrl+I, Ctrl+Alt+I, Ctrl+Shift+I) are
 * VS Code's own now, and the host check against the editor's Keyboard Shortcuts covers those.
 */
const COPILOT_CHAT_KEYS = ['ctrl+alt+.', 'cmd+alt+.', 'ctrl+k ctrl+r', 'cmd+k cmd+r', 'ctrl+enter', 'cmd+enter', 'escape'];

describe("Rung's keybindings", () => {
  it('bind Edit Selection in an editable editor, and Accept and Reject only while a Rung edit waits', () => {
    expect(keybindings.map((binding) => [binding.command, binding.when])).toEqual([
      ['rung.editSelection', 'editorTextFocus && !editorReadonly'],
      ['rung.acceptEdit', 'rung.editPending'],
      ['rung.rejectEdit', 'rung.editPending'],
    ]);
  });

  it("share no key with GitHub Copilot Chat's, on Linux, Windows or macOS", () => {
    for (const binding of keybindings) {
      for (const key of [binding.key, binding.mac]) expect(COPILOT_CHAT_KEYS, `${binding.command} ${key}`).not.toContain(key);
    }
  });

  it('give macOS the same chord with Cmd for Ctrl, and no Ctrl+Alt letter that AltGr types on Windows', () => {
    for (const binding of keybindings) {
      expect(binding.mac).toBe(binding.key.replace(/ctrl\+/g, 'cmd+'));
      expect(binding.key).not.toMatch(/ctrl\+alt\+[a-z]\b/);
    }
  });
});
