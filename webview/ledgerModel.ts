/**
 * The ledger view's state and what it displays, derived from that state, without the DOM.
 *
 * @remarks
 * Everything the view decides — how rows of one call become a ladder, which rating stands where,
 * how a delta changes the page, where a bar of the spend chart goes — lives here as plain functions,
 * so vitest can check it in Node; `render.ts` only turns these views into elements.
 */
import {
  type DecisionFilterWire,
  type DecisionPageWire,
  type DecisionWire,
  type HostMessage,
  type ModelWire,
  type OpenerEstimateWire,
  type ProviderWire,
  type RatingWire,
  type SpendWire,
  type VerdictName,
  unhandled,
} from '../src/protocol/ledgerProtocol';
import { formatUsd } from '../src/protocol/formatUsd';

/** The two-sided 95% normal quantile, for the ability interval drawn from a rating's standard error. */
const Z_95 = 1.96;

/** What the view knows; replaced, never mutated, by {@link reduce}. */
export interface LedgerState {
  loaded: boolean;
  models: ModelWire[];
  ratings: RatingWire[];
  page: DecisionPageWire;
  spend: SpendWire;
  providers: ProviderWire[];
  ledgerPath: string | null;
  /** Rows that arrived while the page showed older rows, so the view can offer to go back to the newest. */
  newerRows: number;
  /** Rows came in on this page that the page does not have (a call a verdict filter took in whole): ask for it again. */
  stale: boolean;
  notice: { level: 'info' | 'warning' | 'error'; message: string } | null;
  /** "What if I had opened with…": nothing until asked, `waiting` until the host answers. */
  openers: { status: 'not-asked' | 'waiting' } | { status: 'answered'; estimates: OpenerEstimateWire[] };
}

export function emptyState(filter: DecisionFilterWire = {}, offset = 0): LedgerState {
  return {
    loaded: false,
    models: [],
    ratings: [],
    page: { rows: [], total: 0, offset, filter },
    spend: { byDay: [], total: 0, today: 0, strongestModel: null, strongestEstimate: null },
    providers: [],
    ledgerPath: null,
    newerRows: 0,
    stale: false,
    notice: null,
    openers: { status: 'not-asked' },
  };
}

/** The state once the user asked what opening with each model would have done, until the host answers. */
export function askForOpeners(state: LedgerState): LedgerState {
  return { ...state, openers: { status: 'waiting' } };
}

/**
 * The state after one host message.
 *
 * @param limit - the page size the view asked for: a new row pushes the oldest off the page.
 */
export function reduce(state: LedgerState, message: HostMessage, limit: number): LedgerState {
  switch (message.type) {
    case 'snapshot':
      return {
        ...state,
        loaded: true,
        models: message.models,
        ratings: message.ratings,
        page: message.decisions,
        spend: message.spend,
        providers: message.providers,
        ledgerPath: message.ledgerPath,
        newerRows: 0,
        stale: false,
      };
    case 'page':
      return { ...state, page: message.decisions, newerRows: 0, stale: false };
    case 'decision-added':
      return addDecision(state, message, limit);
    case 'ratings-changed':
      return { ...state, ratings: message.ratings };
    case 'spend-changed':
      return { ...state, spend: message.spend };
    case 'panel-changed':
      return { ...state, models: message.models, providers: message.providers };
    case 'notice': {
      // A failed request is said as an error notice; the button comes back so it can be asked again.
      const openers = message.level === 'error' && state.openers.status === 'waiting' ? { status: 'not-asked' as const } : state.openers;
      return { ...state, notice: { level: message.level, message: message.message }, openers };
    }
    case 'opener-estimates':
      return { ...state, openers: { status: 'answered', estimates: message.estimates } };
    default:
      return unhandled(message);
  }
}

/**
 * The state after a message from the host that did not parse: said on the page as an error, so a
 * panel still waiting for its first snapshot shows why instead of "Loading the ledger…" for good.
 *
 * @remarks
 * The host fits every message to the protocol before posting it, so this is a host and a page that
 * disagree (a bug, or a page left open across an update). What was shown stays; the notice says what
 * was not and where the details are.
 */
