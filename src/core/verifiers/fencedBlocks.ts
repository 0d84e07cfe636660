/**
 * The fenced code blocks of a model's answer (```` ```lang … ``` ````, also `~~~`), found in time linear in
 * the answer.
 *
 * @remarks
 * The blocks are the ones the pattern
 * `^([ \t]*)(```+|~~~+)[ \t]*([\w+.#-]*)([^\n]*)\n([\s\S]*?)^\1?\2[ \t]*$` (multiline) finds, in the same
 * order and with the same parts, because every check and the extension's edit reader were built on what
 * it finds: an opening fence of three or more backticks or tildes after any indentation, its language
 * tag and the rest of its line, and a body up to the first line that holds the same fence alone, indented
 * like the opener or not at all. An opener with no such line is tried again with a shorter fence (what the
 * pattern's backtracking does), and otherwise is no block.
 *
 * Run as a pattern it took time quadratic in the answer twice over: each block's line number counted the
 * lines of everything before it (`slice(0, index).split`), and an opener with no closing line was searched
 * to the end of the answer before the next line was tried. 128 KB of "```" lines took 11 s and 480 KB of
 * code blocks 96 s on the extension host's thread. Here each line is read once: the lines that could
 * close a block are indexed by their fence and indentation first, so an opener finds its closer in one
 * look-up, and line numbers are counted as the scan goes.
 */

/** One fenced block: its language tag (lower case), the rest of its opening line, its body, and the answer line its body starts on (1-based). */
export interface FencedBlock {
  language: string;
  info: string;
  body: string;
  startLine: number;
}

/** A character the pattern's `^` and `$` treat as ending a line (JavaScript's line terminators). */
function endsLine(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

const BACKTICK = 0x60;
const TILDE = 0x7e;
const SPACE = 0x20;
const TAB = 0x09;

/** A character of a language tag: `[\w+.#-]`. */
function inTag(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x23 ||
    code === 0x2d
  );
}

/** What a line begins with: its indentation, and the run of one fence character after it. */
interface LineHead {
  /** Where the line starts. */
  start: number;
  /** Where the indentation ends and the run begins. */
  runStart: number;
  /** The indentation's number: lines indented alike share one ({@link FLUSH} for none). */
  indent: number;
  /** The fence character (a backtick or a tilde), or 0 when the line does not begin with a run of three. */
  fence: number;
  /** How long the run is. */
  run: number;
}

/** The indentation number of a line that is not indented. */
const FLUSH = 0;

/** A line that can close a block: where it starts, and where the pattern's match of it ends (after its trailing blanks). */
interface Closer {
  start: number;
  end: number;
}

/** The fenced blocks of `text`, in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  const heads = lineHeads(text);
  const closers = new CloserIndex(text, heads);
  const blocks: FencedBlock[] = [];
  // The end of the last block: no block starts before it, as a pattern search resumes where it left off.
  let resume = 0;
  // The next LF after an opener's run, cached: openers come in order, so the search only moves forward.
  let nextLf = -1;
  // Line feeds before `counted`, for the line numbers.
  let counted = 0;
  let lineFeeds = 0;
  for (const head of heads) {
    if (head.start < resume || head.fence === 0) continue;
    const afterRun = head.runStart + head.run;
    if (nextLf < afterRun) nextLf = text.indexOf('\n', afterRun);
    // The opener's line must end in a line feed: its body starts after it. No later line has one either.
    if (nextLf < 0) break;
    const bodyStart = nextLf + 1;
    let closer: Closer | undefined;
    let fence = head.run;
    for (; fence >= 3; fence--) {
      closer = earliest(closers.first(head.fence, fence, head.indent, bodyStart), closers.first(head.fence, fence, FLUSH, bodyStart));
      if (closer) break;
    }
    if (!closer) continue;
    // The language tag and the rest of the line follow the fence as the pattern reads them: after a fence
    // shorter than the run, the next character is the fence's own, which no tag holds.
    let tagStart = head.runStart + fence;
    if (fence === head.run) {
      while (tagStart < nextLf && isBlank(text.charCodeAt(tagStart))) tagStart++;
    }
    let tagEnd = tagStart;
    while (tagEnd < nextLf && inTag(text.charCodeAt(tagEnd))) tagEnd++;
    for (let at = text.indexOf('\n', counted); at >= 0 && at < head.start; at = text.indexOf('\n', at + 1)) lineFeeds++;
    counted = head.start;
    blocks.push({
      language: text.slice(tagStart, tagEnd).toLowerCase(),
      info: text.slice(tagEnd, nextLf).trim(),
      body: text.slice(bodyStart, closer.start),
      startLine: lineFeeds + 2,
    });
    resume = closer.end;
  }
  return blocks;
}

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** The one of two closers that comes first. */
function earliest(a: Closer | undefined, b: Closer | undefined): Closer | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.start <= b.start ? a : b;
}

/** Where each line of `text` starts (after every line terminator, as the pattern's `^` matches), and what it begins with. */
function lineHeads(text: string): LineHead[] {
  const heads: LineHead[] = [];
  const indents = new Map<string, number>([['', FLUSH]]);
  let start = 0;
  for (;;) {
    let runStart = start;
    while (runStart < text.length && isBlank(text.charCodeAt(runStart))) runStart++;
    const code = text.charCodeAt(runStart);
    let run = 0;
    if (code === BACKTICK || code === TILDE) {
      while (text.charCodeAt(runStart + run) === code) run++;
    }
    let indent = FLUSH;
    if (run >= 3 && runStart > start) {
      const written = text.slice(start, runStart);
      indent = indents.get(written) ?? indents.size;
      indents.set(written, indent);
    }
    heads.push({ start, runStart, indent, fence: run >= 3 ? code : 0, run });
    let end = runStart + run;
    while (end < text.length && !endsLine(text.charCodeAt(end))) end++;
    if (end >= text.length) return heads;
    start = end + 1;
  }
}

/**
 * The lines that hold a fence alone (a run, then only spaces and tabs to the line's end), by fence
 * character, length and indentation, each list in order with a cursor that only moves forward: openers
 * are asked in order, and a body never starts before the last one asked.
 */
class CloserIndex {
  private readonly lists = new Map<string, { closers: Closer[]; next: number }>();

  constructor(text: string, heads: readonly LineHead[]) {
    for (const head of heads) {
      if (head.fence === 0) continue;
      let end = head.runStart + head.run;
      while (end < text.length && isBlank(text.charCodeAt(end))) end++;
      if (end < text.length && !endsLine(text.charCodeAt(end))) continue;
      const key = `${head.fence}:${head.run}:${head.indent}`;
      let list = this.lists.get(key);
      if (!list) {
        list = { closers: [], next: 0 };
        this.lists.set(key, list);
      }
      list.closers.push({ start: head.start, end });
    }
  }

  /** The first line at or after `from` that closes a fence of `length` characters `fence`, indented as `indent`. */
  first(fence: number, length: number, indent: number, from: number): Closer | undefined {
    const list = this.lists.get(`${fence}:${length}:${indent}`);
    if (!list) return undefined;
    while (list.next < list.closers.length && (list.closers[list.next] as Closer).start < from) list.next++;
    return list.closers[list.next];
  }
}
