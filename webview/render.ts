/**
 * Turns the ledger state into elements.
 *
 * @remarks
 * Every string from the ledger (a model slug, a verifier's reason) goes in as text, never as markup:
 * reasons quote model output and file names. Elements are built with `createElement`, which is also
 * what the CSP expects (no inline styles; colours come from classes in `media/ledger.css`).
 */
import { type DecisionFilterWire, providerStatus, VERDICT_NAMES } from '../src/protocol/ledgerProtocol';
import { formatUsd } from '../src/protocol/formatUsd';
import { openerChoiceText, plainReason } from '../src/protocol/reasonText';
import {
  type LedgerState,
  type RatingClassView,
  type RoutedCallView,
  type SpendChart,
  SPEND_SERIES,
  filterOptions,
  formatMs,
  formatPercent,
  groupCalls,
  nameBreakPieces,
  openerSentence,
  prunedText,
  ratingClasses,
  spendChart,
  spendChartNote,
  spendTotalsText,
  strongestEstimateText,
} from './ledgerModel';

/** What the page asks for when the user acts; main.ts turns these into protocol messages. */
export interface ViewHandlers {
  filter(filter: DecisionFilterWire): void;
  /** A page from `offset`, or with `before` the page that ends just before that row. */
  page(offset: number, before?: number): void;
  pin(model: string): void;
  avoid(model: string): void;
  resetClass(classKey: string): void;
  exportLedger(): void;
  /** Asks what always opening with each panel model would have done on the logged calls. */
  estimateOpeners(): void;
}

/** What the page remembers between renders that the host does not send: which calls are open. */
export interface RenderMemory {
  open: Map<string, boolean>;
  /** Calls open by default: the newest few, so a reader sees ladders without clicking. */
  openByDefault: number;
}

type Child = Node | string | null | undefined | false;

/** A small element builder; attributes are set with setAttribute, text as text nodes. */
export function h(tag: string, attributes: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, value);
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

function svg(tag: string, attributes: Record<string, string>, ...children: Child[]): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
  return element;
}

