/**
 * Reads the decision log from its end, a line at a time, and counts its rows without parsing them:
 * what a page of recent decisions and a day's spend need from a log that may hold 100k rows.
 *
 * @remarks
 * A panel shows the last fifty decisions; parsing a 68 MB log to find them would take the better part
 * of a second. Reading backwards in {@link TAIL_READ_CHUNK_BYTES} steps touches only the bytes of the
 * rows returned. The line after the last newline is a row still being written (or torn by a killed
 * writer) and is never returned. Counting rows for a filter reads the file forwards, but only the
 * bytes added since the last count, and parses only lines a cheap text test cannot rule out.
 */
import { closeSync, constants, fstatSync, readFileSync, readSync } from 'node:fs';
import { parseDecisionLines, type DecisionRow } from '../decisions/decision';
import { isCode, openNoFollow, whatIs } from '../files/safeFiles';

/** Bytes read per step when reading the log backwards for its last rows. */
export const TAIL_READ_CHUNK_BYTES = 64 * 1024;

/**
 * Calls `visit` with each complete line of the file at `path` and the byte offset it starts at, newest
 * first, until it returns false or the file's start is reached. A missing file has no lines. With
 * `until`, only the bytes before it are read (`until` just past a line, as a forward reader returns it).
 * Returns the byte offset just past the last complete line, where a forward reader picks up what is
 * appended later.
 */
export function visitLinesBackwards(path: string, visit: (line: string, start: number) => boolean, until?: number): number {
  const fd = openIfExists(path);
  if (fd === undefined) return 0;
  try {
    let position = Math.min(fstatSync(fd).size, until ?? Number.MAX_SAFE_INTEGER);
    let completeEnd = 0;
    // The bytes between `position` and the newline after it, in pieces, last piece first. A line longer
    // than a chunk is joined once, when its start is found: joining the carry to every chunk read made
    // a 32 MB line take 3–10 s (the whole carry copied again per 64 KiB) and grow with its square.
    let carry: Buffer[] = [];
    let atEnd = true;
    while (position > 0) {
      const length = Math.min(TAIL_READ_CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      let end = chunk.lastIndexOf(0x0a);
      if (end < 0) {
        carry.push(chunk);
        continue;
      }
      if (atEnd) {
        // Whatever follows the last newline is torn or in progress.
        completeEnd = position + end + 1;
        atEnd = false;
      } else {
        const line = joinCarry(chunk.subarray(end + 1), carry);
        if (line.length > 0 && !visit(line.toString('utf8'), position + end + 1)) return completeEnd;
      }
      while (end > 0) {
        const start = chunk.lastIndexOf(0x0a, end - 1);
        if (start < 0) break;
        if (end > start + 1 && !visit(chunk.subarray(start + 1, end).toString('utf8'), position + start + 1)) return completeEnd;
        end = start;
      }
      carry = [chunk.subarray(0, end)];
    }
    if (!atEnd) {
      const first = joinCarry(Buffer.alloc(0), carry);
      if (first.length > 0) visit(first.toString('utf8'), 0);
    }
    return completeEnd;
  } finally {
    closeSync(fd);
  }
}

/** `head` followed by the carried pieces (kept last piece first) in file order. */
function joinCarry(head: Buffer, carry: Buffer[]): Buffer {
  if (carry.length === 0) return head;
  return Buffer.concat([head, ...carry.slice().reverse()]);
}

/**
 * Calls `visit` with each complete line from byte `from` on, oldest first, and the byte offset it starts
 * at. Returns the offset just past the last complete line (a line still being written is read next
 * time, whole), or -1 when the file is shorter than `from` (compacted since): the caller starts again.
 */
export function visitLinesForward(path: string, from: number, visit: (line: string, start: number) => void): number {
  const fd = openIfExists(path);
  if (fd === undefined) return from === 0 ? 0 : -1;
  try {
    const size = fstatSync(fd).size;
    if (size < from) return -1;
    // The start of a line that no chunk so far has ended, in pieces, joined once when it ends (as the
    // backward reader does: joined per chunk, a long line cost time with its square).
    let carry: Buffer[] = [];
    let carried = 0;
    let position = from;
    while (position < size) {
      const length = Math.min(TAIL_READ_CHUNK_BYTES, size - position);
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
        const lineStart = position + start - carried;
        const line = carried ? Buffer.concat([...carry, chunk.subarray(0, newline)]) : chunk.subarray(start, newline);
        if (line.length > 0) visit(line.toString('utf8'), lineStart);
        carry = [];
        carried = 0;
        start = newline + 1;
      }
      if (start < length) {
        carry.push(chunk.subarray(start));
        carried += length - start;
      }
      position += length;
    }
    return size - carried;
  } finally {
    closeSync(fd);
  }
}

