/**
 * "Rung: Edit Selection": an instruction routed as `edit/<language>`, the edited code checked, a
 * failed edit escalated, and the result shown as a diff to accept or reject.
 *
 * @remarks
 * Works with no other extension installed: it needs only the session. The model sees the selection
 * and, as context it must not rewrite, the file around it. The checks are the syntax check on the whole
 * file with the edit in place (not on the answer's block alone: a selected fragment need not parse by
 * itself, and an edit can parse alone and still break its file), and the workspace's check command
 * when one is set and the workspace is trusted. Accepting or rejecting the diff settles the call, so what the user
 * did with the edit is the last word on it in the ledger. `@rung /edit`'s answer offers the same diff
 * through {@link SHOW_CHAT_EDIT_COMMAND}.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { CallChecks, SessionEvent } from '../../core/session/types';
import type { FeatureCalls } from '../calls/featureCalls';
import { escalationCause } from '../describe';
import {
  editMessages,
  extractEdit,
  readChatEditProposal,
  replacementFor,
  SHOW_CHAT_EDIT_COMMAND,
  SplicedSyntaxVerifier,
  spliceText,
  textDigest,
} from './editPrompt';
import { decisionPrompt, EditDecisions, settledMessage, type EditNamed } from './editDecisions';
import type { RungLog } from '../log';
import type { SessionHost } from '../session/sessionHost';
import type { RungSettings } from '../settings/settings';

const PROPOSAL_SCHEME = 'rung-edit';
/** The context key the Accept and Reject buttons and keybindings apply on: a Rung edit is waiting. */
const PENDING_CONTEXT = 'rung.editPending';
/** How long the status bar says what an Accept or a Reject counted as, ms: long enough to read a sentence. */
const SETTLED_MESSAGE_MS = 10_000;

export interface EditSelectionDeps {
  sessions: SessionHost;
  settings: RungSettings;
  log: RungLog;
  /** How a feature asks the session: pin, avoid, recording and the log line. */
  calls: FeatureCalls;
}

/** An edit shown as a diff, waiting for the user. */
interface PendingEdit {
  callId: string;
  model: string;
  /** The rating Accept and Reject count in (`edit/typescript`). */
  classKey: string;
  document: vscode.TextDocument;
  version: number;
  range: vscode.Range;
  replacement: string;
  proposal: vscode.Uri;
}

/** What Edit Selection returns: the call and the model whose edit is shown (for a keybinding or a test). */
export interface EditSelectionResult {
  callId: string;
  model: string | undefined;
  shown: boolean;
}