function icon(name: string): HTMLElement {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

function button(label: string, iconName: string, ariaLabel: string, onClick: () => void, extraClass = ''): HTMLElement {
  const element = h(
    'button',
    { type: 'button', class: `action ${extraClass}`.trim(), 'aria-label': ariaLabel, title: ariaLabel },
    icon(iconName),
    label ? h('span', {}, label) : null,
  );
  element.addEventListener('click', onClick);
  return element;
}

const VERDICT_ICONS: Record<string, string> = {
  pass: 'pass',
  fail: 'error',
  unverified: 'circle-large-outline',
  'provider-error': 'warning',
  stopped: 'debug-stop',
  interrupted: 'debug-disconnect',
  refused: 'circle-slash',
};

function verdictBadge(verdict: string, label = verdict): HTMLElement {
  return h('span', { class: `verdict verdict-${verdict}` }, icon(VERDICT_ICONS[verdict] ?? 'question'), h('span', {}, label));
}

/** The whole page. */
export function renderApp(root: HTMLElement, state: LedgerState, handlers: ViewHandlers, memory: RenderMemory): void {
  if (!state.loaded) {
    // Before the first snapshot the only thing to show is why it has not come (the session is not open).
    root.replaceChildren(
      state.notice
        ? h('p', { class: `notice notice-${state.notice.level}`, role: 'alert' }, state.notice.message)
        : h('p', { class: 'loading' }, 'Loading the ledger…'),
    );
    return;
  }
  root.removeAttribute('aria-busy');
  const main = h(
    'div',
    { class: 'layout' },
    renderHeader(state, handlers),
    renderDecisions(state, handlers, memory),
    h('div', { class: 'side' }, renderRatings(state, handlers), renderWhatIf(state, handlers), renderSpend(state)),
  );
  root.replaceChildren(main);
}

function renderHeader(state: LedgerState, handlers: ViewHandlers): HTMLElement {
  const providers = h(
    'ul',
    { class: 'providers', 'aria-label': 'Providers' },
    ...state.providers.map((provider) =>
      h(
        'li',
        { class: provider.healthy ? 'healthy' : 'unhealthy', title: provider.reason ?? (provider.healthy ? 'available' : 'unavailable') },
        icon(provider.healthy ? 'pass-filled' : 'error'),
        providerStatus(provider),
      ),
    ),
  );
  const notice = state.notice
    ? h(
        'p',
        { class: `notice notice-${state.notice.level}`, role: state.notice.level === 'error' ? 'alert' : 'status' },
        state.notice.message,
      )
    : null;
  return h(
    'header',
    { class: 'header' },
    h('h1', {}, icon('list-ordered'), 'Rung Ledger'),
    h('p', { class: 'ledger-path' }, state.ledgerPath ? `Ledger: ${state.ledgerPath}` : 'Ledger: in memory (not saved)'),
    providers,
    button('Export', 'export', 'Export the ledger as JSON lines', () => handlers.exportLedger()),
    notice,
  );
}

function select(
  label: string,
  id: string,
  value: string | undefined,
  options: readonly string[],
  onChange: (value: string | undefined) => void,
): HTMLElement {
  const control = h(
    'select',
    { id },
    h('option', { value: '' }, 'all'),
    ...options.map((option) => h('option', { value: option }, option)),
  ) as HTMLSelectElement;
  control.value = value ?? '';
  control.addEventListener('change', () => onChange(control.value === '' ? undefined : control.value));
  return h('span', { class: 'filter' }, h('label', { for: id }, label), control);
}

function renderDecisions(state: LedgerState, handlers: ViewHandlers, memory: RenderMemory): HTMLElement {
  const { page } = state;
  const options = filterOptions(state);
  const filter = page.filter;
  const setFilter = (change: Partial<DecisionFilterWire>) => {
    const next: DecisionFilterWire = { ...filter, ...change };
    for (const key of Object.keys(next) as (keyof DecisionFilterWire)[]) if (next[key] === undefined) delete next[key];
    handlers.filter(next);
  };
  const filters = h(
    'div',
    { class: 'filters', role: 'group', 'aria-label': 'Filter decisions' },
    select('Class', 'filter-class', filter.classKey, options.classes, (value) => setFilter({ classKey: value })),
    select('Model', 'filter-model', filter.model, options.models, (value) => setFilter({ model: value })),
    select('Verdict', 'filter-verdict', filter.verdict, VERDICT_NAMES, (value) =>
      setFilter({ verdict: value as DecisionFilterWire['verdict'] }),
    ),
  );
  const shown = page.rows.length;
  const first = shown > 0 ? page.offset + 1 : 0;
  const summary = h(
    'p',
    { class: 'page-summary', id: 'page-summary' },
    `Rows ${first.toLocaleString('en')}–${(page.offset + shown).toLocaleString('en')} of ${page.total.toLocaleString('en')}, newest first`,
  );
  const limit = Math.max(shown, 1);
  // The page that ends where this one starts: stepped back by a page's rows, it could start inside a call, end early and skip the rows between.
  const newer = button('Newer', 'chevron-left', 'Show newer decisions', () => handlers.page(Math.max(0, page.offset - limit), page.offset));
  const older = button('Older', 'chevron-right', 'Show older decisions', () => handlers.page(page.offset + limit));
  if (page.offset === 0) newer.setAttribute('disabled', '');
  if (page.offset + shown >= page.total) older.setAttribute('disabled', '');
  const waiting =
    state.newerRows > 0
      ? button(
          `${state.newerRows} newer`,
          'arrow-up',
          `${state.newerRows} newer decisions; go to the newest`,
          () => handlers.page(0),
          'newer-waiting',
        )
      : null;
  const calls = groupCalls(page.rows, state.models, state.ratings);
  const list = h(
    'ol',
    { class: 'calls', 'aria-describedby': 'page-summary' },
    ...calls.map((call, index) => h('li', {}, renderCall(call, index, memory, handlers))),
  );
  list.addEventListener('keydown', (event) => moveBetweenSummaries(event, list));
  return h(
    'section',
    { class: 'decisions', 'aria-labelledby': 'decisions-title' },
    h('h2', { id: 'decisions-title' }, 'Decisions'),
    filters,
    h('div', { class: 'pager' }, summary, waiting, newer, older),
    calls.length > 0
      ? list
      : h('p', { class: 'empty' }, page.total === 0 ? 'No routed calls yet match these filters.' : 'No rows on this page.'),
  );
}

/** Up and down arrows move between calls, Home and End to the first and last: a list of hundreds is slow by Tab. */
function moveBetweenSummaries(event: KeyboardEvent, list: HTMLElement): void {
  const target = event.target as HTMLElement | null;
  if (!target || target.tagName !== 'SUMMARY') return;
  const summaries = Array.from(list.querySelectorAll<HTMLElement>(':scope > li > details > summary'));
  const index = summaries.indexOf(target);
  const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: summaries.length - 1 }[event.key];
  if (next === undefined || index < 0) return;
  const element = summaries[Math.max(0, Math.min(summaries.length - 1, next))];
  if (element) {
    event.preventDefault();
    element.focus();
  }
}

