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
import { defaultProviders, PanelError, parsePanel, type Panel } from '../core/panel';
import { readPanelFileText } from '../core/panelFileText';
import { composePanel, describePanelError, readOverrides } from './panelSettings';
import { discoverOllamaPanel } from './firstRun';
import type { RungLog } from './log';
import { NotSetUpError } from './sessionHost';
import { readTeamLedgerSetting } from './teamLedgerChoice';
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

  private get config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('rung');
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

  /** The workspace check command; never in an untrusted workspace, whatever the settings say. */
  get verifyCommand(): string | undefined {
    if (!this.trusted) return undefined;
    const command = this.config.get<string | null>('verifyCommand', null);
    return command?.trim() ? command.trim() : undefined;
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
   * The team ledger's URL, or undefined for none; a URL that cannot be used (one with a password in it)
   * is said in the log, once per value, and is no team ledger.
   */
  get teamLedgerUrl(): string | undefined {
    const setting = readTeamLedgerSetting(this.config.get<unknown>('teamLedger.url', null));
    if (setting.kind === 'url') return setting.url;
    if (setting.kind === 'invalid' && setting.message !== this.teamLedgerProblem) {
      this.teamLedgerProblem = setting.message;
      this.log.error(setting.message);
      void vscode.window.showErrorMessage(`Rung: ${setting.message}.`);
    }
    return undefined;
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
        // The way to the mistake: the file itself when the file is what is wrong, else the settings.
        const file = error.source === this.panelFilePath ? error.source : undefined;
        void vscode.window.showErrorMessage(said.toast, file ? 'Open Panel File' : 'Open Settings').then((choice) => {
          if (!choice) return;
          if (file) void vscode.window.showTextDocument(vscode.Uri.file(file));
          else void vscode.commands.executeCommand('workbench.action.openSettings', 'rung.');
        });
        if (this.lastGood) return { ...this.lastGood, kept: true };
      }
      throw error;
    }
    this.lastGood = loaded;
    this.changed.fire(loaded);
    return loaded;
  }

  private async read(): Promise<LoadedPanel> {
    const config = this.config;
    const filePath = this.panelFilePath;
    // Not through a link, not from a pipe or a device, not past the size a panel has (panelFileText.ts).
    const fileText = filePath ? readPanelFileText(filePath) : undefined;
    const overrides = readOverrides(config);
    const composed = composePanel({
      inline: config.get<unknown>('panel', null),
      file: fileText === undefined || !filePath ? undefined : { path: filePath, text: fileText },
      overrides,
      endpoints: config.get<Record<string, unknown>>('endpoints', {}) ?? {},
      ollamaHost: config.get<string | null>('ollamaHost', null),
      trusted: this.trusted,
      env: this.env,
    });
    if (composed) {
      for (const note of composed.notes) this.log.warn(note);
      return { panel: composed.panel, source: composed.source };
    }
    const discovered = await discoverOllamaPanel({ baseUrl: this.ollamaBaseUrl, log: this.log });
    if (!discovered) {
      throw new NotSetUpError(`no panel is configured (rung.panel or ${filePath ?? '.rung/panel.json'}) and no local Ollama answered at ${this.ollamaBaseUrl}`);
    }
    // The discovered panel takes the same overrides as a written one, so the settings mean one thing.
    const panel = composePanel({
      inline: discovered,
      file: undefined,
      overrides,
      endpoints: {},
      ollamaHost: config.get<string | null>('ollamaHost', null),
      trusted: this.trusted,
      env: this.env,
    });
    return { panel: panel?.panel ?? parsePanel(discovered, 'local Ollama', this.env), source: `the models of the local Ollama at ${this.ollamaBaseUrl}` };
  }

  dispose(): void {
    this.changed.dispose();
  }
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
  const reload = async (why: string): Promise<void> => {
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
      if (event.affectsConfiguration('rung.ledgerPath') || event.affectsConfiguration('rung.dailyBudget') || event.affectsConfiguration('rung.teamLedger')) {
        void deps.reopen('the ledger path, the team ledger or the daily budget changed');
        return;
      }
      if (event.affectsConfiguration('rung.verifyCommand')) return;
      void reload('a setting changed');
    }),
    // Trusted now, the workspace keeps its ledger in its own .rung/ (ledgerPlace.ts): a new session opens there.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void reload('the workspace is now trusted').then(() => deps.reopen('the workspace is now trusted: its ledger is the one in its folder'))),
  );
  const filePath = deps.settings.panelFilePath;
  if (filePath) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(join(filePath, '..')), filePath.split(/[\\/]/).pop() ?? 'panel.json'));
    context.subscriptions.push(
      watcher,
      watcher.onDidChange(() => void reload('the panel file changed')),
      watcher.onDidCreate(() => void reload('the panel file was created')),
      watcher.onDidDelete(() => void reload('the panel file was deleted')),
    );
  }
}
