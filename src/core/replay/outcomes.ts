/**
 * Recorded outcomes: prompts each answered by several models, each answer graded — the replay's input.
 *
 * @remarks
 * Validated with zod, but only the fields the replay reads, and loosely, so a file with extra columns
 * (the recorded data carries `cost_src`, `split_src`, the grader's name) is still read.
 */
import * as z from 'zod';
import { describePanelIssues } from '../panelIssues';

const modelOutcomeSchema = z.looseObject({
  /**
   * Graded correct, 0 or 1.
   *
   * @remarks
   * One literal of two values, not a union of two literals: a union failed `"c": true` with a bare
   * "Invalid input", never saying that 0 or 1 was wanted.
   */
  c: z.literal([0, 1]),
  /** USD of the answer call. */
  cost: z.number().min(0),
  ti: z.number().optional(),
  to: z.number().optional(),
  /**
   * USD the source recorded for the answer and whatever it took to read its confidence: where the
   * confidence is a second call (the model asked whether its answer is right), more than `cost`.
   */
  cost_src: z.number().min(0).optional(),
  /** The model's own confidence, a log-probability (near 0 = sure). */
  conf: z
    .custom<number>((value) => typeof value === 'number' && !Number.isNaN(value), 'expected a number')
    .nullable()
    .optional(),
  lat_ms: z.number().optional(),
});

const rowSchema = z.looseObject({
  id: z.string().min(1),
  family: z.string().min(1),
  subfamily: z.string().nullable().optional(),
  trace: z.string().nullable().optional(),
  m: z.record(z.string(), modelOutcomeSchema),
});

export type ModelOutcome = z.infer<typeof modelOutcomeSchema>;
export type OutcomeRow = z.infer<typeof rowSchema>;

export class OutcomesError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${source}:${line}: ${detail}`);
    this.name = 'OutcomesError';
  }
}

/** Parses JSON-lines outcomes; every row must grade the same models. */
export function parseOutcomes(text: string, source: string): { rows: OutcomeRow[]; models: string[] } {
  const rows: OutcomeRow[] = [];
  let models: string[] | undefined;
  let firstLine = 1;
  // Each prompt becomes one call whose id is the prompt's: two rows with one id would mix two prompts'
  // attempts under one call in the decision log.
  const lineOfId = new Map<string, number>();
  // A byte-order mark (Windows editors and Python's utf-8-sig write one) is not part of the first row: the
  // panel reader drops it too, and here it failed line 1 with "Unexpected token", naming a character nobody can see.
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = parseLenient(line);
    } catch (error) {
      throw new OutcomesError(source, i + 1, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = rowSchema.safeParse(json);
    if (!parsed.success) {
      // The panel's wording, not zod's ("Invalid option: expected one of 0|1"): one voice for every file Rung reads.
      throw new OutcomesError(
        source,
        i + 1,
        describePanelIssues(parsed.error.issues.slice(0, 1), rowSchema, json)[0] ?? 'not a row of outcomes',
      );
    }
    const row = parsed.data;
    if (!models) {
      firstLine = i + 1;
      models = Object.keys(row.m);
      if (models.length === 0) throw new OutcomesError(source, i + 1, 'the row grades no model');
    } else {
      const missing = models.filter((model) => !(model in row.m));
      if (missing.length)
        throw new OutcomesError(source, i + 1, `model${missing.length > 1 ? 's' : ''} missing from the row: ${missing.join(', ')}`);
      // The first row names the models, so one it lacks used to be dropped from the whole replay without
      // a word (its grades on every other row ignored); it is as missing as a model a later row lacks.
      const extra = Object.keys(row.m).filter((model) => !models?.includes(model));
      if (extra.length)
        throw new OutcomesError(
          source,
          firstLine,
          `model${extra.length > 1 ? 's' : ''} missing from the row: ${extra.join(', ')} (graded on line ${i + 1})`,
        );
    }
    const earlier = lineOfId.get(row.id);
    if (earlier !== undefined)
      throw new OutcomesError(source, i + 1, `prompt id "${row.id}" is already on line ${earlier}: each prompt needs its own id`);
    lineOfId.set(row.id, i + 1);
    rows.push(row);
  }
  if (!models) throw new OutcomesError(source, 1, 'no rows');
  return { rows, models };
}

/**
 * JSON.parse, also accepting the bare `Infinity`, `-Infinity` and `NaN` that Python's `json.dumps` writes.
 *
 * @remarks
 * The recorded data has `"conf":-Infinity` where a model put no probability on its own answer; refusing
 * the row would drop a real outcome over a spelling. Strict parsing is tried first, so ordinary rows pay nothing.
 */
function parseLenient(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    const mended = line.replace(/([:,[]\s*)(-?)Infinity(?=\s*[,}\]])/g, '$1$21e999').replace(/([:,[]\s*)NaN(?=\s*[,}\]])/g, '$1null');
    if (mended === line) throw error;
    return JSON.parse(mended);
  }
}

/** Which recorded prompts a replay routes: a split of the source, families kept or left out. */
export interface OutcomeSelection {
  /** The source's `split_src` (`train`, `test`). */
  split?: string;
  /** Only these families. */
  families?: readonly string[];
  /** Every family but these: the leave-one-family-out runs. */
  excludeFamilies?: readonly string[];
}

/**
 * The rows a selection keeps, in file order.
 *
 * @remarks
 * Out-of-sample figures need the tuning data and the scoring data apart: a tunable chosen on `train`
 * is reported on `test`, one chosen with a family left out is reported on that family. A selection
 * that keeps nothing is an error naming what the file holds, not an empty run scored as 0.
 */
export function selectOutcomes(rows: readonly OutcomeRow[], selection: OutcomeSelection, source: string): OutcomeRow[] {
  const kept = rows.filter(
    (row) =>
      (selection.split === undefined || row['split_src'] === selection.split) &&
      (selection.families === undefined || selection.families.includes(row.family)) &&
      !(selection.excludeFamilies ?? []).includes(row.family),
  );
  if (kept.length === 0) {
    const splits = [...new Set(rows.map((row) => String(row['split_src'] ?? '(none)')))].sort();
    const families = [...new Set(rows.map((row) => row.family))].sort();
    throw new OutcomesError(source, 1, `no row matches the selection (splits: ${splits.join(', ')}; families: ${families.join(', ')})`);
  }
  return kept;
}