function renderCall(call: RoutedCallView, index: number, memory: RenderMemory, handlers: ViewHandlers): HTMLElement {
  const finalModel = call.attempts[call.attempts.length - 1]?.model ?? '—';
  const time = new Date(call.at);
  const summary = h(
    'summary',
    {
      'aria-label': `${call.replay ? `${call.replay}: ` : ''}${call.classKey} call at ${time.toLocaleString()}: ${call.verdict} on ${finalModel} after ${call.attempts.length} attempt${call.attempts.length === 1 ? '' : 's'}`,
    },
    call.replay
      ? h(
          'span',
          { class: 'replay', title: "Written by rung replay: its time is the replay's simulated clock, not when it ran" },
          icon('debug-rerun'),
          call.replay,
        )
      : null,
    h('time', { datetime: time.toISOString() }, time.toLocaleString()),
    h('span', { class: 'class-key' }, call.classKey || '(no class)'),
    verdictBadge(call.verdict, call.settled ? `${call.verdict} (settled later)` : call.verdict),
    h('span', { class: 'final-model' }, finalModel),
    h('span', { class: 'cost' }, call.cost === null ? 'cost unknown' : formatUsd(call.cost)),
    h('span', { class: 'latency' }, call.latencyMs === null ? '' : formatMs(call.latencyMs)),
    call.explore ? h('span', { class: 'explore', title: openerChoiceText(true, call.propensity) }, icon('beaker'), 'explored') : null,
  );
  const ladder = h(
    'ol',
    { class: 'ladder', 'aria-label': 'Rungs in order' },
    ...call.ladder.map((step) =>
      h(
        'li',
        { class: `rung ${step.attempt ? `tried verdict-${step.attempt.verdict}` : 'untried'}` },
        h('span', { class: 'place', 'aria-label': `rung ${step.place}` }, String(step.place)),
        h('span', { class: 'model' }, step.model),
        h('span', { class: 'price' }, step.price),
        h(
          'span',
          { class: 'ability' },
          step.ability === null ? 'no rating' : `ability ${formatPercent(step.ability)}${step.measured ? '' : ' (prior)'}`,
        ),
        step.attempt
          ? h(
              'span',
              { class: 'attempt' },
              verdictBadge(step.attempt.verdict),
              step.attempt.verdictReason ? h('span', { class: 'reason' }, step.attempt.verdictReason) : null,
              step.attempt.cost !== null ? h('span', { class: 'cost' }, formatUsd(step.attempt.cost)) : null,
              step.attempt.latencyMs !== null ? h('span', { class: 'latency' }, formatMs(step.attempt.latencyMs)) : null,
              step.attempt.resolved && step.attempt.resolved !== step.model
                ? h('span', { class: 'resolved' }, `served by ${step.attempt.resolved}`)
                : null,
            )
          : h('span', { class: 'attempt not-tried' }, 'not tried'),
      ),
    ),
    ...call.pruned.map((pruned) =>
      h(
        'li',
        { class: 'rung pruned', 'aria-label': `${pruned.model} ${prunedText(pruned.reason)}` },
        h('span', { class: 'place' }, icon('circle-slash')),
        h('span', { class: 'model' }, pruned.model),
        h('span', { class: 'prune-reason' }, prunedText(pruned.reason)),
      ),
    ),
  );
  const escalations = call.escalations.length
    ? h(
        'ul',
        { class: 'escalations', 'aria-label': 'Escalations' },
        ...call.escalations.map((step) => h('li', {}, icon('arrow-up'), `escalated from ${step.from} to ${step.to}: ${step.reason}`)),
      )
    : null;
  const facts = h(
    'p',
    { class: 'facts' },
    h('span', { class: 'why', title: call.reason }, `Why the opener: ${plainReason(call.reason) || '—'}. `),
    `${openerChoiceText(call.explore, call.propensity)} `,
    call.settled ? `Settled later: ${call.verdict}${call.verdictReason ? ` (${call.verdictReason})` : ''}. ` : '',
  );
  const opener = call.attempts[0]?.model;
  const actions = opener
    ? h(
        'div',
        { class: 'call-actions' },
        button('Pin', 'pinned', `Pin ${opener}`, () => handlers.pin(opener)),
        button('Avoid', 'circle-slash', `Avoid ${opener}`, () => handlers.avoid(opener)),
      )
    : null;
  const details = h('details', { class: 'call' }, summary, ladder, escalations, facts, actions) as HTMLDetailsElement;
  details.open = memory.open.get(call.call) ?? index < memory.openByDefault;
  details.addEventListener('toggle', () => memory.open.set(call.call, details.open));
  return details;
}

