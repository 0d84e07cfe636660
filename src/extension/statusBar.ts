/**
 * The status bar item: Auto or the pinned model, the last answer's model and cost, today's spend; a
 * click opens the ledger. When no provider of the panel can take a call (no server, no key), it says
 * so, and its tooltip gives each provider's reason.
 *
 * @remarks
 * A warning the session raised (a damaged ledger moved aside, a decision log that cannot be written)
 * marks the item until the user opens the log, and a click on the marked item opens the log: a
 * warning raised while the window opens can land in the notification centre without a toast.
 *
 * Today's spend is the session's figure (its spend view over the decision log), read again when the
 * session says the ledger or the log changed, never summed here: two windows and the CLI share one
 * ledger, and only the session sees all of their calls.
 */
import * as vscode from 'vscode';
import { providerStatus } from '../protocol/ledgerProtocol';
import { statusText, statusTooltip, type StatusView } from './describe';
import type { RungLog } from './log';
import type { SessionHost } from './session/sessionHost';
import type { RungSettings } from './settings/settings';
import type { RungState } from './state';

export interface StatusBarDeps {
  sessions: SessionHost;
  settings: RungSettings;
  state: RungState;
  log: RungLog;
  /** The command a click runs: the ledger panel's, once it is registered. */
  openLedgerCommand: string;
}

export function registerStatusBar(context: vscode.ExtensionContext, deps: StatusBarDeps): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('rung.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Rung';
  let warning: string | undefined;
  const update = (): void => {
    const session = deps.sessions.current;
    let today: number | undefined;
    let unreachable: string[] | undefined;
    if (session) {
      try {
        const snapshot = session.snapshot({ limit: 0 });
        today = snapshot.spend.today;
        // Only when no provider can take a call: one of several down is the router's to route around.
        if (snapshot.providers.length > 0 && snapshot.providers.every((provider) => !provider.healthy)) {
          unreachable = snapshot.providers.map(providerStatus);
        }
      } catch (error) {
        deps.log.warn(`status bar: the session could not be read: ${String(error)}`);
      }
    }
    const last = deps.state.lastCall;
    const view: StatusView = {
      pinned: deps.state.pinned,
      last: last?.model ? { model: last.model, cost: last.cost } : undefined,
      today,
      problem: session ? undefined : deps.sessions.problem,
      warning,
      unreachable,
    };
    item.command = warning ? 'rung.showLog' : deps.openLedgerCommand;
    item.text = statusText(view);
    item.tooltip = statusTooltip({ ...view, budget: deps.settings.dailyBudget });
    item.show();
  };
  context.subscriptions.push(
    item,
    deps.state.onDidChange(update),
    deps.sessions.onDidOpen(update),
    deps.sessions.onChange((change) => {
      if (change.type === 'notice' && change.level !== 'info') warning = deps.log.redactor.redact(change.message);
      if (change.type === 'ledger-changed' || change.type === 'decision-written' || change.type === 'notice' || change.type === 'provider-health') update();
    }),
    deps.log.onDidShow(() => {
      warning = undefined;
      update();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('rung.dailyBudget')) update();
    }),
  );
  update();
  return item;
}
