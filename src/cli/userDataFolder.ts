/**
 * The folder `rung` keeps its own data in: the user's data folder, never the working folder. It holds
 * what a folder must not be able to plant: the team's outbox, and the record of the workspace ledgers
 * this machine made.
 *
 * @remarks
 * The editor keeps the same things in the extension's global storage. A data folder rather than a cache:
 * an outbox holds observations the team has not received yet, which a cache cleaner must not delete.
 */
import { isAbsolute, join } from 'node:path';

/**
 * `$XDG_DATA_HOME/rung`, else `~/.local/share/rung` from `HOME`, else `%LOCALAPPDATA%\rung\data`;
 * undefined when the environment names none of them (then a team run keeps no outbox, and asks before
 * sending any workspace ledger).
 *
 * @remarks
 * The XDG Base Directory rule: a relative `XDG_DATA_HOME` is invalid and ignored. No fallback is made up,
 * as for the cache folder: a shared folder is where another user could plant an outbox.
 */
export function userDataFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'rung');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.local', 'share', 'rung');
  if (env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA)) return join(env.LOCALAPPDATA, 'rung', 'data');
  return undefined;
}
