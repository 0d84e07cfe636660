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
 * A provider down while others answer is named on the item ("acme down"), since the probes and the
 * calls that found it down know before the user asks. Past the daily budget the item says so, and a
 * notification says it once a UTC day with a "Raise Budget" button that opens the setting.
 *
 * Today's spend is the session's figure (its spend view over the decision log), read again when the
 * session says the ledger or the log changed, never summed here: two windows and the CLI share one
 * ledger, and only the session sees all of their calls.
 */
import * as vscode from 'vscode';
import { providerStatus } from '../protocol/ledgerProtocol';
import { isProviderDown } from '../protocol/reasonText';
import { utcDay } from '../core/store/spendTally';
import { providerDownText } from './calls/plainErrors';
import { budgetNoticeDue, formatUsd, statusText, statusTooltip, type StatusView } from './describe';
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

/** Where the UTC day the budget notification was last shown is kept, so it shows once a day across windows. */
const BUDGET_WARNED_KEY = 'rung.budgetWarnedDay';

/** The once-a-day notification that today's budget is spent, with the way to raise it. */
async function warnBudget(spent: number, budget: number): Promise<void> {
  const raise = 'Raise Budget';
  const chosen = await vscode.window.showWarningMessage(
    `Rung: today's budget of ${formatUsd(budget)} is spent (${formatUsd(spent)} so far). Paid models are off until tomorrow (UTC); local models still answer.`,
    raise,
  );
  if (chosen === raise) await vscode.commands.executeCommand('workbench.action.openSettings', 'rung.dailyBudget');
}

export function registerStatusBar(context: vscode.ExtensionContext, deps: StatusBarDeps): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('rung.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Rung';
  let warning: string | undefined;
  const update = (): void => {
    const session = deps.sessions.current;
    let today: number | undefined;
    let unreachable: string[] | undefined;
    let down: StatusView['down'];
    if (session) {
      try {
        const snapshot = session.snapshot({ limit: 0 });
        today = snapshot.spend.today;
        // Only when no provider can take a call: one of several down is the router's to route around.
        if (snapshot.providers.length > 0 && snapshot.providers.every((provider) => !provider.healthy)) {
          unreachable = snapshot.providers.map(providerStatus);
        } else {
          down = snapshot.providers
            .filter((provider) => !provider.healthy && isProviderDown(provider.reason ?? ''))
            .map((provider) => ({ provider: provider.name, text: providerDownText(provider.name, provider.reason ?? 'no reason given') }));
        }
      } catch (error) {
        deps.log.warn(`status bar: the session could not be read: ${String(error)}`);
      }
    }
    const last = deps.state.lastCall;
    const budget = deps.settings.dailyBudget;
    const overBudget = budget !== null && today !== undefined && today >= budget ? { spent: today, budget } : undefined;
    const day = utcDay(Date.now());
    if (budgetNoticeDue(today, budget, day, context.globalState.get<string>(BUDGET_WARNED_KEY))) {
      void context.globalState.update(BUDGET_WARNED_KEY, day);
      void warnBudget(today ?? 0, budget ?? 0);
    }
    const view: StatusView = {
      pinned: deps.state.pinned,
      last: last?.model ? { model: last.model, cost: last.cost } : undefined,
      today,
      problem: session ? undefined : deps.sessions.problem,
      warning,
      unreachable,
      down,
      overBudget,
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
      if (
        change.type === 'ledger-changed' ||
        change.type === 'decision-written' ||
        change.type === 'notice' ||
        change.type === 'provider-health'
      )
        update();
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
