/**
 * What Rung says when a request gets no answer, as one plain sentence with what to do: for the error
 * Rung Auto hands the editor, and for the reasons a front end shows for a model left out.
 *
 * @remarks
 * VS Code 1.139's chat agent shows a contributed model's error as "Sorry, your request failed … Reason:"
 * followed by the error's message and, when the error carries one, its whole stack, with the paths into
 * Rung's bundle (`at RungSettings.read (…/extension.js:20017:13)`). A `vscode.LanguageModelError` does
 * not help: the editor rebuilds one in the caller's extension host, with a fresh stack of its own. So
 * the error thrown is a {@link PlainError}, whose stack is empty, and its message is written for the
 * person reading it, never the router's record (`no model can take this call (…: pruned: …)`).
 *
 * No vscode here, so every sentence is unit-tested.
 */
import type { Session } from '../../core/session/types';
import { isSpendLimitReason, plainPrunedReason, providerDownText } from '../../protocol/reasonText';
import type { AttemptOutcome } from './answerLine';

export { providerDownText };

/** An error whose message is the whole story: no stack for the editor to print. */
export class PlainError extends Error {
  constructor(message: string) {
    super(message);
    // Every message already starts with "Rung …"; a name of its own would print "Rung: Rung got no answer"
    // wherever the error is turned into a string (an API caller's log, a notification).
    this.name = 'Error';
    // The editor prints `message: stack` when a stack is there; an empty one leaves the message alone.
    this.stack = '';
  }
}

/** How a user starts when Rung has nothing to route to: the same words @rung shows. */
export const HOW_TO_START =
  'Start Ollama with a model pulled (ollama serve, then ollama pull qwen2.5-coder:7b), or describe a panel in .rung/panel.json and set its provider\'s key with "Rung: Set Provider Key".';

/** A left-out model's router reason, when it is a provider being down: `[provider, what it said]`. */
function downReason(reason: string): [string, string] | undefined {
  const match = /^(?:pruned: )?provider (\S+) unavailable: (.*)$/.exec(reason);
  return match ? [match[1] as string, match[2] as string] : undefined;
}

/** A left-out model's router reason, when it is the daily budget: the limit and today's spend, as written. */
function budgetReason(reason: string): { limit: string; spent: string } | undefined {
  const match = /^(?:pruned: )?daily budget (\$[\d.]+) reached \((\$[\d.]+) spent today\)$/.exec(reason);
  return match ? { limit: match[1] as string, spent: match[2] as string } : undefined;
}

/** What to do once the daily budget is spent. */
export function budgetSpentText(limit: string, spent: string): string {
  return `Today's budget of ${limit} is spent (${spent} so far), so Rung asks no paid model until tomorrow (UTC); local models still answer. Raise it with the rung.dailyBudget setting to go on now.`;
}

/**
 * Why a spending limit left paid models out of a call, and what to do, from the router's reason for
 * one of them; undefined when no limit did.
 *
 * @remarks
 * The day's budget spent keeps its sentence; a paid attempt that would have taken the day past the
 * budget, or one answer past its ceiling, says what it may have cost and which setting to raise.
 */
function spendLimitText(pruned: readonly { model: string; reason: string }[]): string | undefined {
  for (const entry of pruned) {
    const spent = budgetReason(entry.reason);
    if (spent) return budgetSpentText(spent.limit, spent.spent);
  }
  const entry = pruned.find((candidate) => isSpendLimitReason(candidate.reason));
  if (!entry) return undefined;
  const setting = /answer ceiling/.test(entry.reason) ? 'rung.maxAnswerCost' : 'rung.dailyBudget';
  return `${entry.model} was not asked: ${plainPrunedReason(entry.reason)}. Local models still answer; raise ${setting} to let it.`;
}

/**
 * Why a call stopped at an answer that failed its check, when a spending limit kept it from climbing:
 * that answer's model and its check's reason, then the limit; undefined when no limit stopped it so.
 *
 * @remarks
 * "Budget spent" alone hid that a local model had answered, and what was wrong with its answer; the
 * model picker shows this under that answer rather than as an error, which the Chat view would show
 * in place of it.
 */
export function limitStoppedText(
  last: AttemptOutcome | undefined,
  pruned: readonly { model: string; reason: string }[],
): string | undefined {
  const limit = spendLimitText(pruned);
  if (!limit || last?.verdict.kind !== 'fail') return undefined;
  return `${last.model}'s answer failed its check (${last.verdict.reason}). ${limit}`;
}

/**
 * Each provider a call found down, in words (`acme is unreachable (connection refused at …)`): from the
 * router's reasons for the models it left out, and from the last attempt when its provider failed.
 */