/** Parses one line as a decision row; undefined for a line that is not one. */
export function parseRow(line: string): DecisionRow | undefined {
  return parseDecisionLines(line).rows[0];
}

/**
 * A row test with a text test that may only rule lines out, never in: it spares parsing most lines.
 * `matches` reads the parsed JSON object as it is, without the row schema, so counting stays cheap.
 */
export interface RowMatcher {
  mayMatch(line: string): boolean;
  matches(row: RowFields): boolean;
  /** Whether every row matches (no filter on the row): then a line is counted without being parsed. */
  everything?: boolean;
  /**
   * A verdict that picks calls rather than rows: a call's matching rows count only when one of them
   * has it (callPage.ts says why).
   */
  verdict?: string;
}

/** The fields a filter reads, as a parsed line holds them (not yet checked against the row schema). */
export interface RowFields {
  class?: unknown;
  shape?: unknown;
  model?: unknown;
  resolved?: unknown;
  verdict?: unknown;
}

/** The JSON object on one line; undefined for a line that is not one. */
export function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** How JSON.stringify writes a row's call id key, the text {@link callIdOf} looks for. */
const CALL_KEY = '"call":"';

/** The `call` of a log line without parsing it, as JSON.stringify writes it; any other spelling is parsed. */
export function callIdOf(line: string): unknown {
  const key = line.indexOf(CALL_KEY);
  if (key >= 0) {
    const start = key + CALL_KEY.length;
    const end = line.indexOf('"', start);
    const id = line.slice(start, end);
    // An id with an escape in it (never one Rung writes) is read by the parser.
    if (end >= 0 && !id.includes('\\')) return id;
  }
  return parseObject(line)?.call;
}

/**
 * Whether a log line's verdict is `verdict`, read from the text when JSON.stringify wrote it (a row's
 * only `"verdict":` key is its own: a pruned entry has none, and one inside a string is escaped).
 */
export function hasVerdict(line: string, verdict: string): boolean {
  if (line.includes(`"verdict":${JSON.stringify(verdict)}`)) return true;
  if (line.includes('"verdict":"')) return false;
  return parseObject(line)?.verdict === verdict;
}

/**
 * Where each call's first row is in the log: the place a page counts the whole call at (callPage.ts).
 *
 * @remarks
 * A page is read from the log's end, and a call's first row is the one after which no older row of
 * it follows: only a forward read can tell which that is. Kept up to date like {@link RowCounter},
 * reading only what was appended since, and read again whole when the file shrank (compacted). It
 * picks out call ids without parsing rows, and holds one entry a call: about 3 MB for 50,000 calls.
 */
export class CallStarts {
  private offset = 0;
  private readonly starts = new Map<string, number>();

  constructor(private readonly path: string) {}

  /** Reads what was appended since the last call; returns the offset just past the last line it knows. */
  refresh(): number {
    const note = (line: string, start: number): void => {
      const call = callIdOf(line);
      if (typeof call === 'string' && !this.starts.has(call)) this.starts.set(call, start);
    };
    let next = visitLinesForward(this.path, this.offset, note);
    if (next < 0) {
      this.starts.clear();
      next = visitLinesForward(this.path, 0, note);
    }
    this.offset = Math.max(0, next);
    return this.offset;
  }

  /** The byte offset of the first row of `call`, as of the last {@link refresh}; undefined for a call not in the log. */
  startOf(call: string): number | undefined {
    return this.starts.get(call);
  }
}

/** What a verdict-filtered count remembers of each call: how many rows wait on it, or that it is shown. */
interface CallTally {
  shown(call: string): boolean;
  show(call: string): void;
  waiting(call: string): number;
  wait(call: string, rows: number): void;
}

