/**
 * What Rung says about a panel that does not validate: one line per mistake, in Rung's words, each
 * naming the field's path, where it is in the file (line and column) when the file's text is known, and,
 * for a misspelt key or value, the one it most likely meant.
 *
 * @remarks
 * The panel schema is zod's, and zod's own messages ("Invalid input: expected number, received
 * string", "Too big: expected number to be <=1", "Unrecognized key: \"outptu\"") reached the user word
 * for word, beside messages in Rung's voice, in the same toast. Here every issue zod can raise is put in
 * Rung's words; a message a schema wrote itself (the provider key's) is kept as written, being ours
 * already. The place in the file comes from jsonc-parser's tree of the same text (VS Code's own JSON
 * parser), so it is where the editor's Go to Line lands. Nothing here imports the schema: the caller
 * passes it, so the wording cannot drift from the schema it describes.
 */
import { distance } from 'fastest-levenshtein';
import { visit } from 'jsonc-parser/lib/esm/main.js';
import * as z from 'zod';
import { LineIndex } from './jsonText';

/** One step of a path into the panel: a key, or an index into a list. */
type PathPart = string | number;

/** A place in a file, both counted from 1, as editors show them. */
export interface TextPosition {
  line: number;
  column: number;
}

/**
 * The most issues of one panel said in full; the rest are counted in one last line (`and 4,980 more
 * issues`).
 *
 * @remarks
 * A file of small mistakes has one issue per mistake: `{"models":[1,1,…]}` just under 1 MiB has half a
 * million, and every one went into the toast, the log and the CLI's error. Twenty is more than a
 * hand-written panel of a few dozen models gets wrong at once, and enough to show what kind of mistake
 * the rest are.
 */
export const MAX_PANEL_ISSUES = 20;

/** The issues of a failed validation said in full (at most `limit`), and how many more there were. */
export interface BoundedIssues {
  lines: string[];
  more: number;
}

/**
 * The issues of a failed validation as lines: `path: what is wrong (line L column C)`, at most `limit`
 * of them, with a last line counting the rest (see {@link MAX_PANEL_ISSUES}).
 *
 * @param json The value that was validated, to quote what was written.
 * @param text The file's text, when the value was read from one: each line then says where.
 */
export function describePanelIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  json: unknown,
  fileText?: string,
  limit = MAX_PANEL_ISSUES,
): string[] {
  const { lines, more } = boundedPanelIssues(issues, schema, json, fileText, limit);
  return withMore(lines, more);
}

/**
 * {@link describePanelIssues} without the last line: the lines said in full, and how many more there
 * were, for a caller that adds lines of its own before counting the rest.
 *
 * @remarks
 * Linear in the text and the issues: which issues are said is settled in one pass over them, and only
 * those said are placed in the file, each by a binary search over its line starts (see LineIndex).
 */
export function boundedPanelIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  json: unknown,
  fileText?: string,
  limit = MAX_PANEL_ISSUES,
): BoundedIssues {
  const suggested = new Set<string>();
  const entries: { path: PathPart[]; key?: string; unknownKey?: string; say: (place: Place) => string }[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((part): part is PathPart => typeof part === 'string' || typeof part === 'number');
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, path);
      for (const key of issue.keys) {
        // A near key already written beside it is no suggestion: the misspelt one is then a leftover.
        const near = nearest(key, known);
        const meant = near !== undefined && !hasKey(valueAt(json, path), near) ? near : undefined;
        if (meant !== undefined) suggested.add(formatPath([...path, meant]));
        const hint = meant !== undefined ? `; did you mean "${meant}"?` : known.length ? ` (the keys here: ${known.join(', ')})` : '';
        entries.push({
          path,
          unknownKey: key,
          say: (place) => `${formatPath(path) || '(top level)'}: unknown key "${key}"${hint}${place(path, key)}`,
        });
      }
      continue;
    }
    entries.push({
      path,
      key: formatPath(path),
      say: (place) => `${formatPath(path) || '(top level)'}: ${wording(issue, valueAt(json, path), path)}${place(path)}`,
    });
  }
  // A key written misspelt is also missing under its right name: the suggestion already says both.
  const kept = entries.filter((entry) => entry.key === undefined || !suggested.has(entry.key) || valueAt(json, entry.path) !== undefined);
  const shown = kept.slice(0, limit);
  const place = placesIn(
    fileText,
    shown.map((entry) => (entry.unknownKey === undefined ? entry.path : [...entry.path, entry.unknownKey])),
  );
  return { lines: shown.map((entry) => entry.say(place)), more: Math.max(0, kept.length - limit) };
}

