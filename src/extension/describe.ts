/**
 * The words the extension shows for the session's data: status bar text, picker rows, verdicts, an
 * explained decision. What a finished call says of itself is calls/answerLine.ts.
 *
 * @remarks
 * One module of plain functions so the chat participant, the commands and the status bar say a thing
 * the same way, and so the wording is tested without an editor. Nothing here decides anything: every
 * figure comes from the session (a ranking, a result, decision rows).
 */
import type { DecisionRow } from '../core/decisions/decision';
import type { ModelSpec } from '../core/panel';
import { MIN_GRADED } from '../core/ratings';
import type { Candidate, OpenedForWait, Ranking } from '../core/routing/types';
import type { RatingView } from '../core/session/types';
import { durationWords, type TimingFigures } from '../core/timing';
import { formatUsd } from '../protocol/formatUsd';
import { openerChoiceText, plainPrunedReason, plainReason } from '../protocol/reasonText';
import { toolsLogText } from './calls/toolsLine';
import { codeSpan, markdownText } from './markdownText';

export { formatUsd };

/** A model's price as the session knows it (the panel's, the catalog's, a local model's 0). */
export interface KnownPrice {
  input: number;
  output: number;
  from: 'panel' | 'catalog' | 'local';
}

/**
 * A model's price per million tokens, in and out, or what is not known of it.
 *
 * @remarks
 * The price the router uses: the panel's own, else the one the provider's catalog gave ("from
 * catalog"). Pick Model read the panel's alone and said "price from catalog" for a model whose
 * catalog price had been fetched and used, as if none were known.
 */
export function formatPrice(spec: ModelSpec, local: boolean, known?: KnownPrice): string {
  if (spec.price) return `$${spec.price.input}/$${spec.price.output} per M`;
  if (known && known.from === 'catalog') return `$${known.input}/$${known.output} per M (from catalog)`;
  return local || known?.from === 'local' ? 'free (local)' : 'price unknown';
}

/**
 * A panel model's price as the editor's model picker shows it beside the name (`detail`): USD per million
 * tokens in and out, "free (local)", or "price unknown".
 *
 * @remarks
 * The picker of VS Code 1.139 shows a model's `detail` in its row and its `tooltip` on hover. It also
 * reads `pricing`, `inputCost` and `outputCost`, but shows `pricing` only beside a Copilot premium
 * multiplier (`multiplierNumeric`), and the costs as Copilot credits per million tokens, which a price
 * in dollars is not: so Rung leaves those unset and says the price in its own words.
 */
export function pickerPrice(spec: ModelSpec, local: boolean, known: KnownPrice | undefined): string {
  // A local provider is free whether or not a session has opened: the editor asks for its models once at
  // start, often before the session is open, and kept "price unknown" for a local model when a later
  // refresh was not taken up.
  if (local || known?.from === 'local' || (known && known.input === 0 && known.output === 0)) return 'free (local)';
  const price = spec.price ?? known;
  if (!price) return 'price unknown';
  return `$${price.input} in / $${price.output} out per M tokens${!spec.price && known?.from === 'catalog' ? ' (catalog)' : ''}`;
}

/** Ability as a percentage with the evidence behind it: measured, or the prior below the gate. */
export function formatAbility(candidate: Pick<Candidate, 'ability' | 'graded' | 'ok' | 'measured'>): string {
  const percent = `${Math.round(candidate.ability * 100)}%`;
  return candidate.measured
    ? `ability ${percent} (${candidate.ok}/${candidate.graded} graded)`
    : `ability ${percent} (prior, ${candidate.graded} graded)`;
}

export interface StatusView {
  pinned: string | undefined;
  last: { model: string; cost: number } | undefined;
  today: number | undefined;
  /** Why the session cannot route (no panel), when it cannot. */
  problem?: string | undefined;
  /** The newest warning the session raised since the user last looked at the log. */
  warning?: string | undefined;
  /** Each provider and why it cannot take a call, when none of the panel's providers can. */
  unreachable?: readonly string[] | undefined;
  /**
   * Providers down while others still answer, each with why in words (`acme is unreachable (…)`): the
   * router routes around them, but a user who counts on the strong model should see it before asking.
   */
  down?: readonly { provider: string; text: string }[] | undefined;
  /** Today's spend has reached the daily budget (USD): paid models are off until tomorrow (UTC). */
  overBudget?: { spent: number; budget: number } | undefined;
}