export function rejectMessage(state: LedgerState, error: string): LedgerState {
  return {
    ...state,
    notice: {
      level: 'error',
      message: `Rung sent this panel something it could not show (${error}). The Rung log (Rung: Show Log) has it too; closing and reopening the panel asks again.`,
    },
  };
}

/**
 * A row just written, placed where the host counts it (`offset`, `added`: callPage.ts orders the list).
 *
 * @remarks
 * Rows that come in above the page (a new call, a later rung or a verdict of a call on a newer page)
 * move the page's offset down by as many, so "Older" and "Newer" go on from the rows on screen:
 * kept where it was, "Older" showed the page's last call again. On an older page they are not shown:
 * prepending would shift what the user is reading under their eyes, so the view says how many newer
 * rows wait instead (a verdict is not one: it belongs to its call, seldom the newest). A row of a call
 * on this page is put beside it; a call a verdict filter now takes in whole, whose other rows the page
 * does not have, makes the page stale so it is asked for again. A verdict settled much later is
 * counted where its call was routed, just above the call's attempts: put at the top of the newest
 * page like a new call, it showed as a call of its own with no attempts, above the call it settled.
 */
function addDecision(state: LedgerState, message: Extract<HostMessage, { type: 'decision-added' }>, limit: number): LedgerState {
  const page = state.page;
  // Placed in another list than this page's (the page changed since), or not in any: the next page request shows it.
  if (message.offset === null || message.added === 0 || !sameFilter(message.filter, page.filter)) return state;
  const total = page.total + message.added;
  if (message.offset < page.offset) {
    const newerRows = state.newerRows + (message.row.final ? 0 : message.added);
    return { ...state, page: { ...page, offset: page.offset + message.added, total }, newerRows };
  }
  const onPage = message.offset === page.offset || message.offset < page.offset + page.rows.length;
  if (!onPage) return { ...state, page: { ...page, total } };
  if (message.added > 1) return { ...state, page: { ...page, total }, stale: true };
  const at = message.offset - page.offset;
  const rows = [...page.rows.slice(0, at), message.row, ...page.rows.slice(at)];
  return { ...state, page: { ...page, rows: firstWholeCalls(rows, limit), total } };
}

/** Whether two filters pick the same rows. */
export function sameFilter(a: DecisionFilterWire, b: DecisionFilterWire): boolean {
  return a.classKey === b.classKey && a.model === b.model && a.verdict === b.verdict;
}

/**
 * The first `limit` rows, less the oldest call's rows when the cut would split that call: a call's
 * ladder is shown whole or on the next page, as the host pages it (callPage.ts). A page that one call
 * fills on its own keeps its first `limit` rows.
 */
export function firstWholeCalls<Row extends { call: string }>(rows: readonly Row[], limit: number): Row[] {
  const kept = rows.slice(0, limit);
  const next = rows[limit];
  const last = kept.at(-1);
  if (!next || !last || next.call !== last.call) return kept;
  let cut = kept.length;
  while (cut > 0 && (kept[cut - 1] as Row).call === last.call) cut--;
  return cut > 0 ? kept.slice(0, cut) : kept;
}

/** One attempt of a routed call. */
export interface AttemptView {
  model: string;
  resolved: string | null;
  rung: number;
  verdict: VerdictName;
  verdictReason: string | null;
  cost: number | null;
  latencyMs: number | null;
  at: number;
}

/** One rung of a call's ladder. */
export interface LadderStep {
  model: string;
  /** 1-based place in the candidate order. */
  place: number;
  price: string;
  /** P(success) at the call's class as the ledger has it now; null when the model has no rating there. */
  ability: number | null;
  measured: boolean;
  /** The attempt made on this rung, if the climb reached it. */
  attempt: AttemptView | null;
}

export interface EscalationView {
  from: string;
  to: string;
  reason: string;
}

/** Every row of one call, as one routed call. */
export interface RoutedCallView {
  call: string;
  classKey: string;
  /** When the call was routed (its first row on the page). */
  at: number;
  ladder: LadderStep[];
  pruned: { model: string; reason: string }[];
  attempts: AttemptView[];
  escalations: EscalationView[];
  /** The call's verdict: its last row's, a settling `final` row included. */
  verdict: VerdictName;
  verdictReason: string | null;
  /** Whether a later verdict (a thumbs down, an accepted edit) settled the call. */
  settled: boolean;
  /** USD over the attempts that reported one; null when none did. */
  cost: number | null;
  latencyMs: number | null;
  explore: boolean;
  propensity: number;
  reason: string;
  /** "replay" or "replay of open=qwen3:14b" for a call `rung replay` wrote into the log; null for a routed call. */
  replay: string | null;
}

