/**
 * The decision log on disk: `.rung/decisions.jsonl` beside the ledger, one JSON row per line, append-only.
 *
 * @remarks
 * It is a JSON-lines file and not a table in the SQLite ledger because sql.js cannot write part of a
 * database: every save exports and rewrites the whole file. Measured on this machine (src/bench/
 * ledgerBench.ts, batches of 20 rows, 2 cores under load from other work), keeping decisions in the
 * sql.js file made each save cost time in proportion to the whole history — median 3–10 ms at 1k rows,
 * 12–24 ms at 10k and 236–386 ms at 100k (p99 up to 573 ms, an 82 MB file re-read and re-exported
 * every second) — while appending the same batch to this file took a median of 0.14–0.42 ms at every
 * size. The log grows by a row per call for the life of a workspace; the ledger
 * does not, so only the ledger pays for sql.js's whole-file saves.
 *
 * Rows are written whole: each `write` carries complete lines only, through a descriptor opened with
 * `O_APPEND`, under a short lock shared with compaction. The lock is what makes compaction
 * (rewrite and rename) safe against an appender that would otherwise write into the file being
 * replaced; the whole-line writes keep two appenders from interleaving bytes even without it. Before
 * writing, an appender that finds the file not ending in a newline (a writer killed mid-row) starts a
 * fresh line, so the torn row stays alone on its line and every reader skips it.
 *
 * Rows land on a {@link FlushTimer}; given the ledger's (`WorkspaceLedger.flushTimer`), rows and
 * observations land in the same wake-up. A write that fails is reported as a `save-failed` notice, as
 * the ledger reports its own, and retried a second later with nothing dropped.
 *
 * Every file here — the log, its lock, the `.unreadable` lines — is opened without following a symbolic
 * link, and the folder must be a folder (see safeFiles.ts): a cloned folder whose `decisions.jsonl` was
 * a link to `~/.bashrc` had each row appended there. {@link DecisionLog.checkFiles} says so before a
 * command does any work whose record would be refused.
 */
import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock';
import { parseDecisionLines, type DecisionRow, type DecisionSink } from '../decisions/decision';
import { writeFileAtomic } from '../files/atomicWrite';
import { FileLock } from '../files/fileLock';
import { FLUSH_INTERVAL_MS, FlushTimer, type Scheduler } from '../files/flushTimer';
import { parseObject, readIfExists, visitLinesBackwards } from './decisionTail';
import { describe } from './ledgerFile';
import { lockNotices, type LedgerNotice, type NoticeListener } from './notices';
import { appendToFile, ensureFolder, openFile, refuseUnlessFile, writeWhole } from '../files/safeFiles';

/** The log's file name, in the ledger's directory. */
export const DECISION_LOG_FILE = 'decisions.jsonl';
/**
 * The most bytes of whole rows one `write` carries.
 *
 * @remarks
 * Linux serialises writes to one file under its inode lock, so any single `write` lands contiguously;
 * keeping each under 64 KiB also keeps it within what every platform Rung runs on completes in one call.
 * A row longer than this goes alone, in one write.
 */
export const APPEND_CHUNK_BYTES = 64 * 1024;
/**
 * What compaction keeps by default: 90 days, and at most 100k rows.
 *
 * @remarks
 * 100k rows is the ledger benchmark's largest case (68 MB of JSON lines), where reading the last 50
 * rows with the ledger's open still took about 1 ms median; 90 days covers any look back a user does
 * by hand. Compaction is explicit: the owner calls {@link DecisionLog.compact} (for example at start).
 */
export const DEFAULT_RETENTION: Required<DecisionRetention> = { maxAgeMs: 90 * 24 * 60 * 60 * 1000, maxRows: 100_000 };

export interface DecisionRetention {
  /** Rows older than this (by their `at`) are dropped, ms. */
  maxAgeMs?: number;
  /** At most this many rows are kept, the newest. */
  maxRows?: number;
}