/** The status bar's text: `Rung: Auto · qwen3:14b $0 · today $0.0012`. */
export function statusText(view: StatusView): string {
  if (view.problem) return '$(warning) Rung: not set up';
  const mode = view.unreachable ? 'no model reachable' : view.pinned ? `$(pinned) ${view.pinned}` : 'Auto';
  const down = !view.unreachable && view.down?.length ? view.down : undefined;
  const marked = view.warning || view.unreachable || down || view.overBudget;
  const parts = [`${marked ? '$(warning)' : '$(layers)'} Rung: ${mode}`];
  if (down) parts.push(`${down.map((entry) => entry.provider).join(', ')} down`);
  if (view.last) parts.push(`${view.last.model} ${formatUsd(view.last.cost)}`);
  if (view.overBudget) parts.push(`budget spent: today ${formatUsd(view.overBudget.spent)} of ${formatUsd(view.overBudget.budget)}`);
  else if (view.today !== undefined) parts.push(`today ${formatUsd(view.today)}`);
  return parts.join(' · ');
}

/** The status bar's tooltip, in full sentences. */
export function statusTooltip(view: StatusView & { budget: number | null }): string {
  if (view.problem) return `Rung cannot route yet: ${view.problem}`;
  const unreachable = view.unreachable
    ? [`No model on the panel can answer now:\n${view.unreachable.map((reason) => `- ${reason}`).join('\n')}`]
    : [];
  if (view.warning) return [...unreachable, `Rung warned: ${view.warning}`, 'Click to see it in the Rung log.'].join('\n');
  const lines = unreachable.length
    ? unreachable
    : [
        view.pinned
          ? `Pinned: ${view.pinned} opens every call; the panel's later rungs stay as fallbacks.`
          : 'Auto: every call opens on the cheapest rung that can do it.',
      ];
  if (!view.unreachable && view.down?.length)
    lines.push(`Down now, routed around: ${view.down.map((entry) => `${entry.text}`).join('; ')}.`);
  if (view.overBudget) {
    lines.push(
      `Today's budget of ${formatUsd(view.overBudget.budget)} is spent (${formatUsd(view.overBudget.spent)} so far): paid models are off until tomorrow (UTC); local models still answer. Raise it with the rung.dailyBudget setting.`,
    );
  }
  if (view.last) lines.push(`Last answer: ${view.last.model}, ${formatUsd(view.last.cost)}.`);
  if (view.today !== undefined && !view.overBudget)
    lines.push(`Spent today: ${formatUsd(view.today)}${view.budget !== null ? ` of a ${formatUsd(view.budget)} daily budget` : ''}.`);
  lines.push('Click to open the ledger.');
  return lines.join('\n');
}

/** One row of Pick Model. */
export interface PickRow {
  /** The model to pin; undefined for "Auto". */
  slug: string | undefined;
  label: string;
  description: string;
  detail: string;
}

/** What a class's calls are called in a sentence: `edits`, `plan calls`, `mmlu calls`. */
function callsOfClass(classKey: string): string {
  const cls = classKey.split('/')[0] ?? classKey;
  switch (cls) {
    case 'edit':
      return 'edits';
    case 'chat':
      return 'chat answers';
    case 'plan':
      return 'plan calls';
    case 'leaf':
      return 'tasks';
    default:
      return `${cls} calls`;
  }
}

/**
 * Why a call did not open on the model money alone would open with, in words: `qwen2.5-coder:1.5b
 * passed 1 of 9 edits, and each failed try cost you about 3.1 s`.
 *
 * @remarks
 * A model that fails most of its tries is said by what its failures cost; one that passes most but is
 * slow, by how long a try takes; a busy local server, by how long the calls already on it have left.
 */
