/**
 * The session's read side: what a ledger view reads of the store — ratings as views, pages of decision
 * rows, one call's rows, spend, the export, and the "What if" estimates.
 *
 * @remarks
 * The session did five jobs in one class (chat, rank, panel paging, ledger admin, estimates). These
 * reads take the store and, for spend, the panel and what the providers said of prices; they never
 * touch the router, the providers or a call under way. Kept apart, the session reads as the
 * chat / rank / settle pipeline, and each read can be tested against a memory store alone.
 */
import type { DecisionRow } from '../decisions/decision';
import { estimatePolicyInSlices, MAX_UNSUPPORTED_SHARE, SharedOutcomeModel, type PolicyEstimate } from '../evaluation/estimate';
import { readRecentLoggedCalls } from '../evaluation/loggedCalls';
import { callCost, type Panel, type Price } from '../panel';
import type { ModelFacts } from '../providers/provider';
import { ability, MIN_GRADED, PRIOR_VARIANCE, type Rating } from '../ratings';
import { startOfUtcDay, utcDay } from '../store/spendTally';
import type { Store } from '../store/store';
import { timingFigures } from '../timing';
import { ratingKey } from '../ledger/ledger';
import type { DecisionFilter, DecisionPage, DecisionPlace, OpenerEstimate, RatingView, SpendView } from './types';

/**
 * Decisions a snapshot returns when the caller names no page size.
 *
 * @remarks
 * A screenful of the ledger panel's table, and the size the decision log's tail read was measured at
 * (about 1 ms on a 100k-row log; src/bench/ledgerBench.ts, sessionBench.ts).
 */
export const DEFAULT_PAGE_ROWS = 50;
/**
 * How far back a snapshot's spend looks, days, today included.
 *
 * @remarks
 * A month, the span a provider bills over; reading the whole log would cost a 90-day log's every row
 * for a figure nobody reads that far back (`rung ledger export` has the rest).
 */
export const SPEND_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * The most recent calls the panel's "What if" estimates from; the sentence says so when the log holds more.
 *
 * @remarks
 * The estimate runs on the extension host's thread, and one model's estimate is one computation that
 * cannot pause: on 61k calls it took about 210 ms each on the team's 2-core machine, and 0.5–2.7 s
 * when that machine was loaded; on the newest 10k, 88–167 ms loaded (BENCHMARKS.md), near the ~100 ms
 * a host can be held. The newest calls are also the ones routed by what the router knows now.
 */
export const MAX_ESTIMATED_CALLS = 10_000;

export class StoreReads {
  constructor(private readonly store: Store) {}

  /** Every rating as a view, per class key, strongest first, with its uncertainty and the gate it must pass. */
  /** Every rating, each named by `names` (the panel's slug for a snapshot a provider reported) where it has one. */
  ratings(names: ReadonlyMap<string, string> = new Map()): RatingView[] {
    const timings = new Map((this.store.ratings.timings?.() ?? []).map((timing) => [ratingKey(timing.model, timing.classKey), timing]));
    return this.store.ratings.entries().map((entry): RatingView => {
      const p = ability(entry.rating);
      const timed = timings.get(ratingKey(entry.model, entry.classKey));
      const timing = timed ? timingFigures(timed) : undefined;
      return {
        model: names.get(entry.model) ?? entry.model,
        classKey: entry.classKey,
        rating: entry.rating,
        ability: p,
        uncertainty: entry.graded === 0 ? null : ratingStandardError(p, entry),
        graded: entry.graded,
        ok: entry.ok,
        measured: entry.graded >= MIN_GRADED,
        gate: MIN_GRADED,
        updatedAt: entry.updatedAt,
        ...(timing ? { timing } : {}),
      };
    });
  }

  /** A page of decisions, {@link DEFAULT_PAGE_ROWS} unless a limit is named; with `before`, the page ending there. */
  page(options: { offset?: number; limit?: number; filter?: DecisionFilter; before?: number }): DecisionPage {
    return this.store.decisions.page(
      options.offset ?? 0,
      Math.max(0, options.limit ?? DEFAULT_PAGE_ROWS),
      options.filter ?? {},
      options.before,
    );
  }

  placeOf(row: DecisionRow, filter: DecisionFilter): DecisionPlace {
    return this.store.decisions.placeOf(row, filter);
  }

  /** Every row written for one call, oldest first. */
  explain(callId: string): DecisionRow[] {
    return this.store.decisions.forCall(callId);
  }

  export(): Promise<string> {
    return this.store.export();
  }