/**
 * Counts the rows of a log that match, remembering where it stopped so the next count reads only what
 * was appended since; a file that shrank (compacted) is counted again from its start. Rows still queued
 * for the file are counted on top, each time, without being remembered.
 *
 * @remarks
 * With a verdict, a call's matching rows count once one of them has it (and every later one with
 * them): the count remembers, for each call not yet shown, how many of its rows wait.
 */
export class RowCounter {
  private offset = 0;
  private count = 0;
  private readonly waitingRows = new Map<string, number>();
  private readonly shownCalls = new Set<string>();
  private readonly tally: CallTally = {
    shown: (call) => this.shownCalls.has(call),
    show: (call) => {
      this.shownCalls.add(call);
      this.waitingRows.delete(call);
    },
    waiting: (call) => this.waitingRows.get(call) ?? 0,
    wait: (call, rows) => this.waitingRows.set(call, rows),
  };

  constructor(
    private readonly path: string,
    private readonly matcher: RowMatcher,
  ) {}

  /** The matching rows in the file and in `queued` (lines not yet written, oldest first). */
  total(queued: readonly string[] = []): number {
    const count = (line: string): void => {
      this.count += this.rowsAdded(line, this.tally);
    };
    let next = visitLinesForward(this.path, this.offset, count);
    if (next < 0) {
      this.count = 0;
      this.waitingRows.clear();
      this.shownCalls.clear();
      next = visitLinesForward(this.path, 0, count);
    }
    this.offset = Math.max(0, next);
    if (queued.length === 0) return this.count;
    // The queued rows land in the file soon and are counted from there: here they are counted on a layer of their own.
    const shown = new Set<string>();
    const waiting = new Map<string, number>();
    const layer: CallTally = {
      shown: (call) => shown.has(call) || this.tally.shown(call),
      show: (call) => shown.add(call),
      waiting: (call) => waiting.get(call) ?? this.tally.waiting(call),
      wait: (call, rows) => waiting.set(call, rows),
    };
    let extra = 0;
    for (const line of queued) extra += this.rowsAdded(line, layer);
    return this.count + extra;
  }

  /** How many rows `line` adds to the count: itself, and with a verdict the rows of its call that waited on it. */
  private rowsAdded(line: string, tally: CallTally): number {
    const verdict = this.matcher.verdict;
    let call: unknown;
    let hit: boolean;
    if (this.matcher.everything) {
      // Without a filter on the row a row is any line that opens an object: a torn line is almost never one.
      if (!line.startsWith('{')) return 0;
      if (verdict === undefined) return 1;
      call = callIdOf(line);
      hit = hasVerdict(line, verdict);
    } else {
      if (!this.matcher.mayMatch(line)) return 0;
      const row = parseObject(line);
      if (!row || !this.matcher.matches(row)) return 0;
      if (verdict === undefined) return 1;
      call = row.call;
      hit = row.verdict === verdict;
    }
    if (typeof call !== 'string') return 0;
    if (tally.shown(call)) return 1;
    if (!hit) {
      tally.wait(call, tally.waiting(call) + 1);
      return 0;
    }
    const waited = tally.waiting(call);
    tally.show(call);
    return waited + 1;
  }
}

/**
 * Opens the log at `path` for reading; undefined when there is none.
 *
 * @remarks
 * Anything but a regular file is refused by name, in the words the ledger file uses: a directory there
 * used to fail every reader with a bare "EISDIR: illegal operation on a directory, read", naming no
 * path. Opened non-blocking, as the ledger file is, so a named pipe at the path cannot hang the open,
 * and never through a symbolic link (see safeFiles.ts): a log linked to a file elsewhere would show
 * that file's lines, and compaction would copy them into the workspace.
 */
export function openIfExists(path: string): number | undefined {
  let fd: number;
  try {
    fd = openNoFollow(path, constants.O_RDONLY);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    // Where a directory cannot be opened at all (Windows), the open is what fails.
    if (isCode(error, 'EISDIR')) throw notALogFile(path, 'a directory');
    throw error;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw notALogFile(path, whatIs(stat));
  }
  return fd;
}

/** The whole log at `path` (refused by name when it is not a file), or no bytes when there is none. */
export function readIfExists(path: string): Buffer {
  const fd = openIfExists(path);
  if (fd === undefined) return Buffer.alloc(0);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function notALogFile(path: string, what: string): Error {
  return new Error(`cannot use ${path} as the decision log: it is ${what}, not a decision log file`);
}