export function openedForWaitText(note: OpenedForWait): string {
  const passes = `${note.model} passed ${note.ok} of ${note.graded} ${callsOfClass(note.classKey)}`;
  const failsMostly = note.graded > 0 && note.ok / note.graded < 0.5;
  const each =
    note.meanMs === null
      ? ''
      : failsMostly
        ? `, and each failed try cost you about ${durationWords(note.meanMs)}`
        : `, and a try takes about ${durationWords(note.meanMs)}`;
  const busy =
    note.queuedCalls > 0
      ? `${each ? ';' : ','} it is answering ${note.queuedCalls === 1 ? 'another call' : `${note.queuedCalls} other calls`} now (about ${durationWords(note.queuedMs)} left)`
      : '';
  return `${passes}${each}${busy}`;
}

/** A model's time at a class as Pick Model shows it: `about 3.1 s a call (first token 0.4 s, 42 tokens/s)`. */
export function timingText(timing: TimingFigures): string {
  const details = [
    ...(timing.firstTokenMs !== undefined ? [`first token ${durationWords(timing.firstTokenMs)}`] : []),
    ...(timing.tokensPerSecond !== undefined ? [`${Math.round(timing.tokensPerSecond)} tokens/s`] : []),
  ];
  return `about ${durationWords(timing.meanMs)} a call${details.length ? ` (${details.join(', ')})` : ''}`;
}

/**
 * Auto's row in Pick Model: where a call of the class opens now, and why in words when the wait moved
 * it (`opens on acme/coder-large:` beside Auto, what the passed model did on the line below).
 *
 * @remarks
 * The quick pick cuts a line at about 90 characters: with the whole sentence on the second line, a
 * user saw "…and each failed try cos…", the figure that says why cut off. A row moved by the wait
 * leaves out "climbs on a failed check", the part that was cut (the row says it when the wait moved
 * nothing, and a climbed answer's line shows it), so the reason is read whole.
 */
function autoRow(ranking: Ranking): { description: string; detail: string } {
  const route = `route ${ranking.classKey} calls by the ledger`;
  const opening = ranking.opening;
  const opener = ranking.candidates[opening?.index ?? 0];
  if (!opener) return { description: route, detail: 'no eligible rung now' };
  if (opening?.openedForWait)
    return {
      description: `${route} · opens on ${opener.slug}:`,
      detail: openedForWaitText(opening.openedForWait),
    };
  return { description: route, detail: `opens on ${opener.slug} now; climbs on a failed check` };
}

/**
 * Pick Model's rows: Auto, then the chain in order, then every pruned rung with its reason. `timings`
 * are the ratings' times at the class (the session's snapshot), shown beside each model that has one.
 */
export function pickRows(
  ranking: Ranking,
  panelModels: ModelSpec[],
  pinned: string | undefined,
  prices: readonly (KnownPrice & { model: string })[] = [],
  ratings: readonly Pick<RatingView, 'model' | 'classKey' | 'timing'>[] = [],
): PickRow[] {
  const priceOf = (slug: string): KnownPrice | undefined => prices.find((price) => price.model === slug);
  const timingOf = (candidate: Candidate): TimingFigures | undefined => {
    const keys = [ranking.classKey, ranking.classKey.split('/')[0]];
    for (const key of keys) {
      const found = ratings.find(
        (rating) => rating.classKey === key && (rating.model === candidate.slug || rating.model === candidate.resolved),
      );
      if (found?.timing) return found.timing;
    }
    return undefined;
  };
  const rows: PickRow[] = [
    {
      slug: undefined,
      label: `${pinned ? '' : '$(check) '}Auto`,
      ...autoRow(ranking),
    },
  ];
  for (const [index, candidate] of ranking.candidates.entries()) {
    const timing = timingOf(candidate);
    rows.push({
      slug: candidate.slug,
      label: `${candidate.slug === pinned ? '$(pinned) ' : ''}${candidate.slug}`,
      description: `${candidate.provider} · ${formatPrice(candidate.spec, candidate.local, priceOf(candidate.slug))} · ${formatAbility(candidate)}${timing ? ` · ${timingText(timing)}` : ''}`,
      detail: `rung ${index + 1} for ${ranking.classKey}: ${plainReason(candidate.reason)}`,
    });
  }
  for (const pruned of ranking.pruned) {
    const spec = panelModels.find((model) => model.slug === pruned.model);
    rows.push({
      slug: pruned.model,
      label: `${pruned.model === pinned ? '$(pinned) ' : ''}$(circle-slash) ${pruned.model}`,
      description: spec ? `${spec.provider} · ${formatPrice(spec, false, priceOf(pruned.model))}` : '',
      detail: plainPrunedReason(pruned.reason),
    });
  }
  return rows;
}

