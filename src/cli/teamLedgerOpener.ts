/**
 * Opens a team's ledger for `--ledger postgres://…`: the member named, the outbox in the workspace,
 * background sync failures and notices said on stderr.
 *
 * @remarks
 * The password is never read from the workspace: it is in the URL the user typed, or in `PGPASSWORD`
 * (or `~/.pgpass`), which `pg` reads itself. What could not be sent is kept in `.rung/` under the
 * current folder (see TeamOutbox), where the decision rows of a team run go too; with `shareDecisions`
 * (`--share-decisions`) they also go to the team's server.
 *
 * A command that only learns into the ledger or reads it (`rung chat`, `rung replay`, `rung rank`) still runs
 * when the server cannot be used: {@link openTeamOrFallback} gives it the workspace ledger instead, with
 * one line on stderr, by the rule the extension follows (see teamOrWorkspace.ts). The `rung ledger`
 * subcommands act on the team's ledger itself (show it, reset it, import into it), so they fail instead:
 * doing that to the workspace file would be a different command than the one typed.
 */
import { dirname, join } from 'node:path';
import type { Clock } from '../core/clock';
import type { Ledger } from '../core/ledger/ledger';
import { isTeamLedgerUrl, isUnreachable, TeamLedger, teamMemberId } from '../core/ledger/teamLedger';
import { teamOutboxPath } from '../core/ledger/teamOutbox';
import { openTeamOrWorkspace } from '../core/store/openStore';
import { DEFAULT_LEDGER_PATH } from '../core/ledger/workspaceLedger';
import { printable } from '../core/terminalText';

// Re-exported for chat, which reaches the ledger only through the session.
export { isTeamLedgerUrl, teamMemberId };

/** The workspace ledger's place under `cwd`: a team run keeps its decision log and its outbox beside it. */
export function workspaceLedgerPath(cwd: string): string {
  return join(cwd, DEFAULT_LEDGER_PATH);
}

export interface TeamOpenerIo {
  env?: Record<string, string | undefined>;
  clock: Clock;
  cwd: string;
  stderr: (text: string) => void;
}

export function openTeamLedger(url: string, io: TeamOpenerIo, options: { readOnly?: boolean; shareDecisions?: boolean } = {}): Promise<TeamLedger> {
  return TeamLedger.open({
    url,
    memberId: teamMemberId(io.env ?? {}),
    clock: io.clock,
    readOnly: options.readOnly ?? false,
    shareDecisions: options.shareDecisions ?? false,
    outboxPath: teamOutboxPath(dirname(workspaceLedgerPath(io.cwd)), url),
    onSyncError: (error) => io.stderr(`rung: the team ledger did not sync (kept for the next try): ${printable(error.message)}\n`),
    onNotice: (message) => io.stderr(`rung: ${printable(message)}\n`),
  });
}

/**
 * The team's ledger, or the workspace ledger under `cwd` when the server cannot be reached (refused, no
 * answer within the connect limit, a password it does not take): said once on stderr, naming the server
 * and why, and what this run does not share.
 *
 * @remarks
 * Only warnings reach stderr: a run that reached the server prints nothing about it, as before.
 */
export function openTeamOrFallback(url: string, io: TeamOpenerIo, options: { readOnly?: boolean; shareDecisions?: boolean } = {}): Promise<Ledger> {
  return openTeamOrWorkspace({
    url,
    password: undefined,
    memberId: teamMemberId(io.env ?? {}),
    workspacePath: workspaceLedgerPath(io.cwd),
    clock: io.clock,
    subject: 'this run',
    readOnly: options.readOnly ?? false,
    shareDecisions: options.shareDecisions ?? false,
    // A server that answers but holds no ledger, or one of another version, is not mended by working
    // elsewhere: that stays an error that says what to do.
    fallBackOn: isUnreachable,
    log: (level, message) => {
      if (level !== 'info') io.stderr(`rung: ${printable(message)}\n`);
    },
    onWorkspaceNotice: (notice) => io.stderr(`rung: ${printable(notice.message)}\n`),
  });
}
