import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { RungApi } from '../../src/extension/extension';
import { activateRung, eventually } from './support/rung';

describe('activation', () => {
  it('activates the extension loaded from the repository', async () => {
    const extension = await activateRung();
    assert.equal(extension.isActive, true);
    assert.equal(extension.packageJSON.name, 'rung');
  });

  it('writes the activation time to the Rung log, which Rung: Show Log reveals', async () => {
    const extension = await activateRung();
    const api = extension.exports as RungApi;
    await vscode.commands.executeCommand('rung.showLog');
    // A log channel is a file in the extension's log folder, not a text document the test could list.
    const file = vscode.Uri.joinPath(api.logFolder, 'Rung.log');
    const text = await eventually(`${file.fsPath} to hold the activation line`, async () => {
      const bytes = await vscode.workspace.fs.readFile(file).then(
        (data) => data,
        () => undefined,
      );
      const content = bytes ? new TextDecoder().decode(bytes) : '';
      return /activated in/.test(content) ? content : undefined;
    });
    assert.match(text, /activated in \d+(\.\d+)? ms/);
  });
});