/**
 * Groups a page of rows (newest first) into routed calls, the most recently routed first.
 *
 * @remarks
 * A call's rows are its attempts in order and perhaps a settling `final` row. The host ends pages
 * between calls and counts a verdict settled much later where its call was routed (callPage.ts), so a
 * call's attempts and its late verdicts arrive on one page. Each group is still built from what the
 * page holds: a filter can leave a call's attempts out and keep its verdict.
 */
export function groupCalls(rows: readonly DecisionWire[], models: readonly ModelWire[], ratings: readonly RatingWire[]): RoutedCallView[] {
  const byCall = new Map<string, DecisionWire[]>();
  for (const row of rows) {
    const group = byCall.get(row.call);
    if (group) group.push(row);
    else byCall.set(row.call, [row]);
  }
  const priceOf = new Map(models.map((model) => [model.slug, priceText(model)]));
  const ratingOf = new Map(ratings.map((rating) => [`${rating.classKey}\u0000${rating.model}`, rating]));
  const calls: RoutedCallView[] = [];
  for (const [call, group] of byCall) {
    // Rows arrive newest first; a call reads oldest first. A stable sort keeps rows of equal time in log order.
    const ordered = [...group].reverse().sort((a, b) => a.at - b.at);
    calls.push(buildCall(call, ordered, priceOf, ratingOf));
  }
  // By when each call was routed: a verdict settled later must not move an old call above newer ones.
  return calls.sort((a, b) => b.at - a.at);
}

function buildCall(call: string, rows: DecisionWire[], priceOf: Map<string, string>, ratingOf: Map<string, RatingWire>): RoutedCallView {
  const opener = rows.find((row) => !row.final) ?? (rows[0] as DecisionWire);
  // A refused call's row is no attempt: no model was asked, and its pruned rungs say why.
  const attempts: AttemptView[] = rows
    .filter((row) => !row.final && row.verdict !== 'refused')
    .map((row) => ({
      model: row.model,
      resolved: row.resolved,
      rung: row.rung,
      verdict: row.verdict,
      verdictReason: row.verdictReason,
      cost: row.cost,
      latencyMs: row.latencyMs,
      at: row.at,
    }));
  const last = rows[rows.length - 1] as DecisionWire;
  const candidates = [...opener.candidates];
  // A pinned model outside the ranked list still opens the call: show it on the ladder where it ran.
  for (const attempt of attempts)
    if (!candidates.includes(attempt.model)) candidates.splice(Math.min(attempt.rung, candidates.length), 0, attempt.model);
  const ladder = candidates.map((model, index) => {
    const rating = ratingOf.get(`${opener.classKey}\u0000${model}`);
    return {
      model,
      place: index + 1,
      price: priceOf.get(model) ?? 'not in the panel now',
      ability: rating ? rating.ability : null,
      measured: rating ? rating.measured : false,
      attempt: [...attempts].reverse().find((attempt) => attempt.model === model) ?? null,
    };
  });
  const escalations: EscalationView[] = [];
  for (let index = 1; index < attempts.length; index++) {
    const from = attempts[index - 1] as AttemptView;
    const to = attempts[index] as AttemptView;
    escalations.push({ from: from.model, to: to.model, reason: from.verdictReason ?? from.verdict });
  }
  const costs = attempts.map((attempt) => attempt.cost).filter((cost): cost is number => cost !== null);
  const latencies = attempts.map((attempt) => attempt.latencyMs).filter((ms): ms is number => ms !== null);
  return {
    call,
    classKey: opener.classKey,
    at: opener.at,
    ladder,
    pruned: opener.pruned,
    attempts,
    escalations,
    replay: opener.source === 'replay' ? (opener.policy ? `replay of ${opener.policy}` : 'replay') : null,
    verdict: last.verdict,
    verdictReason: last.verdictReason,
    settled: last.final,
    cost: costs.length > 0 ? costs.reduce((sum, cost) => sum + cost, 0) : null,
    latencyMs: latencies.length > 0 ? latencies.reduce((sum, ms) => sum + ms, 0) : null,
    explore: opener.explore,
    propensity: opener.propensity,
    reason: opener.reason,
  };
}

