/**
 * A decision log read as calls: each call's opener, the probability it had of opening, what the call
 * cost in all and whether its first answer passed, and every attempt's verdict.
 *
 * @remarks
 * An off-policy estimate weighs each call by one over the probability its opener had, so a call whose
 * row never recorded that probability (rows written before the field existed) cannot be weighed at all:
 * it is counted and left out, never read as certain. The schema's own default of 1 would hide exactly
 * that, so the field's presence is checked on the raw line.
 */
import { decisionRowSchema, type DecisionRow } from '../decisions/decision';

/** One attempt of a call, as the outcome model reads it. */
export interface LoggedAttempt {
  model: string;
  /** Graded outcome: true pass, false fail, null not graded (provider error, stop, unverified). */
  passed: boolean | null;
  /** USD; 0 when the row recorded none. */
  cost: number;
}

export interface LoggedCall {
  call: string;
  /** `class` or `class/shape`: the outcome model's unit. */
  classKey: string;
  candidates: string[];
  opener: string;
  propensity: number;
  /** Every attempt in order, the opener first. */
  attempts: LoggedAttempt[];
  /** USD, every attempt of the call. */
  cost: number;
  /** The opener's answer passed its check (a later `final` row settles a one-attempt call). */
  firstSuccess: boolean;
  /**
   * Every candidate was tried and every one failed its check: a call no rung could answer.
   *
   * @remarks
   * Such a call fails every rung whichever opens, so any opener climbs through all of them and spends
   * the same: the one part of another policy's cost the log shows exactly, with no weight.
   */
  everyRungFailed: boolean;
}

export interface LoggedCalls {
  calls: LoggedCall[];
  /** Calls left out because their opener row carries no propensity (or one that is not above 0). */
  withoutPropensity: number;
  /** Lines that are not a whole decision row. */
  unreadable: number;
}

interface ReadRow {
  row: DecisionRow;
  hasPropensity: boolean;
}

/** Reads JSON-lines decision text of any row version into calls. */
export function readLoggedCalls(text: string): LoggedCalls {
  const reader = new LoggedCallReader();
  for (const line of text.split('\n')) reader.add(line);
  return reader.finish();
}

/** Lines read between pauses by {@link readLoggedCallsInSlices}: about 12 ms of parsing on average on the team's loaded 2-core machine (2.5 s per 100k rows). */
export const LINES_PER_SLICE = 500;

/**
 * {@link readLoggedCalls}, pausing every {@link LINES_PER_SLICE} lines on `pause` (a yield to the event
 * loop), and as often while it gathers the lines into calls, so a thread that must keep serving others
 * is never held for the whole log.
 *
 * @remarks
 * The extension host runs every extension on one thread: a 100k-row log parsed in one go held it
 * for 0.7–5 s (BENCHMARKS.md). Lines are found with `indexOf` rather than `split`, which would itself
 * hold the thread over the whole text at once. Given the file's bytes rather than its text, each line
 * is decoded as it is read: decoding a 50 MB log into one string took 20–82 ms in one piece on the
 * team's 2-core machine. A line ends at a newline byte, which UTF-8 never uses inside a character, so
 * the lines decode to the same text either way.
 */
export async function readLoggedCallsInSlices(text: string | Buffer, pause: () => Promise<void>, linesPerSlice = LINES_PER_SLICE): Promise<LoggedCalls> {
  const reader = new LoggedCallReader();
  const lineEnd = typeof text === 'string' ? (from: number) => text.indexOf('\n', from) : (from: number) => text.indexOf(NEWLINE_BYTE, from);
  const line = typeof text === 'string' ? (start: number, end: number) => text.slice(start, end) : (start: number, end: number) => text.toString('utf8', start, end);
  let from = 0;
  let lines = 0;
  while (from <= text.length) {
    const end = lineEnd(from);
    const stop = end < 0 ? text.length : end;
    reader.add(line(from, stop));
    from = stop + 1;
    if (++lines % linesPerSlice === 0) await pause();
  }
  return reader.finishInSlices(pause, linesPerSlice);
}

const NEWLINE_BYTE = 0x0a;

/** Collects decision lines, one at a time, into calls. */
class LoggedCallReader {
  private readonly byCall = new Map<string, ReadRow[]>();
  private unreadable = 0;

  add(line: string): void {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.unreadable++;
      return;
    }
    const parsed = decisionRowSchema.safeParse(json);
    if (!parsed.success) {
      this.unreadable++;
      return;
    }
    const row = parsed.data as DecisionRow;
    const hasPropensity = typeof (json as { propensity?: unknown }).propensity === 'number';
    const rows = this.byCall.get(row.call) ?? [];
    rows.push({ row, hasPropensity });
    this.byCall.set(row.call, rows);
  }

  finish(): LoggedCalls {
    const log: LoggedCalls = { calls: [], withoutPropensity: 0, unreadable: this.unreadable };
    for (const [call, rows] of this.byCall) this.build(log, call, rows);
    return log;
  }

  /** {@link finish}, pausing every `callsPerSlice` calls. */
  async finishInSlices(pause: () => Promise<void>, callsPerSlice: number): Promise<LoggedCalls> {
    const log: LoggedCalls = { calls: [], withoutPropensity: 0, unreadable: this.unreadable };
    let built = 0;
    for (const [call, rows] of this.byCall) {
      this.build(log, call, rows);
      if (++built % callsPerSlice === 0) await pause();
    }
    return log;
  }

  private build(log: LoggedCalls, call: string, rows: readonly ReadRow[]): void {
    const attemptRows = rows.filter((entry) => !entry.row.final);
    const opener = attemptRows[0];
    if (!opener) return;
    if (!opener.hasPropensity || !(opener.row.propensity > 0)) {
      log.withoutPropensity++;
      return;
    }
    const settled = rows.filter((entry) => entry.row.final).at(-1);
    const attempts = attemptRows.map(({ row }) => ({ model: row.model, passed: gradedPass(row), cost: row.cost ?? 0 }));
    // A late verdict settles the call's last attempt; it is the first answer's only when there was one attempt.
    if (settled && attempts.length === 1) (attempts[0] as LoggedAttempt).passed = gradedPass(settled.row);
    log.calls.push({
      call,
      classKey: opener.row.shape ? `${opener.row.class}/${opener.row.shape}` : opener.row.class,
      candidates: opener.row.candidates,
      opener: opener.row.model,
      propensity: opener.row.propensity,
      attempts,
      cost: attempts.reduce((sum, attempt) => sum + attempt.cost, 0),
      firstSuccess: (attempts[0] as LoggedAttempt).passed === true,
      everyRungFailed: everyRungFailed(opener.row.candidates, attempts),
    });
  }
}

function everyRungFailed(candidates: readonly string[], attempts: readonly LoggedAttempt[]): boolean {
  const failed = new Set(attempts.filter((attempt) => attempt.passed === false).map((attempt) => attempt.model));
  return candidates.length > 0 && candidates.every((model) => failed.has(model));
}

function gradedPass(row: DecisionRow): boolean | null {
  if (row.verdict === 'pass') return true;
  if (row.verdict === 'fail') return false;
  return null;
}
