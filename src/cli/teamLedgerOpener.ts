/**
 * Opens a team's ledger for `--ledger postgres://…`: the member named, background sync failures said on stderr.
 *
 * @remarks
 * The password is never read from the workspace: it is in the URL the user typed, or in `PGPASSWORD`
 * (or `~/.pgpass`), which `pg` reads itself.
 */
import { hostname, userInfo } from 'node:os';
import type { Clock } from '../core/clock';
import { isTeamLedgerUrl, TeamLedger } from '../core/ledger/teamLedger';

// Re-exported for chat, which reaches the ledger only through the session.
export { isTeamLedgerUrl };

/** Who this member is: `RUNG_MEMBER`, else `user@host`. */
export function teamMemberId(env: Record<string, string | undefined>): string {
  const named = env.RUNG_MEMBER?.trim();
  if (named) return named;
  return `${userInfo().username}@${hostname()}`;
}

export function openTeamLedger(url: string, io: { env?: Record<string, string | undefined>; clock: Clock; stderr: (text: string) => void }): Promise<TeamLedger> {
  return TeamLedger.open({
    url,
    memberId: teamMemberId(io.env ?? {}),
    clock: io.clock,
    onSyncError: (error) => io.stderr(`rung: the team ledger did not sync (kept for the next try): ${error.message}\n`),
  });
}
