/**
 * The request a call answers, read from its messages: the user's words, the text they came in, whether
 * the turn carries code and whether it has acted, in time that grows with the length of the text.
 *
 * @remarks
 * Every call is read on the extension host's thread before any provider is asked, and the text is
 * whatever the user attached. Read with patterns that search the rest of the text again from every
 * place they start, 416 KB of unclosed `<userRequest>` tags in an attached file took 59 s: a lazy
 * `<userRequest>([\s\S]*?)</userRequest>` looked for each tag's end through the rest of the text, and
 * `<file\b[^>]*>` did the same for every unclosed `<file `. So no pattern here runs over the whole text
 * where it could look further than a line's first characters or a tag's name: tags are found with
 * `indexOf` from a place that only moves forward (the next `>` is looked for once and remembered),
 * fenced blocks line by line, and runs of blank lines as runs of white space. Each scan adds the
 * characters it looked at to a {@link ScanMeter} when it is given one, which is how a test holds the
 * reading linear without timing it (BENCHMARKS.md, "Reading a request's checks", has the times).
 */
import type { ChatMessage } from '../providers/provider';

/** What a request is, as the rules read it. */
export interface RequestReading {
  /** The request in words: the user's turn without code blocks and attached context. */
  words: string;
  /** The user's turn whole, attachments and code included: code found in it is quoted, not written. */
  text: string;
  /** The turn carries code: a fenced block, an attached file or a selection. */
  carriesCode: boolean;
  /** A tool call or a tool's result came after the request: the turn has acted. */
  acted: boolean;
  /** The tag of each fence in the turn (`ts` of a line opening with ```` ```ts ````), lower-cased, each once. */
  fenceTags: string[];
}

/** The characters a reading looked at, added up scan by scan: what a test reads to hold the reading linear. */
export interface ScanMeter {
  chars: number;
}

/**
 * The most of a request's words the rules read, characters: its start and its end, half each.
 *
 * @remarks
 * What a request asks is said at its start or its end, around whatever was pasted between, and the
 * rules run on the extension host's thread before every call: reading a pasted log whole would make
 * their cost grow with the log (BENCHMARKS.md, "Reading a request's checks").
 */
export const MAX_WORDS_CHARS = 4_000;

/**
 * The most fence tags a reading keeps: a file of a thousand fences names a handful of languages, and
 * the rules only ask whether one alone shows.
 */
const MAX_FENCE_TAGS = 32;

const USER_REQUEST_OPEN = '<userRequest>';
const USER_REQUEST_CLOSE = '</userRequest>';

/**
 * The opening tag of a block of context a prompt carries beside the user's words: attached files, the
 * editor's context, reminders. Named rather than any tag, since code holds `<string>` by the hundred.
 * Sticky: tried only right after a `<`, and no further than its longest name.
 */
const CONTEXT_TAG_NAME =
  /(attachments?|context|file|selection|editorContext|currentFile|activeFile|reminderInstructions|instructions|environment_info|workspace_info)\b/iy;
/** The tags the editor puts code in when it attaches a file or a selection. */
const CODE_CONTEXT_TAG_NAME = /(?:attachments?|file|selection|editorContext|currentFile|activeFile|context)\b/iy;

/**
 * The request a call answers: the user message with Copilot's `<userRequest>` in it when there is one
 * (after it, the turn holds the tools' results and reminders), else the last user message.
 */
export function readRequest(messages: readonly ChatMessage[], meter?: ScanMeter): RequestReading {
  let index = -1;
  for (let at = messages.length - 1; at >= 0 && index < 0; at--) {
    const message = messages[at] as ChatMessage;
    if (message.role !== 'user') continue;
    count(meter, message.content.length);
    if (message.content.includes(USER_REQUEST_OPEN)) index = at;
  }
  for (let at = messages.length - 1; at >= 0 && index < 0; at--) {
    const message = messages[at] as ChatMessage;
    if (message.role === 'user' && message.content.trim()) index = at;
  }
  if (index < 0) return { words: '', text: '', carriesCode: false, acted: false, fenceTags: [] };
  const text = (messages[index] as ChatMessage).content;
  const said = userRequest(text, meter) ?? withoutContext(text, meter);
  const words = bounded(withoutBlankLines(withoutFences(said, meter), meter).trim());
  const fences = fenceLines(text, meter);
  const carriesCode = fences.any || hasCodeContextTag(text, meter);
  const acted = messages
    .slice(index + 1)
    .some((message) => message.role === 'tool' || (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0));
  return { words, text, carriesCode, acted, fenceTags: fences.tags };
}

