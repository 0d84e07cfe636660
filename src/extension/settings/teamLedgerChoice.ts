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
 * imports that file's own evidence. That rule is the core's (store/openStore.ts), so `rung` keeps it too.
 */
import type { TeamStoreOptions } from '../../core/store/openStore';
import { parseStoreLocation, StoreLocationError, type StoreLocation } from '../../core/store/storeLocation';
import { redactedUrl, teamUrlHasPassword } from '../../core/ledger/teamUrl';

/** What the `rung.teamLedger.url` setting holds. */
export type TeamLedgerSetting = { kind: 'none' } | { kind: 'url'; url: string } | { kind: 'invalid'; message: string };

/** The name of the setting, for messages. */
export const TEAM_LEDGER_SETTING = 'rung.teamLedger.url';

/** Reads the setting's value: empty is no team; a URL with a password, or not a PostgreSQL URL, is refused, naming why. */
export function readTeamLedgerSetting(value: unknown): TeamLedgerSetting {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return { kind: 'none' };
  const mustBe = `${TEAM_LEDGER_SETTING} must be a postgres://user@host:port/database URL, not ${JSON.stringify(value)}; the team ledger is off`;
  if (typeof value !== 'string') return { kind: 'invalid', message: mustBe };
  let location: StoreLocation;
  try {
    // The one reading of a ledger's place the CLI's --ledger gets too; the workspace file is settled by storeLocation.
    location = parseStoreLocation({ value, cwd: '/', whenAbsent: 'memory', name: TEAM_LEDGER_SETTING });
  } catch (error) {
    if (error instanceof StoreLocationError) return { kind: 'invalid', message: `${error.message}; the team ledger is off` };
    throw error;
  }
  if (location.kind !== 'team') return { kind: 'invalid', message: mustBe };
  const url = location.url;
  // Read by pg's own parser, so "has a password" means what pg would send (teamUrl.ts).
  if (teamUrlHasPassword(url)) {
    return {
      kind: 'invalid',
      message: `${TEAM_LEDGER_SETTING} has a password in it (${redactedUrl(url)}), and settings are not secret: take it out and run "Rung: Set Team Ledger Password" (or set PGPASSWORD); the team ledger is off until then`,
    };
  }
  return { kind: 'url', url };
}

/** Where the window's store is: the team's server with the ledger file as its fallback, or the ledger file alone. */
export function storeLocation(team: TeamLedgerSetting, ledgerFile: string): StoreLocation {
  return team.kind === 'url' ? { kind: 'team', url: team.url, fallbackPath: ledgerFile } : { kind: 'file', path: ledgerFile };
}

/** How a window opens the team's store: as `this window`, refusing a reset of the whole team's ratings. */
export function windowTeamOptions(url: string, options: Omit<TeamStoreOptions, 'subject' | 'resetRefusal'>): TeamStoreOptions {
  const where = redactedUrl(url);
  return {
    ...options,
    subject: 'this window',
    resetRefusal: `the team ledger ${where} is shared by the whole team; reset it from a terminal: rung ledger reset --ledger ${where} --yes`,
  };
}
