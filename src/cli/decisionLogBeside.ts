/**
 * The decision log a CLI command opens beside its ledger: on the ledger's flush timer, its notices on
 * stderr, each failure said once.
 */
import type { Clock } from '../core/clock';
import { DecisionLog, decisionLogPath } from '../core/ledger/decisionLog';
import type { Ledger } from '../core/ledger/ledger';
import { WorkspaceLedger } from '../core/ledger/workspaceLedger';

/** The log beside `ledgerPath` and how to close it. */
export interface CliDecisionLog {
  log: DecisionLog;
  /**
   * Writes what is queued; throws if it cannot.
   *
   * @remarks
   * The failure it throws is the command's error, printed once; the log's own `save-failed` notice
   * ("will retry") would say it a second time, and wrongly, since nothing retries after close.
   */
  close(): Promise<void>;
}

/**
 * Opens the log beside `ledgerPath` for the command `name` (`rung replay`).
 *
 * @remarks
 * With the ledger's timer, the rows and the observations they explain land in the same wake-up, so a
 * run killed between them keeps both or neither of the last second's. Notices (a failed background
 * write, a lock taken over from a dead process) go to stderr as they happen.
 */
export function decisionLogBeside(ledgerPath: string, io: { clock: Clock; stderr: (text: string) => void }, name: string, ledger?: Ledger): CliDecisionLog {
  let closing = false;
  const log = new DecisionLog({
    path: decisionLogPath(ledgerPath),
    clock: io.clock,
    ...(ledger instanceof WorkspaceLedger ? { flushTimer: ledger.flushTimer } : {}),
    onNotice: (notice) => {
      if (closing && notice.kind === 'save-failed') return;
      io.stderr(`${name}: ${notice.message}\n`);
    },
  });
  return {
    log,
    close: async () => {
      closing = true;
      await log.close();
    },
  };
}
