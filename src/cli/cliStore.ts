/**
 * Opens the store `--ledger` names for a command: memory without it (or the workspace file, for `rung
 * ledger`), a ledger file, or a team's server — with every notice said on stderr.
 *
 * @remarks
 * The password is never read from the workspace, nor taken in the URL (see {@link cliStoreLocation}): it
 * is in `PGPASSWORD` (or `~/.pgpass`), which `pg` reads itself. What could not be sent is kept in the
 * CLI's own data folder (see TeamOutbox and userDataFolder.ts), never in the folder it runs in; the
 * decision rows of a team run go to `.rung/` under the current folder, and with `shareDecisions`
 * (`--share-decisions`) to the team's server too. The workspace ledger is sent to the team only when this
 * machine made it, or with `--send-workspace-ledger` (see openStore).
 *
 * A command that only learns into the ledger or reads it (`rung chat`, `rung replay`, `rung rank`) still
 * runs when the server cannot be reached: `openStore` gives it the workspace ledger instead, with one
 * line on stderr, by the rule the extension follows. Only an unreachable server falls back: one that
 * answers but holds no ledger, or one of another version, is not mended by working elsewhere. The `rung
 * ledger` subcommands act on the team's ledger itself (show it, reset it, import into it), so they open
 * the team directly ({@link openTeamLedger}) and fail instead: doing that to the workspace file would be
 * a different command than the one typed.
 */
import type { Clock } from '../core/clock';
import { isUnreachable, TeamLedger, teamMemberId } from '../core/ledger/teamLedger';
import { redactedUrl, teamUrlHasPassword } from '../core/ledger/teamUrl';
import { teamOutboxPath } from '../core/ledger/teamOutbox';
import type { LedgerNotice } from '../core/ledger/notices';
import { openStore, type OpenStoreOptions } from '../core/store/openStore';
import type { Store } from '../core/store/store';
import { parseStoreLocation, StoreLocationError, type StoreLocation } from '../core/store/storeLocation';
import { printable } from '../core/terminalText';
import { UsageError } from './io';
import { refuseNonSqliteLedger } from './refuseNonSqliteLedger';
import { userDataFolder } from './userDataFolder';
import { explainingRefusal } from './writeRefusal';

export interface StoreOpenerIo {
  env?: Record<string, string | undefined>;
  clock: Clock;
  cwd: string;
  stderr: (text: string) => void;
}

/** How a command opens its store: read-only (rank), sharing its decision rows with the team, sending a workspace ledger made elsewhere. */
export interface CliStoreOptions {
  readOnly?: boolean;
  shareDecisions?: boolean;
  sendWorkspaceLedger?: boolean;
}

/** The flag that sends a workspace ledger this machine did not make to the team, as `rung chat` and `rung replay` declare it. */
export const SEND_WORKSPACE_LEDGER_FLAG = {
  'send-workspace-ledger': {
    type: 'boolean',
    description:
      'with a team --ledger: also send the workspace ledger to the team when it was not made on this machine (one that came with the folder is otherwise left out)',
  },
} as const;

/** Opens the store at a location; supplied by the composition in main.ts, so a build without it says so. */
export type StoreOpener = (
  location: StoreLocation,
  io: StoreOpenerIo,
  options?: CliStoreOptions,
  session?: Pick<OpenStoreOptions, 'onNotice' | 'onDecisionNotice'>,
) => Promise<Store>;

/**
 * Reads `--ledger` once, for every command: a usage error (exit 2) for a value that names no place, or
 * for a team URL with a password in it. `whenAbsent` is what no `--ledger` means to the command.
 *
 * @remarks
 * A password on the command line is read by every process on the machine (`ps`, `/proc/<pid>/cmdline`)
 * for as long as the command runs, and kept in the shell's history after; the editor's setting refuses
 * one for the same kind of reason, and the CLI took it. So it is refused before anything is opened, the
 * URL shown without it, and `PGPASSWORD` or `~/.pgpass` named instead, which `pg` reads itself.
 */
