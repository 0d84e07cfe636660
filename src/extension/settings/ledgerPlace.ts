/**
 * Where the extension keeps the ledger (and the decision log and team outbox beside it): a rule with no
 * `vscode` in it, so it is unit-tested.
 *
 * @remarks
 * A trusted workspace keeps its ledger in its own `.rung/`, where the user and their team can see it.
 * A workspace the user has not trusted is a folder someone else prepared: its `.rung/` could hold a
 * crafted ledger or links to the user's files, and what Rung learns there would be written into it.
 * So an untrusted workspace's ledger lives in the extension's storage for that workspace instead, and
 * what was learned there stays there when the workspace is trusted later (the session then opens the
 * workspace's own). The workspace's own `rung.ledgerPath` is never read untrusted (the setting is
 * restricted); a user setting that is relative is taken in the storage then, not in the folder.
 */
import { isAbsolute, join } from 'node:path';

/** The ledger's file name wherever it lives. */
export const LEDGER_FILE = 'ledger.sqlite';

export interface LedgerPlace {
  /** `rung.ledgerPath` as read (the user's only, when the workspace is untrusted); empty for none. */
  setting: string | null | undefined;
  /** The first workspace folder on disk; undefined with none open. */
  folder: string | undefined;
  trusted: boolean;
  /** The extension's storage for this workspace (`ExtensionContext.storageUri`); undefined with no workspace. */
  workspaceStorage: string | undefined;
  /** The extension's global storage (`ExtensionContext.globalStorageUri`). */
  globalStorage: string;
}

/** The ledger file's absolute path; see the module's remarks. */
export function ledgerPathFor(place: LedgerPlace): string {
  const setting = place.setting?.trim();
  if (setting && isAbsolute(setting)) return setting;
  // Where a relative setting, or none, is taken from: the workspace only when it is trusted.
  const folder = place.folder !== undefined && place.trusted ? place.folder : undefined;
  const storage = place.workspaceStorage ?? place.globalStorage;
  if (setting) return join(folder ?? storage, setting);
  return folder !== undefined ? join(folder, '.rung', LEDGER_FILE) : join(storage, LEDGER_FILE);
}

/**
 * What a workspace of several folders is told once: the first folder's `.rung/` serves them all.
 *
 * @remarks
 * Rung keeps one panel and one ledger a window. In a workspace of several folders it used the first
 * folder's `.rung/` without a word, so a user working in the second folder, with a panel of its own
 * there, was routed by the first folder's panel and saw no sign of it. Undefined for one folder or none.
 */
export function severalFoldersNote(folders: readonly { name: string }[]): string | undefined {
  const first = folders[0];
  if (!first || folders.length < 2) return undefined;
  const others = folders.slice(1).map((folder) => folder.name);
  const named = others.length === 1 ? others[0] : `${others.slice(0, -1).join(', ')} and ${others.at(-1)}`;
  return `this workspace has ${folders.length} folders, and Rung keeps one panel and one ledger for all of them: the first folder's, in ${first.name}/.rung/. Requests from ${named} are routed by that panel and recorded in that ledger; a panel file in ${others.length === 1 ? 'it' : 'them'} is not read.`;
}
