/**
 * Rung in a window with no folder open, as a user meets it after "Close Folder" or a fresh start: it
 * activates, takes its panel from the user settings (there is no `.rung/panel.json` to read), routes,
 * and keeps its ledger and decision log in the extension's global storage.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { RungApi } from '../../../src/extension/extension';
import { CHEAP_MODEL, fakePanel, startFakeProviders, type FakeProviders } from '../support/fakeProviders';
import { eventually, RUNG_EXTENSION_ID } from '../support/rung';
import { scaled } from '../../timeScale';

describe('Rung with no folder open', function () {
  this.timeout(scaled(360_000));
  let providers: FakeProviders;
  let api: RungApi;

  before(async () => {
    providers = await startFakeProviders();
    const extension = vscode.extensions.getExtension<RungApi>(RUNG_EXTENSION_ID);
    assert.ok(extension, `${RUNG_EXTENSION_ID} is installed`);
    api = extension.isActive ? extension.exports : await extension.activate();
  });

  after(async () => {
    await vscode.workspace.getConfiguration('rung').update('panel', undefined, vscode.ConfigurationTarget.Global);
    await providers?.close();
  });

  it('activates in a window with no folder, every feature registered', () => {
    assert.equal(vscode.workspace.workspaceFolders, undefined, 'the window has no folder open');
    assert.deepEqual(api.failedFeatures, []);
  });

  it('answers from a panel in the user settings and records the call in a ledger in global storage', async () => {
    await vscode.workspace.getConfiguration('rung').update('panel', fakePanel(providers), vscode.ConfigurationTarget.Global);
    await eventually('the session to open on the settings panel', async () =>
      (await api.session()).snapshot({ limit: 0 }).panel.models.some((model) => model.slug === CHEAP_MODEL),
    );
    providers.cheapAnswer = () => 'Six times seven is 42.';
    const answered = await vscode.commands.executeCommand<{ callId: string; model: string | undefined }>(
      'rung.ask',
      'What is six times seven?',
    );
    assert.equal(answered?.model, CHEAP_MODEL);
    assert.ok(
      providers.requests.some((request) => request.server === 'ollama' && request.path === '/api/chat'),
      'the question reached the model server',
    );
    const ledgerPath = (await api.session()).snapshot({ limit: 0 }).ledgerPath;
    assert.ok(ledgerPath, 'the ledger is a file');
    assert.match(ledgerPath, /[/\\]globalStorage[/\\]rung\.rung[/\\]ledger\.sqlite$/);
    const log = join(dirname(ledgerPath), 'decisions.jsonl');
    await eventually(
      'the call in the decision log beside the ledger',
      () => existsSync(log) && readFileSync(log, 'utf8').includes(`"call":"${answered.callId}"`),
    );
    await eventually('the ledger file written', () => existsSync(ledgerPath));
  });
});