/**
 * Lines written by hand (`models[1].slug: "a" is listed twice`) with where their path is in `text`;
 * each line as it was when the text is unknown or the path is not in it. At most `limit` lines, with a
 * last line counting the rest.
 */
export function locatePanelIssues(lines: readonly string[], fileText?: string, limit = MAX_PANEL_ISSUES): string[] {
  const shown = lines.slice(0, limit).map((line) => {
    const colon = line.indexOf(': ');
    return { line, path: colon < 0 ? undefined : parsePath(line.slice(0, colon)) };
  });
  const place = placesIn(
    fileText,
    shown.flatMap((entry) => (entry.path === undefined ? [] : [entry.path])),
  );
  const located = shown.map((entry) => (entry.path === undefined ? entry.line : `${entry.line}${place(entry.path)}`));
  return withMore(located, lines.length - located.length);
}

/** `lines`, and a last line counting `more` not said, when there are any: `and 4,980 more issues`. */
export function withMore(lines: readonly string[], more: number): string[] {
  return more > 0 ? [...lines, `and ${more.toLocaleString('en-US')} more issue${more === 1 ? '' : 's'}`] : [...lines];
}

/** The position a line of {@link describePanelIssues} or {@link locatePanelIssues} names, when it names one. */
export function issuePosition(line: string): TextPosition | undefined {
  const found = / \(line (\d+) column (\d+)\)$/.exec(line);
  return found ? { line: Number(found[1]), column: Number(found[2]) } : undefined;
}