export function downTexts(last: AttemptOutcome | undefined, pruned: readonly { model: string; reason: string }[]): string[] {
  const down = new Map<string, string>();
  for (const entry of pruned) {
    const found = downReason(entry.reason);
    if (found) down.set(found[0], providerDownText(found[0], found[1]));
  }
  if (last && (last.verdict.kind === 'provider-error' || last.verdict.failure === 'unavailable')) {
    const provider = /^(?:provider-error: )?([^:\s]+): /.exec(last.verdict.reason)?.[1];
    if (provider) down.set(provider, providerDownText(provider, last.verdict.reason.replace(/^provider-error: /, '')));
    else down.set(last.model, `${last.model} failed: ${last.verdict.reason}`);
  }
  return [...down.values()];
}

/**
 * Why a call got no answer, in one or two sentences with what to do, from its last attempt and the
 * router's reasons for the models it left out: a provider down, the budget spent, a check every rung
 * failed, or nothing on the panel.
 */
export function noAnswerText(last: AttemptOutcome | undefined, pruned: readonly { model: string; reason: string }[]): string {
  const down = downTexts(last, pruned);
  const limit = spendLimitText(pruned);
  const stopped = limitStoppedText(last, pruned);
  const sentences: string[] = [];
  if (down.length > 0) sentences.push(`${down.join('; ')}.`);
  if (stopped) sentences.unshift(stopped);
  else if (limit) sentences.push(limit);
  if (sentences.length > 0) {
    if (down.length > 0 && !limit) sentences.push('Try again once it is back, or pick another model.');
    return `Rung got no answer: ${sentences.join(' ')}`;
  }
  if (last) {
    return `Rung got no answer: ${last.model}, the last model tried, ended ${last.verdict.kind === 'fail' ? `failing its check (${last.verdict.reason})` : last.verdict.reason || last.verdict.kind}. Rephrase the request, or add a stronger model to the panel.`;
  }
  const left = pruned.map((entry) => entry.model);
  return `Rung got no answer: no model on the panel can take this call${left.length ? ` (${left.join(', ')} left out; "Rung: Pick Model" says why)` : ''}.`;
}

/** The names the errors Rung meets carry, so this module need not import the classes (one imports vscode). */
const NOT_SET_UP = 'NotSetUpError';
const PANEL_ERROR = 'PanelError';
const CONTEXT_REFUSAL = 'ContextRefusalError';
const ROUTING_ERROR = 'RoutingError';
const INVALID_SCHEMA = 'InvalidSchemaError';

/**
 * Any error a request met before an answer, as a {@link PlainError} the editor can show: no stack, no
 * class name, no path into Rung's bundle, and what to do.
 */
export function plainError(error: unknown): PlainError {
  if (error instanceof PlainError) return error;
  const name = error instanceof Error ? error.name : '';
  const message = firstLine(error instanceof Error ? error.message : String(error));
  switch (name) {
    case NOT_SET_UP:
      return new PlainError(`Rung has nothing to route to yet: ${message}. ${HOW_TO_START}`);
    case PANEL_ERROR:
      return new PlainError(
        `Rung's panel is invalid (${message.replace(/: invalid panel$/, '')}); open it and mend it, the Rung log says what is wrong.`,
      );
    case CONTEXT_REFUSAL:
      return new PlainError(`Rung cannot send this request: ${message}. Shorten it, or add a model with a larger context to the panel.`);
    case INVALID_SCHEMA:
      return new PlainError(`Rung cannot check this request's answer: ${message}.`);
    case ROUTING_ERROR: {
      const pruned =
        error instanceof Error && 'pruned' in error && Array.isArray(error.pruned)
          ? (error.pruned as { model: string; reason: string }[])
          : [];
      if (pruned.length > 0) return new PlainError(noAnswerText(undefined, pruned));
      return new PlainError(`Rung could not route this request: ${message}.`);
    }
    default:
      return new PlainError(`Rung could not answer: ${message}. "Rung: Show Log" has the details.`);
  }
}

/** The first line of a message: a panel error lists its issues below it, which a one-line box cuts. */
function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/[.\s]+$/, '');
}

/**
 * Why a retry above `model` would be refused now (the budget spent, the stronger providers down), in
 * words; undefined when a stronger rung would take it, or when no session is open to ask.
 */
export function retryRefusal(session: Pick<Session, 'rank'> | undefined, classKey: string, model: string): string | undefined {
  if (!session) return undefined;
  let ranking;
  try {
    ranking = session.rank({ classKey, above: model });
  } catch {
    return undefined;
  }
  if (ranking.candidates.length > 0) return undefined;
  const reasons = ranking.pruned
    .filter((entry) => entry.model !== model && !/not above .* on the ladder/.test(entry.reason))
    .map((entry) => `${entry.model}: ${plainPrunedReason(entry.reason)}`);
  return reasons.length > 0 ? reasons.join('; ') : 'nothing stronger is on the panel';
}
