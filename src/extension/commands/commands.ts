/**
 * The palette commands (category "Rung"): pick, pin, unpin and avoid a model, ask, set and clear keys,
 * rate and explain the last answer, reset and export the ledger, show the log.
 *
 * @remarks
 * Each command is a few lines over the session; the words come from describe.ts. Commands that the
 * ledger panel's buttons call take their argument (`rung.pin` a slug, `rung.resetLedger` a
 * `{ confirmed: true }` when the panel asked already, `rung.exportLedger` a target), and otherwise
 * ask the user.
 */
import * as vscode from 'vscode';
import { providerKeyChoices } from './providerChoices';
import { CREATE_PANEL_FILE_COMMAND, createPanelFileAndOpen } from '../settings/firstRun';
import type { StoreLocation } from '../../core/store/storeLocation';
import { redactedUrl } from '../../core/ledger/teamUrl';
import { apiKeyVariable } from '../../core/panel';
import type { Session } from '../../core/session/types';
import type { FeatureCalls } from '../calls/featureCalls';
import { escalationCause, explainMarkdown, pickRows } from '../describe';
import { EXPLAIN_SCHEME, ExplainDocuments } from './explainDocuments';
import type { RungLog } from '../log';
import type { ProviderSecrets } from '../settings/secrets';
import type { SessionHost } from '../session/sessionHost';
import type { RungSettings } from '../settings/settings';
import type { RungState } from '../state';

export interface CommandDeps {
  sessions: SessionHost;
  settings: RungSettings;
  state: RungState;
  secrets: ProviderSecrets;
  log: RungLog;
  /** How a feature asks the session: pin, avoid, recording and the log line. */
  calls: FeatureCalls;
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const register = (id: string, run: (...args: never[]) => unknown): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await run(...args);
        } catch (error) {
          deps.log.error(`${id} failed`, error);
          void vscode.window.showErrorMessage(`Rung: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        }
      }),
    );
  };
  register('rung.pickModel', () => pickModel(deps));
  register('rung.unpin', async () => {
    await deps.state.pin(undefined);
    void vscode.window.showInformationMessage('Rung: back to Auto.');
  });
  register('rung.pin', (slug: string) => pin(deps, slug));
  register('rung.avoid', (slug: string) => avoid(deps, slug));
  register('rung.ask', (prompt?: string) => ask(deps, prompt));
  register('rung.setProviderKey', (provider?: string, key?: string) => setProviderKey(deps, provider, key));
  register('rung.clearProviderKey', (provider?: string) => clearProviderKey(deps, provider));
  register('rung.setTeamLedgerPassword', (password?: string) => setTeamLedgerPassword(deps, password));
  register('rung.rateLastAnswer', (verdict?: 'pass' | 'fail') => rateLastAnswer(deps, verdict));
  const explanations = new ExplainDocuments();
  context.subscriptions.push(explanations, vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, explanations));
  register('rung.explainLastDecision', (callId?: string) => explainLastDecision(deps, explanations, callId));
  register('rung.resetLedger', (options?: { confirmed?: boolean }) => resetLedger(deps, options));
  register('rung.exportLedger', (target?: vscode.Uri) => exportLedger(deps, target));
  register('rung.showLog', () => deps.log.show());
  register(CREATE_PANEL_FILE_COMMAND, () =>
    createPanelFileAndOpen({ panelFilePath: deps.settings.panelFilePath, ollamaBaseUrl: deps.settings.ollamaBaseUrl, log: deps.log }),
  );
}

/** The class key the picker ranks for: the last call's, else an edit in the active editor's language, else chat. */
function classAtHand(state: RungState): string {
  if (state.lastCall) return state.lastCall.classKey;
  const language = vscode.window.activeTextEditor?.document.languageId;
  return language ? `edit/${language}` : 'chat';
}

interface PickItem extends vscode.QuickPickItem {
  slug: string | undefined;
}

/** Pick Model: the panel ranked for the class at hand, with Auto first; picking a model pins it. */
async function pickModel(deps: CommandDeps): Promise<string | undefined> {
  const session = await deps.sessions.get();
  const classKey = classAtHand(deps.state);
  const ranking = session.rank({ classKey });
  const snapshot = session.snapshot({ limit: 0 });
  const rows = pickRows(ranking, snapshot.panel.models, deps.state.pinned, snapshot.prices, snapshot.ratings);
  const items: PickItem[] = rows.map((row) => ({ slug: row.slug, label: row.label, description: row.description, detail: row.detail }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Rung: Pick Model (ranked for ${classKey})`,
    placeHolder: 'Auto routes by the ledger; a model picked here opens every call, with the later rungs as fallbacks',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  if (picked.slug === undefined) {
    await deps.state.pin(undefined);
    await deps.state.avoid(undefined);
    return 'auto';
  }
  await pin(deps, picked.slug);
  return picked.slug;
}

async function pin(deps: CommandDeps, slug: string): Promise<void> {
  if (typeof slug !== 'string' || !slug) throw new Error('rung.pin needs a model slug');
  warnIfNotOnPanel(deps, slug);
  await deps.state.pin(slug);
  deps.log.info(`pinned ${slug}: it opens every call; the panel's later rungs stay as fallbacks`);
  void vscode.window.showInformationMessage(`Rung: ${slug} opens every call now (Rung: Unpin Model to go back to Auto).`);
}

async function avoid(deps: CommandDeps, slug: string): Promise<void> {
  if (typeof slug !== 'string' || !slug) throw new Error('rung.avoid needs a model slug');
  warnIfNotOnPanel(deps, slug);
  await deps.state.avoid(slug);
  deps.log.info(`avoiding ${slug} as the opener`);
  void vscode.window.showInformationMessage(`Rung: ${slug} no longer opens calls; it stays on the panel as a fallback.`);
}

function warnIfNotOnPanel(deps: CommandDeps, slug: string): void {
  const panel = deps.settings.panel?.panel;
  if (panel && !panel.models.some((model) => model.slug === slug))
    deps.log.warn(`${slug} is not on the panel (${deps.settings.panel?.source})`);
}

/** Ask: a routed prompt answered in an untitled editor, for hosts without the Chat view. */
async function ask(deps: CommandDeps, prompt?: string): Promise<{ callId: string; model: string | undefined } | undefined> {
  const question =
    prompt ??
    (await vscode.window.showInputBox({
      title: 'Rung: Ask',
      prompt: 'A question, routed to the cheapest model that can answer it',
      ignoreFocusOut: true,
    }));
  if (!question?.trim()) return undefined;
  const session = await deps.sessions.get();
  const finished = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Rung: asking', cancellable: true },
    (progress, token) =>
      deps.calls.prepare({ feature: 'Ask', messages: [{ role: 'user', content: question }], cancellation: token }).run(session, (event) => {
        if (event.type === 'rung-started') progress.report({ message: `asking ${event.candidate.slug}` });
        if (event.type === 'escalated')
          progress.report({ message: `escalated from ${event.from} to ${event.to}: ${escalationCause(event)}` });
      }),
  );
  const { result } = finished;
  const body = result.answer ? result.answer.text : '_No answer stands._';
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: `${body}\n\n---\n${finished.line}\n` });
  await vscode.window.showTextDocument(document, { preview: false });
  return { callId: result.callId, model: result.answer?.model };
}

