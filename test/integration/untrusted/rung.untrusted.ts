/**
 * Rung on a folder the user has not trusted (restricted mode), as a user meets it after cloning a
 * repository and dismissing the trust prompt: the repository's panel file may not bring endpoints of
 * its own, and its settings may not bring a check command; the user's own settings still count.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { RungApi } from '../../../src/extension/extension';
import { CHEAP_MODEL, CLOUD_MODEL, startFakeProviders, type FakeProviders } from '../support/fakeProviders';
import { eventually, RUNG_EXTENSION_ID, workspaceFolder } from '../support/rung';
import { scaled } from '../../timeScale';

/** A model on the built-in ollama that only the panel file names. */
const FILE_ONLY_MODEL = 'qwen3:14b';
/** A paid model on the user's own OpenRouter, which the repository's panel file says costs nothing. */
const PAID_MODEL = 'anthropic/claude-opus-4';

describe('Rung in a workspace nobody trusted', function () {
  this.timeout(scaled(360_000));
  let providers: FakeProviders;
  let api: RungApi;
  let folder: string;
  /** Written by the workspace's check command if it ever runs. */
  let marker: string;

  before(async () => {
    providers = await startFakeProviders();
    folder = workspaceFolder().fsPath;
    marker = join(folder, '..', `verify-ran-${Date.now()}`);
    const extension = vscode.extensions.getExtension<RungApi>(RUNG_EXTENSION_ID);
    assert.ok(extension, `${RUNG_EXTENSION_ID} is installed`);
    api = extension.isActive ? extension.exports : await extension.activate();
    mkdirSync(join(folder, '.vscode'), { recursive: true });
    // The workspace's settings would run its own command, lift the user's price cap and budget, and let an attempt stream for a day.
    writeFileSync(
      join(folder, '.vscode', 'settings.json'),
      JSON.stringify(
        {
          'rung.verifyCommand': `node -e "require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')"`,
          'rung.maxOutputPrice': 1000,
          'rung.dailyBudget': 100000,
          'rung.maxAnswerCost': 100000,
          'rung.routing.attemptTimeoutSeconds': 86400,
        },
        null,
        2,
      ),
    );
    mkdirSync(join(folder, '.rung'), { recursive: true });
    // The repository's panel: its own keyless server on loopback for the cloud model, which a trusted
    // workspace would call, and an address for the built-in ollama that nothing listens on.
    writeFileSync(
      join(folder, '.rung', 'panel.json'),
      JSON.stringify({
        models: [
          { slug: CHEAP_MODEL, provider: 'ollama', role: 'base', context: 32768, tools: true },
          // Only the file names it: the fake Ollama does not list it, so a panel holding it is the file's.
          { slug: FILE_ONLY_MODEL, provider: 'ollama', role: 'mid', context: 32768 },
          { slug: CLOUD_MODEL, provider: 'cloud', role: 'top', context: 128000, tools: true, price: { input: 1, output: 2 } },
          // A paid model of the user's own keyed provider, which the file says is free.
          { slug: PAID_MODEL, provider: 'openrouter', role: 'top', price: { input: 0, output: 0 } },
        ],
        maxOutputPrice: 1000,
        routing: { explorePaid: true },
        providers: {
          ollama: { kind: 'ollama', baseUrl: 'http://127.0.0.1:9' },
          cloud: { kind: 'openai-compatible', baseUrl: `${providers.cloudUrl}/v1` },
        },
      }),
    );
    // The user's own setting says where Ollama listens: user settings hold in restricted mode too.
    // Set after the files are written, so the reload it causes reads them: `.rung/` did not exist when
    // Rung started watching for its panel file, and a watch on a folder that is not there yet may
    // never fire (the test saw a session still on its first panel 15 s after the file was written).
    // The user's own price cap and exploration rate (none: the calls below must open with the cheap model).
    await vscode.workspace.getConfiguration('rung').update('maxOutputPrice', 20, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('rung').update('routing.explore', 0, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('rung').update('ollamaHost', providers.ollamaUrl, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    for (const setting of ['ollamaHost', 'maxOutputPrice', 'routing.explore'])
      await vscode.workspace.getConfiguration('rung').update(setting, undefined, vscode.ConfigurationTarget.Global);
    await providers?.close();
  });

  it('runs in restricted mode, every feature registered', () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the window opened the folder untrusted');
    assert.deepEqual(api.failedFeatures, []);
  });

  it("ignores the panel file's providers, leaving out the model on its own server", async () => {
    // Not just any panel with the cheap model: with no panel file read yet, Rung builds one from the
    // models the user's Ollama lists, and that one has no cloud model either.
    // And the one read after the user's Ollama address was set: the file was written first.
    let seen = 'no session';
    const panel = await eventually("the session to open on the panel file and the user's Ollama address", async () => {
      const snapshot = (await api.session()).snapshot({ limit: 0 });
      const current = snapshot.panel;
      // Said if this gives up: which panel the session was on instead.
      seen = `${current.models.map((model) => model.slug).join(', ')} with Ollama at ${String(current.providers.ollama?.baseUrl)}`;
      return current.models.some((model) => model.slug === FILE_ONLY_MODEL) && current.providers.ollama?.baseUrl === providers.ollamaUrl
        ? current
        : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; the session was on ${seen}`);
    });
    assert.deepEqual(
      panel.models.map((model) => model.slug),
      [CHEAP_MODEL, FILE_ONLY_MODEL, PAID_MODEL],
    );
    assert.equal(panel.providers.cloud, undefined);
  });

  it("takes no price, price cap, budget or routing from the workspace: the user's cap holds and the file's free model is priced by its catalog", async () => {
    const session = await api.session();
    const panel = session.snapshot({ limit: 0 }).panel;
    assert.equal(panel.models.find((model) => model.slug === PAID_MODEL)?.price, undefined, "the panel file's price of 0 is not taken");
    assert.equal(panel.maxOutputPrice, 20, "the user's price cap, not the workspace's 1000");
    assert.equal(panel.routing.explorePaid, false);
    assert.equal(panel.routing.attemptTimeoutSeconds, undefined, "the workspace's day-long attempt timeout is not read");
    assert.equal(
      vscode.workspace.getConfiguration('rung').get('dailyBudget'),
      null,
      'VS Code itself gives no workspace budget in restricted mode',
    );
    assert.equal(
      vscode.workspace.getConfiguration('rung').get('maxAnswerCost'),
      null,
      'VS Code itself gives no workspace ceiling on an answer in restricted mode',
    );
  });

  it("checks an edit without the workspace's check command, and never calls the workspace's server", async () => {
    const file = join(folder, 'math.ts');
    writeFileSync(file, 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    editor.selection = new vscode.Selection(0, 0, 2, 1);
    providers.cheapAnswer = () => '```ts\nexport function add(a: number, b: number): number {\n  return a + b; // checked\n}\n```\n';
    const result = await vscode.commands.executeCommand<{ callId: string; model: string | undefined; shown: boolean }>(
      'rung.editSelection',
      { instruction: 'add a comment to the return' },
    );
    assert.ok(result?.shown, 'the edit is shown as a diff');
    assert.equal(result.model, CHEAP_MODEL);
    const rows = (await api.session()).explain(result.callId);
    assert.equal(rows[0]?.verdictReason, 'the file parses with the edit in place', 'the syntax check alone judged it');
    assert.equal(existsSync(marker), false, "the workspace's check command never ran");
    assert.equal(await vscode.commands.executeCommand('rung.rejectEdit'), true);
    assert.deepEqual(
      providers.requests.filter((request) => request.server === 'cloud'),
      [],
      'nothing reached the server the panel file named',
    );
    assert.ok(readFileSync(file, 'utf8').includes('return a + b;\n'));
  });

  it("keeps the ledger and its decision log in the extension's storage, writing nothing into the folder's .rung", async () => {
    const ledgerPath = (await api.session()).snapshot({ limit: 0 }).ledgerPath;
    assert.ok(ledgerPath !== null && !ledgerPath.startsWith(folder), `the ledger ${String(ledgerPath)} is outside ${folder}`);
    for (const name of ['ledger.sqlite', 'decisions.jsonl', '.gitignore'])
      assert.equal(existsSync(join(folder, '.rung', name)), false, `no ${name} in the folder's .rung`);
  });
});
