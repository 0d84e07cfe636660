/**
 * Which ledger the extension's session learns into when the team's server is configured: the team's,
 * or, when it cannot be reached, the workspace file — with the setting checked and the password kept
 * out of it. No `vscode` here, so the rules are unit-tested against a real server.
 *
 * @remarks
 * Settings are not secret (they sync, they are shown, a workspace's are committed), so a URL that carries
 * a password is refused rather than used: the password comes from the editor's SecretStorage (**Rung: Set
 * Team Ledger Password**) or from `PGPASSWORD`, which `pg` reads itself.
 *
 * A window must open even when the team's server does not answer (a train, a VPN that is down). It then
 * learns into the workspace file, as without a team, and says so; the next session that reaches the server
 * imports that file's own evidence, which counts what was learned offline once however often it runs
 * (see TeamLedger.importLedger).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock';
import type { Ledger } from '../core/ledger/ledger';
import { loadSqlJs } from '../core/ledger/sqlJs';
import { isTeamLedgerUrl, redactedUrl, TeamLedger, type TeamLedgerOptions } from '../core/ledger/teamLedger';
import { teamOutboxPath } from '../core/ledger/teamOutbox';
import { readMergeSource, WorkspaceLedger, type LedgerNotice } from '../core/ledger/workspaceLedger';

/** What the `rung.teamLedger.url` setting holds. */
export type TeamLedgerSetting = { kind: 'none' } | { kind: 'url'; url: string } | { kind: 'invalid'; message: string };

/** The name of the setting, for messages. */
export const TEAM_LEDGER_SETTING = 'rung.teamLedger.url';

/** Reads the setting's value: empty is no team; a URL with a password, or not a PostgreSQL URL, is refused, naming why. */
export function readTeamLedgerSetting(value: unknown): TeamLedgerSetting {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return { kind: 'none' };
  if (typeof value !== 'string' || !isTeamLedgerUrl(value.trim())) {
    return { kind: 'invalid', message: `${TEAM_LEDGER_SETTING} must be a postgres://user@host:port/database URL, not ${JSON.stringify(value)}; the team ledger is off` };
  }
  const url = value.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'invalid', message: `${TEAM_LEDGER_SETTING} is not a URL that can be read (${redactedUrl(url)}); the team ledger is off` };
  }
  if (parsed.password !== '') {
    return {
      kind: 'invalid',
      message: `${TEAM_LEDGER_SETTING} has a password in it (${redactedUrl(url)}), and settings are not secret: take it out and run "Rung: Set Team Ledger Password" (or set PGPASSWORD); the team ledger is off until then`,
    };
  }
  return { kind: 'url', url };
}

export interface TeamOrWorkspaceOptions {
  url: string;
  /** From SecretStorage; absent: `PGPASSWORD` or `~/.pgpass`, which `pg` reads itself. */
  password: string | undefined;
  memberId: string;
  /** The workspace ledger file: the fallback, and the folder of the outbox and the decision log. */
  workspacePath: string;
  clock: Clock;
  log: (level: 'info' | 'warning' | 'error', message: string) => void;
  /** Told once, for the user to see, when the session falls back to the workspace file. */
  notifyFallback?: (message: string) => void;
  /** The workspace file's notices (a damaged file moved aside). */
  onWorkspaceNotice?: (notice: LedgerNotice) => void;
  /** `rung.teamLedger.shareDecisions`: also send the session's decision rows to the team (off by default). */
  shareDecisions?: boolean;
  /** Background flush interval for the team ledger, ms (its default unless given; tests pass 0). */
  syncIntervalMs?: number;
}

/** Opens the team ledger, or the workspace file when the server cannot be used; never throws for an unreachable server. */
export async function openTeamOrWorkspace(options: TeamOrWorkspaceOptions): Promise<Ledger> {
  const where = redactedUrl(options.url);
  let lastSyncProblem: string | undefined;
  let team: TeamLedger;
  try {
    const teamOptions: TeamLedgerOptions = {
      url: options.url,
      ...(options.password ? { password: options.password } : {}),
      memberId: options.memberId,
      clock: options.clock,
      outboxPath: teamOutboxPath(dirname(options.workspacePath), options.url),
      shareDecisions: options.shareDecisions ?? false,
      resetRefusal: `the team ledger ${where} is shared by the whole team; reset it from a terminal: rung ledger reset --ledger ${where} --yes`,
      // Every 10 s while the server is away would bury the log: each reason is said once.
      onSyncError: (error) => {
        if (error.message === lastSyncProblem) return;
        lastSyncProblem = error.message;
        options.log('warning', `the team ledger did not sync (kept for the next try): ${error.message}`);
      },
      onNotice: (message) => options.log('warning', message),
      ...(options.syncIntervalMs !== undefined ? { syncIntervalMs: options.syncIntervalMs } : {}),
    };
    team = await TeamLedger.open(teamOptions);
  } catch (error) {
    const message = `${error instanceof Error ? error.message : String(error)}; this window learns into the workspace ledger ${options.workspacePath} instead, and its evidence goes to the team the next time Rung opens with the server answering`;
    options.log('warning', message);
    options.notifyFallback?.(message);
    mkdirSync(dirname(options.workspacePath), { recursive: true });
    return WorkspaceLedger.open({ path: options.workspacePath, clock: options.clock, ...(options.onWorkspaceNotice ? { onNotice: options.onWorkspaceNotice } : {}) });
  }
  options.log('info', `learning into the team ledger ${where} as ${options.memberId}`);
  await sendWorkspaceEvidence(team, options);
  return team;
}

/** Imports the workspace file, if any: what sessions that fell back learned; importing it again adds nothing. */
async function sendWorkspaceEvidence(team: TeamLedger, options: TeamOrWorkspaceOptions): Promise<void> {
  if (!existsSync(options.workspacePath)) return;
  try {
    const source = readMergeSource(options.workspacePath, await loadSqlJs(), options.clock.now());
    const report = await team.importLedger(source);
    if (report.addedGraded > 0) options.log('info', `sent the team ${report.addedGraded} graded observations from the workspace ledger ${options.workspacePath}`);
  } catch (error) {
    options.log('warning', `could not send the workspace ledger ${options.workspacePath} to the team (${error instanceof Error ? error.message : String(error)}); it stays as it is`);
  }
}
