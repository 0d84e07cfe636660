/**
 * Text from a decision row made safe to put into Markdown: shown as written, never read as Markdown.
 *
 * @remarks
 * A model id is what a provider reports, a reason quotes a check's output or a provider's error, and a
 * shared decision row is a teammate's: put into the Markdown of Explain Last Decision as they were, a
 * model id of `![x](https://host/pixel.png)` loaded that image in the preview (the request telling the
 * host when the user looked), and `[docs](https://…)` made a link that said something else than where
 * it went. So every row-supplied string is escaped on its way in: each character that Markdown could read
 * as syntax in the middle of a line is escaped with a backslash (CommonMark lets any ASCII punctuation be
 * escaped, and shows it as itself), and line breaks and other control characters become spaces, so no
 * string can start a line, and with it a heading, a list or a table, of its own. A bare address is left
 * as it is: the preview may make it a link, but one that shows where it goes.
 */

/**
 * Characters that mean something in the middle of a line: emphasis, code, links and images, raw HTML and
 * autolinks, entities, tables, strike-through, and the preview's maths.
 */
const MARKDOWN_SYNTAX = /[\\`*_[\]<!|~$&]/g;
/** Control characters, line breaks among them, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's whole job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** `text` as Markdown that shows exactly `text`, on one line. */
export function markdownText(text: string): string {
  return text.replace(CONTROL, ' ').replace(MARKDOWN_SYNTAX, (char) => `\\${char}`);
}

/**
 * `text` as a Markdown code span showing exactly `text`, on one line.
 *
 * @remarks
 * Backslashes do not escape inside a code span, so the fence is one backtick longer than the longest run
 * of backticks in the text, with a space inside each end when the text starts or ends with a backtick
 * (CommonMark strips one such space from each end).
 */
export function codeSpan(text: string): string {
  const flat = text.replace(CONTROL, ' ');
  const longest = (flat.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
