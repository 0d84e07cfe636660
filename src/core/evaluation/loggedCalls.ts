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
  /** Tokens in and out, where the row recorded them: the prompt's size, which every rung's price scales with. */
  inputTokens?: number;
  outputTokens?: number;
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
   * Such a call fails every rung whichever opens; but whether a climb goes through them all depends on
   * where it opened (the planner gives up on a call that looks unanswerable), so its cost is another
   * opener's only where that opener's climb would not have given up sooner.
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

/** Lines parsed between pauses by {@link readRecentLoggedCalls}: about 12 ms of parsing on average on the team's loaded 2-core machine (2.5 s per 100k rows). */
export const LINES_PER_SLICE = 500;

const NEWLINE_BYTE = 0x0a;

/** The newest calls of a log, and how many calls the whole log holds. */
export interface RecentLoggedCalls {
  log: LoggedCalls;
  /** Distinct call ids in the whole log, the ones left unread included. */
  callsInLog: number;
}

/**
 * {@link readLoggedCalls} for only the newest `maxCalls` calls (by where each call's first row stands),
 * counting the rest by id alone, and pausing on `pause` (a yield to the event loop) every
 * {@link LINES_PER_SLICE} lines in each pass, so a thread that must keep serving others is never held
 * for the whole log.
 *
 * @remarks
 * The extension host runs every extension on one thread: a 100k-row log parsed in one go held it for
 * 0.7–5 s (BENCHMARKS.md). Lines are found with `indexOf` rather than `split`, which would itself hold the
 * thread over the whole text at once. Given the file's bytes rather than its text, only what is read is
 * decoded: decoding a 50 MB log into one string took 20–82 ms in one piece on the team's 2-core machine.
 * A line ends at a newline byte, which UTF-8 never uses inside a character, so the lines decode to the
 * same text either way.
 *
 * The What if estimates at most the newest 10,000 calls, yet parsing a 100k-row log whole was most of
 * its time (0.7–1.0 s of 0.8–1.5 s, BENCHMARKS.md). A first pass finds each line's call id without
 * parsing it — the `"call":"` key as the session writes it; inside a JSON string a quote is always
 * escaped, so those bytes cannot occur in a value — and a second parses only the lines of the calls
 * kept. A line whose id is not found that way (a log written by hand with spaces after the colon) is
 * parsed to find it. A call is counted from its first row, so a late `final` row never makes an old
 * call new; for a log of whole rows the calls read are those the whole-log reader gives last, in the
 * same order (a torn line naming a new call counts as one).
 */
export async function readRecentLoggedCalls(
  text: string | Buffer,
  maxCalls: number,
  pause: () => Promise<void>,
  linesPerSlice = LINES_PER_SLICE,
): Promise<RecentLoggedCalls> {
  const lines = new LineCursor(text);
  const idOfLine: (string | undefined)[] = [];
  const firstLine = new Map<string, number>();
  for (let index = 0; lines.next(); index++) {
    const id = lines.callId();
    idOfLine.push(id);
    if (id !== undefined && !firstLine.has(id)) firstLine.set(id, index);
    if ((index + 1) % linesPerSlice === 0) await pause();
  }
  const kept = new Set([...firstLine.keys()].slice(-maxCalls));
  const reader = new LoggedCallReader();
  const rescan = new LineCursor(text);
  let parsed = 0;
  for (let index = 0; rescan.next(); index++) {
    const id = idOfLine[index];
    if (id === undefined) {
      if (!rescan.blank()) reader.countUnreadable();
      continue;
    }
    if (!kept.has(id)) continue;
    reader.add(rescan.text());
    if (++parsed % linesPerSlice === 0) await pause();
  }
  return { log: await reader.finishInSlices(pause, linesPerSlice), callsInLog: firstLine.size };
}

const CALL_KEY = '"call":"';
const QUOTE_BYTE = 0x22;

/** Walks the lines of a log held as text or as bytes, decoding only what is asked for. */
class LineCursor {
  private start = 0;
  private end = -1;
  private readonly key = Buffer.from(CALL_KEY);

  constructor(private readonly source: string | Buffer) {}

  /** Moves to the next line; false past the last. */
  next(): boolean {
    if (this.end >= this.source.length) return false;
    this.start = this.end + 1;
    const found = typeof this.source === 'string' ? this.source.indexOf('\n', this.start) : this.source.indexOf(NEWLINE_BYTE, this.start);
    this.end = found < 0 ? this.source.length : found;
    return true;
  }

  text(): string {
    return typeof this.source === 'string' ? this.source.slice(this.start, this.end) : this.source.toString('utf8', this.start, this.end);
  }

  blank(): boolean {
    return this.text().trim() === '';
  }

  /** The line's call id, or undefined for a line that is not a decision row. */
  callId(): string | undefined {
    // Searched within the line alone: a search running on past a line without the key would make a
    // log of such lines quadratic.
    const line = typeof this.source === 'string' ? this.source.slice(this.start, this.end) : this.source.subarray(this.start, this.end);
    const at = typeof line === 'string' ? line.indexOf(CALL_KEY) : line.indexOf(this.key);
    if (at >= 0) {
      const from = at + CALL_KEY.length;
      const close = typeof line === 'string' ? line.indexOf('"', from) : line.indexOf(QUOTE_BYTE, from);
      const id = close < 0 ? undefined : typeof line === 'string' ? line.slice(from, close) : line.toString('utf8', from, close);
      // An id holding an escape (a backslash before its closing quote) is left to the parser.
      if (id !== undefined && !id.includes('\\')) return id;
    }
    return this.parsedCallId();
  }

  private parsedCallId(): string | undefined {
    const line = this.text();
    if (!line.trim()) return undefined;
    try {
      const call = (JSON.parse(line) as { call?: unknown } | null)?.call;
      return typeof call === 'string' ? call : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Collects decision lines, one at a time, into calls. */
class LoggedCallReader {
  private readonly byCall = new Map<string, ReadRow[]>();
  private unreadable = 0;

  /** A line known not to be a decision row without reading it again. */
  countUnreadable(): void {
    this.unreadable++;
  }

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
    // A refused call asked no model: it opened with none, and no other opener would have been asked either.
    const attemptRows = rows.filter((entry) => !entry.row.final && entry.row.verdict !== 'refused');
    const opener = attemptRows[0];
    if (!opener) return;
    if (!opener.hasPropensity || !(opener.row.propensity > 0)) {
      log.withoutPropensity++;
      return;
    }
    const settled = rows.filter((entry) => entry.row.final).at(-1);
    const attempts = attemptRows.map(({ row }): LoggedAttempt => ({
      model: row.model,
      passed: gradedPass(row),
      cost: row.cost ?? 0,
      ...(row.inputTokens !== null ? { inputTokens: row.inputTokens } : {}),
      ...(row.outputTokens !== null ? { outputTokens: row.outputTokens } : {}),
    }));
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
