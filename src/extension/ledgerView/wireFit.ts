/**
 * Fits a message for the ledger page to the protocol's limits before the host posts it: texts and
 * names cut with a marked truncation, and any item that still would not parse left out and counted.
 *
 * @remarks
 * The page parses every message whole and drops one that does not parse. A decision log holds rows
 * this Rung did not write — from an older Rung, a team member, another tool, a hand edit — and one
 * reason of 3 MiB, or one model id of 600 characters, made the page drop every snapshot holding it:
 * the panel stayed on "Loading the ledger…" for good, with a line in the webview's console only.
 * Cut here, the page shows such a row like any other (`… [truncated, 3,145,728 characters]`); a row
 * that is wrong in another way (a propensity of 5) is left out of the page rather than taking the
 * page with it, and the log says so. A message that still does not parse is not posted: the page gets
 * a notice saying so instead, so it never waits for a snapshot that will not come.
 */
import { boundText } from '../../core/boundedText';
import {
  decisionSchema,
  hostMessageSchema,
  modelSchema,
  openerEstimateSchema,
  providerSchema,
  ratingSchema,
  unhandled,
  WIRE_NAME_CHARS,
  WIRE_TEXT_CHARS,
  type DecisionPageWire,
  type DecisionWire,
  type HostMessage,
  type ModelWire,
  type OpenerEstimateWire,
  type ProviderWire,
  type RatingWire,
  type SpendWire,
} from '../../protocol/ledgerProtocol';

/** Where fitting says what it left out or could not send. */
export interface FitLog {
  warn(message: string): void;
  error(message: string): void;
}

/** A text cut to {@link WIRE_TEXT_CHARS}, marked. */
export function fitText(text: string): string {
  return boundText(text, WIRE_TEXT_CHARS);
}

/** A name cut to {@link WIRE_NAME_CHARS}, marked and keyed, so two long names stay two on the page. */
export function fitName(name: string): string {
  return boundText(name, WIRE_NAME_CHARS, { keyed: true });
}

/**
 * `message` as the page can take it, or undefined when nothing of it can be sent (a new decision row
 * that does not parse even cut: it shows with the next page instead).
 *
 * @returns the message to post: the fitted one, or a notice saying what could not be sent.
 */
export function fitHostMessage(message: HostMessage, log: FitLog): HostMessage | undefined {
  const fitted = fitParts(message, log);
  if (fitted === undefined) return undefined;
  const parsed = hostMessageSchema.safeParse(fitted);
  if (parsed.success) return fitted;
  const issue = firstIssue(parsed.error.issues);
  log.error(`ledger panel: could not send a '${message.type}' message the page would take (${issue}); sent a notice instead`);
  return {
    type: 'notice',
    level: 'error',
    message: `Rung could not show this part of the ledger (${issue}). The Rung log (Rung: Show Log) has the details.`,
  };
}

function fitParts(message: HostMessage, log: FitLog): HostMessage | undefined {
  switch (message.type) {
    case 'snapshot':
      return {
        ...message,
        models: keep(message.models.map(fitModel), modelSchema, 'panel models', log),
        ratings: keep(message.ratings.map(fitRating), ratingSchema, 'ratings', log),
        decisions: fitPage(message.decisions, log),
        spend: fitSpend(message.spend),
        providers: keep(message.providers.map(fitProvider), providerSchema, 'providers', log),
      };
    case 'page':
      return { ...message, decisions: fitPage(message.decisions, log) };
    case 'decision-added': {
      const row = fitDecision(message.row);
      const parsed = decisionSchema.safeParse(row);
      if (parsed.success) return { ...message, row };
      log.warn(
        `ledger panel: a new decision row of call ${fitName(message.row.call)} cannot be shown (${firstIssue(parsed.error.issues)}); it is left out of the page`,
      );
      return undefined;
    }
    case 'ratings-changed':
      return { ...message, ratings: keep(message.ratings.map(fitRating), ratingSchema, 'ratings', log) };
    case 'spend-changed':
      return { ...message, spend: fitSpend(message.spend) };
    case 'panel-changed':
      return {
        ...message,
        models: keep(message.models.map(fitModel), modelSchema, 'panel models', log),
        providers: keep(message.providers.map(fitProvider), providerSchema, 'providers', log),
      };
    case 'notice':
      return { ...message, message: fitText(message.message) };
    case 'opener-estimates':
      return { ...message, estimates: keep(message.estimates.map(fitEstimate), openerEstimateSchema, 'opener estimates', log) };
    default:
      return unhandled(message);
  }
}

/** A decision row with every text and name cut to the wire's limits. */
export function fitDecision(row: DecisionWire): DecisionWire {
  return {
    ...row,
    call: fitName(row.call),
    classKey: fitName(row.classKey),
    candidates: row.candidates.map(fitName),
    escalation: row.escalation.map(fitName),
    model: fitName(row.model),
    resolved: row.resolved === null ? null : fitName(row.resolved),
    verdictReason: row.verdictReason === null ? null : fitText(row.verdictReason),
    reason: fitText(row.reason),
    pruned: row.pruned.map((entry) => ({ model: fitName(entry.model), reason: fitText(entry.reason) })),
    ...(row.source !== undefined ? { source: fitName(row.source) } : {}),
    ...(row.policy !== undefined ? { policy: fitName(row.policy) } : {}),
  };
}

function fitPage(page: DecisionPageWire, log: FitLog): DecisionPageWire {
  return { ...page, rows: keep(page.rows.map(fitDecision), decisionSchema, 'decision rows', log, (row) => `call ${row.call}`) };
}

function fitRating(rating: RatingWire): RatingWire {
  return { ...rating, model: fitName(rating.model), classKey: fitName(rating.classKey) };
}

function fitModel(model: ModelWire): ModelWire {
  return { ...model, slug: fitName(model.slug), provider: fitName(model.provider) };
}

function fitProvider(provider: ProviderWire): ProviderWire {
  return { ...provider, name: fitName(provider.name), ...(provider.reason !== undefined ? { reason: fitText(provider.reason) } : {}) };
}

function fitEstimate(estimate: OpenerEstimateWire): OpenerEstimateWire {
  return { ...estimate, model: fitName(estimate.model) };
}

function fitSpend(spend: SpendWire): SpendWire {
  return {
    ...spend,
    byDay: spend.byDay.map((day) => ({ ...day, model: fitName(day.model), provider: fitName(day.provider) })),
    strongestModel: spend.strongestModel === null ? null : fitName(spend.strongestModel),
  };
}

/**
 * The items that parse; the others are left out, counted once in the log with the first one's fault
 * (named by `label`, else by its place in the list).
 */
function keep<T>(
  items: T[],
  schema: { safeParse(data: unknown): { success: true } | { success: false; error: { issues: readonly Issue[] } } },
  what: string,
  log: FitLog,
  label: (item: T, index: number) => string = (_item, index) => `#${index + 1}`,
): T[] {
  const kept: T[] = [];
  let first: string | undefined;
  for (const [index, item] of items.entries()) {
    const parsed = schema.safeParse(item);
    if (parsed.success) kept.push(item);
    else first ??= `${label(item, index)}: ${firstIssue(parsed.error.issues)}`;
  }
  if (first !== undefined)
    log.warn(`ledger panel: left out ${items.length - kept.length} of ${items.length} ${what} the page cannot show (${first})`);
  return kept;
}

interface Issue {
  path: readonly PropertyKey[];
  code: string;
}

function firstIssue(issues: readonly Issue[]): string {
  const issue = issues[0];
  return issue ? `${issue.path.map(String).join('.') || '(message)'}: ${issue.code}` : 'no reason given';
}
