/**
 * Rung's settings: the panel (inline or a file), the overrides laid over it, the ledger's place, the
 * budget and the check command — read, validated with the core's panel schema, and watched.
 *
 * @remarks
 * A bad value is a message naming it, and Rung keeps routing on the last good panel: a typo in
 * `settings.json` while a chat is running must not take the router away. The composition rules are in
 * panelSettings.ts (no `vscode`, unit-tested); this file only reads the editor's configuration and
 * files, and tells the session.
 */
import * as vscode from 'vscode';
import { join, isAbsolute } from 'node:path';
import { systemClock } from '../../core/clock';
import { defaultProviders, PanelError, parsePanel, type Panel } from '../../core/panel';
import { discoverPanel, PanelNotFoundError } from '../../core/panelDiscovery';
import { issuePosition } from '../../core/panelIssues';
import { VARIABLE_NAME } from '../../core/verifiers/commandEnvironment';
import { panelFileOpenable, readPanelFileText } from '../../core/panelFileText';
import { CONFIDENCE_CHECK_MODES, DEFAULT_CONFIDENCE_CHECK } from '../../core/confidence/liveConfidence';
import { AGENT_TOOLS, DEFAULT_AGENT_TOOLS, type AgentTools } from '../../core/providers/toolChoice';
import type { ConfidenceCheckMode } from '../../core/session/types';
import { composePanel, describePanelError, readOverrides, userSettingsOnly, type SettingsReader } from './panelSettings';
import type { RungLog } from '../log';
import { NotSetUpError } from '../session/sessionHost';
import { oneAtATime } from './oneAtATime';
import { readTeamLedgerSetting, storeLocation } from './teamLedgerChoice';
import type { StoreLocation } from '../../core/store/storeLocation';
import { ledgerPathFor } from './ledgerPlace';

/** Where the panel came from: a setting, a file, or Rung's own look at a local Ollama. */
export interface LoadedPanel {
  panel: Panel;
  source: string;
  /** Set when the settings or the file just read were invalid and this is the last good panel, kept (and already in force). */
  kept?: true;
}

export class RungSettings implements vscode.Disposable {
  private lastGood: LoadedPanel | undefined;
  /** The last unusable team ledger setting reported, so a value is reported once, not at every session. */
  private teamLedgerProblem: string | undefined;
  private readonly changed = new vscode.EventEmitter<LoadedPanel>();
  /** Fires with each new good panel. */
  readonly onDidChangePanel = this.changed.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: RungLog,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  /**
   * Rung's settings as this workspace may give them: in a workspace nobody trusted, every restricted
   * setting (the budget, the price cap, routing, diversity, the panel, endpoints, the check command, the
   * ledger's place) is the user's own value or its default, never the workspace's (panelSettings.ts).
   */
  private get config(): SettingsReader {
    return userSettingsOnly(vscode.workspace.getConfiguration('rung'), this.trusted);
  }

