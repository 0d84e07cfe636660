/**
 * The decision log a CLI command opens beside its ledger: on the ledger's flush timer, its notices on
 * stderr, each failure said once.
 */
import type { Clock } from '../core/clock';
import { DecisionLog, decisionLogPath } from '../core/ledger/decisionLog';

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
 * Opens the log beside `ledgerPath` for the command `name` (`rung ledger compact`), with no ledger open:
 * a command that learns opens a store, whose log rides on its ledger's timer (store/openStore.ts).
 *
 * @remarks
 * Notices (a failed background write, a lock taken over from a dead process) go to stderr as they happen.
 */
export function decisionLogBeside(ledgerPath: string, io: { clock: Clock; stderr: (text: string) => void }, name: string): CliDecisionLog {
  let closing = false;
  const log = new DecisionLog({
    path: decisionLogPath(ledgerPath),
    clock: io.clock,
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