function count(meter: ScanMeter | undefined, chars: number): void {
  if (meter) meter.chars += chars;
}

/**
 * What the last `<userRequest>…</userRequest>` holds, or undefined when the text has none closed.
 *
 * @remarks
 * Each opening tag is paired with the first closing tag after it, left to right, and the last such pair
 * is what a Copilot prompt's user typed. An opening tag with no closing one after it ends the search:
 * no later opening tag has one either.
 */
function userRequest(text: string, meter: ScanMeter | undefined): string | undefined {
  let found: string | undefined;
  for (let at = 0; ;) {
    const open = text.indexOf(USER_REQUEST_OPEN, at);
    count(meter, (open < 0 ? text.length : open + USER_REQUEST_OPEN.length) - at);
    if (open < 0) return found;
    const start = open + USER_REQUEST_OPEN.length;
    const close = text.indexOf(USER_REQUEST_CLOSE, start);
    count(meter, (close < 0 ? text.length : close + USER_REQUEST_CLOSE.length) - start);
    if (close < 0) return found;
    found = text.slice(start, close);
    at = close + USER_REQUEST_CLOSE.length;
  }
}

/**
 * `text` without its blocks of context (`<attachment id="…">…</attachment>`), each found by its
 * closing tag; an opening tag that is never closed is left as it is.
 */
function withoutContext(text: string, meter: ScanMeter | undefined): string {
  const tags = new TagScan(text, CONTEXT_TAG_NAME, meter);
  // A tag not closed after one opening is closed after no later one: it is looked for once.
  const neverClosed = new Set<string>();
  let out = '';
  let from = 0;
  for (let at = 0; ;) {
    const tag = tags.next(at);
    if (!tag) break;
    at = tag.end;
    if (neverClosed.has(tag.name)) continue;
    const closing = `</${tag.name}>`;
    const end = indexOfCaseless(text, closing, tag.end, meter);
    if (end < 0) {
      neverClosed.add(tag.name);
      continue;
    }
    out += `${text.slice(from, tag.start)} `;
    from = end + closing.length;
    at = from;
  }
  return out + text.slice(from);
}

/** Whether `text` holds an opening tag the editor puts attached code in (`<attachment id="a.ts">`). */
function hasCodeContextTag(text: string, meter: ScanMeter | undefined): boolean {
  return new TagScan(text, CODE_CONTEXT_TAG_NAME, meter).next(0) !== undefined;
}

/** An opening tag found: where it starts and ends (after its `>`), and its name in lower case. */
interface FoundTag {
  start: number;
  end: number;
  name: string;
}

/**
 * The opening tags of some names in a text, found left to right: `<`, a name the pattern takes, then
 * anything up to the next `>`.
 *
 * @remarks
 * The next `>` is found once and remembered while the scan moves past it, and with none left no later
 * tag can close, so the scan stops: tens of thousands of unclosed `<file ` cost one look to the end.
 */
class TagScan {
  /** The next `>` at or after the scan, -1 when there is none; undefined before it is looked for. */
  private nextClose: number | undefined;

  constructor(
    private readonly text: string,
    private readonly name: RegExp,
    private readonly meter: ScanMeter | undefined,
  ) {}

  /** The first such tag starting at or after `from`, or undefined. */
  next(from: number): FoundTag | undefined {
    const { text } = this;
    for (let at = from; at < text.length;) {
      const open = text.indexOf('<', at);
      count(this.meter, (open < 0 ? text.length : open + 1) - at);
      if (open < 0) return undefined;
      this.name.lastIndex = open + 1;
      const name = this.name.exec(text)?.[0];
      if (name === undefined) {
        count(this.meter, 1);
        at = open + 1;
        continue;
      }
      count(this.meter, name.length);
      const afterName = open + 1 + name.length;
      if (this.nextClose === undefined || (this.nextClose >= 0 && this.nextClose < afterName)) {
        const close = text.indexOf('>', afterName);
        count(this.meter, (close < 0 ? text.length : close + 1) - afterName);
        this.nextClose = close;
      }
      if (this.nextClose < 0) return undefined;
      return { start: open, end: this.nextClose + 1, name: name.toLowerCase() };
    }
    return undefined;
  }
}