/**
 * A pruned rung's reason as the ladder states it, said once.
 *
 * @remarks
 * The ranking writes `pruned: …` and the router `skipped: …` (a rung economy stopped before); older
 * rows and other writers may give the bare cause (`needs tools`), which the ladder calls pruned so
 * that every row reads the same. A skipped rung stays skipped: it was not pruned.
 */
export function prunedText(reason: string): string {
  return /^(pruned|skipped):/i.test(reason) ? reason : `pruned: ${reason}`;
}

/** A model's list price as the ladder states it. */
export function priceText(model: ModelWire): string {
  if (model.price) return `${formatUsd(model.price.input)} in / ${formatUsd(model.price.output)} out per M tokens`;
  return model.local ? 'local, no token price' : 'price unknown';
}

/**
 * A model name cut where a line may break: after each `/`, `-`, `:` or `_`, and after a `.` that is not
 * inside a number. The pieces join back to the name.
 *
 * @remarks
 * The ratings table sits in the view's side column, a third of the editor once the Chat view is open.
 * Letting the browser break names anywhere cut `deepseek` into `deeps`/`eek`; not breaking them at all
 * pushed the pin and avoid buttons out of view. Breaking only between the parts of the slug keeps every
 * word whole (`qwen2.5` stays one piece) and the column narrow enough for the buttons. A piece longer
 * than {@link NAME_PIECE_CHARS} is no word (a 600-character id a provider reported ran unbroken across
 * the whole view) and is cut every that many characters.
 */
export function nameBreakPieces(name: string): string[] {
  return name
    .split(/(?<=[/\-:_])|(?<=\.)(?!\d)/)
    .filter((piece) => piece !== '')
    .flatMap((piece) => (piece.length <= NAME_PIECE_CHARS ? [piece] : (piece.match(LONG_PIECE) ?? [piece])));
}

/** The longest piece of a name kept whole: longer than any word of a real model's name (`instruct`, `deepseek`). */
export const NAME_PIECE_CHARS = 32;
const LONG_PIECE = new RegExp(`[^]{1,${NAME_PIECE_CHARS}}`, 'gu');

/** One model's standing in one class, as the ratings table shows it. */
export interface RatingRowView {
  model: string;
  /** 1-based place in the class's order, strongest first. */
  place: number;
  ability: number;
  /** The 95% interval on ability from the rating's standard error; null when nothing was graded. */
  interval: { low: number; high: number } | null;
  graded: number;
  ok: number;
  measured: boolean;
  /** Graded observations before the rating overrides its prior, as the host sent it. */
  gateAt: number;
  /** The gate in a sentence, for screen readers and the tooltip: "3/8 graded, still on its prior". */
  gate: string;
  /** The same, short enough for a table cell: "3/8 · prior", "12 · measured". */
  gateShort: string;
  /** Its mean answer time here, short (`3.1 s`), and in a sentence with the first token and writing speed; null before any was timed. */
  time: { short: string; long: string } | null;
}

export interface RatingClassView {
  classKey: string;
  /** Shaped keys whose ratings are exactly these rows (every graded call of the class had that shape): shown here, not again. */
  sameAs: string[];
  /** What the key counts, when its class or a shape of it is shown beside it; undefined for a class on its own. */
  note: string | undefined;
  rows: RatingRowView[];
}

/**
 * Ratings grouped by class key, classes in name order, each class strongest first; a shaped key whose
 * ratings are its class's, row for row, is folded into its class.
 *
 * @remarks
 * Sorted here although the session's contract promises strongest first: the place a row shows is a
 * claim, and it must not depend on the order a ledger happens to store entries in.
 *
 * Every graded answer at a shaped key (`edit/typescript`) is counted at its class (`edit`) too, so that
 * the class keeps learning while its shapes fill in. In a TypeScript project every edit is TypeScript,
 * and the view showed the same table twice under two names; a class and a shape that differ are both
 * shown, each saying what it counts.
 */
