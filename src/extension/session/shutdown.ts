/**
 * Saves the session's ledger and decision log when the extension host stops, within the time VS Code
 * gives it, and says in Rung's log how that went.
 *
 * @remarks
 * VS Code ends an extension host 5 s after it asks it to stop (Reload Window, an update, closing the
 * window), whether or not `deactivate` has finished. A save still running then is cut off without a
 * word; bounding the wait below that and writing one line either way leaves a trace of which it was.
 * Kept free of `vscode` so the rule can be tested without an editor.
 */
import type { Clock } from '../../core/clock';
import type { Scheduler } from '../../core/files/flushTimer';

/**
 * How long `deactivate` waits for the ledger and the decision log, ms.
 *
 * @remarks
 * VS Code's extension host exits 5 s after it starts deactivating extensions; 4 s leaves a second for
 * the line saying what happened to reach the log file, and for other extensions' own deactivation.
 */
export const DEACTIVATE_BUDGET_MS = 4_000;

/** Where the outcome is said; Rung's log fits. */
export interface ShutdownLog {
  info(text: string): void;
  warn(text: string): void;
  error(text: string, error?: unknown): void;
}

export interface ShutdownOptions {
  /** Stops the calls under way and saves the ledger and the decision log. */
  stop: () => Promise<void>;
  log: ShutdownLog;
  clock: Clock;
  /** The timer for the budget; a parameter so a test can end the budget itself. */
  schedule: Scheduler;
  budgetMs?: number;
}

export type ShutdownOutcome = 'saved' | 'out-of-time' | 'failed';

/** Runs `stop` for at most the budget; resolves (never rejects) with how it ended, once that is logged. */
export async function shutdownWithinBudget(options: ShutdownOptions): Promise<ShutdownOutcome> {
  const budgetMs = options.budgetMs ?? DEACTIVATE_BUDGET_MS;
  const started = options.clock.now();
  let cancel: (() => void) | undefined;
  const outOfTime = new Promise<'out-of-time'>((resolve) => (cancel = options.schedule(() => resolve('out-of-time'), budgetMs)));
  const stopped = options.stop().then(
    (): 'saved' => 'saved',
    (error: unknown): 'failed' => {
      options.log.error('stopping: the ledger or the decision log could not be saved', error);
      return 'failed';
    },
  );
  const outcome = await Promise.race([stopped, outOfTime]);
  cancel?.();
  const elapsed = options.clock.now() - started;
  if (outcome === 'saved') options.log.info(`stopping: saved the ledger and the decision log in ${elapsed} ms`);
  else if (outcome === 'out-of-time') {
    options.log.warn(
      `stopping: the ledger and the decision log were still saving after ${budgetMs} ms; VS Code ends the extension host at 5 s, so what they had not written is lost`,
    );
  }
  return outcome;
}