export function registerEditSelection(context: vscode.ExtensionContext, deps: EditSelectionDeps): void {
  const proposals = new Map<string, string>();
  const decisions = new EditDecisions();
  let pending: PendingEdit | undefined;
  const setPending = (edit: PendingEdit | undefined): void => {
    if (pending && pending !== edit) {
      proposals.delete(pending.proposal.query);
      // Replaced before anyone decided: graded neither way, and its toast's buttons say so.
      if (edit) decisions.settled(named(pending), 'superseded');
    }
    pending = edit;
    void vscode.commands.executeCommand('setContext', PENDING_CONTEXT, edit !== undefined);
  };
  /** Says how the edit was settled, in the status bar (a toast per click would pile up) and the log. */
  const said = (edit: PendingEdit, how: 'accepted' | 'rejected' | 'not-applied'): void => {
    decisions.settled(named(edit), how);
    const message = settledMessage(how, named(edit));
    deps.log.info(`edit ${edit.callId}: ${message.replace(/^Rung: /, '')}`);
    if (how === 'not-applied') void vscode.window.showWarningMessage(message);
    else vscode.window.setStatusBarMessage(`$(${how === 'accepted' ? 'check' : 'discard'}) ${message}`, SETTLED_MESSAGE_MS);
  };

  const decide = async (accept: boolean): Promise<boolean> => {
    const edit = pending;
    if (!edit) {
      void vscode.window.showInformationMessage('Rung: no edit is waiting for a decision.');
      return false;
    }
    setPending(undefined);
    await closeProposal(edit.proposal);
    const session = await deps.sessions.get();
    if (!accept) {
      session.settle(edit.callId, { kind: 'fail', reason: 'the user rejected the edit' });
      said(edit, 'rejected');
      return true;
    }
    if (edit.document.version !== edit.version) {
      said(edit, 'not-applied');
      return false;
    }
    const workspaceEdit = new vscode.WorkspaceEdit();
    workspaceEdit.replace(edit.document.uri, edit.range, edit.replacement);
    const applied = await vscode.workspace.applyEdit(workspaceEdit);
    if (applied) {
      session.settle(edit.callId, { kind: 'pass', reason: 'the user accepted the edit' });
      said(edit, 'accepted');
    }
    return applied;
  };

  /** Shows `edit` as a diff of its file against `proposedText`, with the notification whose Accept and Reject settle it. */
  const review = async (edit: PendingEdit, proposedText: string, footer: string): Promise<void> => {
    proposals.set(edit.proposal.query, proposedText);
    setPending(edit);
    const title = `${basename(edit.document.fileName)} ↔ Rung's edit (${edit.model})`;
    await vscode.commands.executeCommand('vscode.diff', edit.document.uri, edit.proposal, title, { preview: true });
    void vscode.window.showInformationMessage(decisionPrompt(footer, named(edit)), 'Accept', 'Reject').then((choice) => {
      if (!choice) return;
      // VS Code cannot take the toast away once the edit is settled elsewhere: a late click says what became of it.
      if (pending === edit) void decide(choice === 'Accept');
      else void vscode.window.showInformationMessage(decisions.lateClick(edit.callId));
    });
  };

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
      provideTextDocumentContent: (uri) => proposals.get(uri.query) ?? '',
    }),
    vscode.commands.registerCommand(
      'rung.editSelection',
      async (args?: { instruction?: string }): Promise<EditSelectionResult | undefined> => {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
          void vscode.window.showInformationMessage('Rung: open a file and select the code to edit.');
          return undefined;
        }
        const instruction =
          args?.instruction ??
          (await vscode.window.showInputBox({
            title: 'Rung: Edit Selection',
            prompt: 'What should change?',
            placeHolder: 'e.g. make this function async',
            ignoreFocusOut: true,
          }));
        if (!instruction?.trim()) return undefined;
        const proposal = await proposeEdit(deps, editor, instruction.trim());
        if (!proposal) return undefined;
        if (!proposal.edit) return { callId: proposal.callId, model: undefined, shown: false };
        await review(proposal.edit, proposal.proposedText, proposal.footer);
        return { callId: proposal.callId, model: proposal.edit.model, shown: true };
      },
    ),
    // `@rung /edit`'s answer button: the same diff, Accept and Reject, for the edit the chat answered.
    vscode.commands.registerCommand(SHOW_CHAT_EDIT_COMMAND, async (value: unknown): Promise<boolean> => {
      const asked = readChatEditProposal(value);
      if (!asked) return false;
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(asked.uri));
      const text = document.getText();
      const file = basename(document.fileName);
      if (textDigest(text) !== asked.digest || asked.end > text.length) {
        void vscode.window.showWarningMessage(
          `Rung: ${file} changed since ${asked.model}'s edit was made, so it is not applied over it; ask @rung /edit again.`,
        );
        return false;
      }
      const edit: PendingEdit = {
        callId: asked.callId,
        model: asked.model,
        classKey: asked.classKey,
        document,
        version: document.version,
        range: new vscode.Range(document.positionAt(asked.start), document.positionAt(asked.end)),
        replacement: asked.replacement,
        proposal: vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${file}`, query: asked.callId }),
      };
      await review(edit, spliceText(text, asked.start, asked.end, asked.replacement), asked.footer);
      return true;
    }),
    vscode.commands.registerCommand('rung.acceptEdit', () => decide(true)),
    vscode.commands.registerCommand('rung.rejectEdit', () => decide(false)),
  );
}

interface Proposal {
  callId: string;
  footer: string;
  proposedText: string;
  edit: PendingEdit | undefined;
}

/** Routes the edit with a progress notification that names each rung and escalation; undefined when stopped. */
async function proposeEdit(deps: EditSelectionDeps, editor: vscode.TextEditor, instruction: string): Promise<Proposal | undefined> {
  const document = editor.document;
  const version = document.version;
  const range = editor.selection.isEmpty
    ? new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length))
    : new vscode.Range(editor.selection.start, editor.selection.end);
  const documentText = document.getText();
  const start = document.offsetAt(range.start);
  const end = document.offsetAt(range.end);
  // The edit is checked where it goes, not alone: a selected method or a few statements need not
  // parse by themselves, and failing them for it sent good edits up the ladder.
  const checks: CallChecks = {
    answerSyntax: false,
    extra: [new SplicedSyntaxVerifier({ documentText, start, end, languageId: document.languageId })],
  };
  const command = deps.settings.verifyCommand;
  const folder = deps.settings.folder?.fsPath;
  if (command && folder) checks.command = { command, cwd: folder, allowEnv: deps.settings.verifyCommandEnv };
  const session = await deps.sessions.get();
  const classKey = `edit/${document.languageId}`;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Rung: editing (${classKey})`, cancellable: true },
    async (progress, token) => {
      const call = deps.calls.prepare({
        feature: 'Edit Selection',
        messages: editMessages({
          instruction,
          documentText,
          start,
          end,
          languageId: document.languageId,
          fileName: basename(document.fileName),
        }),
        classKey,
        checks,
        cancellation: token,
      });
      const onEvent = (event: SessionEvent): void => {
        if (event.type === 'rung-started') progress.report({ message: `asking ${event.candidate.slug} (rung ${event.attempt + 1})` });
        else if (event.type === 'escalated')
          progress.report({ message: `escalated from ${event.from} to ${event.to}: ${escalationCause(event)}` });
      };
      const { result, stopped, plainLine: footer } = await call.run(session, onEvent);
      if (stopped) return undefined;
      const block = result.answer ? extractEdit(result.answer.text, document.languageId) : undefined;
      const code = block === undefined ? undefined : replacementFor(documentText, start, end, block);
      if (!result.answer || code === undefined) {
        void vscode.window.showWarningMessage(`Rung: no edit to show. ${footer}`, 'Explain').then((choice) => {
          if (choice) void vscode.commands.executeCommand('rung.explainLastDecision');
        });
        return { callId: result.callId, footer, proposedText: documentText, edit: undefined };
      }
      const proposal = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${basename(document.fileName)}`, query: result.callId });
      return {
        callId: result.callId,
        footer,
        proposedText: spliceText(documentText, start, end, code),
        edit: {
          callId: result.callId,
          model: result.answer.model,
          classKey: result.classKey,
          document,
          version,
          range,
          replacement: code,
          proposal,
        },
      };
    },
  );
}

/** An edit as the words around Accept and Reject name it. */
function named(edit: PendingEdit): EditNamed {
  return { callId: edit.callId, model: edit.model, classKey: edit.classKey, file: basename(edit.document.fileName) };
}

/** Closes the diff tab showing a proposal, if it is open. */
async function closeProposal(proposal: vscode.Uri): Promise<void> {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputTextDiff && input.modified.toString() === proposal.toString())
        await vscode.window.tabGroups.close(tab);
    }
  }
}
