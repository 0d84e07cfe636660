/**
 * The words the extension shows for the session's data: status bar text, picker rows, verdicts, an
 * explained decision. What a finished call says of itself is calls/answerLine.ts.
 *
 * @remarks
 * One module of plain functions so the chat participant, the commands and the status bar say a thing
 * the same way, and so the wording is tested without an editor. Nothing here decides anything: every
 * figure comes from the session (a ranking, a result, decision rows).
 */
import { prunedLine, type DecisionRow } from '../core/decisions/decision';
import type { ModelSpec } from '../core/panel';
import type { Candidate, Ranking } from '../core/routing/types';
import { formatUsd } from '../protocol/formatUsd';
import { plainReason } from '../protocol/reasonText';

export { formatUsd };

/** A model's list price per million tokens, or what the panel leaves unknown. */
export function formatPrice(spec: ModelSpec, local: boolean): string {
  if (spec.price) return `$${spec.price.input}/$${spec.price.output} per M`;
  return local ? 'free (local)' : 'price from catalog';
}

/** Ability as a percentage with the evidence behind it: measured, or the prior below the gate. */
export function formatAbility(candidate: Pick<Candidate, 'ability' | 'graded' | 'ok' | 'measured'>): string {
  const percent = `${Math.round(candidate.ability * 100)}%`;
  return candidate.measured ? `ability ${percent} (${candidate.ok}/${candidate.graded} graded)` : `ability ${percent} (prior, ${candidate.graded} graded)`;
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
}

/** The status bar's text: `Rung: Auto · qwen3:14b $0 · today $0.0012`. */
export function statusText(view: StatusView): string {
  if (view.problem) return '$(warning) Rung: not set up';
  const mode = view.unreachable ? 'no model reachable' : view.pinned ? `$(pinned) ${view.pinned}` : 'Auto';
  const parts = [`${view.warning || view.unreachable ? '$(warning)' : '$(layers)'} Rung: ${mode}`];
  if (view.last) parts.push(`${view.last.model} ${formatUsd(view.last.cost)}`);
  if (view.today !== undefined) parts.push(`today ${formatUsd(view.today)}`);
  return parts.join(' · ');
}

/** The status bar's tooltip, in full sentences. */
export function statusTooltip(view: StatusView & { budget: number | null }): string {
  if (view.problem) return `Rung cannot route yet: ${view.problem}`;
  const unreachable = view.unreachable ? [`No model on the panel can answer now:\n${view.unreachable.map((reason) => `- ${reason}`).join('\n')}`] : [];
  if (view.warning) return [...unreachable, `Rung warned: ${view.warning}`, 'Click to see it in the Rung log.'].join('\n');
  const lines = unreachable.length
    ? unreachable
    : [view.pinned ? `Pinned: ${view.pinned} opens every call; the panel's later rungs stay as fallbacks.` : 'Auto: every call opens on the cheapest rung that can do it.'];
  if (view.last) lines.push(`Last answer: ${view.last.model}, ${formatUsd(view.last.cost)}.`);
  if (view.today !== undefined) lines.push(`Spent today: ${formatUsd(view.today)}${view.budget !== null ? ` of a ${formatUsd(view.budget)} daily budget` : ''}.`);
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

/** Pick Model's rows: Auto, then the chain in order, then every pruned rung with its reason. */
export function pickRows(ranking: Ranking, panelModels: ModelSpec[], pinned: string | undefined): PickRow[] {
  const rows: PickRow[] = [
    {
      slug: undefined,
      label: `${pinned ? '' : '$(check) '}Auto`,
      description: `route ${ranking.classKey} calls by the ledger`,
      detail: ranking.candidates.length ? `opens on ${ranking.candidates[0]?.slug} now; climbs on a failed check` : 'no eligible rung now',
    },
  ];
  for (const [index, candidate] of ranking.candidates.entries()) {
    rows.push({
      slug: candidate.slug,
      label: `${candidate.slug === pinned ? '$(pinned) ' : ''}${candidate.slug}`,
      description: `${candidate.provider} · ${formatPrice(candidate.spec, candidate.local)} · ${formatAbility(candidate)}`,
      detail: `rung ${index + 1} for ${ranking.classKey}: ${plainReason(candidate.reason)}`,
    });
  }
  for (const pruned of ranking.pruned) {
    const spec = panelModels.find((model) => model.slug === pruned.model);
    rows.push({
      slug: pruned.model,
      label: `${pruned.model === pinned ? '$(pinned) ' : ''}$(circle-slash) ${pruned.model}`,
      description: spec ? `${spec.provider} · ${formatPrice(spec, false)}` : '',
      detail: plainReason(pruned.reason),
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

/** A call's decision rows as Markdown: every attempt, its candidates, what was pruned and why. */
export function explainMarkdown(callId: string, rows: DecisionRow[]): string {
  if (rows.length === 0) return `# Call ${callId}\n\nThe decision log has no row for this call.\n`;
  const first = rows[0] as DecisionRow;
  const lines = [`# Call ${callId}`, '', `Class \`${first.class}\`${first.run ? `, conversation \`${first.run}\`` : ''}.`, ''];
  for (const row of rows) {
    if (row.final) {
      lines.push(`- **Settled later:** ${row.model} → ${verdictPhrase({ kind: row.verdict, reason: row.verdictReason ?? '' })}`);
      continue;
    }
    lines.push(
      `- **${row.model}** on rung ${row.rung + 1} of ${row.candidates.length} (${row.candidates.join(', ')})${row.explore ? ` (exploring, propensity ${row.propensity.toFixed(2)})` : ''}: ${verdictPhrase({ kind: row.verdict, reason: row.verdictReason ?? '' })}`,
      `  - why this model: ${row.reason || '(no reason recorded)'}`,
      `  - served by ${row.resolved ?? 'unknown'}, ${row.mode}, ${formatUsd(row.cost)}, ${row.latencyMs ?? '?'} ms${row.escalation.length ? `, after ${row.escalation.join(', ')} failed` : ''}`,
    );
    for (const pruned of row.pruned) lines.push(`  - ${prunedLine(pruned)}`);
  }
  return `${lines.join('\n')}\n`;
}