export function ratingClasses(ratings: readonly RatingWire[]): RatingClassView[] {
  const byClass = new Map<string, RatingWire[]>();
  for (const rating of ratings) {
    const group = byClass.get(rating.classKey);
    if (group) group.push(rating);
    else byClass.set(rating.classKey, [rating]);
  }
  const views = [...byClass.keys()].sort().map((classKey): RatingClassView => ({
    classKey,
    sameAs: [],
    note: undefined,
    rows: ratingRows(byClass.get(classKey) as RatingWire[]),
  }));
  const byKey = new Map(views.map((view) => [view.classKey, view]));
  const folded = new Set<string>();
  for (const view of views) {
    const slash = view.classKey.indexOf('/');
    const parent = slash < 0 ? undefined : byKey.get(view.classKey.slice(0, slash));
    if (!parent) continue;
    if (sameRows(parent.rows, view.rows)) {
      parent.sameAs.push(view.classKey);
      folded.add(view.classKey);
      parent.note = `Every graded ${parent.classKey} call so far was ${view.classKey}, so both keys hold these same ratings.`;
    } else {
      view.note = `Only ${parent.classKey} calls shaped ${view.classKey.slice(slash + 1)}; each also counts in ${parent.classKey}.`;
    }
  }
  for (const view of views) {
    const shown = views
      .filter((other) => !folded.has(other.classKey) && other.classKey.startsWith(`${view.classKey}/`))
      .map((other) => other.classKey);
    if (shown.length > 0 && view.sameAs.length === 0) view.note = `Every graded ${view.classKey} call, ${shown.join(', ')} included.`;
  }
  return views.filter((view) => !folded.has(view.classKey));
}

/** Whether two tables show the same models with the same counts and the same ability. */
function sameRows(a: readonly RatingRowView[], b: readonly RatingRowView[]): boolean {
  const key = (row: RatingRowView): string => `${row.model}\u0000${row.graded}\u0000${row.ok}\u0000${formatPercent(row.ability)}`;
  const mine = new Set(a.map(key));
  return a.length === b.length && b.every((row) => mine.has(key(row)));
}

function ratingRows(ratings: readonly RatingWire[]): RatingRowView[] {
  return [...ratings]
    .sort((x, y) => y.ability - x.ability)
    .map((rating, index) => ({
      model: rating.model,
      place: index + 1,
      ability: rating.ability,
      interval:
        rating.uncertainty === null
          ? null
          : { low: logistic(rating.rating - Z_95 * rating.uncertainty), high: logistic(rating.rating + Z_95 * rating.uncertainty) },
      graded: rating.graded,
      ok: rating.ok,
      measured: rating.measured,
      gateAt: rating.gate,
      gate: rating.measured
        ? `${rating.graded} graded, past the gate of ${rating.gate}`
        : `${Math.min(rating.graded, rating.gate)}/${rating.gate} graded, still on its prior`,
      gateShort: rating.measured ? `${rating.graded} · measured` : `${Math.min(rating.graded, rating.gate)}/${rating.gate} · prior`,
      time: rating.timing ? timeView(rating.timing) : null,
    }));
}

/** A timing as a table cell and its tooltip: `3.1 s`; "3.1 s on average over 12 answers; first token after 0.4 s; 42 tokens a second". */
export function timeView(timing: NonNullable<RatingWire['timing']>): { short: string; long: string } {
  const parts = [
    `${durationText(timing.meanMs)} on average over ${timing.attempts} answer${timing.attempts === 1 ? '' : 's'} on this machine`,
  ];
  if (timing.firstTokenMs !== undefined) parts.push(`first token after ${durationText(timing.firstTokenMs)}`);
  if (timing.tokensPerSecond !== undefined) parts.push(`${Math.round(timing.tokensPerSecond)} tokens a second`);
  return { short: durationText(timing.meanMs), long: parts.join('; ') };
}

/** A duration as the view writes it: `850 ms`, `3.1 s`, `42 s`, `2.5 min`. */
function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

function logistic(logits: number): number {
  return 1 / (1 + Math.exp(-logits));
}

/** One bar segment of the spend chart, in chart coordinates. */
export interface SpendBar {
  day: string;
  model: string;
  /** Index into the chart's colour series (by model, in order of total spend). */
  series: number;
  x: number;
  y: number;
  width: number;
  height: number;
  cost: number;
}

