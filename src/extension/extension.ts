/**
 * The extension's composition root: build the shared services, register each feature, open the
 * session in the background.
 *
 * @remarks
 * Rung activates on startup because the Chat view's model picker lists a contributed model only once
 * its extension is active; so activation does nothing slow: no ledger read, no provider probe, no
 * settings file read. Those happen when the session opens, just after. Each feature registers itself
 * and owns its disposables; one that fails to register is logged and the others keep working.
 */
import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../core/clock';
import { describeLocation } from '../core/store/storeLocation';
import { FeatureCalls } from './calls/featureCalls';
import { timerScheduler } from '../core/files/flushTimer';
import { PanelError, type Panel } from '../core/panel';
import type { Session } from '../core/session/types';
import { registerChatParticipant } from './chat/chatParticipant';
import { registerCommands } from './commands/commands';
import { registerEditSelection } from './edit/editSelection';
import { editorModelsFactory } from './session/editorModels';
import { showHowToStart } from './settings/firstRun';
import { severalFoldersNote } from './settings/ledgerPlace';
import { registerLedgerView, OPEN_LEDGER_COMMAND } from './ledgerView/ledgerView';
import { RungLog } from './log';
import { registerModelProvider } from './chat/modelProvider';
import { ProviderSecrets } from './settings/secrets';
import { NotSetUpError, SessionHost } from './session/sessionHost';
import { openSession } from './session/sessionFactory';
import { ProviderWatch } from './session/providerWatch';
import { registerSettings, RungSettings } from './settings/settings';
import { shutdownWithinBudget } from './session/shutdown';
import { registerStatusBar } from './statusBar';
import { RungState } from './state';

/** What Rung exports to other extensions and to its integration tests. */
export interface RungApi {
  /** Milliseconds `activate()` took. */
  readonly activationMs: number;
  /** The session, once open. */
  session(): Promise<Session>;
  /** The features that failed to register, by name (empty when all did). */
  readonly failedFeatures: readonly string[];
  /** The folder of Rung's log file (`Rung.log`), for a bug report or a test that reads it. */
  readonly logFolder: vscode.Uri;
}

/** True while a session is open: Rung found a panel (a file, a setting, or the local Ollama's models). */
const HAS_PANEL_CONTEXT = 'rung.hasPanel';

let sessions: { host: SessionHost; log: RungLog } | undefined;