  /** Spend by day, model and provider over the last {@link SPEND_WINDOW_DAYS}, and what the panel's dearest model would have cost. */
  spend(now: number, panel: Panel, facts: ReadonlyMap<string, ModelFacts>): SpendView {
    const today = utcDay(now);
    const providerOf = new Map(panel.models.map((model) => [model.slug, model.provider]));
    const dearest = dearestModel(panel, facts);
    const groups = this.store.decisions.spend.from(startOfUtcDay(now) - (SPEND_WINDOW_DAYS - 1) * DAY_MS);
    const byDay = groups
      .map((group) => ({
        day: group.day,
        model: group.model,
        provider: providerOf.get(group.model) ?? 'unknown',
        cost: group.cost,
        calls: group.calls,
      }))
      .sort((a, b) => b.day.localeCompare(a.day) || b.cost - a.cost || a.model.localeCompare(b.model));
    return {
      byDay,
      total: groups.reduce((sum, group) => sum + group.cost, 0),
      today: groups.reduce((sum, group) => sum + (group.day === today ? group.cost : 0), 0),
      toolSchemas: groups.reduce((sum, group) => sum + group.toolsCost, 0),
      strongestModel: dearest?.slug ?? null,
      // Cost is linear in tokens, so the window's sums of each call's opening tokens price every call at once.
      strongestEstimate: dearest
        ? groups.reduce((sum, group) => sum + callCost(dearest.price, group.openingInputTokens, group.openingOutputTokens), 0)
        : null,
    };
  }

  /** For each model, what always opening with it would have done on the newest {@link MAX_ESTIMATED_CALLS} calls of the log. */
  async estimateOpeners(models: readonly string[]): Promise<OpenerEstimate[]> {
    // Read asynchronously, parsed in slices and each estimate worked out in slices of calls: the
    // extension host's thread keeps serving while a 100k-row log comes in (it was held 2–7 s in one
    // piece, then up to 381 ms by one model's estimate of 10,000 calls; BENCHMARKS.md).
    // The file's bytes, decoded a line at a time as they are parsed: decoding it whole was one more block.
    const text = await this.store.decisions.text();
    // Only the newest calls' rows are parsed and the older ones counted by id: on a 100k-row log that
    // halved the What if's wall and CPU time (BENCHMARKS.md).
    const { log: recent, callsInLog } = await readRecentLoggedCalls(text, MAX_ESTIMATED_CALLS, yieldToHost);
    const estimates: OpenerEstimate[] = [];
    // One fit of the outcome model for every panel model: it reads the log, not the opener.
    const outcomeModel = new SharedOutcomeModel(recent.calls);
    for (const model of models) {
      await yieldToHost();
      const estimate = openerEstimate(
        model,
        await estimatePolicyInSlices(recent, { open: model, skip: [] }, yieldToHost, { outcomeModel }),
      );
      estimates.push(callsInLog > MAX_ESTIMATED_CALLS ? { ...estimate, logCalls: callsInLog } : estimate);
    }
    return estimates;
  }
}

/** The panel's dearest model with a known price (by output, then input price, per million tokens). */
function dearestModel(panel: Panel, facts: ReadonlyMap<string, ModelFacts>): { slug: string; price: Price } | undefined {
  let dearest: { slug: string; price: Price } | undefined;
  for (const spec of panel.models) {
    const price = spec.price ?? facts.get(spec.slug)?.price;
    if (!price) continue;
    if (!dearest || price.output > dearest.price.output || (price.output === dearest.price.output && price.input > dearest.price.input)) {
      dearest = { slug: spec.slug, price };
    }
  }
  return dearest;
}

/**
 * The rating's standard error, logits: from the Fisher information its evidence holds, where the ledger
 * counts it (schema v5 on).
 *
 * @remarks
 * Counting every graded outcome as if it were on a call of average difficulty (graded × p(1 − p), the
 * fallback for ratings that never counted their information) shows a dear rung with 30 failures on
 * calls nobody answers as firmly measured, when those failures say almost nothing and its rating
 * stands on the prior it presumes from the cheaper rungs: its interval should say so.
 */
function ratingStandardError(p: number, entry: Pick<Rating, 'graded' | 'information'>): number {
  const information = entry.information ?? entry.graded * p * (1 - p);
  return 1 / Math.sqrt(1 / PRIOR_VARIANCE + information);
}

/** The estimate the panel shows: the paired comparison with the log, or why there is none, as a kind the page words. */
function openerEstimate(model: string, estimate: PolicyEstimate): OpenerEstimate {
  if (estimate.versusLog) return { model, calls: estimate.calls, versusLog: estimate.versusLog };
  // The order estimatePolicy refuses in: an empty log, then a model seldom a candidate, then too few openings.
  const all = estimate.calls + estimate.unsupported;
  const refused = all === 0 ? 'no-calls' : estimate.unsupported > MAX_UNSUPPORTED_SHARE * all ? 'not-a-candidate' : 'too-few';
  return { model, calls: estimate.calls, refused };
}

/** Lets the thread serve whatever else is waiting before the next slice of work. */
function yieldToHost(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
