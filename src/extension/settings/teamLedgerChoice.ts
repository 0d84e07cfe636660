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
 * imports that file's own evidence. That rule is the core's (teamOrWorkspace.ts), so `rung` keeps it too.
 */
import type { Ledger } from '../../core/ledger/ledger';
import { isTeamLedgerUrl, readTeamUrl, redactedUrl, teamUrlHasPassword } from '../../core/ledger/teamUrl';
import { openTeamOrWorkspace as openTeamOrWorkspaceLedger, type TeamOrWorkspaceOptions as LedgerChoiceOptions } from '../../core/store/openStore';

/** What a window gives: the rule's options less those a window always sets the same way. */
export type TeamOrWorkspaceOptions = Omit<LedgerChoiceOptions, 'subject' | 'resetRefusal' | 'readOnly'>;

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
  // Read by pg's own parser, so "has a password" means what pg would send (teamUrl.ts).
  if (readTeamUrl(url) === undefined) {
    return { kind: 'invalid', message: `${TEAM_LEDGER_SETTING} is not a URL that can be read (${redactedUrl(url)}); the team ledger is off` };
  }
  if (teamUrlHasPassword(url)) {
    return {
      kind: 'invalid',
      message: `${TEAM_LEDGER_SETTING} has a password in it (${redactedUrl(url)}), and settings are not secret: take it out and run "Rung: Set Team Ledger Password" (or set PGPASSWORD); the team ledger is off until then`,
    };
  }
  return { kind: 'url', url };
}

/** Opens the team's ledger for this window, or the workspace file when the server cannot be used. */
export function openTeamOrWorkspace(options: TeamOrWorkspaceOptions): Promise<Ledger> {
  const where = redactedUrl(options.url);
  return openTeamOrWorkspaceLedger({
    ...options,
    subject: 'this window',
    resetRefusal: `the team ledger ${where} is shared by the whole team; reset it from a terminal: rung ledger reset --ledger ${where} --yes`,
  });
}
