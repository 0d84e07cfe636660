/**
 * Spend by UTC day and model, kept up to date from the decision log without reading it again.
 *
 * @remarks
 * A panel asks for spend after every call and the budget before every call; reading a month of a busy
 * log (tens of thousands of rows) each time took over half a second (src/bench/sessionBench.ts). The
 * tally reads the window once, backwards from the end, then only the bytes appended since, and starts
 * over when the log shrank (compaction). Settling `final` rows repeat their attempt's cost and are not
 * counted. Only the fields spend needs are read, with `JSON.parse` and no row schema.
 */
import { visitLinesBackwards, visitLinesForward, parseObject } from '../ledger/decisionTail';
import { DATE_LIMIT_MS, spendFigure, type DecisionRow } from '../decisions/decision';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How far past the start of the window the log is still read backwards, ms.
 *
 * @remarks
 * Rows are appended in batches up to a second late and several windows append to one log, so the log
 * is in time order only roughly; an hour's slack finds every row of the window without reading further.
 */
const WINDOW_SLACK_MS = 60 * 60 * 1000;

/** One day's spend on one model. */
export interface DaySpend {
  day: string;
  model: string;
  /** USD over the calls that reported a cost. */
  cost: number;
  /** Attempts, whether or not they reported a cost. */
  calls: number;
  /**
   * Tokens of each call's first attempt (when it reported both counts), for pricing the same calls on
   * another model.
   *
   * @remarks
   * Only the opener's: a call that had gone straight to the dearest model would have been answered
   * once, so an escalated call's failed attempts would price the same prompt twice.
   */
  openingInputTokens: number;
  openingOutputTokens: number;
  /** USD of `cost` that paid for tool schemas sent as input (rows that say what theirs cost). */
  toolsCost: number;
}

/** What the tally reads of a row. */
type SpendFields = Pick<DecisionRow, 'at' | 'model' | 'cost' | 'inputTokens' | 'outputTokens' | 'final'> & {
  /** What the tool schemas the attempt sent cost, when its row says. */
  toolsCost: number | null;
  /** Whether this attempt opened its call (nothing was tried before it). */
  opening: boolean;
  /** A call no rung could take: no model was asked. */
  refused: boolean;
};

export class SpendTally {
  private readonly groups = new Map<string, DaySpend>();
  /** Where the next forward read starts; undefined until the first read. */
  private offset: number | undefined;
  private since = Number.POSITIVE_INFINITY;

  /** `path` is the log; `rows` the memory sink's rows when there is no file. */
  constructor(private readonly source: { path: string } | { rows: readonly DecisionRow[] }) {}

  /** Every day-and-model group from `since` (ms) on, reading what the log gained since the last call. */
  from(since: number): DaySpend[] {
    this.update(since);
    const first = utcDay(since);
    return [...this.groups.values()].filter((group) => group.day >= first);
  }

  /** USD spent on the UTC day of `now`. */
  today(now: number): number {
    const day = utcDay(now);
    return this.from(startOfUtcDay(now)).reduce((sum, group) => sum + (group.day === day ? group.cost : 0), 0);
  }

  private update(since: number): void {
    if ('rows' in this.source) {
      this.groups.clear();
      for (const row of this.source.rows)
        if (row.at >= since)
          this.add({
            ...row,
            opening: row.escalation.length === 0,
            refused: row.verdict === 'refused',
            toolsCost: spendFigure(row.tools?.cost),
          });
      return;
    }
    const path = this.source.path;
    // A window reaching further back than the one read so far is read again, whole.
    if (this.offset === undefined || since < this.since) {
      this.groups.clear();
      this.since = since;
      this.offset = visitLinesBackwards(path, (line) => {
        const row = spendFields(line);
        if (!row) return true;
        if (row.at < since - WINDOW_SLACK_MS) return false;
        if (row.at >= since) this.add(row);
        return true;
      });
      return;
    }
    const next = visitLinesForward(path, this.offset, (line) => {
      const row = spendFields(line);
      if (row && row.at >= this.since) this.add(row);
    });
    if (next < 0) {
      this.offset = undefined;
      this.update(since);
      return;
    }
    this.offset = next;
  }

  private add(row: SpendFields): void {
    // A settling row repeats its attempt; a refused call asked no model.
    if (row.final || row.refused) return;
    const day = utcDay(row.at);
    const key = `${day}\u0000${row.model}`;
    const group = this.groups.get(key) ?? {
      day,
      model: row.model,
      cost: 0,
      calls: 0,
      openingInputTokens: 0,
      openingOutputTokens: 0,
      toolsCost: 0,
    };
    group.cost += row.cost ?? 0;
    // The schemas' share, never more than the attempt's own cost (an estimate against what was billed).
    group.toolsCost += Math.min(row.toolsCost ?? 0, row.cost ?? 0);
    group.calls += 1;
    if (row.opening && row.inputTokens !== null && row.outputTokens !== null) {
      group.openingInputTokens += row.inputTokens;
      group.openingOutputTokens += row.outputTokens;
    }
    this.groups.set(key, group);
  }
}

/** The spend fields of one log line; undefined for a line that is not a row. */
function spendFields(line: string): SpendFields | undefined {
  const row = parseObject(line);
  if (!row || typeof row.model !== 'string') return undefined;
  const count = (field: unknown): number | null => (typeof field === 'number' ? field : null);
  const at = count(row.at) ?? 0;
  // Passed over as the row schema refuses it: no day can be named for it, and naming one threw.
  if (Math.abs(at) > DATE_LIMIT_MS) return undefined;
  return {
    at,
    model: row.model,
    // Never negative: a row with a negative cost made today's spend negative and the budget useless.
    cost: spendFigure(row.cost),
    inputTokens: spendFigure(row.inputTokens),
    outputTokens: spendFigure(row.outputTokens),
    final: row.final === true,
    refused: row.verdict === 'refused',
    toolsCost: typeof row.tools === 'object' && row.tools !== null ? spendFigure((row.tools as { cost?: unknown }).cost) : null,
    // Rows older than the escalation field opened their call as far as anyone can tell.
    opening: !Array.isArray(row.escalation) || row.escalation.length === 0,
  };
}

export function startOfUtcDay(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** `YYYY-MM-DD` of the UTC day `at` falls in. */
export function utcDay(at: number): string {
  return new Date(startOfUtcDay(at)).toISOString().slice(0, 10);
}
