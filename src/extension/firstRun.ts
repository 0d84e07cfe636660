/**
 * The first run with nothing to route to: Rung says how to start instead of failing.
 *
 * @remarks
 * How a panel is found (the settings, the file, else the local Ollama's models) is the core's rule
 * (panelDiscovery.ts), used by the CLI too.
 */
import * as vscode from 'vscode';
import type { PanelFile } from '../core/panel';
import type { RungLog } from './log';

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
    if (!exists) await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(`${JSON.stringify(EXAMPLE_PANEL, null, 2)}\n`));
    await vscode.window.showTextDocument(uri);
  } else if (choice === 'Set Provider Key') {
    await vscode.commands.executeCommand('rung.setProviderKey');
  } else if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'rung.');
  }
}
