/**
 * JSON a user wrote by hand (a panel file, a `--messages` file), parsed so that a mistake in it can be
 * found: the error names the line and column, not only the character offset.
 *
 * @remarks
 * Node 20's `JSON.parse` says "at position 311", which in a 40-line panel file sends the user counting
 * characters; later Nodes add "(line 12 column 3)" themselves, and then nothing is added. A leading
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

/** `message` with "(line L column C)" after its "position N", unless it already says where. */
function withLineAndColumn(message: string, text: string): string {
  const found = /position (\d+)/.exec(message);
  if (!found || /\bline \d+/.test(message)) return message;
  const offset = Number(found[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return message.replace(found[0], `${found[0]} (line ${line} column ${column})`);
}
