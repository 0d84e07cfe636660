/**
 * The documents Explain Last Decision opens: read-only Markdown, one per call, under a scheme of Rung's
 * own, shown as the editor's Markdown preview.
 *
 * @remarks
 * An untitled document is dirty from the start, so closing an explanation asked whether to save it;
 * a document from a content provider is never dirty and cannot be edited by mistake. The call id is the
 * URI's query, not its name: the tab reads "Why this answer", and a second call gets its own document.
 */
import * as vscode from 'vscode';

export const EXPLAIN_SCHEME = 'rung-explain';

export class ExplainDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** The text of every call explained in this window, by document URI: what the editor asks for again when it reopens one. */
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** The explanation of `callId` as a document; one already open shows `text` (a verdict may have been settled since). */
  open(callId: string, text: string): Thenable<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: '/Why this answer.md', query: `call=${callId}` });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return vscode.workspace.openTextDocument(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
