/**
 * The extension's composition root: build the core, then register each feature.
 *
 * @remarks
 * The chat participant, the model provider and the ledger webview arrive with their own issues; until
 * then the extension activates, says how to start, and does nothing surprising (the kill switch).
 */
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Rung');
  context.subscriptions.push(output);
  output.appendLine('Rung is installed. Describe a panel in .rung/panel.json to start routing.');
  context.subscriptions.push(vscode.commands.registerCommand('rung.showLog', () => output.show(true)));
}

export function deactivate(): void {}
