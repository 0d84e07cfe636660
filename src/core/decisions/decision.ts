/**
 * The decision log's row: one per routed attempt, and a short `final` row when a later verdict settles a call.
 *
 * @remarks
 * The candidates are recorded beside the choice because they are the counterfactual an offline policy
 * study cannot reconstruct later: which models were in the running when the choice was made. The
 * propensity is written at the moment it applied, the only moment it can be known. The schema only
 * grows: the reader accepts rows without the newer fields, and ignores fields it does not know.
 */
import * as z from 'zod';
import { VERDICTS, type Verdict } from '../verdict';

export interface PrunedCandidate {
  model: string;
  reason: string;
}

export interface DecisionRow {
  /** Row schema version. */
  v: number;
  /** ms since the epoch. */
  at: number;
  call: string;
  run: string | null;
  class: string;
  shape: string | null;
  /** The ordered rung list the choice was made from (configured slugs). */
  candidates: string[];
  /** Index of `model` in `candidates`. */
  rung: number;
  /** Models already tried and failed on this call before this attempt. */
  escalation: string[];
  /** Configured slug. */
  model: string;
  /** The snapshot the provider said served the answer. */
  resolved: string | null;
  explore: boolean;
  /** Probability the policy had of choosing this opener. */
  propensity: number;
  verdict: Verdict;
  /** What the verifier said, or what went wrong. */
  verdictReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** USD. */
  cost: number | null;
  latencyMs: number | null;
  /** Why this model was chosen, naming its evidence. */
  reason: string;
  mode: 'local' | 'cloud';
  pruned: PrunedCandidate[];
  /** A row that settles a verdict after the attempt row; the last row for a call id is the truth. */
  final: boolean;
}

export const DECISION_ROW_VERSION = 1;

/** Reads rows of any version so far: only `call`, `model` and `verdict` are required. */
export const decisionRowSchema = z.looseObject({
  v: z.number().default(1),
  at: z.number().default(0),
  call: z.string(),
  run: z.string().nullable().default(null),
  class: z.string().default(''),
  shape: z.string().nullable().default(null),
  candidates: z.array(z.string()).default([]),
  rung: z.number().default(0),
  escalation: z.array(z.string()).default([]),
  model: z.string(),
  resolved: z.string().nullable().default(null),
  explore: z.boolean().default(false),
  propensity: z.number().default(1),
  verdict: z.enum(VERDICTS as [Verdict, ...Verdict[]]),
  verdictReason: z.string().nullable().default(null),
  inputTokens: z.number().nullable().default(null),
  outputTokens: z.number().nullable().default(null),
  cost: z.number().nullable().default(null),
  latencyMs: z.number().nullable().default(null),
  reason: z.string().default(''),
  mode: z.enum(['local', 'cloud']).default('cloud'),
  pruned: z.array(z.object({ model: z.string(), reason: z.string() })).default([]),
  final: z.boolean().default(false),
});

/** Where decision rows go. Appends are whole rows; a sink never writes half of one. */
export interface DecisionSink {
  append(row: DecisionRow): void;
}

/** Keeps rows in memory: tests, and the replay benchmark when no file is asked for. */
export class MemoryDecisionSink implements DecisionSink {
  readonly rows: DecisionRow[] = [];
  append(row: DecisionRow): void {
    this.rows.push(row);
  }
}

/** Parses JSON-lines decision text, skipping any line that is not a whole row (a torn last line from a writer killed mid-append, or damage elsewhere). */
export function parseDecisionLines(text: string): { rows: DecisionRow[]; skipped: number } {
  const rows: DecisionRow[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = decisionRowSchema.safeParse(JSON.parse(line));
      if (parsed.success) rows.push(parsed.data as DecisionRow);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { rows, skipped };
}