export interface SpendChart {
  width: number;
  height: number;
  bars: SpendBar[];
  /** Models by total spend, dearest first; their index is their series. */
  models: { model: string; provider: string; cost: number; calls: number }[];
  providers: { provider: string; cost: number; calls: number }[];
  days: string[];
  /** The top of the y axis, USD. */
  maxDayCost: number;
}

/** Colour series the stylesheet defines (`.series-0` … `.series-5`); more models than this share the last. */
export const SPEND_SERIES = 6;
/** Days the chart shows, newest last: a month of bars stays readable at the view's width. */
export const SPEND_DAYS_SHOWN = 30;

/**
 * What the Spend section says in place of the chart, or undefined when it has bars to draw: a month of
 * calls that all cost $0 (local models only) would draw an empty box.
 */
export function spendChartNote(chart: Pick<SpendChart, 'days' | 'maxDayCost'>): string | undefined {
  if (chart.days.length === 0) return 'No spend recorded yet.';
  if (chart.maxDayCost === 0) return 'Every call so far cost $0: nothing to chart.';
  return undefined;
}

/** Stacked daily bars by model, and the totals by model and provider. */
export function spendChart(spend: SpendWire, width: number, height: number): SpendChart {
  const modelTotals = new Map<string, { model: string; provider: string; cost: number; calls: number }>();
  const providerTotals = new Map<string, { provider: string; cost: number; calls: number }>();
  const dayTotals = new Map<string, number>();
  const cell = new Map<string, number>();
  for (const entry of spend.byDay) {
    const key = `${entry.day}\u0000${entry.model}`;
    cell.set(key, (cell.get(key) ?? 0) + entry.cost);
    const model = modelTotals.get(entry.model) ?? { model: entry.model, provider: entry.provider, cost: 0, calls: 0 };
    model.cost += entry.cost;
    model.calls += entry.calls;
    modelTotals.set(entry.model, model);
    const provider = providerTotals.get(entry.provider) ?? { provider: entry.provider, cost: 0, calls: 0 };
    provider.cost += entry.cost;
    provider.calls += entry.calls;
    providerTotals.set(entry.provider, provider);
    dayTotals.set(entry.day, (dayTotals.get(entry.day) ?? 0) + entry.cost);
  }
  const models = [...modelTotals.values()].sort((a, b) => b.cost - a.cost || a.model.localeCompare(b.model));
  const providers = [...providerTotals.values()].sort((a, b) => b.cost - a.cost || a.provider.localeCompare(b.provider));
  const days = [...dayTotals.keys()].sort().slice(-SPEND_DAYS_SHOWN);
  const maxDayCost = Math.max(0, ...days.map((day) => dayTotals.get(day) ?? 0));
  const series = new Map(models.map((model, index) => [model.model, Math.min(index, SPEND_SERIES - 1)]));
  const slot = days.length > 0 ? width / days.length : width;
  const barWidth = Math.max(1, slot * 0.7);
  const bars: SpendBar[] = [];
  days.forEach((day, dayIndex) => {
    let stacked = 0;
    for (const model of models) {
      const cost = cell.get(`${day}\u0000${model.model}`) ?? 0;
      if (cost <= 0 || maxDayCost <= 0) continue;
      const barHeight = (cost / maxDayCost) * height;
      stacked += barHeight;
      bars.push({
        day,
        model: model.model,
        series: series.get(model.model) ?? 0,
        x: dayIndex * slot + (slot - barWidth) / 2,
        y: height - stacked,
        width: barWidth,
        height: barHeight,
        cost,
      });
    }
  });
  return { width, height, bars, models, providers, days, maxDayCost };
}

/** The spend estimate sentence: what the same calls would have cost on the strongest model. */
/**
 * The spend's totals, and how much of them paid for tool schemas when any did: `Total $0.294, today
 * $0.294; $0.189 of it paid for tool schemas (an agent's tools, sent as input with every request).`
 *
 * @remarks
 * Agent mode sends some forty tool schemas with every request, and on a morning's work they were most
 * of the bill; said beside the total, the figure shows what `rung.agentTools` can save.
 */