/** Where `needle` (lower case, starting `</`) first occurs in `text` at or after `from`, whatever the case of its letters; -1 when nowhere. */
function indexOfCaseless(text: string, needle: string, from: number, meter: ScanMeter | undefined): number {
  for (let at = from; ;) {
    const found = text.indexOf('</', at);
    count(meter, (found < 0 ? text.length : found + 2) - at);
    if (found < 0) return -1;
    count(meter, needle.length);
    if (text.slice(found, found + needle.length).toLowerCase() === needle) return found;
    at = found + 1;
  }
}

/** A line that opens or closes a fence: its indentation and its run of three or more backticks or tildes. */
interface FenceLine {
  indent: string;
  marker: string;
  /** The word after the marker (`ts`), if any. */
  tag: string | undefined;
  /** Whether nothing but spaces and tabs (and a carriage return) follows the marker. */
  bare: boolean;
}

/** `line` read as a fence, or undefined when it does not open with one (after spaces and tabs). */
function fenceLine(line: string): FenceLine | undefined {
  let at = 0;
  while (line[at] === ' ' || line[at] === '\t') at++;
  const indent = line.slice(0, at);
  const mark = line[at];
  if (mark !== '`' && mark !== '~') return undefined;
  let end = at;
  while (line[end] === mark) end++;
  if (end - at < 3) return undefined;
  const marker = line.slice(at, end);
  let rest = end;
  while (line[rest] === ' ' || line[rest] === '\t') rest++;
  const tag = /^[\w+#.-]+/.exec(line.slice(rest, rest + 40))?.[0];
  const bare = rest === line.length || (rest === line.length - 1 && line[rest] === '\r');
  return { indent, marker, tag, bare };
}

/** Each line of `text`, one after the other, by its start and end. */
function* lines(text: string, meter: ScanMeter | undefined): Generator<{ start: number; end: number }> {
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    count(meter, end - start + 1);
    yield { start, end };
    if (newline < 0) return;
    start = newline + 1;
  }
}

/**
 * `text` with each fenced block (```` ``` ```` or `~~~`, closed by the same marker, or running to the
 * end) as one space: code the user quoted is not what they asked.
 *
 * @remarks
 * A fence opens on a line that starts (after spaces and tabs) with three or more backticks or tildes
 * and has a line after it; it closes on a line holding the same marker alone, at its indentation or
 * none. Read line by line, each line once.
 */
function withoutFences(text: string, meter: ScanMeter | undefined): string {
  const out: string[] = [];
  let open: FenceLine | undefined;
  for (const { start, end } of lines(text, meter)) {
    const line = text.slice(start, end);
    if (open) {
      const fence = fenceLine(line);
      if (fence?.bare && fence.marker === open.marker && (fence.indent === '' || fence.indent === open.indent)) open = undefined;
      continue;
    }
    const fence = end < text.length ? fenceLine(line) : undefined;
    if (fence) {
      open = fence;
      out.push(' ');
    } else out.push(line);
  }
  return out.join('\n');
}

/** Whether `text` has a line opening with a fence, and the tags of its fences. */
function fenceLines(text: string, meter: ScanMeter | undefined): { any: boolean; tags: string[] } {
  const tags = new Set<string>();
  let any = false;
  for (const { start, end } of lines(text, meter)) {
    const fence = fenceLine(text.slice(start, end));
    if (!fence) continue;
    any = true;
    if (fence.tag !== undefined && tags.size < MAX_FENCE_TAGS) tags.add(fence.tag.toLowerCase());
  }
  return { any, tags: [...tags] };
}

/** `text` with every run of white space holding two line breaks or more as one line break. */
function withoutBlankLines(text: string, meter: ScanMeter | undefined): string {
  count(meter, text.length);
  // With fewer than two line breaks there is no such run: a long paste on one line is not walked run by run.
  if (text.indexOf('\n') === text.lastIndexOf('\n')) return text;
  return text.replace(/\s+/g, (run) => (run.indexOf('\n') !== run.lastIndexOf('\n') ? '\n' : run));
}

function bounded(words: string): string {
  if (words.length <= MAX_WORDS_CHARS) return words;
  const half = MAX_WORDS_CHARS / 2;
  return `${words.slice(0, half)}\n${words.slice(-half)}`;
}