  /** The first workspace folder on disk, where `.rung/` lives; undefined with no folder open. */
  get folder(): vscode.Uri | undefined {
    return vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')?.uri;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The panel in force: the last good one. */
  get panel(): LoadedPanel | undefined {
    return this.lastGood;
  }

  /** USD a day, or null for no budget. */
  get dailyBudget(): number | null {
    const value = this.config.get<number | null>('dailyBudget', null);
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  }

  /** USD one answer may cost over all its attempts (`rung.maxAnswerCost`), or null for no ceiling. */
  get maxAnswerCost(): number | null {
    const value = this.config.get<number | null>('maxAnswerCost', null);
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  }

  /** Which models the confidence check asks (`rung.confidenceCheck`): `local` unless the user chose another. */
  get confidenceCheck(): ConfidenceCheckMode {
    const value = this.config.get<unknown>('confidenceCheck', DEFAULT_CONFIDENCE_CHECK);
    return (CONFIDENCE_CHECK_MODES as readonly unknown[]).includes(value) ? (value as ConfidenceCheckMode) : DEFAULT_CONFIDENCE_CHECK;
  }

  /**
   * Which of a request's tools Rung Auto sends (`rung.agentTools`): `relevant` unless the user chose
   * `all`; a value it does not know reads as `all`, which leaves out nothing the editor offered.
   */
  get agentTools(): AgentTools {
    const value = this.config.get<unknown>('agentTools', DEFAULT_AGENT_TOOLS);
    return (AGENT_TOOLS as readonly unknown[]).includes(value) ? (value as AgentTools) : 'all';
  }

  /** The workspace check command; never in an untrusted workspace, whatever the settings say. */
  get verifyCommand(): string | undefined {
    if (!this.trusted) return undefined;
    const command = this.config.get<string | null>('verifyCommand', null);
    return command?.trim() ? command.trim() : undefined;
  }

  /** The variables the check command may see beyond those every command gets (names a shell can set); none in an untrusted workspace, where no command runs. */
  get verifyCommandEnv(): string[] {
    if (!this.trusted) return [];
    const names = this.config.get<unknown>('verifyCommandEnv', []);
    return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string' && VARIABLE_NAME.test(name)) : [];
  }

  /**
   * The ledger file: the setting, else `.rung/ledger.sqlite` in a trusted workspace, else the extension's
   * storage (an untrusted workspace, or no folder open); the rule is ledgerPlace.ts's.
   */
  get ledgerPath(): string {
    return ledgerPathFor({
      setting: this.config.get<string | null>('ledgerPath', null),
      folder: this.folder?.fsPath,
      trusted: this.trusted,
      workspaceStorage: this.context.storageUri?.fsPath,
      globalStorage: this.context.globalStorageUri.fsPath,
    });
  }

  /**
   * Where the session keeps its ratings and decision rows: the team's server (with the ledger file as
   * its fallback) when `rung.teamLedger.url` names one, else the ledger file. A URL that cannot be used
   * (one with a password in it) is said in the log, once per value, and is no team ledger.
   */
  get storeLocation(): StoreLocation {
    const setting = readTeamLedgerSetting(this.config.get<unknown>('teamLedger.url', null));
    if (setting.kind === 'invalid' && setting.message !== this.teamLedgerProblem) {
      this.teamLedgerProblem = setting.message;
      this.log.error(setting.message);
      void vscode.window.showErrorMessage(`Rung: ${setting.message}.`);
    }
    return storeLocation(setting, this.ledgerPath);
  }

  /** `rung.teamLedger.shareDecisions`: the team's opt-in to receive this member's decision rows (off unless exactly true). */
  get teamLedgerShareDecisions(): boolean {
    return this.config.get<unknown>('teamLedger.shareDecisions', false) === true;
  }

  /** The panel file's path, absolute; undefined with no folder open and a relative setting. */
  get panelFilePath(): string | undefined {
    const setting = this.config.get<string>('panelFile', '.rung/panel.json').trim() || '.rung/panel.json';
    if (isAbsolute(setting)) return setting;
    const folder = this.folder?.fsPath;
    return folder ? join(folder, setting) : undefined;
  }

  /** The Ollama base URL the settings and environment point at. */
  get ollamaBaseUrl(): string {
    const host = this.config.get<string | null>('ollamaHost', null)?.trim();
    try {
      return defaultProviders({ OLLAMA_HOST: host || this.env.OLLAMA_HOST }).ollama?.baseUrl ?? 'http://127.0.0.1:11434';
    } catch {
      return 'http://127.0.0.1:11434';
    }
  }

  /**
   * Reads the settings into a panel. A good panel becomes the one in force and is announced; a bad
   * one is reported naming its setting, and the last good one stays.
   *
   * @throws NotSetUpError when nothing is configured and no local Ollama was found.
   */
  async load(): Promise<LoadedPanel> {
    let loaded: LoadedPanel | undefined;
    try {
      loaded = await this.read();
    } catch (error) {
      if (error instanceof PanelError) {
        const said = describePanelError(error, this.lastGood?.source);
        this.log.warn(said.log);
        // The way to the mistake: the file itself when the file is what is wrong, else the settings. A
        // panel file refused as a link is shown in the Explorer, never opened: the editor would open the
        // file it points at, outside the folder.
        const file = error.source === this.panelFilePath ? error.source : undefined;
        const action = file === undefined ? 'Open Settings' : panelFileOpenable(file) ? 'Open Panel File' : 'Show in Explorer';
        void vscode.window.showErrorMessage(said.toast, action).then((choice) => {
          if (!choice || file === undefined) {
            if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'rung.');
            return;
          }
          if (choice === 'Open Panel File') void vscode.window.showTextDocument(vscode.Uri.file(file), { selection: firstMistake(error) });
          else void vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(file));
        });
        if (this.lastGood) return { ...this.lastGood, kept: true };
      }
      throw error;
    }
    this.lastGood = loaded;
    this.changed.fire(loaded);
    return loaded;
  }

  /**
   * The panel by the core's rule (panelDiscovery.ts): the settings' or the panel file's, else the local
   * Ollama's models. Which settings count, and what an untrusted workspace may supply, are this layer's
   * (panelSettings.ts); the Ollama's panel takes the same overrides as a written one, so the settings mean one thing.
   */
  private async read(): Promise<LoadedPanel> {
    const config = this.config;
    const filePath = this.panelFilePath;
    const overrides = readOverrides(config);
    const ollamaHost = config.get<string | null>('ollamaHost', null);
    const compose = (inline: unknown, file: { path: string; text: string } | undefined, endpoints: Record<string, unknown>) =>
      composePanel({ inline, file, overrides, endpoints, ollamaHost, trusted: this.trusted, env: this.env });
    try {
      const found = await discoverPanel({
        configured: async () => {
          // Not through a link, not from a pipe or a device, not past the size a panel has (panelFileText.ts).
          const fileText = filePath ? readPanelFileText(filePath) : undefined;
          return compose(
            config.get<unknown>('panel', null),
            fileText === undefined || !filePath ? undefined : { path: filePath, text: fileText },
            config.get<Record<string, unknown>>('endpoints', {}) ?? {},
          );
        },
        lookedFor: ['rung.panel', filePath ?? '.rung/panel.json'],
        ollama: { baseUrl: this.ollamaBaseUrl, clock: systemClock },
        fromOllama: (file, source) => compose(file, undefined, {})?.panel ?? parsePanel(file, source, this.env),
        env: this.env,
        log: (message) => this.log.info(`first run: ${message}`),
      });
      for (const note of found.notes) this.log.warn(note);
      return { panel: found.panel, source: found.source };
    } catch (error) {
      if (error instanceof PanelNotFoundError) throw new NotSetUpError(error.message);
      throw error;
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Where the first mistake of a panel file is, for opening the file there; undefined when no issue says. */
function firstMistake(error: PanelError): vscode.Range | undefined {
  const at = error.issues.map(issuePosition).find((position) => position !== undefined);
  return at ? new vscode.Range(at.line - 1, at.column - 1, at.line - 1, at.column - 1) : undefined;
}

export interface SettingsDeps {
  settings: RungSettings;
  log: RungLog;
  /** Called with each new good panel, after the initial load. */
  applyPanel: (panel: Panel) => Promise<void>;
  /** Called when a setting changed that needs a fresh session (ledger path, budget). */
  reopen: (reason: string) => Promise<void>;
}

/**
 * Watches the settings, the panel file and the workspace's trust, and passes each good panel on.
 */
export function registerSettings(context: vscode.ExtensionContext, deps: SettingsDeps): void {
  // Settings written in a row would each start a reload at once, and the one that read the oldest
  // could finish last and stay in force (the user's Ollama address set, the session still on the default).
  const reload = oneAtATime((why) => reloadNow(why));
  const reloadNow = async (why: string): Promise<void> => {
    try {
      const loaded = await deps.settings.load();
      // An invalid change was said as a warning naming the panel kept; that panel is already in force.
      if (loaded.kept) return;
      deps.log.info(`panel from ${loaded.source} (${why}): ${loaded.panel.models.map((model) => model.slug).join(', ')}`);
      await deps.applyPanel(loaded.panel);
    } catch (error) {
      if (!(error instanceof PanelError)) deps.log.warn(`no panel (${why}): ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('rung')) return;
      if (
        event.affectsConfiguration('rung.ledgerPath') ||
        event.affectsConfiguration('rung.dailyBudget') ||
        event.affectsConfiguration('rung.maxAnswerCost') ||
        event.affectsConfiguration('rung.teamLedger') ||
        event.affectsConfiguration('rung.confidenceCheck')
      ) {
        void deps.reopen('the ledger path, the team ledger, a spending limit or the confidence check changed');
        return;
      }
      if (event.affectsConfiguration('rung.verifyCommand') || event.affectsConfiguration('rung.verifyCommandEnv')) return;
      void reload('a setting changed');
    }),
    // Trusted now, the workspace keeps its ledger in its own .rung/ (ledgerPlace.ts): a new session opens there.
    vscode.workspace.onDidGrantWorkspaceTrust(
      () =>
        void reload('the workspace is now trusted').then(() =>
          deps.reopen('the workspace is now trusted: its ledger is the one in its folder'),
        ),
    ),
  );
  const filePath = deps.settings.panelFilePath;
  if (filePath) {
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(join(filePath, '..')), filePath.split(/[\\/]/).pop() ?? 'panel.json'),
    );
    context.subscriptions.push(
      watcher,
      watcher.onDidChange(() => void reload('the panel file changed')),
      watcher.onDidCreate(() => void reload('the panel file was created')),
      watcher.onDidDelete(() => void reload('the panel file was deleted')),
    );
  }
}