export function spendTotalsText(spend: SpendWire): string {
  const totals = `Total ${formatUsd(spend.total)}, today ${formatUsd(spend.today)}`;
  const schemas = spend.toolSchemas ?? 0;
  if (schemas <= 0) return `${totals}.`;
  const share = spend.total > 0 ? ` (${Math.round((schemas / spend.total) * 100)}%)` : '';
  return `${totals}; ${formatUsd(schemas)}${share} of it paid for tool schemas (an agent's tools, sent as input with every request).`;
}

export function strongestEstimateText(spend: SpendWire): string {
  if (spend.strongestModel === null || spend.strongestEstimate === null)
    return 'No estimate: the panel has no priced model to compare with.';
  const saved = spend.strongestEstimate - spend.total;
  const comparison = saved >= 0 ? `${formatUsd(saved)} less` : `${formatUsd(-saved)} more`;
  return `The same calls on ${spend.strongestModel} would have cost about ${formatUsd(spend.strongestEstimate)} (an estimate from list prices); Rung spent ${formatUsd(spend.total)}, ${comparison}.`;
}

export function formatPercent(probability: number): string {
  return `${Math.round(probability * 100)}%`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One plain sentence for one model's opener estimate, as the ledger view shows it.
 *
 * @remarks
 * Whole percents: the 95% bounds are seldom narrower than a few points, so a decimal would claim
 * more than the log knows. The ± is half the interval's width; cost is a relative change, first-try
 * success a change in the rate of passing first time.
 */
export function openerSentence(estimate: OpenerEstimateWire): string {
  const versus = estimate.versusLog;
  if (versus) {
    const calls = estimate.calls.toLocaleString('en-US');
    // A long log is estimated from its newest calls only (the host's thread is held while it computes), and the sentence says so.
    const which =
      estimate.logCalls === undefined
        ? 'of your calls'
        : `of your most recent calls (your log holds ${estimate.logCalls.toLocaleString('en-US')})`;
    return (
      `Had you always opened with ${estimate.model}: cost ${signedPercent(versus.costChange)} (±${halfWidthPercent(versus.costChangeLow, versus.costChangeHigh)}), ` +
      `first-try success ${signedPercent(versus.successChange)} (±${halfWidthPercent(versus.successChangeLow, versus.successChangeHigh)}), from ${calls} ${which}.`
    );
  }
  switch (estimate.refused) {
    case 'no-calls':
      return `Nothing to say about opening with ${estimate.model} yet: your log holds no routed calls.`;
    case 'not-a-candidate':
      // The bound is the estimator's (MAX_UNSUPPORTED_SHARE, 0.05). "Too many" read as a contradiction
      // beside a model that had opened 33 of 38 calls: the few calls it could not have opened are what count.
      return (
        `Cannot say yet for ${estimate.model}: it was left out (pruned, or off the panel) of more than 1 in 20 of your logged calls, ` +
        `and the log gave it no chance to open those; it could have opened the other ${estimate.calls.toLocaleString('en-US')}.`
      );
    case 'too-few':
    case null:
      return `Not enough of your calls opened with ${estimate.model} to say.`;
    default:
      return unhandled(estimate.refused);
  }
}

/** A change as a whole signed percent with a true minus sign; a change that rounds to nothing is 0%. */
function signedPercent(change: number): string {
  const whole = Math.round(change * 100);
  if (whole === 0) return '0%';
  return `${whole > 0 ? '+' : '−'}${Math.abs(whole)}%`;
}

function halfWidthPercent(low: number, high: number): string {
  return `${Math.round(((high - low) / 2) * 100)}%`;
}

/** The classes and models the filter menus offer: those the panel and ratings know, and those on the page. */
export function filterOptions(state: LedgerState): { classes: string[]; models: string[] } {
  const classes = new Set<string>();
  const models = new Set<string>();
  for (const rating of state.ratings) classes.add(rating.classKey);
  for (const model of state.models) models.add(model.slug);
  for (const row of state.page.rows) {
    if (row.classKey) classes.add(row.classKey);
    models.add(row.model);
  }
  if (state.page.filter.classKey) classes.add(state.page.filter.classKey);
  if (state.page.filter.model) models.add(state.page.filter.model);
  return { classes: [...classes].sort(), models: [...models].sort() };
}