/** What {@link DecisionLog.compact} did. */
export interface CompactResult {
  /** Rows left in the log. */
  kept: number;
  /** Rows past the retention age or count, removed. */
  dropped: number;
  /** Lines that were not decision rows (not a JSON object), moved out of the log into {@link CompactResult.setAsidePath}. */
  setAside: number;
  /** Where they went (the log's path with `.unreadable`), when there were any. */
  setAsidePath?: string;
}

export interface DecisionLogOptions {
  path: string;
  clock: Clock;
  /** Used for a timer of the log's own when no {@link DecisionLogOptions.flushTimer} is given. */
  schedule?: Scheduler;
  /** The ledger's timer (`WorkspaceLedger.flushTimer`), so rows and observations land together. */
  flushTimer?: FlushTimer;
  /** Told about failed background writes and a stalled or taken-over lock; the ledger's listener fits. */
  onNotice?: NoticeListener;
  lock?: { attempts?: number; intervalMs?: number; staleMs?: number };
}

/** The log that sits beside a ledger file. */
export function decisionLogPath(ledgerPath: string): string {
  return join(dirname(ledgerPath), DECISION_LOG_FILE);
}

/** {@link DecisionLog.checkFiles} for the log at `path`, before any log is built. */
export function checkDecisionLogFiles(path: string): void {
  ensureFolder(dirname(path));
  for (const file of [path, `${path}.lock`, `${path}.unreadable`]) refuseUnlessFile(file);
}

export class DecisionLog implements DecisionSink {
  readonly path: string;
  /** Everything the user should hear about, oldest first. */
  readonly notices: LedgerNotice[] = [];
  /** Where compaction moves lines that are not decision rows, rather than deleting them. */
  readonly unreadablePath: string;
  private readonly clock: Clock;
  private readonly timer: FlushTimer;
  private readonly onNotice: NoticeListener | undefined;
  private readonly lock: FileLock;
  /** Serialised rows not yet on disk, each ending in a newline. */
  private buffer: string[] = [];
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private flushChain: Promise<void> = Promise.resolve();

  constructor(options: DecisionLogOptions) {
    this.path = options.path;
    this.unreadablePath = `${options.path}.unreadable`;
    this.clock = options.clock;
    this.timer = options.flushTimer ?? new FlushTimer({ clock: options.clock, schedule: options.schedule });
    this.onNotice = options.onNotice;
    this.lock = new FileLock({
      path: `${options.path}.lock`,
      clock: options.clock,
      ...options.lock,
      ...lockNotices('decision log', (notice) => this.notify(notice)),
    });
  }

  /**
   * Throws, naming the path and what to do, when the log, its lock or its set-aside file is a symbolic
   * link or not a regular file, or its folder is a link; makes the folder when it is missing.
   *
   * @remarks
   * The appends refuse such a path anyway, but only once a call has been made and paid for; a front
   * end checks first, so no call is made whose row could not be written.
   */
  checkFiles(): void {
    checkDecisionLogFiles(this.path);
  }

  /** Rows appended but not yet written. */
  get queued(): number {
    return this.buffer.length;
  }

  /**
   * The rows appended but not yet written, as lines without their newline, oldest first: a reader of
   * the file puts them after its last line, so a row shows from the moment it is appended.
   */
  queuedLines(): string[] {
    return this.buffer.map((line) => line.slice(0, -1));
  }

  /** Queues one row; it lands with the next batch, at most {@link FLUSH_INTERVAL_MS} later. */
  append(row: DecisionRow): void {
    this.buffer.push(`${JSON.stringify(row)}\n`);
    this.timer.request(this, Math.max(0, this.lastFlushAt + FLUSH_INTERVAL_MS - this.clock.now()));
  }