/** A verdict and its reason as one phrase, without saying the verdict twice. */
export function verdictPhrase(verdict: { kind: string; reason: string }): string {
  if (!verdict.reason) return verdict.kind;
  return verdict.reason.startsWith(`${verdict.kind}: `) ? verdict.reason : `${verdict.kind}: ${verdict.reason}`;
}

/**
 * Why a call climbed, without the "escalated from A to B" the session's reason already opens with
 * (a front end that names both models itself would otherwise say it twice).
 */
export function escalationCause(event: { from: string; to: string; reason: string }): string {
  const prefix = `escalated from ${event.from} to ${event.to}: `;
  return event.reason.startsWith(prefix) ? event.reason.slice(prefix.length) : event.reason;
}

/** What each built-in class is, for a reader who has not met the word. */
const CLASS_WORDS: Record<string, string> = {
  plan: 'one whose answer can be checked at once (structured output, a plan, JSON)',
  chat: 'a free-form answer',
  edit: 'a code change',
  leaf: 'a whole multi-turn piece of work',
};

/** How one attempt ended, as a verb phrase after its model, with the check's reason. */
function attemptEnded(row: DecisionRow): string {
  const reason = row.verdictReason?.startsWith(`${row.verdict}: `) ? row.verdictReason.slice(row.verdict.length + 2) : row.verdictReason;
  const because = reason ? `: ${markdownText(reason)}` : '';
  switch (row.verdict) {
    case 'pass':
      return `passed its check${because}`;
    case 'fail':
      return `failed its check${because}`;
    case 'unverified':
      return `answered, unchecked${because}`;
    case 'provider-error':
      return `had a provider error${because}`;
    case 'stopped':
      return `was stopped${because}`;
    case 'interrupted':
      return `was cut off${because}`;
    case 'refused':
      return `was refused${because}`;
  }
}