export function activate(context: vscode.ExtensionContext): RungApi {
  const started = performance.now();
  const log = new RungLog(vscode.window.createOutputChannel('Rung', { log: true }));
  const state = new RungState(context.workspaceState);
  const secrets = new ProviderSecrets(context.secrets, log.redactor);
  const settings = new RungSettings(context, log);
  const host = new SessionHost({
    log,
    open: async () => {
      const loaded = settings.panel ?? (await settings.load());
      const store = settings.storeLocation;
      log.info(`opening the session: panel from ${loaded.source}, ledger ${describeLocation(store)}`);
      return openSession({
        panel: loaded.panel,
        store,
        dailyBudget: settings.dailyBudget,
        maxAnswerCost: settings.maxAnswerCost,
        confidenceCheck: settings.confidenceCheck,
        keyLookup: secrets.lookup,
        providerFactories: { 'vscode-lm': editorModelsFactory() },
        clock: systemClock,
        catalogDir: context.globalStorageUri.fsPath,
        userFolder: context.globalStorageUri.fsPath,
        log: (level, message) => (level === 'error' ? log.error(message) : level === 'warning' ? log.warn(message) : log.info(message)),
        environment: process.env,
        ...(store.kind === 'team'
          ? { team: { password: await secrets.teamPassword(), shareDecisions: settings.teamLedgerShareDecisions } }
          : {}),
        warn: (message) => void vscode.window.showWarningMessage(`Rung: ${message}`),
        askToSendWorkspaceLedger,
      });
    },
  });
  sessions = { host, log };
  // Looks again until a local server answers (Rung not set up yet), then probes the providers every 30 s.
  const watch = new ProviderWatch({
    host,
    timers: { setTimeout: (run, ms) => setTimeout(run, ms), clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) },
    retryWhen: (error) => error instanceof NotSetUpError,
    attentive: () => vscode.window.state.focused,
  });
  context.subscriptions.push(
    { dispose: () => watch.dispose() },
    vscode.window.onDidChangeWindowState((state) => state.focused && watch.attend()),
    host.onDidOpen((session) => session && watch.wake()),
    // Getting Started's first step ticks itself once Rung has models to route to (package.json's walkthrough).
    host.onDidOpen((session) => void vscode.commands.executeCommand('setContext', HAS_PANEL_CONTEXT, session !== undefined)),
  );
  // The log is not among the subscriptions: VS Code disposes those as soon as it calls `deactivate`,
  // and `deactivate` still has to say how the last save went. It disposes the log itself.
  context.subscriptions.push(state, settings, host);

  // The one way every feature asks the session (calls/featureCalls.ts): one memory of answered requests
  // for Rung Auto and @rung alike, so either's Retry climbs.
  const calls = new FeatureCalls({ state, log, clock: systemClock });
  const deps = { sessions: host, settings, state, secrets, log, calls };
  const failed: string[] = [];
  const features: [string, () => void][] = [
    [
      'settings',
      () =>
        registerSettings(context, {
          settings,
          log,
          applyPanel: (panel) => applyPanel(host, panel),
          reopen: (reason) => host.reopen(reason),
        }),
    ],
    ['model provider', () => registerModelProvider(context, deps)],
    ['chat participant', () => registerChatParticipant(context, deps)],
    ['commands', () => registerCommands(context, deps)],
    ['edit selection', () => registerEditSelection(context, deps)],
    ['ledger view', () => registerLedgerView(context, { sessions: host, log })],
    ['status bar', () => registerStatusBar(context, { ...deps, openLedgerCommand: OPEN_LEDGER_COMMAND })],
  ];
  for (const [name, register] of features) {
    try {
      register();
    } catch (error) {
      failed.push(name);
      log.error(`the ${name} did not register; the rest of Rung works without it`, error);
    }
  }
  context.subscriptions.push(
    host.onChange((change) => {
      if (change.type === 'decision-written') log.decision(change.row);
      else if (change.type === 'provider-health')
        log.info(`provider ${change.provider} ${change.healthy ? 'is back' : `is down: ${change.reason ?? 'no reason given'}`}`);
      else if (change.type === 'notice') showNotice(change.level, change.message);
    }),
    secrets.onDidChange((provider) => void host.reopen(`the key for ${provider} changed`)),
    secrets.onDidChangeTeamPassword(() => void host.reopen('the team ledger password changed')),
  );

  watch.start();
  sayWhichFolder(context, log);
  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms${failed.length ? `; not registered: ${failed.join(', ')}` : ''}`);
  // Opened after activation returns, so the model picker lists Rung without waiting for the ledger.
  void host.get().then(
    (session) => log.info(`session open: ledger ${session.snapshot({ limit: 0 }).ledgerPath ?? 'in memory'}`),
    (error: unknown) => {
      if (error instanceof NotSetUpError)
        showHowToStart({ reason: error.message, log, onDidOpen: (listener) => host.onDidOpen((session) => session && listener()) });
      // A panel that does not parse or validate was already said, in the log and in a toast: a typo is no stack trace.
      else if (!(error instanceof PanelError)) log.error('the session did not open', error);
    },
  );
  return { activationMs, session: () => host.get(), failedFeatures: failed, logFolder: context.logUri };
}

/** Says once a window, and again when folders are added, which folder's `.rung/` a workspace of several uses. */
function sayWhichFolder(context: vscode.ExtensionContext, log: RungLog): void {
  let said: string | undefined;
  const say = (): void => {
    const note = severalFoldersNote((vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file'));
    if (!note || note === said) return;
    said = note;
    log.info(note);
    void vscode.window.showInformationMessage(`Rung: ${note.charAt(0).toUpperCase()}${note.slice(1)}`);
  };
  say();
  context.subscriptions.push(vscode.workspace.onDidChangeWorkspaceFolders(say));
}

/** A good new panel: the open session takes it in place; with none open yet, one opens and takes it. */
async function applyPanel(host: SessionHost, panel: Panel): Promise<void> {
  const session = host.current ?? (await host.get());
  // A session still opening when the settings changed opens on the panel read before the change.
  if (session.snapshot({ limit: 0 }).panel !== panel) await session.setPanel(panel);
}

/** A session notice as a toast; the session has logged it already (its `log` option), so it is not logged again. */
function showNotice(level: 'info' | 'warning' | 'error', message: string): void {
  if (level === 'error') void vscode.window.showErrorMessage(`Rung: ${message}`);
  else if (level === 'warning') void vscode.window.showWarningMessage(`Rung: ${message}`);
}

/**
 * Asks whether to send a workspace ledger this machine did not make to the team: a notification, not a
 * modal, so the window opens and works while it waits. Closing it without a choice asks again next time.
 */
async function askToSendWorkspaceLedger(question: string): Promise<'send' | 'never' | undefined> {
  const choice = await vscode.window.showWarningMessage(`Rung: ${question}`, SEND_TO_TEAM, DO_NOT_SEND);
  return choice === SEND_TO_TEAM ? 'send' : choice === DO_NOT_SEND ? 'never' : undefined;
}

const SEND_TO_TEAM = 'Send to Team';
const DO_NOT_SEND = "Don't Send";

/** Stops the calls under way and saves the ledger and the decision log, within the time VS Code allows. */
export async function deactivate(): Promise<void> {
  const active = sessions;
  sessions = undefined;
  if (!active) return;
  try {
    await shutdownWithinBudget({ stop: () => active.host.shutdown(), log: active.log, clock: systemClock, schedule: timerScheduler });
  } finally {
    active.log.dispose();
  }
}
