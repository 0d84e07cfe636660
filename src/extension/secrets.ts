/**
 * Provider keys in the editor's SecretStorage: set, cleared and looked up by provider name.
 *
 * @remarks
 * Keys never go in settings, the panel file or the ledger (SPEC §4): SecretStorage is the OS keychain
 * where there is one. Every key read is handed to the log's redactor first, so it cannot appear in a
 * log line even when a server echoes it back.
 */
import * as vscode from 'vscode';
import type { KeyLookup } from '../core/session/types';
import type { Redactor } from './redactor';

const KEY_PREFIX = 'rung.key.';

export class ProviderSecrets {
  /** Fires with the provider whose key was set or cleared, in this window or another. */
  readonly onDidChange: vscode.Event<string>;

  constructor(
    private readonly storage: vscode.SecretStorage,
    private readonly redactor: Redactor,
  ) {
    this.onDidChange = (listener, thisArgs, disposables) =>
      storage.onDidChange((event) => {
        if (event.key.startsWith(KEY_PREFIX)) listener.call(thisArgs, event.key.slice(KEY_PREFIX.length));
      }, undefined, disposables);
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
