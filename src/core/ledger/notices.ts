/**
 * What the ledger and its decision log tell the user: one notice type for both, so the one channel a
 * front end wires (`onNotice`: the CLI's stderr, the extension's log) hears from each.
 */
import type { LockHolder, LockTakeover, LockWait, TakeoverReason } from '../files/fileLock';

/** Something the user should be told: the extension shows it, the CLI prints it to stderr. */
export interface LedgerNotice {
  kind:
    | 'moved-aside'
    | 'unreadable'
    | 'newer-schema'
    | 'migrated'
    | 'lock-waiting'
    | 'lock-taken-over'
    | 'save-failed'
    /** Rows of the file whose values Rung could not have written were left out (and, on a save, kept in a copy). */
    | 'skipped-rows';
  /** One sentence for a person, naming the files involved. */
  message: string;
  path: string;
  /** For `moved-aside`: where the old file now is; for `skipped-rows` on a save, where the file as it was is kept. */
  movedTo?: string;
  /** For `lock-waiting` and `lock-taken-over`: who held the lock, as its file said. */
  holder?: LockHolder;
  /** For `lock-taken-over`: why it was taken. */
  reason?: TakeoverReason;
}

/** Where notices go; the owner of a ledger or log passes one in. */
export type NoticeListener = (notice: LedgerNotice) => void;

/**
 * The lock callbacks that turn a takeover or a stalled wait into a notice.
 *
 * @remarks
 * `what` names the protected file for a person (`ledger`, `decision log`). A stale takeover keeps
 * the wording it had before the lock named its host.
 */
export function lockNotices(
  what: string,
  notify: NoticeListener,
): { onTakeover: (info: LockTakeover) => void; onWait: (info: LockWait) => void } {
  return {
    onTakeover: ({ path, reason, ...holder }) => {
      const message =
        reason === 'holder-dead'
          ? `took over the ${what} lock ${path} from ${holder.description}, which is no longer running (the lock was ${seconds(holder.ageMs)} s old)`
          : `took over a stale ${what} lock ${path} (held by ${holder.description}, ${seconds(holder.ageMs)} s old)`;
      notify({ kind: 'lock-taken-over', path, message, holder: plain(holder), reason });
    },
    onWait: ({ path, staleMs, ...holder }) => {
      notify({
        kind: 'lock-waiting',
        path,
        message: `waiting for the ${what} lock ${path}, held by ${holder.description} for ${seconds(holder.ageMs)} s; nothing is lost meanwhile, and the lock is taken over once it is ${seconds(staleMs)} s old`,
        holder: plain(holder),
      });
    },
  };
}

function plain(holder: LockHolder): LockHolder {
  return { pid: holder.pid, host: holder.host, ageMs: holder.ageMs, description: holder.description };
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