export function cliStoreLocation(
  value: string | undefined,
  io: Pick<StoreOpenerIo, 'cwd'>,
  whenAbsent: 'memory' | 'workspace',
): StoreLocation {
  let location: StoreLocation;
  try {
    location = parseStoreLocation({ value, cwd: io.cwd, whenAbsent, name: '--ledger' });
  } catch (error) {
    if (error instanceof StoreLocationError) throw new UsageError(error.message);
    throw error;
  }
  if (location.kind === 'team' && teamUrlHasPassword(location.url))
    throw new UsageError(
      `--ledger ${redactedUrl(location.url)} has a password in it, which every process on this machine can read while rung runs, and your shell keeps in its history: take it out of the URL and set PGPASSWORD, or write it in ~/.pgpass`,
    );
  return location;
}

/**
 * Opens the store at `location` for a command, its notices on stderr (or the session's, when a session
 * opens it and says them as its own).
 *
 * @remarks
 * For a file, a folder it cannot write becomes a `WriteRefusedError` naming it, a file that is not an
 * SQLite database is refused before it could be repaired away, and read-only, a file it cannot read is
 * the error: a damaged file opens as an empty ledger, and a ranking from the priors with exit 0 would be
 * taken by a script for the ledger's.
 */
export const openCliStore: StoreOpener = async (location, io, options = {}, session = {}) => {
  const say = (message: string): void => io.stderr(`rung: ${printable(message)}\n`);
  const unreadable: LedgerNotice[] = [];
  const onNotice = (notice: LedgerNotice): void => {
    if (options.readOnly && notice.kind === 'unreadable') unreadable.push(notice);
    else (session.onNotice ?? ((said: LedgerNotice) => say(said.message)))(notice);
  };
  const userFolder = userDataFolder(io.env ?? {});
  const opening: OpenStoreOptions = {
    clock: io.clock,
    ...(userFolder ? { userFolder } : {}),
    ...(options.readOnly ? { readOnly: true } : {}),
    // Only warnings: a run that reached the server prints nothing about it.
    log: (level, message) => {
      if (level !== 'info') say(message);
    },
    onNotice,
    onDecisionNotice: session.onDecisionNotice ?? ((notice) => say(notice.message)),
    team: {
      memberId: teamMemberId(io.env ?? {}),
      subject: 'this run',
      shareDecisions: options.shareDecisions ?? false,
      fallBackOn: isUnreachable,
      sendWorkspaceLedger: options.sendWorkspaceLedger ?? false,
      sendWorkspaceLedgerHint: 'if they are yours, run again with --send-workspace-ledger',
    },
  };
  if (location.kind !== 'file') return openStore(location, opening);
  const path = location.path;
  const store = await explainingRefusal(`cannot use the ledger ${path}`, '--ledger FILE', async () => {
    if (!options.readOnly) refuseNonSqliteLedger(path);
    return openStore(location, opening);
  });
  const [first] = unreadable;
  if (first) {
    await store.close();
    throw new Error(first.message);
  }
  return store;
};

/** Opens the team's own ledger, for the `rung ledger` subcommands that act on it: no fallback. */
export function openTeamLedger(
  url: string,
  io: StoreOpenerIo,
  options: { readOnly?: boolean; shareDecisions?: boolean },
): Promise<TeamLedger> {
  const memberId = teamMemberId(io.env ?? {});
  const userFolder = userDataFolder(io.env ?? {});
  return TeamLedger.open({
    url,
    memberId,
    clock: io.clock,
    readOnly: options.readOnly ?? false,
    shareDecisions: options.shareDecisions ?? false,
    ...(userFolder ? { outboxPath: teamOutboxPath(userFolder, url, memberId) } : {}),
    onSyncError: (error) => io.stderr(`rung: the team ledger did not sync (kept for the next try): ${printable(error.message)}\n`),
    onNotice: (message) => io.stderr(`rung: ${printable(message)}\n`),
  });
}
