/**
 * The first run with nothing to route to: Rung says how to start instead of failing, and its "Create
 * Panel File" writes a panel of the models the local Ollama has (the core's seedPanelFile), else an
 * example, and says beside the opened file what it still needs.
 *
 * @remarks
 * How a panel is found (the settings, the file, else the local Ollama's models) is the core's rule
 * (panelDiscovery.ts), used by the CLI too; what a new file holds is the core's as well (ollamaPanel.ts).
 * This file only asks and shows. A file already there is opened as it is, never replaced, and the user is
 * told so.
 */
import * as vscode from 'vscode';
import { systemClock } from '../../core/clock';
import { createPanelFile } from '../../core/ollamaPanel';
import { PanelError } from '../../core/panel';
import type { RungLog } from '../log';

/**
 * Tells the user how to start: a notification with the three ways in (run Ollama, set a key with a
 * panel, write a panel), once per window.
 */
export async function showHowToStart(options: {
  reason: string;
  panelFilePath: string | undefined;
  ollamaBaseUrl: string;
  log: RungLog;
}): Promise<void> {
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
    let created: Awaited<ReturnType<typeof createPanelFile>>;
    try {
      created = await createPanelFile(options.panelFilePath, { baseUrl: options.ollamaBaseUrl, clock: systemClock });
    } catch (error) {
      if (!(error instanceof PanelError)) throw error;
      // Nothing was written: the panel the local Ollama's models gave would not load.
      options.log.warn(`panel file not written: ${error.message}`);
      void vscode.window.showErrorMessage(`Rung: no panel file was written: ${error.message}`);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(options.panelFilePath));
    const said = created.created ? created.seed.note : `${options.panelFilePath} is there already: it is opened as it is, not replaced.`;
    options.log.info(`panel file: ${said}`);
    void vscode.window.showInformationMessage(`Rung: ${said}`);
  } else if (choice === 'Set Provider Key') {
    await vscode.commands.executeCommand('rung.setProviderKey');
  } else if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'rung.');
  }
}