  /** Writes every queued row, if the lock can be had; otherwise keeps them for the next attempt. */
  flush(): Promise<void> {
    const run = this.flushChain.then(() => this.flushOnce());
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  /** Writes what is queued, waiting through a busy lock until it is written or taken over as stale. */
  async close(): Promise<void> {
    this.timer.withdraw(this);
    for (let round = 0; this.buffer.length > 0; round++) {
      if (round > 40) throw new Error(`${this.buffer.length} decision rows could not be written: ${this.lock.path} stayed locked`);
      await this.flush();
    }
  }

  /** Every readable row, oldest first, and how many lines were skipped (torn or not a row). */
  readAll(): { rows: DecisionRow[]; skipped: number } {
    const text = readIfExists(this.path).toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    const parsed = parseDecisionLines(text.slice(0, end));
    // A last line without its newline is a row still being written or torn by a killed writer.
    return { rows: parsed.rows, skipped: parsed.skipped + (end < text.length ? 1 : 0) };
  }

  /**
   * The last `count` rows that `keep` accepts (every row without it), oldest first, read backwards from
   * the end of the file.
   *
   * @remarks
   * The filter is applied while reading, so the newest matching rows are found however many others
   * lie after them; `keep` sees every row read, so a caller can also learn what the rows it passed over were.
   */
  last(count: number, keep: (row: DecisionRow) => boolean = () => true): DecisionRow[] {
    if (count <= 0) return [];
    const found: DecisionRow[] = [];
    visitLinesBackwards(this.path, (line) => {
      const row = parseDecisionLines(line).rows[0];
      if (row && keep(row)) found.push(row);
      return found.length < count;
    });
    return found.reverse();
  }

  /** Every row of one call, and the truth about it: its last row (a later `final` row settles a verdict). */
  forCall(callId: string): { rows: DecisionRow[]; truth: DecisionRow | undefined } {
    const needle = JSON.stringify(callId).slice(1, -1);
    const text = readIfExists(this.path).toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    const lines = text
      .slice(0, end)
      .split('\n')
      .filter((line) => line.includes(needle));
    const rows = parseDecisionLines(lines.join('\n')).rows.filter((row) => row.call === callId);
    return { rows, truth: rows[rows.length - 1] };
  }

  /**
   * Drops rows past the retention age or count, under the appenders' lock; returns what it kept and dropped.
   *
   * @remarks
   * Rows are kept byte for byte (a row from a newer Rung keeps the fields this one does not know), and
   * only dropped, never rewritten. The rewrite goes to a temp file renamed over the log while the lock
   * is held, so no appender can be writing into the file being replaced. Ratings live in the ledger and
   * are unaffected. Dropping by count may cut a call's first rows and keep its last; the last row is the
   * truth, so what survives still reads correctly.
   */
  async compact(retention: DecisionRetention = DEFAULT_RETENTION): Promise<CompactResult> {
    await this.flush();
    const held = await this.lock.acquire();
    if (!held) throw new Error(`cannot compact ${this.path}: ${this.lock.path} is held by another process; try again`);
    try {
      // Bytes, not text: a line that is not UTF-8 would come back from a string with U+FFFD in place of
      // what it held, and what is set aside or kept must be exactly what was there.
      const bytes = readIfExists(this.path);
      if (bytes.length === 0) return { kept: 0, dropped: 0, setAside: 0 };
      const oldest = retention.maxAgeMs === undefined ? Number.NEGATIVE_INFINITY : this.clock.now() - retention.maxAgeMs;
      let kept: Buffer[] = [];
      const unreadable: Buffer[] = [];
      let rows = 0;
      // The piece after the last newline is read like any other line. No appender writes while the lock
      // is held, so it is not a row in progress: it is what a killed writer tore, or a whole row left by
      // something that does not end its last line (an editor, a merge). A row is one JSON object, and no
      // prefix of an object short of its closing brace parses: a piece that parses is whole and is kept,
      // with the newline it lacked; a torn one does not parse and is set aside.
      for (const line of splitLines(bytes)) {
        const text = line.toString('utf8');
        if (!text.trim()) continue;
        // A row is any JSON object, as the row counters read it: one the reader here would refuse may be
        // a newer Rung's (a verdict this one does not know), and is not this one's to move.
        const row = parseObject(text);
        if (!row) {
          unreadable.push(line);
          continue;
        }
        rows++;
        if (typeof row.at === 'number' && row.at < oldest) continue;
        kept.push(line);
      }
      if (retention.maxRows !== undefined && kept.length > retention.maxRows) kept = kept.slice(kept.length - retention.maxRows);
      const next = joinLines(kept);
      // Retention drops rows on purpose; a line that is not a row (a crash's torn row, a hand edit, a
      // merge conflict's markers, JSON that is no object) is not Rung's to delete, so it is moved aside
      // before the rewrite.
      if (unreadable.length) appendToFile(this.unreadablePath, joinLines(unreadable));
      if (!next.equals(bytes)) writeFileAtomic(this.path, next);
      return {
        kept: kept.length,
        dropped: rows - kept.length,
        setAside: unreadable.length,
        ...(unreadable.length ? { setAsidePath: this.unreadablePath } : {}),
      };
    } finally {
      held.release();
    }
  }

  private async flushOnce(): Promise<void> {
    if (this.buffer.length === 0) return;
    // This flush takes everything queued so far; a timer for it would only find an empty buffer.
    this.timer.withdraw(this);
    this.lastFlushAt = this.clock.now();
    const count = this.buffer.length;
    try {
      if (!(await this.writeQueued())) this.reschedule();
    } catch (error) {
      // Reported here because a timer's flush has no caller to throw to; the rows stay queued.
      this.notify({
        kind: 'save-failed',
        path: this.path,
        message: `could not write ${count} decision row${count === 1 ? '' : 's'} to ${this.path}: ${describe(error)}; will retry`,
      });
      this.reschedule();
      throw error;
    }
  }

  /** Appends every queued row under the lock; false when the lock stayed busy (the rows stay queued). */
  private async writeQueued(): Promise<boolean> {
    ensureFolder(dirname(this.path), { beforeWrite: true });
    const held = await this.lock.acquire();
    if (!held) return false;
    try {
      const rows = this.buffer.slice();
      // Opened after the lock is held, so a compaction that just renamed a new file in is the file we append
      // to; read and append (`a+`), never through a link (see safeFiles.ts).
      const fd = openFile(this.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
      try {
        const chunks = chunkRows(rows, needsLeadingNewline(fd));
        for (const chunk of chunks) writeWhole(fd, chunk);
      } finally {
        closeSync(fd);
      }
      this.buffer.splice(0, rows.length);
      return true;
    } finally {
      held.release();
    }
  }

  private reschedule(): void {
    this.timer.request(this, FLUSH_INTERVAL_MS);
  }

  private notify(notice: LedgerNotice): void {
    this.notices.push(notice);
    this.onNotice?.(notice);
  }
}

/** Whether the file's last byte is something other than a newline (a torn row to close off). */
function needsLeadingNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** Packs whole rows into buffers of at most {@link APPEND_CHUNK_BYTES}; a longer row is a buffer of its own. */
function chunkRows(rows: string[], leadingNewline: boolean): Buffer[] {
  const chunks: Buffer[] = [];
  let current: Buffer[] = leadingNewline ? [Buffer.from('\n')] : [];
  let size = leadingNewline ? 1 : 0;
  for (const row of rows) {
    const bytes = Buffer.from(row, 'utf8');
    if (size > 0 && size + bytes.length > APPEND_CHUNK_BYTES) {
      chunks.push(Buffer.concat(current, size));
      current = [];
      size = 0;
    }
    current.push(bytes);
    size += bytes.length;
  }
  if (size > 0) chunks.push(Buffer.concat(current, size));
  return chunks;
}

const NEWLINE = Buffer.from('\n');

/** The pieces of `bytes` between newlines, the piece after the last one included (empty when the bytes end in one). */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}

/** Each line followed by a newline. */
function joinLines(lines: Buffer[]): Buffer {
  return Buffer.concat(lines.flatMap((line) => [line, NEWLINE]));
}
