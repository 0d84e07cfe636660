/**
 * Which workspace ledger files this machine made, and which of the others its user chose to send to a
 * team or not: kept in the user's own storage, where a folder cannot plant a record.
 *
 * @remarks
 * A team store sends the workspace file's evidence to the team when it opens (what sessions that fell
 * back learned offline). Sent whatever its origin, a cloned folder's own `.rung/ledger.sqlite` went to
 * the team under the member who opened it: the team then rated `openai/gpt-4o` 0.002 and a planted model
 * 0.998, each "graded 2,000,000,000". A file is sent unasked only when this machine made it: a new
 * ledger records its id here when its first save lands; anything else is the user's to decide.
 *
 * A record names the file's place and its ledger id together (hashed, so the folder holds no paths):
 * another file claiming a recorded id elsewhere is not taken for it. An id is random and never leaves
 * the machine but with the evidence, so a folder cannot know one to claim. One small file a record,
 * written whole and renamed into place, so two windows recording at once never lose each other's.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../files/atomicWrite';
import { ensureFolder, readFileIfExists } from '../files/safeFiles';

/** What is known of a workspace ledger file here: made on this machine, sent or declined by its user, or nothing. */
export type Provenance = 'made-here' | 'send' | 'never' | 'unknown';

const RECORDED: readonly Provenance[] = ['made-here', 'send', 'never'];

/** The folder under the user's storage that holds the records. */
export const PROVENANCE_FOLDER = 'workspace-ledgers';

export class LedgerProvenance {
  private readonly folder: string;

  /** `userFolder`: the user's own storage (the extension's global storage, the CLI's data folder). */
  constructor(userFolder: string) {
    this.folder = join(userFolder, PROVENANCE_FOLDER);
  }

  /** What is recorded for the ledger `ledgerId` at `path`; `unknown` when nothing is, or the record cannot be read. */
  of(path: string, ledgerId: string): Provenance {
    let text: string | undefined;
    try {
      text = readFileIfExists(this.recordPath(path, ledgerId), { maxBytes: 64 })?.toString('utf8').trim();
    } catch {
      return 'unknown';
    }
    return RECORDED.find((kind) => kind === text) ?? 'unknown';
  }

  /** Records what is known of the ledger at `path`; a file made here stays made here whatever is recorded after. */
  record(path: string, ledgerId: string, provenance: Exclude<Provenance, 'unknown'>): void {
    if (!ledgerId || this.of(path, ledgerId) === 'made-here') return;
    ensureFolder(this.folder);
    writeFileAtomic(this.recordPath(path, ledgerId), Buffer.from(`${provenance}\n`, 'utf8'));
  }

  private recordPath(path: string, ledgerId: string): string {
    const key = createHash('sha256')
      .update(`${resolve(path)}\u0000${ledgerId}`)
      .digest('hex')
      .slice(0, 32);
    return join(this.folder, key);
  }
}
