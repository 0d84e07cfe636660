import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { RungApi } from '../../src/extension/extension';
import { RungLog } from '../../src/extension/log';
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

  it("reveals a window's log once more after its first Show Log, and only after the first", () => {
    const channel = vscode.window.createOutputChannel('Rung reveal check', { log: true });
    let reveals = 0;
    const show = channel.show.bind(channel) as (preserveFocus?: boolean) => void;
    channel.show = ((preserveFocus?: boolean) => {
      reveals++;
      show(preserveFocus);
    }) as typeof channel.show;
    const pending: (() => void)[] = [];
    let cancelled = 0;
    const log = new RungLog(channel, {
      later: (reveal) => {
        pending.push(reveal);
        return { dispose: () => cancelled++ };
      },
    });
    log.show();
    assert.equal(reveals, 1);
    assert.equal(pending.length, 1, 'the first Show Log asks for one more reveal');
    pending[0]?.();
    assert.equal(reveals, 2);
    log.show();
    assert.equal(reveals, 3);
    assert.equal(pending.length, 1, 'a later Show Log does not');
    log.dispose();
    assert.equal(cancelled, 1, 'disposing the log cancels a reveal still to come');
  });
});
