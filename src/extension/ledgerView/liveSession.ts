/**
 * A `Session` that is always the host's current one: for features that take a session when they
 * register (the ledger view) while Rung's session opens after activation and reopens after a key or
 * ledger change.
 *
 * @remarks
 * Change listeners are kept across reopens, so a ledger view subscribed at startup still hears about the
 * calls of a session opened later. A synchronous method called while no session is open throws an
 * error saying why (no panel yet, still opening), which the caller shows.
 */
import type { Panel } from '../../core/panel';
import type { Session, SessionChange, SessionChatRequest, SessionChatResult, SessionEvent, VerdictWithReason } from '../../core/session/types';
import type { SessionHost } from '../session/sessionHost';

export class LiveSession implements Session {
  constructor(private readonly host: SessionHost) {}

  private get open(): Session {
    const session = this.host.current;
    if (!session) throw new Error(`Rung's session is not open${this.host.problem ? `: ${this.host.problem}` : ' yet'}`);
    return session;
  }

  async chat(request: SessionChatRequest, onEvent?: (event: SessionEvent) => void): Promise<SessionChatResult> {
    return (await this.host.get()).chat(request, onEvent);
  }

  rank(request: Parameters<Session['rank']>[0]): ReturnType<Session['rank']> {
    return this.open.rank(request);
  }

  async checkProviders(signal?: AbortSignal): Promise<void> {
    await this.host.current?.checkProviders(signal);
  }

  settle(callId: string, verdict: VerdictWithReason): boolean {
    return this.open.settle(callId, verdict);
  }

  snapshot(options?: Parameters<Session['snapshot']>[0]): ReturnType<Session['snapshot']> {
    return this.open.snapshot(options);
  }

  placeOf(...args: Parameters<Session['placeOf']>): ReturnType<Session['placeOf']> {
    return this.open.placeOf(...args);
  }

  explain(callId: string): ReturnType<Session['explain']> {
    return this.open.explain(callId);
  }

  async resetClass(classKey: string): Promise<void> {
    await (await this.host.get()).resetClass(classKey);
  }

  async resetLedger(): Promise<void> {
    await (await this.host.get()).resetLedger();
  }

  async exportLedger(): Promise<string> {
    return (await this.host.get()).exportLedger();
  }

  async estimateOpeners(): ReturnType<Session['estimateOpeners']> {
    return (await this.host.get()).estimateOpeners();
  }

  async setPanel(panel: Panel): Promise<void> {
    await (await this.host.get()).setPanel(panel);
  }

  onChange(listener: (change: SessionChange) => void): () => void {
    const subscription = this.host.onChange(listener);
    return () => subscription.dispose();
  }

  /** The host owns the session's life; a feature letting go of its view must not close it for the others. */
  async dispose(): Promise<void> {}
}
