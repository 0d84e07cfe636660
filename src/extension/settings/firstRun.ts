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
 *
 * The message is a progress notification, not an ordinary one: the editor gives an extension no way to
 * close an ordinary notification, and the first-run message stayed on screen after Ollama had been
 * found and the status bar said Rung was routing. A progress notification ends when its task does, so
 * this one ends when a session opens; its ways in are links (such a notification has no buttons but
 * Cancel, which closes it too), and Create Panel File is a palette command as well.
 */
import * as vscode from 'vscode';
import { systemClock } from '../../core/clock';
import { createPanelFile } from '../../core/ollamaPanel';
import { PanelError } from '../../core/panel';
import type { RungLog } from '../log';

/** The palette command that writes `.rung/panel.json` (package.json). */
export const CREATE_PANEL_FILE_COMMAND = 'rung.createPanelFile';

/** A command link for a notification's message: `[title](command:id?args)`. */
function commandLink(title: string, command: string, args?: unknown[]): string {
  return `[${title}](command:${command}${args ? `?${encodeURIComponent(JSON.stringify(args))}` : ''})`;
}

/**
 * Tells the user how to start, until a session opens: a notification with the three ways in (run
 * Ollama, set a key with a panel, write a panel), once per window, which closes itself when Rung can
 * route (Ollama found, a panel written, a key set) or when the user closes it.
 */
export function showHowToStart(options: {
  reason: string;
  log: RungLog;
  /** Calls `listener` once a session opens; the notification closes then. */
  onDidOpen: (listener: () => void) => vscode.Disposable;
}): void {
  options.log.info(`how to start: ${options.reason}`);
  const ways = [
    commandLink('Create Panel File', CREATE_PANEL_FILE_COMMAND),
    commandLink('Set Provider Key', 'rung.setProviderKey'),
    commandLink('Open Settings', 'workbench.action.openSettings', ['rung.']),
  ].join(' · ');
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Rung has nothing to route to yet', cancellable: true },
    (progress, token) => {
      progress.report({
        message: `${options.reason}. Start Ollama (ollama serve) with a model pulled and Rung finds it within seconds, or describe a panel and set a provider key: ${ways}`,
      });
      return new Promise<void>((done) => {
        const opened = options.onDidOpen(() => {
          opened.dispose();
          options.log.info('how to start: a session opened, so the first-run message is closed');
          done();
        });
        token.onCancellationRequested(() => {
          opened.dispose();
          done();
        });
      });
    },
  );
}

/**
 * Create Panel File: writes `.rung/panel.json` from the local Ollama's models (else an example), opens
 * it and says what it still needs; a file already there is opened as it is.
 */
export async function createPanelFileAndOpen(options: {
  panelFilePath: string | undefined;
  ollamaBaseUrl: string;
  log: RungLog;
}): Promise<void> {
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
}
