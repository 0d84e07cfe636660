/**
 * Provider keys in the editor's SecretStorage: set, cleared and looked up by provider name.
 *
 * @remarks
 * Keys never go in settings, the panel file or the ledger, which are plain files others read: SecretStorage is the OS keychain
 * where there is one. Every key read is handed to the log's redactor first, so it cannot appear in a
 * log line even when a server echoes it back.
 */
import * as vscode from 'vscode';
import type { KeyLookup } from '../../core/session/types';
import type { Redactor } from '../redactor';

const KEY_PREFIX = 'rung.key.';
/** The team ledger's password, apart from the URL in the settings (which are not secret). */
const TEAM_PASSWORD_KEY = 'rung.teamLedger.password';

export class ProviderSecrets {
  /** Fires with the provider whose key was set or cleared, in this window or another. */
  readonly onDidChange: vscode.Event<string>;
  /** Fires when the team ledger's password was set or cleared, in this window or another. */
  readonly onDidChangeTeamPassword: vscode.Event<void>;

  constructor(
    private readonly storage: vscode.SecretStorage,
    private readonly redactor: Redactor,
  ) {
    this.onDidChange = (listener, thisArgs, disposables) =>
      storage.onDidChange(
        (event) => {
          if (event.key.startsWith(KEY_PREFIX)) listener.call(thisArgs, event.key.slice(KEY_PREFIX.length));
        },
        undefined,
        disposables,
      );
    this.onDidChangeTeamPassword = (listener, thisArgs, disposables) =>
      storage.onDidChange(
        (event) => {
          if (event.key === TEAM_PASSWORD_KEY) listener.call(thisArgs);
        },
        undefined,
        disposables,
      );
  }

  /** The team ledger's password, or undefined when none is stored; handed to the redactor like every key. */
  async teamPassword(): Promise<string | undefined> {
    const password = (await this.storage.get(TEAM_PASSWORD_KEY)) || undefined;
    this.redactor.add(password);
    return password;
  }

  /** Stores the team ledger's password, or with an empty one forgets it; true when one is stored now. */
  async storeTeamPassword(password: string): Promise<boolean> {
    if (password === '') {
      await this.storage.delete(TEAM_PASSWORD_KEY);
      return false;
    }
    this.redactor.add(password);
    await this.storage.store(TEAM_PASSWORD_KEY, password);
    return true;
  }

  /** The key lookup the session is given. */
  readonly lookup: KeyLookup = async (provider) => {
    const key = (await this.storage.get(KEY_PREFIX + provider)) || undefined;
    this.redactor.add(key);
    return key;
  };

  async store(provider: string, key: string): Promise<void> {
    this.redactor.add(key);
    await this.storage.store(KEY_PREFIX + provider, key);
  }

  async clear(provider: string): Promise<boolean> {
    const had = await this.storage.get(KEY_PREFIX + provider);
    await this.storage.delete(KEY_PREFIX + provider);
    return had !== undefined;
  }

  async has(provider: string): Promise<boolean> {
    return (await this.storage.get(KEY_PREFIX + provider)) !== undefined;
  }
}