function renderRatings(state: LedgerState, handlers: ViewHandlers): HTMLElement {
  const classes = ratingClasses(state.ratings);
  return h(
    'section',
    { class: 'ratings', 'aria-labelledby': 'ratings-title' },
    h('h2', { id: 'ratings-title' }, 'Ratings'),
    h('p', { class: 'hint' }, gateHint(state.ratings[0]?.gate)),
    classes.length === 0 ? h('p', { class: 'empty' }, 'Nothing graded yet.') : null,
    ...classes.map((ratingClass) =>
      h(
        'div',
        { class: 'rating-class' },
        h(
          'h3',
          {},
          [ratingClass.classKey, ...ratingClass.sameAs].join(' = '),
          // A folded shape is still a key of its own in the ledger: each is reset on its own.
          ...[ratingClass.classKey, ...ratingClass.sameAs].map((classKey) =>
            button(
              ratingClass.sameAs.length ? `Reset ${classKey}` : 'Reset',
              'discard',
              `Reset every rating at ${classKey}`,
              () => handlers.resetClass(classKey),
              'reset',
            ),
          ),
        ),
        ratingClass.note ? h('p', { class: 'hint class-note' }, ratingClass.note) : null,
        // A narrow side column scrolls the table rather than cutting off its actions.
        h('div', { class: 'table-scroll' }, ratingTable(ratingClass, handlers)),
      ),
    ),
  );
}

/** The gate in the hint above the tables: the number the host sent with the ratings, none before any. */
function gateHint(gate: number | undefined): string {
  return gate === undefined
    ? 'A rating overrides its prior once it has enough graded answers (pass or fail).'
    : `A rating overrides its prior after ${gate} graded answers (pass or fail).`;
}

function ratingTable(ratingClass: RatingClassView, handlers: ViewHandlers): HTMLElement {
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, `Ratings at ${ratingClass.classKey}, strongest first`),
    h(
      'thead',
      {},
      h('tr', {}, ...['#', 'Model', 'Ability', 'Graded', 'Passes', 'Time', ''].map((title) => h('th', { scope: 'col' }, title))),
    ),
    h(
      'tbody',
      {},
      ...ratingClass.rows.map((row) =>
        h(
          'tr',
          { class: row.measured ? 'measured' : 'prior' },
          h('td', {}, String(row.place)),
          h('th', { scope: 'row' }, ...breakableName(row.model)),
          h(
            'td',
            {},
            formatPercent(row.ability),
            row.interval
              ? h('span', { class: 'interval' }, ` (${formatPercent(row.interval.low)}–${formatPercent(row.interval.high)})`)
              : null,
          ),
          h(
            'td',
            { class: 'gate', title: row.gate },
            h('meter', { min: '0', max: String(row.gateAt), value: String(Math.min(row.graded, row.gateAt)), 'aria-label': row.gate }),
            h('span', { 'aria-hidden': 'true' }, ` ${row.gateShort}`),
          ),
          h('td', {}, `${row.ok}/${row.graded}`),
          row.time
            ? h('td', { class: 'time', title: row.time.long }, row.time.short)
            : h('td', { class: 'time', title: 'Not timed yet' }, '–'),
          h(
            'td',
            { class: 'row-actions' },
            button('', 'pinned', `Pin ${row.model}`, () => handlers.pin(row.model)),
            button('', 'circle-slash', `Avoid ${row.model}`, () => handlers.avoid(row.model)),
          ),
        ),
      ),
    ),
  );
}

/** A model name as text with a line-break opportunity (`<wbr>`) between the pieces of its slug, and nowhere else. */
function breakableName(name: string): Child[] {
  return nameBreakPieces(name).flatMap((piece, index) => (index === 0 ? [piece] : [h('wbr'), piece]));
}