/** `models[1].price.output`; empty for the top level. */
export function formatPath(path: readonly PathPart[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${part}`)).join('');
}

/** The path a {@link formatPath} string names, or undefined when it is not one (`(top level)`, a setting's name with a space). */
function parsePath(text: string): PathPart[] | undefined {
  if (!/^[A-Za-z_$][\w$-]*(\.[\w$:./-]+|\[\d+\])*$/.test(text)) return undefined;
  const parts: PathPart[] = [];
  for (const match of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) parts.push(match[2] !== undefined ? Number(match[2]) : (match[1] as string));
  return parts;
}

/** Zod's issue in Rung's words, naming what was written where that helps. */
function wording(issue: z.core.$ZodIssue, value: unknown, path: readonly PathPart[]): string {
  if (!isZodWording(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'is missing';
      return `must be ${typeWords(issue.expected, path)}, not ${quote(value)}`;
    case 'too_small':
      return smallWords(issue, value);
    case 'too_big':
      return bigWords(issue);
    case 'invalid_value': {
      const choices = issue.values.map((choice) => JSON.stringify(choice));
      const meant =
        typeof value === 'string'
          ? nearest(
              value,
              issue.values.filter((choice): choice is string => typeof choice === 'string'),
            )
          : undefined;
      const list = choices.length > 1 ? `one of ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : (choices[0] ?? 'another value');
      return `must be ${list}, not ${quote(value)}${meant !== undefined ? `; did you mean "${meant}"?` : ''}`;
    }
    case 'invalid_format':
      if (issue.format === 'url') return `must be a URL such as http://127.0.0.1:8080/v1, not ${quote(value)}`;
      if (issue.format === 'regex' && 'pattern' in issue)
        return `${quote(value)} does not have the form this field takes (${String(issue.pattern)})`;
      return `${quote(value)} does not have the form this field takes (${issue.format})`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}, not ${quote(value)}`;
    default:
      return `${quote(value)} is not a value this field takes`;
  }
}

/** Whether a message is zod's own English wording (any schema-written message is kept as it is). */
function isZodWording(message: string): boolean {
  return /^(Invalid\b|Too (big|small):|Unrecognized keys?:)/.test(message);
}

function typeWords(expected: string, path: readonly PathPart[]): string {
  const last = path.at(-1);
  switch (expected) {
    case 'int':
    case 'number':
      // The one count a user may write with a unit ("32k"): saying the unit says what to write instead.
      if (last === 'context') return 'a whole number of tokens';
      return expected === 'int' ? 'a whole number' : 'a number';
    case 'string':
      return 'text in quotes';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object ({ … })';
    case 'array':
      return 'a list ([ … ])';
    case 'null':
      return 'null';
    default:
      return expected;
  }
}

function smallWords(issue: z.core.$ZodIssueTooSmall, value: unknown): string {
  const minimum = Number(issue.minimum);
  if (issue.origin === 'array') return minimum === 1 ? 'must list at least one entry' : `must list at least ${minimum} entries`;
  if (issue.origin === 'string') return minimum === 1 ? 'must not be empty' : `must be at least ${minimum} characters long`;
  return `must be ${issue.inclusive ? 'at least' : 'more than'} ${minimum}, not ${quote(value)}`;
}

function bigWords(issue: z.core.$ZodIssueTooBig): string {
  const maximum = Number(issue.maximum);
  if (issue.origin === 'array') return `must list at most ${maximum} entries`;
  if (issue.origin === 'string') return `must be at most ${maximum} characters long`;
  if (maximum >= Number.MAX_SAFE_INTEGER) return 'is too large';
  return `must be ${issue.inclusive ? 'at most' : 'less than'} ${maximum}`;
}

/** What was written, as JSON, shortened: a value's own words help find it; a whole block does not. */
function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch (error) {
    // Lists nested a few hundred thousand deep, which JSON.parse reads, are deeper than stringify goes.
    if (!(error instanceof RangeError)) throw error;
    text = Array.isArray(value) ? '[…]' : '{…}';
  }
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** The keys the schema allows in the object at `path`; none where the schema has no object there. */
function knownKeys(schema: z.ZodType, path: readonly PathPart[]): string[] {
  let at: z.ZodType | undefined = schema;
  for (const part of path) {
    at = unwrap(at);
    if (at instanceof z.ZodObject) at = typeof part === 'string' ? (at.shape as Record<string, z.ZodType>)[part] : undefined;
    else if (at instanceof z.ZodArray) at = typeof part === 'number' ? (at.element as z.ZodType) : undefined;
    else if (at instanceof z.ZodRecord) at = at.valueType as z.ZodType;
    else at = undefined;
    if (at === undefined) return [];
  }
  at = unwrap(at);
  return at instanceof z.ZodObject ? Object.keys(at.shape as Record<string, unknown>) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let at = schema;
  while (at instanceof z.ZodOptional || at instanceof z.ZodNullable || at instanceof z.ZodDefault) at = at.unwrap() as z.ZodType;
  return at;
}

/**
 * The known word `written` was most likely meant to be, or undefined when none is close.
 *
 * @remarks
 * Close is an edit distance of at most a third of the word (two for short ones: "outptu" is two edits
 * from "output"), compared without case, or the written word starting with the known one
 * ("contextWindow" for "context"): far enough for the typos people make, near enough that a suggestion is not a guess.
 */
function nearest(written: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const lower = written.toLowerCase();
  let lowered = LOWERED.get(known);
  if (!lowered) {
    lowered = new Map(known.map((name) => [name.toLowerCase(), name]));
    LOWERED.set(known, lowered);
  }
  // The first of the nearest, as fastest-levenshtein's `closest` picks, with each distance taken once.
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of lowered.keys()) {
    const apart = distance(lower, name);
    if (apart < bestDistance) [best, bestDistance] = [name, apart];
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(written.length / 3))) return lowered.get(best);
  return known.find((name) => name.length >= 4 && lower.startsWith(name.toLowerCase()));
}

/** Each list of known words by its words without case: made once a list, not once a word written (an object of 70,000 unknown keys). */
const LOWERED = new WeakMap<readonly string[], Map<string, string>>();

function valueAt(json: unknown, path: readonly PathPart[]): unknown {
  let at = json;
  for (const part of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PathPart, unknown>)[part];
  }
  return at;
}

function hasKey(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key);
}

/**
 * The text as an editor shows it: a byte-order mark, which Windows editors write, is no character the
 * user can see, so columns on the first line are counted without it (the JSON reader skips it too).
 */
function withoutByteOrderMark(text: string | undefined): string | undefined {
  return text !== undefined && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Says where a path (or a key under it) is in a file's text; says nothing without a text. */
type Place = (path: readonly PathPart[], key?: string) => string;

/**
 * Where each of `targets` is in `fileText`, read in one pass: ` (line L column C)` of the value at a path
 * (of the key itself, for `key` under the path), or of the nearest enclosing value when the path ends at
 * something not written (a missing field); empty without a text.
 *
 * @remarks
 * The text is walked by jsonc-parser (VS Code's own JSON reader, so the place is where the editor's Go
 * to Line lands) without building its tree, and into no list or object that holds none of the targets:
 * a file of half a million models whose one issue is the list's length is read past, not taken apart,
 * and the tree of it cost 0.4 s. A place is then the line index's binary search (see LineIndex).
 */
function placesIn(fileText: string | undefined, targets: readonly (readonly PathPart[])[]): Place {
  const text = withoutByteOrderMark(fileText);
  if (text === undefined || targets.length === 0) return () => '';
  // Every path to be placed, and every path above one (the places a missing field falls back to).
  const wanted = new Set<string>();
  /** The paths some target lies strictly below: the only lists and objects worth walking into. */
  const above = new Set<string>();
  for (const target of targets) {
    for (let depth = 0; depth <= target.length; depth++) wanted.add(pathKey(target.slice(0, depth)));
    for (let depth = 0; depth < target.length; depth++) above.add(pathKey(target.slice(0, depth)));
  }
  const names = new Set(targets.flatMap((target) => target.filter((part): part is string => typeof part === 'string')));
  const values = new Map<string, number>();
  const keys = new Map<string, number>();
  const seen = (path: PathPart[], offset: number): void => {
    const key = pathKey(path);
    if (wanted.has(key) && !values.has(key)) values.set(key, offset);
  };
  const enter = (offset: number, _length: number, _line: number, _column: number, pathSupplier: () => PathPart[]): boolean => {
    const path = pathSupplier();
    seen(path, offset);
    return above.has(pathKey(path));
  };
  try {
    visit(
      text,
      {
        onObjectBegin: enter,
        onArrayBegin: enter,
        // Needed though they do nothing: jsonc-parser resumes its callbacks after a list or object it was
        // told to pass over only through these.
        onObjectEnd: () => {},
        onArrayEnd: () => {},
        onLiteralValue: (_value, offset, _length, _line, _column, pathSupplier) => seen(pathSupplier(), offset),
        onObjectProperty: (property, offset, _length, _line, _column, pathSupplier) => {
          // Most keys of an object worth walking are no target: their name says so before their path is made.
          if (!names.has(property)) return;
          const key = pathKey([...pathSupplier(), property]);
          if (wanted.has(key) && !keys.has(key)) keys.set(key, offset);
        },
      },
      { disallowComments: true, allowTrailingComma: false },
    );
  } catch (error) {
    // jsonc-parser recurses into every list and object, even one it is told to pass over: lists nested a
    // few hundred thousand deep, which JSON.parse reads, overflowed the stack, and `rung rank` said
    // "Maximum call stack size exceeded" instead of the panel's mistakes. The places found before the
    // overflow stand; the rest are said without one.
    if (!(error instanceof RangeError)) throw error;
  }
  const lines = new LineIndex(text);
  return (path, key) => {
    let offset = key === undefined ? undefined : keys.get(pathKey([...path, key]));
    for (let depth = path.length; offset === undefined && depth >= 0; depth--) offset = values.get(pathKey(path.slice(0, depth)));
    return offset === undefined ? '' : ` ${lines.lineAndColumn(offset)}`;
  };
}

function pathKey(path: readonly PathPart[]): string {
  return JSON.stringify(path);
}
