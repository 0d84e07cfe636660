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

/**
 * How far from the epoch a `Date` reaches either way, ms: 100 million days (ECMA-262).
 *
 * @remarks
 * A row's `at` past it names no time: `new Date(at).toISOString()` throws "Invalid time value", and one
 * such row in the log made `rung ledger decisions` fail without listing any. The reader refuses the row
 * instead, as it refuses any other row it cannot use, and counts it skipped.
 */
export const DATE_LIMIT_MS = 8.64e15;

/**
 * A cost or a token count as a spend figure may use it: a finite number of at least 0, else null
 * (unknown).
 *
 * @remarks
 * A row with `"cost": -450` (written by hand, by a hostile provider's usage, or merged from elsewhere)
 * made "spent today" negative, so the daily budget never pruned a paid model again; `1e999` parses as
 * Infinity. Such a figure is ignored, not clamped to 0: it says nothing true about what the call cost.
 * Applied where rows are written (the router) and wherever they are read (the row schema, the spend
 * tally's own quick reader).
 */
export function spendFigure(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A nullable number read through {@link spendFigure}: anything but a finite number of at least 0 reads as null. */
const spendable = z
  .unknown()
  .transform((value) => spendFigure(value))
  .default(null);

/**
 * The row's fields, each with the default a row from an older Rung (without it) reads as.
 *
 * @remarks
 * One declaration for the reader and the type: {@link DecisionRow} is what this shape parses to, so
 * the two cannot drift apart and no cast bridges them. Only `call`, `model` and `verdict` are required,
 * because every row ever written has them.
 */
const decisionRowShape = {
  /** Row schema version. */
  v: z.number().default(1),
  /** ms since the epoch, within {@link DATE_LIMIT_MS}. */
  at: z.number().min(-DATE_LIMIT_MS).max(DATE_LIMIT_MS).default(0),
  call: z.string(),
  run: z.string().nullable().default(null),
  class: z.string().default(''),
  shape: z.string().nullable().default(null),
  /** The ordered rung list the choice was made from (configured slugs). */
  candidates: z.array(z.string()).default([]),
  /** Index of `model` in `candidates`. */
  rung: z.number().default(0),
  /** Models already tried and failed on this call before this attempt. */
  escalation: z.array(z.string()).default([]),
  /** Configured slug. */
  model: z.string(),
  /** The snapshot the provider said served the answer. */
  resolved: z.string().nullable().default(null),
  explore: z.boolean().default(false),
  /** Probability the policy had of choosing this opener. */
  propensity: z.number().default(1),
  verdict: z.enum(VERDICTS as [Verdict, ...Verdict[]]),
  /** What the verifier said, or what went wrong. */
  verdictReason: z.string().nullable().default(null),
  inputTokens: spendable,
  outputTokens: spendable,
  /** USD; a negative or non-finite figure reads as unknown (see {@link spendFigure}). */
  cost: spendable,
  latencyMs: z.number().nullable().default(null),
  /** Why this model was chosen, naming its evidence. */
  reason: z.string().default(''),
  mode: z.enum(['local', 'cloud']).default('cloud'),
  pruned: z.array(z.object({ model: z.string(), reason: z.string() })).default([]),
  /** A row that settles a verdict after the attempt row; the last row for a call id is the truth. */
  final: z.boolean().default(false),
  /**
   * What wrote the row when it was not a call a user made: `replay` for `rung replay`, whose `at` is
   * its simulated clock (one second a prompt from 2026-01-01), not the time it ran. Absent on routed
   * calls and on rows from before the field; a value this Rung does not know is kept as it is.
   */
  source: z.string().optional(),
  /**
   * The answering model's confidence in this attempt's answer, a log-probability that it is right, when
   * the confidence check read one; absent otherwise and on rows from before the field. The learner's
   * thresholds are learned from these and the grades given later, so the log shows what each verdict
   * was weighed on.
   */
  confidence: z.number().optional(),
  /** For `source: "replay"`: the policy the replay ran (`open=qwen3:14b`); absent when it ran Rung's own. */
  policy: z.string().optional(),
  /**
   * The checks that judged the attempt's answer, in words (`["JSON"]`, `["TypeScript syntax"]`); empty
   * when none did. Absent on rows from before checks were named, on `final` rows (the later verdict is
   * the user's, not a check's) and on rows that did not come through the session (`rung replay`).
   */
  checks: z.array(z.string()).optional(),
  /**
   * The tool schemas the attempt sent, when the call offered tools: how many, their estimated tokens
   * and the whole input's, what they cost at this model's input price (null when unknown), and the
   * tools offered but not sent (`rung.agentTools`). Absent on calls without tools and on rows from
   * before the field; a malformed one reads as absent rather than losing the row.
   */
  tools: z
    .object({
      sent: z.number().int().min(0),
      tokens: z.number().min(0),
      input: z.number().min(0),
      cost: spendable,
      dropped: z.array(z.string()).default([]),
    })
    .optional()
    .catch(undefined),
};

/** One decision row as the router writes it and a reader gets it back, defaults filled in. */
export type DecisionRow = z.output<z.ZodObject<typeof decisionRowShape>>;

/** A model left out of the running, and why (naming its evidence). */
export type PrunedCandidate = DecisionRow['pruned'][number];

/**
 * A pruned or skipped rung on one line: `pruned qwen2.5:3b: needs context 25601 > 4000`.
 *
 * @remarks
 * The reason opens with what happened (`pruned: …`, `skipped: …`), so it is said once, before the
 * model; the CLI's stderr and the editor's Explain Last Decision print the same line.
 */
export function prunedLine(entry: PrunedCandidate): string {
  const match = /^(\w+): (.*)$/s.exec(entry.reason);
  return match ? `${match[1]} ${entry.model}: ${match[2]}` : `${entry.model}: ${entry.reason}`;
}

export const DECISION_ROW_VERSION = 1;

/**
 * Reads rows of any version so far; fields this Rung does not know pass through untouched, so a row
 * from a newer Rung keeps them.
 */
export const decisionRowSchema = z.looseObject(decisionRowShape);

/**
 * What a row without a `source` was: a call a user made, through `rung chat` or the editor.
 *
 * @remarks
 * Only `rung replay` marks its rows; the session never wrote a `source` on a routed call, so an
 * absent one means "live", not "unknown".
 */
export const LIVE_SOURCE = 'live';

/** How `rung replay` opened its call ids (`replay-XXXXXXXX/PROMPT`), before it marked its rows with `source`. */
const UNMARKED_REPLAY_CALL = /^replay-[0-9a-f]{8}\//;

/**
 * Who wrote a row: its `source` when it has one, else {@link LIVE_SOURCE}.
 *
 * @remarks
 * A row without one whose call id is a replay run's (`replay-XXXXXXXX/…`) is a replay from the short
 * while `rung replay` named its calls so but did not yet mark them: a session's call ids are
 * `chat-<uuid>` or the front end's own, never that. A replay older still named its calls by the prompt
 * alone and cannot be told apart; it reads as live.
 */
export function decisionSource(row: Pick<DecisionRow, 'source' | 'call'>): string {
  if (row.source !== undefined) return row.source;
  return UNMARKED_REPLAY_CALL.test(row.call) ? 'replay' : LIVE_SOURCE;
}

/** Where decision rows go. Appends are whole rows; a sink never writes half of one. */
export interface DecisionSink {
  append(row: DecisionRow): void;
  /** Lands rows held back for batching; a sink that writes each row at once has none. */
  flush?(): Promise<void>;
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
      if (parsed.success) rows.push(parsed.data);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { rows, skipped };
}