/** The providers a key can be set for: every OpenAI-compatible provider the panel knows. */
function keyedProviders(deps: CommandDeps): string[] {
  return providerKeyChoices(deps.settings.panel?.panel).map((choice) => choice.name);
}

/**
 * Set Provider Key: asks for the provider and the key. A setup script may pass both (a key given as an
 * argument goes to secret storage like a typed one, and is never logged).
 */
async function setProviderKey(deps: CommandDeps, provider?: string, given?: string): Promise<boolean> {
  const name =
    provider ??
    (
      await vscode.window.showQuickPick(
        providerKeyChoices(deps.settings.panel?.panel).map((choice) => ({ label: choice.name, description: choice.description })),
        { title: 'Rung: Set Provider Key', placeHolder: "The provider whose key to keep in the editor's secret storage" },
      )
    )?.label;
  if (!name) return false;
  const key =
    given ??
    (await vscode.window.showInputBox({
      title: `Rung: ${name} key`,
      prompt: `Kept in the editor's secret storage, never in settings or the ledger (the CLI reads ${apiKeyVariable(name)} instead).`,
      password: true,
      ignoreFocusOut: true,
    }));
  if (!key?.trim()) return false;
  await deps.secrets.store(name, key.trim());
  deps.log.info(`a key for ${name} was set`);
  await deps.sessions.reopen(`a key for ${name} was set`);
  void vscode.window.showInformationMessage(`Rung: the ${name} key is set.`);
  return true;
}

async function clearProviderKey(deps: CommandDeps, provider?: string): Promise<boolean> {
  const candidates: string[] = [];
  for (const name of keyedProviders(deps)) if (await deps.secrets.has(name)) candidates.push(name);
  const name =
    provider ??
    (await vscode.window.showQuickPick(candidates, {
      title: 'Rung: Clear Provider Key',
      placeHolder: candidates.length ? 'The key to forget' : 'No provider key is set',
    }));
  if (!name) return false;
  const had = await deps.secrets.clear(name);
  deps.log.info(`the key for ${name} was cleared`);
  if (had) await deps.sessions.reopen(`the key for ${name} was cleared`);
  void vscode.window.showInformationMessage(had ? `Rung: the ${name} key is cleared.` : `Rung: no ${name} key was set.`);
  return had;
}

/**
 * Set Team Ledger Password: keeps the password for `rung.teamLedger.url` in secret storage; an empty one
 * forgets it (then `PGPASSWORD` or `~/.pgpass` is used). A setup script may pass it, never logged.
 */