/** "What if I had opened with…": a button until asked, because the answer reads the whole decision log. */
function renderWhatIf(state: LedgerState, handlers: ViewHandlers): HTMLElement {
  const openers = state.openers;
  const ask = button(
    openers.status === 'answered' ? 'Estimate again' : 'What if I had opened with…',
    'beaker',
    'What if I had always opened with each model? Estimate it from your logged calls',
    () => handlers.estimateOpeners(),
  );
  if (openers.status === 'waiting') ask.setAttribute('disabled', '');
  return h(
    'section',
    { class: 'what-if', 'aria-labelledby': 'what-if-title' },
    h('h2', { id: 'what-if-title' }, 'What if'),
    h('p', { class: 'hint' }, 'Estimated from your own logged calls against how they were routed; ± is the 95% interval.'),
    ask,
    openers.status === 'waiting' ? h('p', { class: 'loading', role: 'status' }, 'Reading your decision log…') : null,
    openers.status === 'answered'
      ? openers.estimates.length === 0
        ? h('p', { class: 'empty' }, 'The panel has no models to estimate.')
        : h(
            'ul',
            { class: 'opener-estimates' },
            ...openers.estimates.map((estimate) =>
              h('li', { class: estimate.versusLog ? 'opener' : 'opener refused' }, openerSentence(estimate)),
            ),
          )
      : null,
  );
}

/** Chart size in SVG units; it scales to the view's width. */
const CHART_WIDTH = 320;
const CHART_HEIGHT = 120;

function renderSpend(state: LedgerState): HTMLElement {
  const chart = spendChart(state.spend, CHART_WIDTH, CHART_HEIGHT);
  const note = spendChartNote(chart);
  return h(
    'section',
    { class: 'spend', 'aria-labelledby': 'spend-title' },
    h('h2', { id: 'spend-title' }, 'Spend'),
    h('p', { class: 'totals' }, spendTotalsText(state.spend)),
    h('p', { class: 'estimate' }, strongestEstimateText(state.spend)),
    note === undefined ? renderChart(chart) : h('p', { class: 'empty' }, note),
    chart.providers.length > 0
      ? h(
          'table',
          {},
          h('caption', {}, 'By provider'),
          h(
            'thead',
            {},
            h('tr', {}, h('th', { scope: 'col' }, 'Provider'), h('th', { scope: 'col' }, 'Cost'), h('th', { scope: 'col' }, 'Calls')),
          ),
          h(
            'tbody',
            {},
            ...chart.providers.map((provider) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row' }, provider.provider),
                h('td', {}, formatUsd(provider.cost)),
                h('td', {}, String(provider.calls)),
              ),
            ),
          ),
        )
      : null,
  );
}

function renderChart(chart: SpendChart): HTMLElement {
  const label = `Cost per day by model over ${chart.days.length} day${chart.days.length === 1 ? '' : 's'}, highest day ${formatUsd(chart.maxDayCost)}`;
  const graphic = svg(
    'svg',
    { viewBox: `0 0 ${chart.width} ${chart.height + 14}`, role: 'img', 'aria-label': label, class: 'chart' },
    svg('line', { x1: '0', y1: String(chart.height), x2: String(chart.width), y2: String(chart.height), class: 'axis' }),
    ...chart.bars.map((bar) =>
      svg(
        'rect',
        {
          x: bar.x.toFixed(2),
          y: bar.y.toFixed(2),
          width: bar.width.toFixed(2),
          height: bar.height.toFixed(2),
          class: `bar series-${bar.series}`,
        },
        svg('title', {}, `${bar.day} ${bar.model}: ${formatUsd(bar.cost)}`),
      ),
    ),
    chart.days.length > 0 ? svg('text', { x: '0', y: String(chart.height + 12), class: 'tick' }, chart.days[0] as string) : null,
    chart.days.length > 1
      ? svg(
          'text',
          { x: String(chart.width), y: String(chart.height + 12), class: 'tick end' },
          chart.days[chart.days.length - 1] as string,
        )
      : null,
  );
  const legend = h(
    'table',
    { class: 'legend' },
    h('caption', {}, 'By model'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Model'),
        h('th', { scope: 'col' }, 'Provider'),
        h('th', { scope: 'col' }, 'Cost'),
        h('th', { scope: 'col' }, 'Calls'),
      ),
    ),
    h(
      'tbody',
      {},
      ...chart.models.map((model, index) =>
        h(
          'tr',
          {},
          h(
            'th',
            { scope: 'row' },
            h('span', { class: `swatch series-${Math.min(index, SPEND_SERIES - 1)}`, 'aria-hidden': 'true' }),
            model.model,
          ),
          h('td', {}, model.provider),
          h('td', {}, formatUsd(model.cost)),
          h('td', {}, String(model.calls)),
        ),
      ),
    ),
  );
  return h('figure', { class: 'chart-figure' }, graphic, h('figcaption', { class: 'visually-hidden' }, label), legend);
}
