import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activateRung, eventually } from './support/rung';

/** The open tabs showing the ledger webview (their view type carries the extension's prefix). */
function ledgerTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('rung.ledger'));
}

describe('ledger panel', () => {
  it('opens one Rung Ledger tab from its command, and reveals it rather than opening a second', async () => {
    await activateRung();
    await vscode.commands.executeCommand('rung.openLedger');
    const tab = await eventually('a Rung Ledger webview tab', () => ledgerTabs()[0]);
    assert.equal(tab.label, 'Rung Ledger');
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await vscode.commands.executeCommand('rung.openLedger');
    await eventually('the ledger tab to be active again', () => ledgerTabs().find((candidate) => candidate.isActive));
    assert.equal(ledgerTabs().length, 1);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
