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
import { closest, distance } from 'fastest-levenshtein';
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser/lib/esm/main.js';
import * as z from 'zod';
import { lineAndColumn } from './jsonText';

/** One step of a path into the panel: a key, or an index into a list. */
type PathPart = string | number;

/** A place in a file, both counted from 1, as editors show them. */
export interface TextPosition {
  line: number;
  column: number;
}

/**
 * The issues of a failed validation as lines: `path: what is wrong (line L column C)`.
 *
 * @param json The value that was validated, to quote what was written.
 * @param text The file's text, when the value was read from one: each line then says where.
 */
export function describePanelIssues(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, json: unknown, fileText?: string): string[] {
  const text = withoutByteOrderMark(fileText);
  const tree = text === undefined ? undefined : treeOf(text);
  const suggested = new Set<string>();
  const lines: { path: PathPart[]; line: string; key?: string }[] = [];
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
        lines.push({ path, line: `${formatPath(path) || '(top level)'}: unknown key "${key}"${hint}${where(tree, text, path, key)}` });
      }
      continue;
    }
    lines.push({
      path,
      key: formatPath(path),
      line: `${formatPath(path) || '(top level)'}: ${wording(issue, valueAt(json, path), path)}${where(tree, text, path)}`,
    });
  }
  // A key written misspelt is also missing under its right name: the suggestion already says both.
  return lines
    .filter((entry) => entry.key === undefined || !suggested.has(entry.key) || valueAt(json, entry.path) !== undefined)
    .map((entry) => entry.line);
}

/**
 * Lines written by hand (`models[1].slug: "a" is listed twice`) with where their path is in `text`;
 * each line as it was when the text is unknown or the path is not in it.
 */
export function locatePanelIssues(lines: readonly string[], fileText?: string): string[] {
  const text = withoutByteOrderMark(fileText);
  if (text === undefined) return [...lines];
  const tree = treeOf(text);
  return lines.map((line) => {
    const colon = line.indexOf(': ');
    const path = colon < 0 ? undefined : parsePath(line.slice(0, colon));
    return path === undefined ? line : `${line}${where(tree, text, path)}`;
  });
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
  const text = JSON.stringify(value) ?? String(value);
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
  const byLower = new Map(known.map((name) => [name.toLowerCase(), name]));
  const best = closest(lower, [...byLower.keys()]);
  if (distance(lower, best) <= Math.max(2, Math.floor(written.length / 3))) return byLower.get(best);
  return known.find((name) => name.length >= 4 && lower.startsWith(name.toLowerCase()));
}

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

function treeOf(text: string): Node | undefined {
  return parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
}

/**
 * ` (line L column C)` for the value at `path` in the text (the key itself, for `key` under `path`);
 * the nearest enclosing value's place when the path ends at something not written (a missing field);
 * empty without a text.
 */
function where(tree: Node | undefined, text: string | undefined, path: readonly PathPart[], key?: string): string {
  if (tree === undefined || text === undefined) return '';
  let node: Node | undefined;
  if (key !== undefined) {
    const object = findNodeAtLocation(tree, [...path]);
    node = object?.children?.find((property) => property.children?.[0]?.value === key)?.children?.[0];
  }
  for (let depth = path.length; node === undefined && depth >= 0; depth--) node = findNodeAtLocation(tree, path.slice(0, depth));
  return node === undefined ? '' : ` ${lineAndColumn(text, node.offset)}`;
}