async function setTeamLedgerPassword(deps: CommandDeps, given?: string): Promise<boolean> {
  const password =
    given ??
    (await vscode.window.showInputBox({
      title: 'Rung: Set Team Ledger Password',
      prompt: `For ${teamUrlOf(deps.settings.storeLocation) ?? 'rung.teamLedger.url'}. Kept in the editor's secret storage, never in settings; empty forgets it (the CLI reads PGPASSWORD instead).`,
      password: true,
      ignoreFocusOut: true,
    }));
  if (password === undefined) return false;
  const stored = await deps.secrets.storeTeamPassword(password);
  deps.log.info(stored ? 'the team ledger password was set' : 'the team ledger password was cleared');
  await deps.sessions.reopen(stored ? 'the team ledger password was set' : 'the team ledger password was cleared');
  void vscode.window.showInformationMessage(
    stored ? 'Rung: the team ledger password is set.' : 'Rung: the team ledger password is cleared.',
  );
  return stored;
}

async function rateLastAnswer(deps: CommandDeps, verdict?: 'pass' | 'fail'): Promise<boolean> {
  const last = deps.state.lastCall;
  if (!last?.model) {
    void vscode.window.showInformationMessage('Rung: no answer to rate yet in this window.');
    return false;
  }
  const choice =
    verdict ??
    (
      await vscode.window.showQuickPick(
        [
          { label: '$(thumbsup) Good', verdict: 'pass' as const, description: `${last.model}'s answer did the job` },
          { label: '$(thumbsdown) Bad', verdict: 'fail' as const, description: `${last.model}'s answer did not` },
        ],
        { title: `Rung: Rate Last Answer (${last.origin}, ${last.model})` },
      )
    )?.verdict;
  if (!choice) return false;
  const session = await deps.sessions.get();
  const settled = session.settle(last.callId, {
    kind: choice,
    reason: choice === 'pass' ? 'the user rated the answer good' : 'the user rated the answer bad',
  });
  void vscode.window.showInformationMessage(
    settled ? `Rung: recorded ${choice} for ${last.model}.` : 'Rung: that call is no longer known to the ledger.',
  );
  return settled;
}

async function explainLastDecision(deps: CommandDeps, explanations: ExplainDocuments, callId?: string): Promise<string | undefined> {
  const id = callId ?? deps.state.lastCall?.callId;
  if (!id) {
    void vscode.window.showInformationMessage('Rung: no call to explain yet in this window.');
    return undefined;
  }
  const session = await deps.sessions.get();
  const text = explainMarkdown(id, session.explain(id));
  const document = await explanations.open(id, text);
  await showMarkdown(document);
  return text;
}

/**
 * A Markdown document rendered, as the editor's own Markdown preview (the built-in Markdown extension's
 * `markdown.showPreview`, which reads any document the workspace can open, a content provider's
 * included); its source when that extension is disabled, so the explanation still shows.
 *
 * @remarks
 * Explain Last Decision opened the Markdown source: headings behind `#`, names behind `**`.
 */
async function showMarkdown(document: vscode.TextDocument): Promise<void> {
  try {
    await vscode.commands.executeCommand('markdown.showPreview', document.uri);
  } catch {
    await vscode.window.showTextDocument(document, { preview: true });
  }
}

async function resetLedger(deps: CommandDeps, options?: { confirmed?: boolean }): Promise<boolean> {
  const session: Session = await deps.sessions.get();
  if (options?.confirmed !== true) {
    const choice = await vscode.window.showWarningMessage(
      'Reset the Rung ledger?',
      // Said in the user's words: the ledger's model aliases and in-flight marks go too, but mean nothing to them.
      {
        modal: true,
        detail: `Every rating learned in ${session.snapshot({ limit: 0 }).ledgerPath ?? 'the ledger'} is forgotten, and routing starts again from the capability ladder; the decision log is kept.`,
      },
      'Reset',
    );
    if (choice !== 'Reset') return false;
  }
  await session.resetLedger();
  deps.log.info('the ledger was reset');
  void vscode.window.showInformationMessage('Rung: the ledger is reset; the decision log is kept.');
  return true;
}

async function exportLedger(deps: CommandDeps, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const session = await deps.sessions.get();
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      title: 'Rung: Export Ledger',
      // The export is JSON lines (one rating or decision per line), which a .json filter would misname.
      filters: { 'JSON lines': ['jsonl'] },
      ...(deps.settings.folder ? { defaultUri: vscode.Uri.joinPath(deps.settings.folder, 'rung-ledger.jsonl') } : {}),
    }));
  if (!uri) return undefined;
  const text = await session.exportLedger();
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  deps.log.info(`the ledger was exported to ${uri.fsPath}`);
  void vscode.window.showInformationMessage(`Rung: the ledger is exported to ${vscode.workspace.asRelativePath(uri)}.`);
  return uri;
}

/** The team server a store location names, if it names one, as a message shows it (no secret of the URL in it). */
function teamUrlOf(location: StoreLocation): string | undefined {
  return location.kind === 'team' ? redactedUrl(location.url) : undefined;
}
