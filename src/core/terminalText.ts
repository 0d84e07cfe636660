/**
 * Text from someone else made safe to print on a terminal: control characters shown as escapes rather
 * than obeyed.
 *
 * @remarks
 * A teammate's shared decision row, a member name, a model id a team member or a provider chose, and a
 * provider's error text all reach the `rung` command's output. Printed raw, `\x1b[2J` cleared the
 * screen and `\x1b]52;c;…\x07` wrote the reader's clipboard (OSC 52) from a row one member shared with
 * `rung ledger decisions --team`. So every C0 control (newline and tab included: a cell or a line must
 * stay one), DEL, every C1 control (`\x9b` is an 8-bit CSI to some terminals), the Unicode line and
 * paragraph separators and the bidirectional controls (which reorder what a line appears to say) are
 * written as escapes a reader can see: `\x1b`, `\n`, `\u202e`. Everything else passes unchanged.
 */

/** Characters that act on a terminal rather than show on it (see the module's remarks). */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's whole job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same less C0, which JSON.stringify escapes in strings already and uses raw only to indent. */
const CONTROL_LEFT_BY_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character written as a visible escape. */
export function printable(text: string): string {
  return text.replace(CONTROL, escape);
}

/** One control character as the escape a reader sees: `\\n`, `\\x1b`, `\\u202e`. */
function escape(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` as a terminal may show it, its lines kept: every other control character in each line written
 * as an escape. For a message that spans lines and quotes paths, flags or file contents: a path holding
 * `ESC ]52;…` was printed raw in an error, for the terminal to act on.
 */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/**
 * A model's answer as a terminal may show it: its line breaks (`\n`, `\r\n`) and tabs kept, every other
 * control character written as an escape.
 *
 * @remarks
 * An answer is whatever the provider sent, and `rung chat` streams it to stdout: printed raw to a
 * terminal, `ESC ]52;c;…` wrote the reader's clipboard, `ESC ]0;…` retitled the window, `ESC ]8;;URL`
 * made text a link to somewhere it did not show, and a lone `\r` wrote over what the line said. An
 * answer holds code, so its tabs and lines stay as they are. Each streamed piece is escaped alone: an
 * escape sequence split across two pieces is escaped in both, since its every character is.
 */
export function printableAnswer(text: string): string {
  return text.replace(CONTROL, (char: string, offset: number) =>
    char === '\n' || char === '\t' || (char === '\r' && text[offset + 1] === '\n') ? char : escape(char),
  );
}

/**
 * `JSON.stringify(value, null, indent)` with the control characters JSON leaves raw (DEL, C1, the
 * separators and bidirectional controls) written as `\uXXXX` escapes: the same value to any JSON reader,
 * and nothing a terminal would act on.
 */
export function printableJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    CONTROL_LEFT_BY_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
