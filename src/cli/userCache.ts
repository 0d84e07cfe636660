/**
 * The folder `rung` keeps its caches in: the user's own cache folder, never the working folder.
 *
 * @remarks
 * The provider catalogs, which price the models the price cap judges, were cached in the working
 * folder's `.rung/`, and a cloned folder brings its own `.rung/`: a `catalog-openrouter.json` dated 2100
 * priced `openai/o1-pro` at $0, so it passed the user's cap and answered on the user's key, even with
 * the user's own `--panel`. The cache is the user's, as the editor's is (its global storage).
 */
import { isAbsolute, join } from 'node:path';

/**
 * `$XDG_CACHE_HOME/rung`, else `~/.cache/rung` from `HOME`, else `%LOCALAPPDATA%\rung\cache`; undefined
 * when the environment names none of them (then nothing is cached).
 *
 * @remarks
 * The XDG Base Directory rule: a relative `XDG_CACHE_HOME` is invalid and ignored. No fallback is made
 * up: a shared folder such as the system's temporary one is where another user could plant the cache,
 * and the user's home read from elsewhere than the environment is one a test could not keep apart.
 */
export function userCacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'rung');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.cache', 'rung');
  if (env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA)) return join(env.LOCALAPPDATA, 'rung', 'cache');
  return undefined;
}
