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
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseDecisionLines, type DecisionRow } from '../decisions/decision';
import { isCode } from './fileLock';

/** Bytes read per step when reading the log backwards for its last rows. */
export const TAIL_READ_CHUNK_BYTES = 64 * 1024;

/**
 * Calls `visit` with each complete line of the file at `path`, newest first, until it returns false
 * or the file's start is reached. A missing file has no lines. Returns the byte offset just past the
 * last complete line, where a forward reader picks up what is appended later.
 */
export function visitLinesBackwards(path: string, visit: (line: string) => boolean): number {
  const fd = openIfExists(path);
  if (fd === undefined) return 0;
  try {
    let position = fstatSync(fd).size;
    let completeEnd = 0;
    let carry: Buffer = Buffer.alloc(0);
    let atEnd = true;
    while (position > 0) {
      const length = Math.min(TAIL_READ_CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      const data = carry.length ? Buffer.concat([chunk, carry]) : chunk;
      let end = data.length;
      if (atEnd) {
        const lastNewline = data.lastIndexOf(0x0a);
        if (lastNewline < 0) {
          carry = data;
          continue;
        }
        end = lastNewline; // whatever follows the last newline is torn or in progress
        completeEnd = position + lastNewline + 1;
        atEnd = false;
      }
      while (end > 0) {
        const start = data.lastIndexOf(0x0a, end - 1);
        if (start < 0) break;
        if (end > start + 1 && !visit(data.subarray(start + 1, end).toString('utf8'))) return completeEnd;
        end = start;
      }
      carry = data.subarray(0, end);
    }
    if (!atEnd && carry.length > 0) visit(carry.toString('utf8'));
    return completeEnd;
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `visit` with each complete line from byte `from` on, oldest first. Returns the offset just past
 * the last complete line (a line still being written is read next time, whole), or -1 when the file is
 * shorter than `from` (compacted since): the caller starts again.
 */
export function visitLinesForward(path: string, from: number, visit: (line: string) => void): number {
  const fd = openIfExists(path);
  if (fd === undefined) return from === 0 ? 0 : -1;
  try {
    const size = fstatSync(fd).size;
    if (size < from) return -1;
    let carry: Buffer = Buffer.alloc(0);
    let position = from;
    while (position < size) {
      const length = Math.min(TAIL_READ_CHUNK_BYTES, size - position);
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      position += length;
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let newline = data.indexOf(0x0a, start); newline >= 0; newline = data.indexOf(0x0a, start)) {
        if (newline > start) visit(data.subarray(start, newline).toString('utf8'));
        start = newline + 1;
      }
      carry = data.subarray(start);
    }
    return size - carry.length;
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
  /** Whether every row matches (no filter): then a line is counted without being parsed. */
  everything?: boolean;
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

/**
 * Counts the rows of a log that match, remembering where it stopped so the next count reads only what
 * was appended since; a file that shrank (compacted) is counted again from its start.
 */
export class RowCounter {
  private offset = 0;
  private count = 0;

  constructor(
    private readonly path: string,
    private readonly matcher: RowMatcher,
  ) {}

  total(): number {
    const count = (line: string): void => {
      // Without a filter a row is any line that opens an object: a torn line is almost never one.
      if (this.matcher.everything) {
        if (line.startsWith('{')) this.count++;
        return;
      }
      if (!this.matcher.mayMatch(line)) return;
      const row = parseObject(line);
      if (row && this.matcher.matches(row)) this.count++;
    };
    let next = visitLinesForward(this.path, this.offset, count);
    if (next < 0) {
      this.count = 0;
      next = visitLinesForward(this.path, 0, count);
    }
    this.offset = Math.max(0, next);
    return this.count;
  }
}

function openIfExists(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}
