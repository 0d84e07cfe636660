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
 * is found by reading the text again (`mistakeOffset`), and the quoted text is left out. A leading
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
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `(line ${line} column ${column})`;
}

/** Nesting deeper than this is not read again for a place: it is no hand-written file. */
const MAX_DEPTH = 512;

/**
 * Where strict JSON (RFC 8259) first goes wrong in `text`: the offset of the first character that
 * cannot continue it, `text.length` when the text ends too early; undefined when it is valid JSON, or
 * nested too deep to read again.
 */
export function mistakeOffset(text: string): number | undefined {
  let at = 0;
  let tooDeep = false;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  const string = (): boolean => {
    at++; // the opening quote
    while (at < text.length) {
      const char = text[at] ?? '';
      if (char === '"') {
        at++;
        return true;
      }
      if (char < ' ') return false;
      if (char !== '\\') at++;
      else if ('"\\/bfnrt'.includes(text[at + 1] ?? 'x')) at += 2;
      else if (text[at + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) at += 6;
      else return false;
    }
    return false;
  };
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (depth: number): boolean => {
    space();
    const char = text[at];
    if (depth > MAX_DEPTH) {
      tooDeep = true;
      return false;
    }
    if (char === '"') return string();
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      at++;
      space();
      if (text[at] === close) {
        at++;
        return true;
      }
      for (;;) {
        if (close === '}') {
          space();
          if (text[at] !== '"' || !string()) return false;
          space();
          if (text[at] !== ':') return false;
          at++;
        }
        if (!value(depth + 1)) return false;
        space();
        if (text[at] === ',') at++;
        else if (text[at] === close) {
          at++;
          return true;
        } else return false;
      }
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return true;
      }
    }
    number.lastIndex = at;
    const digits = number.exec(text);
    if (!digits) return false;
    at += digits[0].length;
    return true;
  };
  if (value(0)) {
    space();
    if (at === text.length) return undefined;
  }
  return tooDeep ? undefined : at;
}
