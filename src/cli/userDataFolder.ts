/**
 * The `rung` CLI's own data folder, in the user's home: where it keeps what a folder must not be able to
 * plant (the team's outbox, the record of the workspace ledgers this machine made).
 *
 * @remarks
 * The editor keeps the same things in the extension's global storage. A data folder rather than a cache:
 * an outbox holds observations the team has not received yet, which a cache cleaner must not delete.
 * `RUNG_DATA_HOME` names it outright (tests, and anyone who wants it elsewhere); otherwise each system's
 * usual place: `$XDG_DATA_HOME/rung` (default `~/.local/share/rung`), `~/Library/Application
 * Support/rung` on macOS, `%LOCALAPPDATA%\rung` on Windows.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function userDataFolder(env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): string {
  const named = env.RUNG_DATA_HOME?.trim();
  if (named && isAbsolute(named)) return named;
  const xdg = env.XDG_DATA_HOME?.trim();
  // The XDG rule: a relative value is to be ignored.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'rung');
  const home = env.HOME?.trim() || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'rung');
  if (platform === 'win32') return join(env.LOCALAPPDATA?.trim() || join(home, 'AppData', 'Local'), 'rung');
  return join(home, '.local', 'share', 'rung');
}
