import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activateRung, eventually, RUNG_EXTENSION_ID } from './support/rung';

describe('activation', () => {
  it('activates the extension loaded from the repository', async () => {
    const extension = await activateRung();
    assert.equal(extension.isActive, true);
    assert.equal(extension.packageJSON.name, 'rung');
  });

  it('creates the Rung output channel, which Rung: Show Log reveals', async () => {
    await activateRung();
    await vscode.commands.executeCommand('rung.showLog');
    // An output channel is an `output:` document once shown, named after the extension and the channel.
    // Its text arrives after the document opens.
    const log = await eventually('the Rung output channel to be shown with text', () =>
      vscode.workspace.textDocuments.find((document) => document.uri.scheme === 'output' && document.uri.path.includes(`${RUNG_EXTENSION_ID}-`) && document.uri.path.endsWith('Rung') && document.getText() !== ''),
    );
    assert.match(log.getText(), /Rung/);
  });
});
