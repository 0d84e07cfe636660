/**
 * Rung in a real extension host: activation, every command, the model provider, @rung, Edit
 * Selection and the ledger, against local servers speaking the Ollama and OpenAI-compatible
 * protocols.
 *
 * @remarks
 * The cheap Ollama model fails every check on purpose and the cloud model passes, so each checked
 * call must escalate; the servers record what they were sent, so a test proves which rung was
 * really called, and the decision log proves what Rung recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { parsePanel } from '../../src/core/panel';
import type { Session } from '../../src/core/session/types';
import type { RungApi } from '../../src/extension/extension';
import { scaled } from '../timeScale';
import { CHEAP_MODEL, CLOUD_MODEL, defaultCheapAnswer, fakePanel, startFakeProviders, type FakeProviders } from './support/fakeProviders';

const EXTENSION_ID = 'rung.rung';
const CLOUD_KEY = 'test-key-0123456789abcdef';
/**
 * How long a test waits for something the editor does in the background, ms: a limit for a hang, not a
 * guess at how long it takes (30 s was too short for the session to open on a 2-core machine at load 15–20).
 */
const SETTLE_MS = scaled(120_000);

/** A JSON Schema a plan must match: the cheap model's prose cannot. */
const PLAN_SCHEMA = { type: 'object', required: ['steps'], properties: { steps: { type: 'array', items: { type: 'string' } } } };

let providers: FakeProviders;
let api: RungApi;
let folder: string;

/** Waits until `probe` returns a value, or fails naming what it waited for. */
async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < SETTLE_MS) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

async function session(): Promise<Session> {
  return api.session();
}

/** The newest decision rows of the log, newest first. */
async function newestRows(count: number): Promise<DecisionRow[]> {
  return (await session()).snapshot({ limit: count }).decisions.rows;
}

/** The attempt rows (not settling rows) of the newest call whose class starts with `classPrefix`. */
async function newestCall(classPrefix: string, after: number): Promise<DecisionRow[] | undefined> {
  const rows = (await newestRows(50)).filter((row) => row.at >= after && row.class.startsWith(classPrefix) && !row.final);
  const call = rows[0]?.call;
  return call ? rows.filter((row) => row.call === call).reverse() : undefined;
}

/** Chat calls a fake server answered since request number `after`. */
function chatRequests(server: 'ollama' | 'cloud', after: number): number {
  const path = server === 'ollama' ? '/api/chat' : '/v1/chat/completions';
  return providers.requests.slice(after).filter((request) => request.server === server && request.path === path).length;
}

