/**
 * What the user chose and what just happened: the pinned model, the model kept off the opener, and
 * the last routed call — shared by the status bar, the commands and the chat features.
 *
 * @remarks
 * The pin and the avoid live in the workspace's state, so a pin survives a reload of the window but
 * does not follow the user into another project with another panel. The last call is per window: it
 * is what "Rate Last Answer" and "Explain Last Decision" act on.
 */
import * as vscode from 'vscode';
import type { SessionChatResult } from '../core/session/types';

/** The last routed call, as the commands that act on it need it. */
export interface LastCall {
  callId: string;
  classKey: string;
  /** The model whose answer stood; undefined when none did. */
  model: string | undefined;
  cost: number;
  /** Where it came from (`@rung`, `Rung Auto`, `Edit Selection`, `Ask`), for messages. */
  origin: string;
}

const PINNED_KEY = 'rung.pinned';
const AVOIDED_KEY = 'rung.avoided';

export class RungState implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private last: LastCall | undefined;

  constructor(private readonly memento: vscode.Memento) {}

  get pinned(): string | undefined {
    return this.memento.get<string>(PINNED_KEY);
  }

  get avoided(): string | undefined {
    return this.memento.get<string>(AVOIDED_KEY);
  }

  /** Pins `slug` as the opener (undefined: back to Auto); a pin replaces any avoid of the same model. */
  async pin(slug: string | undefined): Promise<void> {
    await this.memento.update(PINNED_KEY, slug);
    if (slug !== undefined && this.avoided === slug) await this.memento.update(AVOIDED_KEY, undefined);
    this.changed.fire();
  }

  async avoid(slug: string | undefined): Promise<void> {
    await this.memento.update(AVOIDED_KEY, slug);
    if (slug !== undefined && this.pinned === slug) await this.memento.update(PINNED_KEY, undefined);
    this.changed.fire();
  }

  get lastCall(): LastCall | undefined {
    return this.last;
  }

  /** Records a finished call as the last one. */
  recordCall(result: SessionChatResult, origin: string): void {
    this.last = { callId: result.callId, classKey: result.classKey, model: result.answer?.model, cost: result.cost, origin };
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
