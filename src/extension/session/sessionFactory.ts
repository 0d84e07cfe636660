/**
 * Opens the core session for the extension: the one place the extension names the session's
 * implementation, so the rest of the layer codes against the `Session` contract alone.
 *
 * @remarks
 * What the extension supplies and the CLI does not: keys from SecretStorage, the `vscode-lm` provider
 * kind, the ledger in the workspace (or global storage with no folder open), and the daily budget.
 */
import type { Clock } from '../../core/clock';
import { teamMemberId } from '../../core/ledger/teamLedger';
import type { Panel } from '../../core/panel';
import { RungSession } from '../../core/session/session';
import type { ConfidenceCheckMode, KeyLookup, ProviderFactory, Session } from '../../core/session/types';
import type { StoreLocation } from '../../core/store/storeLocation';
import { windowTeamOptions } from '../settings/teamLedgerChoice';

export interface ExtensionSessionOptions {
  panel: Panel;
  /** Where ratings and decision rows are kept: the ledger file, or the team's server with that file as its fallback. */
  store: StoreLocation;
  /** USD a day; null for none. */
  dailyBudget: number | null;
  /** USD one answer may cost; null for no ceiling. */
  maxAnswerCost?: number | null;
  /** Which models the confidence check asks. */
  confidenceCheck?: ConfidenceCheckMode;
  keyLookup: KeyLookup;
  /** Provider kinds the core cannot build by itself (`vscode-lm`). */
  providerFactories: Record<string, ProviderFactory>;
  clock: Clock;
  /** Where provider catalogs are cached. */
  catalogDir: string;
  /** The extension's global storage: the team's outbox and the record of the workspace ledgers made here, where no folder can plant them. */
  userFolder: string;
  log: (level: 'info' | 'warning' | 'error', message: string) => void;
  /** The environment a workspace check command's is drawn from; the session gives the command only its allowed part. */
  environment: Record<string, string | undefined>;
  /** How a team store is opened (read only for a team location): the password from SecretStorage, the opt-in to share rows. */
  team?: { password: string | undefined; shareDecisions?: boolean };
  /** Shows the user a warning (a team ledger that could not be reached). */
  warn?: (message: string) => void;
  /** Asks the user whether to send a workspace ledger this machine did not make to the team. */
  askToSendWorkspaceLedger?: (question: string) => Promise<'send' | 'never' | undefined>;
}

export async function openSession(options: ExtensionSessionOptions): Promise<Session> {
  const location = options.store;
  const team = options.team;
  return RungSession.open({
    panel: options.panel,
    store: location,
    storeOptions: {
      userFolder: options.userFolder,
      ...(location.kind === 'team'
        ? {
            team: windowTeamOptions(location.url, {
              ...(team?.password ? { password: team.password } : {}),
              memberId: teamMemberId(options.environment),
              shareDecisions: team?.shareDecisions ?? false,
              ...(options.warn ? { notifyFallback: options.warn } : {}),
              ...(options.askToSendWorkspaceLedger ? { askToSendWorkspaceLedger: options.askToSendWorkspaceLedger } : {}),
            }),
          }
        : {}),
    },
    clock: options.clock,
    keys: options.keyLookup,
    keyHint: (provider) => `run "Rung: Set Provider Key" for ${provider}`,
    providerFactories: options.providerFactories,
    catalogDir: options.catalogDir,
    log: options.log,
    environment: options.environment,
    // The team's password is scrubbed from a check command's output like a provider key.
    ...(team?.password ? { secrets: [team.password] } : {}),
    ...(options.dailyBudget !== null ? { dailyBudgetUsd: options.dailyBudget } : {}),
    ...(options.maxAnswerCost !== undefined && options.maxAnswerCost !== null ? { answerCeilingUsd: options.maxAnswerCost } : {}),
    ...(options.confidenceCheck ? { confidenceCheck: options.confidenceCheck } : {}),
  });
}
