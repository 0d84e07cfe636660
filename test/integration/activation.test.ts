import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activateRung, eventually } from './support/rung';

describe('activation', () => {
  it('activates the extension loaded from the repository', async () => {
    const extension = await activateRung();
    assert.equal(extension.isActive, true);
    assert.equal(extension.packageJSON.name, 'rung');
  });

  it('creates the Rung log channel, which Rung: Show Log reveals with the activation time', async () => {
    await activateRung();
    await vscode.commands.executeCommand('rung.showLog');
    // A log channel shows as a document named after the channel (its file is `Rung.log` in the
    // extension's log folder); its text arrives after the document opens.
    const isRungLog = (document: vscode.TextDocument): boolean => /(^|[/-])Rung(\.log)?$/.test(document.uri.path);
    const log = await eventually(`the Rung log to be shown with text (open: ${vscode.workspace.textDocuments.map((document) => document.uri.toString()).join(', ')})`, () =>
      vscode.workspace.textDocuments.find((document) => isRungLog(document) && document.getText() !== ''),
    );
    assert.match(log.getText(), /activated in \d+(\.\d+)? ms/);
  });
});
