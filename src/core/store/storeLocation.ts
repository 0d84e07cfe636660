/**
 * Where a front end's ratings and decision rows are kept: in memory, in a workspace file, or on a team's
 * server with a workspace file to fall back on.
 *
 * @remarks
 * One value, read once from the `--ledger` flag or the editor's settings, and handed to `openStore`. It
 * replaced a string that meant two things ("what to open" and "the folder the decision log goes in")
 * and was tested for `postgres://` again in every command that took it: sixteen such tests across five
 * commands and the editor, each free to read a URL its own way. A team location names its workspace
 * file because that file is the fallback when the server cannot be used and the folder where this
 * workspace's decision rows and outbox stay whatever the server says: decision rows hold the
 * prompts' classes and reasons, and leave the workspace only when the member opts in.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_LEDGER_PATH } from '../ledger/workspaceLedger';
import { isTeamLedgerUrl, readTeamUrl, redactedUrl } from '../ledger/teamUrl';

export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | {
      kind: 'team';
      url: string;
      /** The workspace file: learned into when the server cannot be used, and the folder of the decision log and the outbox. */
      fallbackPath: string;
    };

/** A `--ledger` value or a setting that names no place Rung can keep a ledger; its message says what to write instead. */
export class StoreLocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreLocationError';
  }
}

export interface StoreLocationInput {
  /** The flag's or the setting's text; absent or blank: {@link StoreLocationInput.whenAbsent}. */
  value: string | undefined;
  /** What a relative file path is read from, and where a team's workspace file goes. */
  cwd: string;
  /** The workspace file of a team location; `DEFAULT_LEDGER_PATH` under `cwd` unless given. */
  workspaceFile?: string;
  /** Nothing named: memory (`rung chat`, `rung replay`), or the workspace file (`rung ledger`). */
  whenAbsent: 'memory' | 'workspace';
  /** The flag or setting, for messages: `--ledger`, `rung.teamLedger.url`. */
  name: string;
}

/**
 * Reads where to keep the ledger from a flag or a setting; throws a {@link StoreLocationError} naming
 * the flag and what to write for a value that names no place.
 *
 * @remarks
 * A `postgres://` or `postgresql://` URL is a team's server and must be one `pg` can read (the same
 * parser the connection uses, so "cannot be read" here means the connection would fail the same way);
 * anything else is a file, relative to `cwd`. A value of spaces is a mistake, not "no ledger": it
 * opened a file named by the spaces.
 */
export function parseStoreLocation(input: StoreLocationInput): StoreLocation {
  const workspaceFile = input.workspaceFile ?? join(input.cwd, DEFAULT_LEDGER_PATH);
  if (input.value === undefined) return input.whenAbsent === 'memory' ? { kind: 'memory' } : { kind: 'file', path: workspaceFile };
  const value = input.value.trim();
  if (value === '')
    throw new StoreLocationError(
      `${input.name} needs a ledger file or a postgres://user@host:port/database URL, not an empty value; leave it out for ${input.whenAbsent === 'memory' ? 'a ledger in memory' : workspaceFile}`,
    );
  if (isTeamLedgerUrl(value)) {
    if (readTeamUrl(value) === undefined)
      throw new StoreLocationError(
        `${input.name} is a postgres URL that cannot be read (not shown: it may hold a password); write it as postgres://user@host:port/database`,
      );
    return { kind: 'team', url: value, fallbackPath: workspaceFile };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new StoreLocationError(
      `${input.name} ${JSON.stringify(value)}: only a postgres:// URL names a team's server; give a ledger file, or postgres://user@host:port/database`,
    );
  // A file's name is taken as written: only the emptiness and the scheme are read without the spaces.
  return { kind: 'file', path: isAbsolute(input.value) ? input.value : resolve(input.cwd, input.value) };
}

/** The workspace file the decision log sits beside (the team's fallback for a team), or null in memory. */
export function workspaceFileOf(location: StoreLocation): string | null {
  switch (location.kind) {
    case 'memory':
      return null;
    case 'file':
      return location.path;
    case 'team':
      return location.fallbackPath;
  }
}

/** The location in words for a message: the file, the server (password taken out), or `memory`. */
export function describeLocation(location: StoreLocation): string {
  switch (location.kind) {
    case 'memory':
      return 'memory';
    case 'file':
      return location.path;
    case 'team':
      return `${redactedUrl(location.url)} (team; decisions in ${location.fallbackPath})`;
  }
}