describe('Rung in a real extension host', function () {
  this.timeout(scaled(360_000));

  before(async () => {
    providers = await startFakeProviders();
    const workspace = vscode.workspace.workspaceFolders?.[0];
    assert.ok(workspace, 'the test host opens a folder');
    folder = workspace.uri.fsPath;
    mkdirSync(join(folder, '.rung'), { recursive: true });
    writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(fakePanel(providers), null, 2)}\n`);
    const extension = vscode.extensions.getExtension<RungApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = extension.isActive ? extension.exports : await extension.activate();
    await vscode.commands.executeCommand('rung.setProviderKey', 'cloud', CLOUD_KEY);
    await waitFor('the session to open on the test panel', async () =>
      (await session()).snapshot({ limit: 0 }).panel.models.some((model) => model.slug === CLOUD_MODEL),
    );
  });

  after(async () => {
    await providers?.close();
  });

  it('activates on startup with every feature registered, and says how long it took', () => {
    const extension = vscode.extensions.getExtension<RungApi>(EXTENSION_ID);
    assert.equal(extension?.isActive, true);
    assert.deepEqual(api.failedFeatures, []);
    assert.equal(typeof api.activationMs, 'number');
    console.log(`rung activation: ${api.activationMs.toFixed(1)} ms`);
  });

  it('registers every command it contributes', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    const contributed = (extension?.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map(
      (entry) => entry.command,
    );
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((id) => !registered.has(id)),
      [],
    );
    assert.ok(contributed.length >= 16);
  });

  it('lists Rung Auto and every panel model in the model list, with tool calling declared', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: 'rung' });
    const ids = models.map((model) => model.id);
    assert.deepEqual(ids.sort(), ['rung-auto', CHEAP_MODEL, CLOUD_MODEL].sort());
    assert.equal(models.find((model) => model.id === 'rung-auto')?.name, 'Rung Auto');
    assert.ok((await models[0]?.countTokens('twelve chars')) === 3);
  });

  it('answers a Rung Auto plan through the cloud model after the Ollama answer fails its schema', async () => {
    const before = providers.requests.length;
    const started = Date.now();
    const [auto] = await vscode.lm.selectChatModels({ vendor: 'rung', id: 'rung-auto' });
    assert.ok(auto);
    const response = await auto.sendRequest([vscode.LanguageModelChatMessage.User('Plan how to rename a function.')], {
      modelOptions: { rung: { schema: PLAN_SCHEMA } },
    });
    let text = '';
    for await (const part of response.text) text += part;
    assert.deepEqual(JSON.parse(text), { steps: ['read the code', 'change it'] });
    assert.equal(chatRequests('ollama', before), 1, 'the cheap model was asked first');
    assert.equal(chatRequests('cloud', before), 1, 'the cloud model was asked after it');
    const rows = await waitFor('the plan call in the decision log', () => newestCall('plan', started));
    assert.deepEqual(
      rows.map((row) => [row.model, row.verdict]),
      [
        [CHEAP_MODEL, 'fail'],
        [CLOUD_MODEL, 'pass'],
      ],
    );
    assert.match(rows[0]?.verdictReason ?? '', /JSON/);
    assert.deepEqual(rows[1]?.escalation, [CHEAP_MODEL]);
  });

  it('says why no Rung Auto answer stands in one plain sentence, naming the last attempt and the check it failed', async () => {
    const [auto] = await vscode.lm.selectChatModels({ vendor: 'rung', id: 'rung-auto' });
    assert.ok(auto);
    // Both answers miss a field the schema requires; a class of its own keeps the other tests' ratings.
    const impossible = { type: 'object', required: ['never'], properties: { never: { type: 'string' } } };
    const ask = async (): Promise<void> => {
      const response = await auto.sendRequest([vscode.LanguageModelChatMessage.User('Plan a rename.')], {
        modelOptions: { rung: { schema: impossible, classKey: 'no-answer-probe' } },
      });
      for await (const part of response.text) void part;
    };
    await assert.rejects(ask, (error: Error) => {
      assert.match(
        error.message,
        new RegExp(`^Rung got no answer: ${CLOUD_MODEL.replace('/', '\\/')}, the last model tried, ended failing its check \\(`),
      );
      // The editor prints a provider's error with its stack when it has one: none, so no path into the bundle.
      assert.ok(!error.stack || !/extension\.js/.test(error.stack), `no stack into Rung's bundle: ${error.stack ?? ''}`);
      return true;
    });
  });

  it('throws a schema the check cannot read back to the caller, asking no model', async () => {
    const before = providers.requests.length;
    const [auto] = await vscode.lm.selectChatModels({ vendor: 'rung', id: 'rung-auto' });
    assert.ok(auto);
    const ask = async (): Promise<void> => {
      const response = await auto.sendRequest([vscode.LanguageModelChatMessage.User('Plan a rename.')], {
        modelOptions: { rung: { schema: { type: 'nonsense' } } },
      });
      for await (const part of response.text) void part;
    };
    await assert.rejects(ask, /modelOptions\.rung given to Rung is malformed: schema: #\/type: unknown type "nonsense"/);
    assert.equal(chatRequests('ollama', before) + chatRequests('cloud', before), 0);
  });

  it('climbs past the model that answered a Rung Auto request sent again unchanged, failing that answer at the weight of feedback, and routes it as before once nothing is above', async () => {
    const started = Date.now();
    const [auto] = await vscode.lm.selectChatModels({ vendor: 'rung', id: 'rung-auto' });
    assert.ok(auto);
    // The Chat view's Retry sends the very same request again (the browser check of it reads the bodies).
    const ask = async (): Promise<void> => {
      const response = await auto.sendRequest([vscode.LanguageModelChatMessage.User('Say hello, then I will ask the same again.')]);
      for await (const part of response.text) void part;
    };
    const callAfter = (seen: Set<string>): Promise<DecisionRow[]> =>
      waitFor('the next Rung Auto call', async () => {
        const rows = await newestCall('chat', started);
        return rows && !seen.has(rows[0]?.call ?? '') ? rows : undefined;
      });
    await ask();
    const first = await callAfter(new Set());
    assert.deepEqual(
      first.map((row) => row.model),
      [CHEAP_MODEL],
      'the first asking opens on the cheap rung',
    );
    await ask();
    const second = await callAfter(new Set([first[0]?.call ?? '']));
    assert.deepEqual(
      second.map((row) => [row.model, row.rung, row.candidates, row.pruned]),
      [
        [
          CLOUD_MODEL,
          0,
          [CLOUD_MODEL],
          [{ model: CHEAP_MODEL, reason: `pruned: not above ${CHEAP_MODEL} on the ladder (a stronger model was asked for)` }],
        ],
      ],
      'asked again, it climbs past the model that answered',
    );
    const settled = (await session()).explain(first[0]?.call ?? '').filter((row) => row.final);
    assert.deepEqual(
      settled.map((row) => [row.model, row.verdict, row.verdictReason]),
      [[CHEAP_MODEL, 'fail', "the user asked the same again (the Chat view's Retry)"]],
      'asking again fails the first answer, once, at the weight of feedback',
    );
    await ask();
    const third = await callAfter(new Set([first[0]?.call ?? '', second[0]?.call ?? '']));
    assert.equal(third[0]?.model, CHEAP_MODEL, 'nothing sits above the cloud model, so the third asking is routed as a fresh one');
  });

  it('routes an @rung edit through the cascade: the broken Ollama code escalates to the cloud model', async () => {
    const before = providers.requests.length;
    const started = Date.now();
    await vscode.commands.executeCommand('workbench.action.chat.open', {
      query: '@rung /edit write a constant holding the answer',
      mode: 'ask',
    });
    const rows = await waitFor('the @rung edit in the decision log', async () => {
      const call = await newestCall('edit', started);
      return call && call.length >= 2 ? call : undefined;
    });
    assert.deepEqual(
      rows.map((row) => [row.model, row.verdict]),
      [
        [CHEAP_MODEL, 'fail'],
        [CLOUD_MODEL, 'pass'],
      ],
    );
    assert.match(rows[0]?.verdictReason ?? '', /syntax error/);
    assert.ok(chatRequests('ollama', before) >= 1 && chatRequests('cloud', before) >= 1);
  });

  it("retrying an answer from the ladder's top settles it as failed and asks no weaker model", async () => {
    const started = Date.now();
    const previous = await waitFor('the earlier @rung edit', () => newestCall('edit', 0));
    const answered = previous.at(-1);
    assert.equal(answered?.model, CLOUD_MODEL);
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@rung /retry', mode: 'ask' });
    const settled = await waitFor('the retried answer settled as failed', async () =>
      (await session()).explain(answered.call).find((row) => row.final),
    );
    assert.equal(settled.verdict, 'fail');
    assert.equal(settled.verdictReason, 'the user asked for a stronger model');
    // The Chat view answers one request at a time, so once the next question is a call of its own, a
    // call the retry started would be in the log before it.
    await vscode.commands.executeCommand('workbench.action.chat.open', {
      query: '@rung /edit write a constant holding the answer',
      mode: 'ask',
    });
    const next = await waitFor('the next question routed', async () => {
      const rows = await newestCall('edit', started);
      return rows && rows[0]?.call !== answered.call ? rows : undefined;
    });
    const since = new Set(
      (await newestRows(50)).filter((row) => row.at >= started && row.class.startsWith('edit') && !row.final).map((row) => row.call),
    );
    assert.deepEqual([...since], [next[0]?.call], 'the retry routed no call: nothing on the panel is above the cloud model');
  });

  it('applies a checked Edit Selection after the syntax check sends it up a rung, and records the acceptance', async () => {
    const file = join(folder, 'math.ts');
    writeFileSync(file, 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, 2, 1);
    const result = await vscode.commands.executeCommand<{ callId: string; model: string | undefined; shown: boolean }>(
      'rung.editSelection',
      { instruction: 'add a comment to the return' },
    );
    assert.ok(result?.shown, 'the edit is shown as a diff');
    assert.equal(result.model, CLOUD_MODEL);
    assert.equal(await vscode.commands.executeCommand('rung.acceptEdit'), true);
    assert.match(document.getText(), /return a \+ b; \/\/ checked by Rung/);
    const rows = (await session()).explain(result.callId);
    assert.deepEqual(
      rows.map((row) => [row.model, row.verdict, row.final]),
      [
        [CHEAP_MODEL, 'fail', false],
        [CLOUD_MODEL, 'pass', false],
        [CLOUD_MODEL, 'pass', true],
      ],
    );
    assert.equal(rows.at(-1)?.verdictReason, 'the user accepted the edit');
  });

  it('checks a selected method where it stands, with the file around it sent as context, so a good fragment stands on the first rung', async () => {
    const file = join(folder, 'cart.ts');
    writeFileSync(
      file,
      'export class Cart {\n  private items: number[] = [];\n\n  total(): number {\n    return this.items.reduce((a, b) => a + b, 0);\n  }\n}\n',
    );
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    // The method alone: it does not parse as a file by itself.
    editor.selection = new vscode.Selection(3, 0, 5, 3);
    providers.cheapAnswer = () =>
      '```ts\n  total(): number {\n    return this.items.length === 0 ? 0 : this.items.reduce((a, b) => a + b, 0);\n  }\n```\n';
    const before = providers.requests.length;
    try {
      const result = await vscode.commands.executeCommand<{ callId: string; model: string | undefined; shown: boolean }>(
        'rung.editSelection',
        { instruction: 'return 0 for an empty cart' },
      );
      assert.ok(result?.shown, 'the edit is shown as a diff');
      assert.equal(result.model, CHEAP_MODEL);
      assert.equal(chatRequests('cloud', before), 0, 'the fragment passed its check in place, so nothing climbed');
      const sent = JSON.stringify(
        providers.requests.slice(before).find((request) => request.server === 'ollama' && request.path === '/api/chat')?.body.messages ??
          [],
      );
      assert.match(sent, /For context only, the rest of cart\.ts around it/);
      assert.ok(
        sent.includes('export class Cart {') && sent.includes('private items: number[] = [];'),
        'the class around the method went as context',
      );
      const rows = (await session()).explain(result.callId);
      assert.equal(rows[0]?.verdictReason, 'the file parses with the edit in place');
      assert.equal(await vscode.commands.executeCommand('rung.acceptEdit'), true);
      assert.match(
        document.getText(),
        /^export class Cart \{\n {2}private items: number\[\] = \[\];\n\n {2}total\(\): number \{\n {4}return this\.items\.length === 0 \? 0 :/,
      );
    } finally {
      providers.cheapAnswer = defaultCheapAnswer;
    }
  });

  it('turns a rating of the last answer into a settled verdict', async () => {
    const answered = await vscode.commands.executeCommand<{ callId: string; model: string | undefined }>('rung.ask', 'What is 6 times 7?');
    assert.ok(answered?.model);
    assert.equal(await vscode.commands.executeCommand('rung.rateLastAnswer', 'fail'), true);
    const truth = (await session()).explain(answered.callId).at(-1);
    assert.equal(truth?.final, true);
    assert.equal(truth?.verdict, 'fail');
    assert.equal(truth?.verdictReason, 'the user rated the answer bad');
  });

  it('writes the ledger and its decision log in the workspace', async () => {
    const ledger = join(folder, '.rung', 'ledger.sqlite');
    assert.equal((await session()).snapshot({ limit: 0 }).ledgerPath, ledger);
    await waitFor('the ledger file', () => existsSync(ledger));
    const log = readFileSync(join(folder, '.rung', 'decisions.jsonl'), 'utf8');
    assert.ok(log.split('\n').filter(Boolean).length >= 4);
  });

  it('pins, avoids and unpins a model, which the next call opens with', async () => {
    await vscode.commands.executeCommand('rung.pin', CLOUD_MODEL);
    const before = providers.requests.length;
    const pinned = await vscode.commands.executeCommand<{ callId: string; model: string | undefined }>('rung.ask', 'Say hello.');
    assert.equal(pinned?.model, CLOUD_MODEL);
    assert.equal(chatRequests('ollama', before), 0, 'the pinned model opened, so the cheap one was not asked');
    await vscode.commands.executeCommand('rung.unpin');
    await vscode.commands.executeCommand('rung.avoid', CHEAP_MODEL);
    const ranking = (await session()).rank({ classKey: 'chat', avoid: CHEAP_MODEL });
    assert.equal(ranking.candidates[0]?.slug, CLOUD_MODEL);
    await vscode.commands.executeCommand('rung.avoid', undefined);
  });

  it('explains the last decision, exports the ledger and resets it when confirmed', async () => {
    const explained = await vscode.commands.executeCommand<string>('rung.explainLastDecision');
    assert.match(explained ?? '', /^# Why \S+ answered\n/);
    // Shown rendered, as the editor's Markdown preview, not as its source.
    const preview = await waitFor('the Markdown preview', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputWebview && input.viewType.includes('markdown.preview')
        ? vscode.window.tabGroups.activeTabGroup.activeTab
        : undefined;
    });
    assert.match(preview.label, /Why this answer/);
    assert.equal(vscode.window.activeTextEditor?.document.uri.scheme === 'rung-explain', false, 'the source is not what the user reads');
    // Of a read-only Markdown document, not an untitled one: closing it asks nothing.
    const shown = vscode.workspace.textDocuments.find((document) => document.uri.scheme === 'rung-explain');
    assert.equal(shown?.languageId, 'markdown');
    assert.equal(shown?.isDirty, false);
    assert.equal(shown?.getText(), explained);
    const target = vscode.Uri.file(join(tmpdir(), `rung-export-${process.pid}.json`));
    await vscode.commands.executeCommand('rung.exportLedger', target);
    assert.ok(readFileSync(target.fsPath, 'utf8').includes(CLOUD_MODEL));
    assert.ok((await session()).snapshot({ limit: 0 }).ratings.length > 0);
    assert.equal(await vscode.commands.executeCommand('rung.resetLedger', { confirmed: true }), true);
    assert.deepEqual((await session()).snapshot({ limit: 0 }).ratings, []);
  });

  it('keeps routing on the last good panel when a setting is bad, and names the setting in the log', async () => {
    const before = (await session()).snapshot({ limit: 0 }).panel.routing.explore;
    await vscode.workspace.getConfiguration('rung').update('routing.explore', 3, vscode.ConfigurationTarget.Workspace);
    try {
      const log = await waitFor('the bad setting in the log', async () => {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(api.logFolder, 'Rung.log')));
        return text.includes('rung.routing.explore') ? text : undefined;
      });
      assert.match(log, /rung\.routing\.explore: .*(<=|1)/);
      assert.equal((await session()).snapshot({ limit: 0 }).panel.routing.explore, before);
    } finally {
      await vscode.workspace.getConfiguration('rung').update('routing.explore', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('never routes to its own models through the vscode-lm provider kind', async () => {
    const current = (await session()).snapshot({ limit: 0 }).panel;
    const withEditor = parsePanel(
      {
        models: [...current.models, { slug: 'rung/rung-auto', provider: 'editor', tools: true }],
        routing: { explore: 0 },
        providers: { ...current.providers, editor: { kind: 'vscode-lm' } },
      },
      'test',
    );
    await (await session()).setPanel(withEditor);
    try {
      const pruned = (await session()).rank({ classKey: 'chat' }).pruned.find((entry) => entry.model === 'rung/rung-auto');
      assert.ok(pruned, 'Rung Auto named as a vscode-lm rung is pruned');
      assert.match(pruned.reason, /besides Rung's own/);
    } finally {
      await (await session()).setPanel(current);
    }
  });

  it('keeps the provider key out of its log', async () => {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(api.logFolder, 'Rung.log')));
    assert.match(text, /a key for cloud was set/);
    assert.ok(!text.includes(CLOUD_KEY));
  });

  it('opens the ledger panel', async () => {
    await vscode.commands.executeCommand('rung.openLedger');
    await waitFor('the ledger tab', () =>
      vscode.window.tabGroups.all.some((group) =>
        group.tabs.some((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('rung.ledger')),
      ),
    );
  });

  it('clears a provider key, after which the cloud model is pruned with the reason', async () => {
    assert.equal(await vscode.commands.executeCommand('rung.clearProviderKey', 'cloud'), true);
    const pruned = await waitFor('the cloud model pruned', async () =>
      (await session()).rank({ classKey: 'chat' }).pruned.find((entry) => entry.model === CLOUD_MODEL),
    );
    assert.match(pruned.reason, /no API key/);
    await vscode.commands.executeCommand('rung.setProviderKey', 'cloud', CLOUD_KEY);
  });
});
