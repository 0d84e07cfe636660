/**
 * The ledger view's page: parses what the host sends, keeps the state, renders it, and sends the
 * user's actions back.
 *
 * @remarks
 * It imports only the protocol and its own modules (an architecture test holds it to that), so the
 * page can never reach the core's rules directly: every number it shows came through a parsed message.
 */
import {
  type DecisionFilterWire,
  type HostMessage,
  type ViewMessage,
  type ViewState,
  WIRE_TEXT_CHARS,
  messageType,
  parseHostMessage,
  parseViewState,
} from '../src/protocol/ledgerProtocol';
import { type LedgerState, askForOpeners, emptyState, reduce, rejectMessage, sameFilter } from './ledgerModel';
import { type RenderMemory, type ViewHandlers, renderApp } from './render';

/** What `acquireVsCodeApi()` gives a webview; declared here because no typings ship for it. */
interface VsCodeApi {
  postMessage(message: ViewMessage): void;
  getState(): unknown;
  setState(state: ViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('app') as HTMLElement;
let view: ViewState = parseViewState(vscode.getState());
let state: LedgerState = emptyState(view.filter, view.offset);
const memory: RenderMemory = { open: new Map(), openByDefault: 5 };

function send(message: ViewMessage): void {
  vscode.postMessage(message);
}

function remember(next: ViewState): void {
  view = next;
  vscode.setState(view);
}

const handlers: ViewHandlers = {
  filter(filter: DecisionFilterWire) {
    remember({ ...view, filter, offset: 0 });
    send({ type: 'page', filter, offset: 0, limit: view.limit });
  },
  page(offset: number, before?: number) {
    remember({ ...view, offset });
    send({ type: 'page', filter: view.filter, offset, limit: view.limit, ...(before !== undefined ? { before } : {}) });
  },
  pin: (model) => send({ type: 'pin', model }),
  avoid: (model) => send({ type: 'avoid', model }),
  resetClass: (classKey) => send({ type: 'reset-class', classKey }),
  exportLedger: () => send({ type: 'export' }),
  estimateOpeners() {
    state = askForOpeners(state);
    render();
    send({ type: 'estimate-openers' });
  },
};

/** Re-renders, keeping keyboard focus on the control that had it (by id or label) across the rebuild. */
function render(): void {
  const active = document.activeElement as HTMLElement | null;
  const key = active && active !== document.body ? active.id || active.getAttribute('aria-label') : null;
  renderApp(root, state, handlers, memory);
  if (key) {
    const again =
      document.getElementById(key) ??
      Array.from(root.querySelectorAll<HTMLElement>('[aria-label]')).find((element) => element.getAttribute('aria-label') === key);
    again?.focus();
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    // Dropped, not acted on, and said where the user looks: on the page, and through the host in the
    // Rung log (the webview's console is out of sight).
    console.warn(`rung ledger: ${parsed.error}`);
    state = rejectMessage(state, parsed.error);
    render();
    send({ type: 'rejected', message: messageType(event.data), error: parsed.error.slice(0, WIRE_TEXT_CHARS) });
    return;
  }
  const message: HostMessage = parsed.message;
  const wasStale = state.stale;
  state = reduce(state, message, view.limit);
  if (message.type === 'page' || message.type === 'snapshot')
    remember({ ...view, filter: message.decisions.filter, offset: message.decisions.offset });
  // Rows that came in above the page moved it down; a reload must come back to the same rows.
  else if (state.page.offset !== view.offset && sameFilter(state.page.filter, view.filter))
    remember({ ...view, offset: state.page.offset });
  if (state.stale && !wasStale) send({ type: 'page', filter: state.page.filter, offset: state.page.offset, limit: view.limit });
  render();
});

render();
send({ type: 'ready', filter: view.filter, offset: view.offset, limit: view.limit });