function durationText(ms: number | null): string {
  if (ms === null) return 'time unknown';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Whether a ranking reason says the model was placed by the ladder's prior, not by its graded answers. */
function unmeasured(reason: string): boolean {
  return /(^|; )(no-measured-profiles|below gate) /.test(reason);
}

/**
 * A call's decision rows as Markdown, in words: which models were tried and how each ended, why each
 * was where it was, how the first was chosen, which were not tried or left out and why, which are not
 * yet measured, and a verdict settled later. Explain Last Decision opens it; `/why` shows it in the chat.
 *
 * @remarks
 * It showed the call id as its title and the router's own tokens (`no-measured-profiles tier1`, "rung 1
 * of 2", "propensity 1.00"): a reader asking "why this model?" met an internal log. The figures are the
 * rows' own; the decision log and the Rung log keep the router's wording for whoever greps them, and the
 * call id is a last line, for finding the call there. Every string a row supplies (a model id is what a
 * provider reported; a reason quotes a check or a provider; a shared row is a teammate's) goes in escaped
 * or as a code span (markdownText.ts), so none of it is read as Markdown.
 */
export function explainMarkdown(callId: string, rows: DecisionRow[]): string {
  const detail = ['---', `Call id ${codeSpan(callId)}${rows[0]?.run ? ` · conversation ${codeSpan(rows[0].run)}` : ''}`];
  if (rows.length === 0)
    return `${['# A call Rung has no record of', '', 'The decision log has no row for this call.', '', ...detail].join('\n')}\n`;
  const first = rows[0] as DecisionRow;
  const classKey = first.shape ? `${first.class}/${first.shape}` : first.class;
  const kind = CLASS_WORDS[first.class];
  const attempts = rows.filter((row) => !row.final && row.verdict !== 'refused');
  const refused = rows.find((row) => !row.final && row.verdict === 'refused');
  const last = attempts.at(-1);
  const title =
    last && (last.verdict === 'pass' || last.verdict === 'unverified')
      ? `Why ${markdownText(last.model)} answered`
      : attempts.length === 0
        ? 'Why no model took this call'
        : 'How this call was routed';
  const lines = [
    `# ${title}`,
    '',
    `A call of class ${codeSpan(classKey)}${kind ? `: ${kind}${first.shape ? `, in ${markdownText(first.shape)}` : ''}` : ''}.`,
    '',
  ];
  if (refused) lines.push(`No model could take it: ${markdownText(refused.verdictReason ?? 'no reason recorded')}.`, '');
  attempts.forEach((row, index) => {
    const served = row.resolved && row.resolved !== row.model ? `, served as ${markdownText(row.resolved)}` : '';
    const why = `Why it came ${index === 0 ? 'first' : 'next'}: ${markdownText(plainReason(row.reason) || 'no reason recorded')}.`;
    const choice = index === 0 ? ` ${openerChoiceText(row.explore, row.propensity)}` : '';
    const tools = row.tools ? ` Tool schemas sent: ${markdownText(toolsLogText(row.tools))}.` : '';
    lines.push(
      `${index + 1}. **${markdownText(row.model)}** (${markdownText(row.mode)}${served}) ${attemptEnded(row)}. ${why}${choice} ${formatUsd(row.cost)}, ${durationText(row.latencyMs)}.${tools}`,
    );
  });
  if (attempts.length) lines.push('');
  const tried = new Set(attempts.map((row) => row.model));
  const untried = (last?.candidates ?? []).filter((model) => !tried.has(model));
  if (untried.length && last && (last.verdict === 'pass' || last.verdict === 'unverified'))
    lines.push(`Not tried, since an answer stood before them: ${untried.map(markdownText).join(', ')}.`, '');
  const leftOut = new Map<string, string>();
  for (const row of [refused, ...attempts])
    for (const entry of row?.pruned ?? [])
      if (!leftOut.has(entry.model)) leftOut.set(entry.model, plainPrunedReason(entry.reason).replace(/^pruned: /, ''));
  if (leftOut.size)
    lines.push(
      'Left out of this call:',
      ...[...leftOut].map(([model, reason]) => `- **${markdownText(model)}**: ${markdownText(reason)}`),
      '',
    );
  const fresh = [...new Set(attempts.filter((row) => unmeasured(row.reason)).map((row) => row.model))];
  if (fresh.length) {
    lines.push(
      `Not yet measured in ${codeSpan(classKey)}: ${fresh.map(markdownText).join(', ')}. Until ${MIN_GRADED} of a model's answers in a class are graded, its place comes from its size on the ladder, not from its record.`,
      '',
    );
  }
  for (const row of rows.filter((entry) => entry.final)) {
    const counts = row.verdict === 'pass' ? 'passed' : row.verdict === 'fail' ? 'failed' : row.verdict;
    lines.push(
      `Settled later: ${markdownText(row.model)}'s answer counts as ${markdownText(counts)}${row.verdictReason ? ` (${markdownText(row.verdictReason)})` : ''}.`,
      '',
    );
  }
  return `${[...lines, ...detail].join('\n')}\n`;
}

/**
 * Whether to tell the user, in a notification, that today's budget is spent: once a UTC day, the first
 * time the status bar sees spend at or past the budget. `warnedDay` is the day it last did.
 */
export function budgetNoticeDue(today: number | undefined, budget: number | null, day: string, warnedDay: string | undefined): boolean {
  return budget !== null && today !== undefined && today >= budget && warnedDay !== day;
}
