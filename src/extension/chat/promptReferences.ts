/**
 * Which of a chat request's references `@rung` puts in the prompt: what the user attached, not what
 * the editor adds for its own agent.
 *
 * @remarks
 * VS Code 1.139 hands every participant, besides the files and selections the user attached, the
 * context it builds for its own agent: an index of the user's skills and agents (`<skills>…</skills>`,
 * about 4 KB with absolute paths into the editor's install, id `vscode.customizations.index`) and the
 * instruction files it found (`vscode.instructions.file.root`, `…reference`). `@rung` pasted them into
 * every prompt, to the paid model as well, though they name tools only the editor's agent has. The rule:
 * a reference whose id is in the editor's own `vscode.customizations.` or `vscode.instructions.`
 * families is left out; every other reference (a `#file`, a selection, a symbol, another extension's
 * variable) is sent.
 */

/** The id families of the context VS Code builds for its own agent. */
const EDITOR_AGENT_ID_PREFIXES = ['vscode.customizations.', 'vscode.instructions.'];

/** Whether a reference is context the editor built for its own agent rather than something the user attached. */
export function isEditorAgentReference(reference: { id: string }): boolean {
  return EDITOR_AGENT_ID_PREFIXES.some((prefix) => reference.id.startsWith(prefix));
}

/**
 * The most characters of one attached file or selection `@rung` puts in the prompt: past this, the part
 * around the selection or the cursor goes.
 *
 * @remarks
 * About 5,000 tokens by the session's estimate (characters / 4): more would not fit beside the question
 * and the answer in the 4,096-token window Ollama gives a model by default, and the first rung is
 * usually a small local model.
 */
export const MAX_REFERENCE_CHARS = 20_000;

/** An attachment as it goes into the prompt, and what the user is told when it went in part. */
export interface ReferenceText {
  /** The attachment's part of the prompt: its name and its text (or the part of it sent) in a fence. */
  prompt: string;
  /** Said on screen under the answer when only a part went: which lines, and why. */
  note?: string;
}

/**
 * An attached file or selection as `@rung` sends it: whole when it fits in {@link MAX_REFERENCE_CHARS},
 * else the whole lines around `focus` (the selection or the cursor, as offsets into `text`; the file's
 * start when there is none) within that bound, the prompt and the user both told which lines.
 *
 * @remarks
 * A 319 KB file went as "(name: N characters, too long to include)": the model answered blind and the
 * user was not told. The part around where the user is working is what a question about "this" is most
 * likely about, and a model told it has lines 1,180–1,420 of 8,000 can say what it cannot see.
 */
export function referenceText(
  reference: { name: string; languageId: string; text: string; focus?: { start: number; end: number }; focusWord?: string },
  maxChars = MAX_REFERENCE_CHARS,
): ReferenceText {
  const { name, languageId, text } = reference;
  if (text.length <= maxChars) return { prompt: `${name}:\n\`\`\`${languageId}\n${text}\n\`\`\`` };
  const lines = text.split('\n');
  const focusStart = Math.min(reference.focus?.start ?? 0, text.length);
  const focusLine = countNewlines(text, focusStart);
  // Whole lines outward from the focus, one below and one above in turn, while they fit.
  let first = focusLine;
  let last = focusLine;
  let size = (lines[focusLine] ?? '').length + 1;
  for (let turn = 0; first > 0 || last < lines.length - 1; turn++) {
    const below = (turn % 2 === 0 && last < lines.length - 1) || first === 0;
    const line = below ? lines[last + 1] : lines[first - 1];
    const cost = (line?.length ?? 0) + 1;
    if (size + cost > maxChars) break;
    size += cost;
    if (below) last++;
    else first--;
  }
  // A focus line longer than the bound (a minified file) is cut around the focus itself.
  const part =
    size > maxChars
      ? text.slice(Math.max(0, focusStart - maxChars / 2), Math.max(0, focusStart - maxChars / 2) + maxChars)
      : lines.slice(first, last + 1).join('\n');
  const where = reference.focus ? (reference.focusWord ?? 'around the cursor') : 'from its start';
  // A last line break ends the last line; it opens no line of its own.
  const lineCount = text.endsWith('\n') ? lines.length - 1 : lines.length;
  const span = first === last ? `line ${count(first + 1)}` : `lines ${count(first + 1)}–${count(last + 1)}`;
  const total = `${count(text.length)} characters, more than the ${count(maxChars)} @rung sends of one file`;
  return {
    prompt: `${name}, ${span} of ${count(lineCount)} (the file has ${total}; only these lines are sent):\n\`\`\`${languageId}\n${part}\n\`\`\``,
    note: `\`${name}\` has ${total}: sent ${span} of ${count(lineCount)}, ${where}.`,
  };
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** The newlines in `text` before `offset`: the 0-based line `offset` is on. */
function countNewlines(text: string, offset: number): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}
