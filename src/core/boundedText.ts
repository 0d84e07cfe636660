/**
 * Text from outside Rung cut to a length a record can hold, with a mark that says how long it was.
 *
 * @remarks
 * A decision row's reasons and a model's name come from providers (an error body, the model id an
 * answer reports), from a check command's output and from team members, and each row is written to the
 * decision log, shown in the ledger panel and shared with a team. A 3 MiB provider error and a
 * 600-character model id were written whole, and the ledger panel's protocol refused the page holding
 * them, so the panel never showed again. Cut where they are written, a row stays one a reader can take,
 * and the mark (`… [truncated, 3,145,728 characters]`) says that something was left out and how much,
 * so nobody reads the head as the whole.
 */

/**
 * The most characters of a reason a decision row keeps: a verdict's reason, the router's reason, a
 * pruned candidate's reason.
 *
 * @remarks
 * About fifty lines of compiler output, more than any reason Rung writes itself (its longest, a
 * stopped climb with the planner's figures, is under 400) and enough of a provider's error or a
 * check's output to say what went wrong; a 29 KB syntax-check reason was 400 lines of the same kind
 * of error. Below the ledger panel's 10,000, so a row written now is never cut again on its way there.
 */
export const MAX_REASON_CHARS = 4_000;

/**
 * The most characters of a model's name a record keeps (the resolved model of a row, a rating's model).
 *
 * @remarks
 * The longest real ids seen are under 80 characters (`hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M`,
 * `deepseek/deepseek-r1-distill-qwen-32b:free`); 200 keeps every real one whole. A cut name is a key
 * (ratings and aliases are keyed by it), so its mark carries a hash of the whole name: two long names
 * that share their first 150 characters stay two models.
 */
export const MAX_NAME_CHARS = 200;

/**
 * `text` when it fits in `maxChars`, else its head and a mark saying how long it was, the two together
 * at most `maxChars` long.
 *
 * @remarks
 * The head never ends inside a surrogate pair, so what is kept is still well-formed text. With `keyed`,
 * the mark also holds a hash of the whole text (FNV-1a, 32 bits, in hex), so different texts cut to the
 * same head stay different.
 */
export function boundText(text: string, maxChars: number, options: { keyed?: boolean } = {}): string {
  if (text.length <= maxChars) return text;
  const mark = `… [truncated, ${text.length.toLocaleString('en')} characters${options.keyed ? `, #${fnv1a(text)}` : ''}]`;
  let end = Math.max(0, maxChars - mark.length);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}${mark}`;
}

/** A reason bounded at {@link MAX_REASON_CHARS}. */
export function boundReason(reason: string): string {
  return boundText(reason, MAX_REASON_CHARS);
}

/** A model's name bounded at {@link MAX_NAME_CHARS}, its mark keyed by the whole name. */
export function boundName(name: string): string {
  return boundText(name, MAX_NAME_CHARS, { keyed: true });
}

/** FNV-1a over the UTF-16 code units of `text`, 32 bits as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
