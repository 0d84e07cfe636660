/**
 * The ledger view: a webview showing every routed call's rungs, every rating and the spend.
 *
 * @remarks
 * One ledger view at a time (a second "Open Ledger" reveals the first). The webview's options allow scripts
 * and load resources only from `dist/` and `media/`; its state (filters, page, tab) lives in the page's
 * own `vscode.setState`, so the serializer only has to re-adopt the view after a reload and the page
 * restores itself when it says `ready`. Everything it decides is in {@link LedgerController}; this file
 * is the editor's side of it: the command, the serializer, the dialogs.
 */
import * as vscode from 'vscode';
import { LedgerController, type LedgerActions, type LedgerLog, type SessionSource } from './ledgerController';
import { ledgerHtml, makeNonce } from './ledgerHtml';

export const LEDGER_VIEW_TYPE = 'rung.ledger';
export const OPEN_LEDGER_COMMAND = 'rung.openLedger';

/** What the ledger view needs: where its session comes from (the extension's SessionHost), and a log. */
export interface LedgerViewDeps {
  sessions: SessionSource;
  log: LedgerLog;
}

/** Registers `rung.openLedger` and the serializer that brings the view back after a reload. */
export function registerLedgerView(context: vscode.ExtensionContext, deps: LedgerViewDeps): void {
  const host = new LedgerViewHost(context.extensionUri, deps);
  context.subscriptions.push(
    host,
    vscode.commands.registerCommand(OPEN_LEDGER_COMMAND, () => host.show()),
    vscode.window.registerWebviewPanelSerializer(LEDGER_VIEW_TYPE, {
      deserializeWebviewPanel: async (webviewPanel: vscode.WebviewPanel) => host.adopt(webviewPanel),
    }),
  );
}

/** Owns the one ledger view, if open. */
class LedgerViewHost implements vscode.Disposable {
  private current: LedgerView | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly deps: LedgerViewDeps,
  ) {}

  async show(): Promise<void> {
    if (this.current) {
      this.current.reveal();
      return;
    }
    // After a reload, a ledger tab the window restored in the background is brought back (through the
    // serializer) only when it is shown. Left there, it would be a second ledger beside the new one, and
    // closed the new one when clicked (adopt keeps one view); closed here, the ledger stays one tab.
    const restored = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter(isLedgerTab);
    if (restored.length > 0) await vscode.window.tabGroups.close(restored);
    const webviewPanel = vscode.window.createWebviewPanel(
      LEDGER_VIEW_TYPE,
      'Rung Ledger',
      vscode.ViewColumn.Active,
      webviewOptions(this.extensionUri),
    );
    this.adopt(webviewPanel);
  }

  adopt(webviewPanel: vscode.WebviewPanel): void {
    this.current?.dispose();
    const ledger = new LedgerView(webviewPanel, this.extensionUri, this.deps);
    this.current = ledger;
    ledger.onDispose(() => {
      if (this.current === ledger) this.current = undefined;
    });
  }

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }
}

/** Whether `tab` holds a ledger view (its view type comes back with the editor's own prefix). */
function isLedgerTab(tab: vscode.Tab): boolean {
  return (
    tab.input instanceof vscode.TabInputWebview &&
    (tab.input.viewType === LEDGER_VIEW_TYPE || tab.input.viewType.endsWith(`-${LEDGER_VIEW_TYPE}`))
  );
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

class LedgerView {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly controller: LedgerController;
  private disposed = false;
  private readonly onDisposeListeners: (() => void)[] = [];

  constructor(
    private readonly webviewPanel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    deps: LedgerViewDeps,
  ) {
    const webview = webviewPanel.webview;
    // A revived view keeps the options it was created with only if we say them again.
    webview.options = webviewOptions(extensionUri);
    webviewPanel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'rung.svg');
    this.controller = new LedgerController({
      post: (message) => {
        // postMessage resolves false when the page is gone; the next `ready` brings a fresh snapshot.
        void webview
          .postMessage(message)
          .then(undefined, (error: unknown) => deps.log.warn(`ledger panel: could not post ${message.type}: ${String(error)}`));
      },
      actions: editorActions(),
      log: deps.log,
    });
    this.disposables.push(this.controller.follow(deps.sessions));
    this.disposables.push(
      webview.onDidReceiveMessage((data: unknown) => void this.controller.receive(data)),
      webviewPanel.onDidDispose(() => this.dispose()),
    );
    const asset = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...path)).toString();
    webview.html = ledgerHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: asset('dist', 'webview.js'),
      styleUris: [asset('dist', 'codicons.css'), asset('media', 'ledger.css')],
    });
  }

  reveal(): void {
    this.webviewPanel.reveal();
  }

  onDispose(listener: () => void): void {
    this.onDisposeListeners.push(listener);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.controller.dispose();
    this.webviewPanel.dispose();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
    for (const listener of this.onDisposeListeners.splice(0)) listener();
  }
}

/** Pin, avoid and export are the extension's commands (one behaviour, whether from the palette or here). */
function editorActions(): LedgerActions {
  return {
    pin: async (model) => {
      await vscode.commands.executeCommand('rung.pin', model);
    },
    avoid: async (model) => {
      await vscode.commands.executeCommand('rung.avoid', model);
    },
    exportLedger: async () => {
      await vscode.commands.executeCommand('rung.exportLedger');
    },
    confirmResetClass: async (classKey) => {
      const reset = 'Reset';
      const answer = await vscode.window.showWarningMessage(
        `Forget every rating at ${classKey}?`,
        { modal: true, detail: 'The models start again from their priors for this class. The decision log is kept.' },
        reset,
      );
      return answer === reset;
    },
  };
}
