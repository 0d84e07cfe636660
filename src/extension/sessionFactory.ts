/**
 * Opens the core session for the extension: the one place the extension names the session's
 * implementation, so the rest of the layer codes against the `Session` contract alone.
 *
 * @remarks
 * What the extension supplies and the CLI does not: keys from SecretStorage, the `vscode-lm` provider
 * kind, the ledger in the workspace (or global storage with no folder open), and the daily budget.
 */
import type { Clock } from '../core/clock';
import type { Panel } from '../core/panel';
import type { KeyLookup, ProviderFactory, Session } from '../core/session/types';

export interface ExtensionSessionOptions {
  panel: Panel;
  /** The ledger file; the decision log sits beside it. */
  ledgerPath: string;
  /** USD a day; null for none. */
  dailyBudget: number | null;
  keyLookup: KeyLookup;
  /** Provider kinds the core cannot build by itself (`vscode-lm`). */
  providerFactories: Record<string, ProviderFactory>;
  clock: Clock;
  /** Where provider catalogs are cached. */
  catalogDir: string;
  log: (line: string) => void;
}

export async function openSession(_options: ExtensionSessionOptions): Promise<Session> {
  // WIRE: RungSession.open(options) from ../core/session/session once branch `session` lands.
  throw new Error('this build has no session implementation yet (RungSession.open)');
}
