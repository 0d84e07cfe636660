/**
 * The first run: a local Ollama found by itself becomes a panel; with nothing found, Rung says how to
 * start instead of failing.
 *
 * @remarks
 * The probe is the core Ollama adapter's own (`/api/tags`, 2 s), so "found" means what it means to
 * the router. It runs in the background after activation, never inside `activate()`: a machine with
 * no Ollama would otherwise wait out the timeout before the model picker could list Rung.
 */
import * as vscode from 'vscode';
import { systemClock } from '../core/clock';
import type { PanelFile } from '../core/panel';
import { dirname } from 'node:path';
import { ensureFolder } from '../core/ledger/safeFiles';
import { OllamaAdapter } from '../core/providers/ollamaAdapter';
import { panelFromOllamaModels } from './firstRunPanel';
import type { RungLog } from './log';

/** A panel over the local Ollama's chat models, or undefined when no Ollama answered or it holds none. */
export async function discoverOllamaPanel(options: { baseUrl: string; log: RungLog }): Promise<PanelFile | undefined> {
  const adapter = new OllamaAdapter({ baseUrl: options.baseUrl, clock: systemClock });
  const probe = await adapter.probe();
  if (!probe.ok) {
    options.log.info(`first run: no Ollama at ${options.baseUrl} (${probe.reason ?? 'no answer'})`);
    return undefined;
  }
  const panel = panelFromOllamaModels(probe.models);
  options.log.info(panel ? `first run: built a panel from the Ollama at ${options.baseUrl}: ${panel.models.map((model) => model.slug).join(', ')}` : `first run: the Ollama at ${options.baseUrl} holds no chat model`);
  return panel;
}

/** An example panel file, written when the user asks for one: a local model and a cloud one above it. */
export const EXAMPLE_PANEL: PanelFile = {
  models: [
    { slug: 'qwen2.5-coder:7b', provider: 'ollama', role: 'base' },
    { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top', price: { input: 0.15, output: 0.6 }, tools: true },
  ],
  routing: { explore: 0.05 },
};

/**
 * Tells the user how to start: a notification with the three ways in (run Ollama, set a key with a
 * panel, write a panel), once per window.
 */
export async function showHowToStart(options: { reason: string; panelFilePath: string | undefined; log: RungLog }): Promise<void> {
  options.log.info(`how to start: ${options.reason}`);
  const choices = ['Create Panel File', 'Set Provider Key', 'Open Settings'];
  const choice = await vscode.window.showInformationMessage(
    `Rung has nothing to route to yet: ${options.reason}. Start Ollama (ollama serve) with a model pulled, or describe a panel and set a provider key.`,
    ...choices,
  );
  if (choice === 'Create Panel File') {
    if (!options.panelFilePath) {
      void vscode.window.showWarningMessage('Rung: open a folder first, or put the panel in the rung.panel setting.');
      await vscode.commands.executeCommand('workbench.action.openSettingsJson');
      return;
    }
    const uri = vscode.Uri.file(options.panelFilePath);
    const exists = await vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
    if (!exists) {
      try {
        // By the ledger's rule: a `.rung/` made here gets its .gitignore, and a linked one is refused.
        ensureFolder(dirname(options.panelFilePath));
      } catch (error) {
        void vscode.window.showErrorMessage(`Rung: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(`${JSON.stringify(EXAMPLE_PANEL, null, 2)}\n`));
    }
    await vscode.window.showTextDocument(uri);
  } else if (choice === 'Set Provider Key') {
    await vscode.commands.executeCommand('rung.setProviderKey');
  } else if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'rung.');
  }
}
