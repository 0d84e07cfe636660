/**
 * Holds the one session every feature shares, opening it when first needed and again after a change
 * that the session cannot take in place (a new ledger path, a new key).
 *
 * @remarks
 * Activation must stay cheap (the model picker needs Rung active from startup), so the session — a
 * ledger file to read, providers to probe — is opened in the background or on a feature's first
 * call, never awaited in `activate()`. A session that cannot open (no panel yet) is asked for again
 * on the next call, so a user who adds a panel need not reload.
 */
import * as vscode from 'vscode';
import type { Session, SessionChange } from '../../core/session/types';
import type { RungLog } from '../log';
import { reopenedReason } from '../../core/verdict';

/** Rung has no panel and found no local model: said to the user as how to start, not as a failure. */
export class NotSetUpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSetUpError';
  }
}

export interface SessionHostOptions {
  open: () => Promise<Session>;
  log: RungLog;
}

export class SessionHost implements vscode.Disposable {
  private session: Session | undefined;
  private opening: Promise<Session> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly changes = new vscode.EventEmitter<SessionChange>();
  private readonly opened = new vscode.EventEmitter<Session | undefined>();
  /** The session's change events, across re-opens. */
  readonly onChange = this.changes.event;
  /** Fires when a session opens or closes. */
  readonly onDidOpen = this.opened.event;
  private lastProblem: string | undefined;
  private disposed = false;

  constructor(private readonly options: SessionHostOptions) {}

  /** The open session, or undefined while none is. */
  get current(): Session | undefined {
    return this.session;
  }

  /** Why the last open failed, while no session is open. */
  get problem(): string | undefined {
    return this.session ? undefined : this.lastProblem;
  }

  /** The session, opening it if needed. Rejects with the reason it cannot open (a NotSetUpError when there is no panel). */
  get(): Promise<Session> {
    if (this.disposed) return Promise.reject(new Error('Rung is shutting down'));
    if (this.session) return Promise.resolve(this.session);
    this.opening ??= this.options
      .open()
      .then((session) => {
        if (this.disposed) {
          void session.dispose();
          throw new Error('Rung is shutting down');
        }
        this.session = session;
        this.lastProblem = undefined;
        this.unsubscribe = session.onChange((change) => this.changes.fire(change));
        this.opened.fire(session);
        return session;
      })
      .catch((error: unknown) => {
        this.lastProblem = error instanceof Error ? error.message : String(error);
        this.opened.fire(undefined);
        throw error;
      })
      .finally(() => {
        this.opening = undefined;
      });
    return this.opening;
  }

  private reopening: Promise<void> | undefined;

  /**
   * Closes the session (flushing its ledger) and opens a fresh one. Reopens asked for while one is
   * under way share it: a key set in this window also fires the secret storage's change event.
   */
  reopen(reason: string): Promise<void> {
    this.reopening ??= (async () => {
      this.options.log.info(`reopening the session: ${reason}`);
      // A call under way is cut off by the reopening, not by a window closing: its row says which.
      await this.close(reopenedReason(reason));
      try {
        await this.get();
      } catch (error) {
        this.options.log.warn(`the session did not open: ${error instanceof Error ? error.message : String(error)}`);
      }
    })().finally(() => {
      this.reopening = undefined;
    });
    return this.reopening;
  }

  private async close(reason?: string): Promise<void> {
    const session = this.session ?? (await this.opening?.catch(() => undefined));
    this.session = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (session) {
      await session.dispose(reason);
      this.opened.fire(undefined);
    }
  }

  /** Flushes and releases the session; called from `deactivate`. */
  async shutdown(): Promise<void> {
    await this.close();
    this.disposed = true;
  }

  dispose(): void {
    void this.shutdown();
    this.changes.dispose();
    this.opened.dispose();
  }
}
