// The package's ES module build: its `main` is a UMD wrapper whose requires esbuild cannot follow, so a
// bundle that took it failed at load with "Cannot find module './impl/format'".
import { parse, type ParseError } from 'jsonc-parser/lib/esm/main.js';

/**
 * JSON a user wrote by hand (a panel file, a `--messages` file), parsed so that a mistake in it can be
 * found: the error names the line and column, not only the character offset.
 *
 * @remarks
 * Node 20's `JSON.parse` says "at position 311", which in a 40-line panel file sends the user counting
 * characters; later Nodes add "(line 12 column 3)" themselves, and then nothing is added. Some mistakes
 * get no position from any Node: an unexpected token, such as the `]` after a trailing comma in a list,
 * is reported with a few characters of the text around it instead ("Unexpected token ']', ...\"true },
 * ], \"rout\"... is not valid JSON"), and the end of the input with nothing at all; for those the place
 * is found by reading the text again (`mistakeOffset`, with jsonc-parser), and the quoted text is left out. A leading
 * byte-order mark, which Windows editors write, is not a mistake the user can see, so it is skipped
 * rather than reported as "Unexpected token".
 */
export function parseJsonText(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new SyntaxError(withLineAndColumn((error as Error).message, body), { cause: error });
  }
}

/** `message` with "(line L column C)" after its "position N", or where it says no position, unless it already says where. */
function withLineAndColumn(message: string, text: string): string {
  if (/\bline \d+/.test(message)) return message;
  const found = /position (\d+)/.exec(message);
  if (found) return message.replace(found[0], `${found[0]} ${lineAndColumn(text, Number(found[1]))}`);
  const offset = mistakeOffset(text);
  if (offset === undefined) return message;
  // "Unexpected token ']', ..."<the text around it>"... is not valid JSON": the quoted text may span lines.
  const token = /^(Unexpected token '[^']*'|Unexpected token)[,\s]/.exec(message)?.[1];
  return `${token ?? message} ${lineAndColumn(text, offset)}`;
}

/** "(line L column C)" for a character offset into `text`, both counted from 1. */
export function lineAndColumn(text: string, offset: number): string {
  return new LineIndex(text).lineAndColumn(offset);
}

/**
 * Where each line of a text starts: the line and column of any offset in it, found without reading the
 * text again.
 *
 * @remarks
 * Each place used to be found by splitting the text up to it, which read the text once per issue: a
 * panel file of `{"models":[1,1,…]}` just under 1 MiB has half a million issues and took 146 s. The index
 * is made in one pass, and each offset is then a binary search over the line starts.
 */
export class LineIndex {
  /** The offset each line starts at, the first line's (0) first. */
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.starts.push(at + 1);
  }

  /** "(line L column C)" for `offset`, both counted from 1. */
  lineAndColumn(offset: number): string {
    let low = 0;
    let high = this.starts.length - 1;
    // The last line that starts at or before `offset`.
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return `(line ${low + 1} column ${offset - (this.starts[low] as number) + 1})`;
  }
}

/**
 * Where strict JSON first goes wrong in `text`: the offset jsonc-parser (VS Code's own JSON parser, the
 * one that reads settings.json) gives its first error, `text.length` when the text ends too early, the
 * start of a string that never ends or holds a bad escape; undefined when it is valid JSON, or nested
 * too deep to read again.
 */
export function mistakeOffset(text: string): number | undefined {
  const errors: ParseError[] = [];
  try {
    parse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  } catch {
    // Its parser recurses: nesting that overflows the stack is no hand-written file.
    return undefined;
  }
  return errors[0]?.offset;
}
