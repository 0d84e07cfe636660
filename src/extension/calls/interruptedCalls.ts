/**
 * Calls that Rung's shutdown cut off (the window closed or reloaded mid-answer), named once in the
 * Chat view of a later window.
 *
 * @remarks
 * The Chat view keeps such an answer as it was when the extension host went: cut off, with thumbs,
 * and no mark. VS Code gives an extension no way to change a response once its request has ended, and
 * a host that is shutting down has no window left to write into, so the one place left to say it is
 * the next answer. The decision log already holds the truth (an `interrupted` row); what is kept here
 * is only how far the naming has gone, in the workspace's state, so a second window or the next
 * reload does not say it again. No vscode here: the chat participant hands over rows and a store.
 */
import type { DecisionRow } from '../../core/decisions/decision';
import { INTERRUPTED_REASON } from '../../core/verdict';

/** Where the newest named interruption is remembered: the workspace's state (a `vscode.Memento`). */
export interface NoteStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

/** The workspace-state key holding the `at` of the newest interrupted row already named. */
const NAMED_UNTIL_KEY = 'rung.interruptedNamedUntil';

export class InterruptedCalls {
  constructor(private readonly notes: NoteStore) {}

  /**
   * One sentence naming the newest interrupted call not yet named (and how many older ones were
   * interrupted too), or undefined; what it names is remembered as said.
   */
  async unnamed(rows: readonly DecisionRow[]): Promise<string | undefined> {
    const namedUntil = this.notes.get<number>(NAMED_UNTIL_KEY) ?? Number.NEGATIVE_INFINITY;
    // Only calls a closed window cut off: one a reopened session cut off was cut off in this window, before the user's eyes.
    const fresh = rows
      .filter((row) => row.verdict === 'interrupted' && row.verdictReason === INTERRUPTED_REASON && row.at > namedUntil)
      .sort((a, b) => b.at - a.at);
    const newest = fresh[0];
    if (!newest) return undefined;
    await this.notes.update(NAMED_UNTIL_KEY, newest.at);
    const others = new Set(fresh.map((row) => row.call));
    others.delete(newest.call);
    const classKey = newest.shape ? `${newest.class}/${newest.shape}` : newest.class;
    const time = new Date(newest.at).toISOString().slice(11, 16);
    const more = others.size === 0 ? '' : ` ${others.size} earlier call${others.size === 1 ? ' was' : 's were'} interrupted too.`;
    return `Your ${classKey} call of ${time} UTC was interrupted: the window closed or reloaded while ${newest.model} was answering, so that answer is cut off. It does not count for or against any model; ask again for a whole answer.${more}`;
  }
}
