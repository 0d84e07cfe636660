/**
 * Opens a team's ledger for `--ledger postgres://…`: the member named, the outbox in the workspace,
 * background sync failures and notices said on stderr.
 *
 * @remarks
 * The password is never read from the workspace: it is in the URL the user typed, or in `PGPASSWORD`
 * (or `~/.pgpass`), which `pg` reads itself. What could not be sent is kept in `.rung/` under the
 * current folder (see TeamOutbox), where the decision rows of a team run go too; with `shareDecisions`
 * (`--share-decisions`) they also go to the team's server.
 */
import { dirname, join } from 'node:path';
import type { Clock } from '../core/clock';
import { isTeamLedgerUrl, TeamLedger, teamMemberId } from '../core/ledger/teamLedger';
import { teamOutboxPath } from '../core/ledger/teamOutbox';
import { DEFAULT_LEDGER_PATH } from '../core/ledger/workspaceLedger';

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
    onSyncError: (error) => io.stderr(`rung: the team ledger did not sync (kept for the next try): ${error.message}\n`),
    onNotice: (message) => io.stderr(`rung: ${message}\n`),
  });
}
