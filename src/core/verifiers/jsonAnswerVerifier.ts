/**
 * The JSON check for a request that asked for JSON in words or by a response format: the answer must
 * hold JSON that parses — the whole answer, a ```json block, or an object or array on lines of its own.
 *
 * @remarks
 * No schema here, so the check is what a reader of the answer needs: something `JSON.parse` takes.
 * Small models wrap JSON in prose ("Here you go:") or a fence as often as they send it bare, and the
 * words asked for JSON, not for nothing else, so each of those places counts; the first that parses
 * passes. What fails says where and what, in the answer's own lines and columns (Node 20's
 * `JSON.parse` says only "at position 311"), so a user can find it. An answer that is a tool call is
 * not judged: in an agent's turn the JSON comes after the tools have been used. A caller's schema is
 * the stricter {@link StructuredOutputVerifier}, which this does not replace.
 */
import { mistakeOffset } from '../jsonText';
import { fencedBlocks } from './structuredOutputVerifier';
import type { Answer, Check, Verifier } from './verifier';

/** One place in an answer that may hold the JSON: what to call it, its text, and where it starts in the answer. */
interface JsonCandidate {
  where: string;
  text: string;
  offset: number;
}

export class JsonAnswerVerifier implements Verifier {
  readonly name = 'json';
  readonly label = 'JSON';

  async verify(answer: Answer): Promise<Check> {
    if (answer.toolCalls.length > 0)
      return { verdict: 'unverified', reason: 'the answer is a tool call; the JSON is checked on the answer in words' };
    const candidates = jsonCandidates(answer.text);
    if (candidates.length === 0)
      return {
        verdict: 'fail',
        reason: 'no JSON in the answer: neither the whole answer, a ```json block, nor an object or array on lines of its own',
      };
    let firstMistake: string | undefined;
    for (const candidate of candidates) {
      const mistake = jsonMistake(candidate.text);
      if (!mistake) return { verdict: 'pass', reason: `valid JSON (${candidate.where})` };
      if (firstMistake === undefined) {
        const place = mistake.offset === undefined ? undefined : positionOf(answer.text, candidate.offset + mistake.offset);
        const at = place ? ` at line ${place.line} column ${place.column}` : '';
        firstMistake = `invalid JSON in ${candidate.where}: ${mistake.message}${at}`;
      }
    }
    return { verdict: 'fail', reason: firstMistake as string };
  }
}

/**
 * The places JSON may be in an answer, in the order they are tried: the whole answer when it opens
 * with `{` or `[`, each ```json block (or untagged block that opens with one), then each object or
 * array that starts a line and ends one outside any block.
 *
 * @remarks
 * An unfenced candidate must end its line: prose such as `[1] see the docs` holds `[1]`, which parses,
 * and is no JSON answer.
 */
export function jsonCandidates(text: string): JsonCandidate[] {
  const candidates: JsonCandidate[] = [];
  const lead = text.length - text.trimStart().length;
  if (/^[[{]/.test(text.slice(lead))) candidates.push({ where: 'the whole answer', text: text.trim(), offset: lead });
  const fenced: [number, number][] = [];
  for (const block of fencedBlocks(text)) {
    const bodyStart = lineOffset(text, block.startLine);
    fenced.push([lineOffset(text, block.startLine - 1), bodyStart + block.body.length]);
    const json = block.language === 'json' || block.language === 'jsonc' || (block.language === '' && /^\s*[[{]/.test(block.body));
    if (json)
      candidates.push({
        where: `the \`\`\`${block.language || ''} block at line ${block.startLine - 1}`,
        text: block.body,
        offset: bodyStart,
      });
  }
  // An object inside one already taken is part of it: each character is scanned once. Scanned again
  // from every line, 20,000 lines that open a brace and never close one took 16 s (BENCHMARKS.md).
  let taken = 0;
  for (const match of text.matchAll(/^[ \t]*([[{])/gm)) {
    const start = match.index + match[0].length - 1;
    if (start < taken || fenced.some(([from, to]) => start >= from && start < to)) continue;
    const end = balancedEnd(text, start);
    taken = end;
    const rest = text.slice(end, lineEnd(text, end));
    if (!/^[\s.,;]*$/.test(rest)) continue;
    const kind = match[1] === '{' ? 'object' : 'array';
    candidates.push({ where: `the ${kind} at line ${positionOf(text, start).line}`, text: text.slice(start, end), offset: start });
  }
  return candidates;
}

/** Where the object or array opening at `start` closes (the offset after it), strings and escapes read; the end of the text when it never does. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return text.length;
}

/** What `JSON.parse` says is wrong with `text`, without Node's "in JSON at position N", and where (an offset into `text`); undefined when it parses. */
export function jsonMistake(text: string): { message: string; offset: number | undefined } | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : /end of JSON input/.test(message) ? text.length : mistakeOffset(text);
    const plain = message
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/, ".*" is not valid JSON$/s, '')
      .replace(/ \(line \d+ column \d+\)$/, '');
    return { message: plain, offset };
  }
}

/** The offset of the start of line `line` (counted from 1) in `text`. */
function lineOffset(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}

function lineEnd(text: string, offset: number): number {
  const next = text.indexOf('\n', offset);
  return next === -1 ? text.length : next;
}

/** The line and column of an offset into `text`, both counted from 1. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}
