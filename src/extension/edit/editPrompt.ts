/**
 * The words of an Edit Selection call: the prompt that asks for the replaced code, and the reading of
 * the answer back into code.
 *
 * @remarks
 * The core's syntax check reads fenced blocks by their tag (`ts`, `js`, `json`, …), so the prompt
 * asks for exactly one block with the tag of the editor's language: an answer fenced as `text` would
 * go unchecked, and an unchecked edit is one Rung cannot escalate. Kept free of `vscode` so it is
 * tested without an editor.
 */
import { createHash } from 'node:crypto';
import { fencedBlocks } from '../../core/verifiers/structuredOutputVerifier';
import { CodeSyntaxVerifier } from '../../core/verifiers/codeSyntaxVerifier';
import type { Answer, Check, Verifier } from '../../core/verifiers/verifier';
import type { ChatMessage } from '../../core/providers/provider';

/** The fence tag for an editor language id: the tag the syntax check knows, else the id itself. */
export function fenceTag(languageId: string): string {
  return FENCE_TAGS[languageId] ?? languageId;
}

const FENCE_TAGS: Record<string, string> = {
  typescript: 'ts',
  typescriptreact: 'tsx',
  javascript: 'js',
  javascriptreact: 'jsx',
  json: 'json',
  jsonc: 'json',
};

/**
 * Characters of the file around a selection that an edit call carries as context, at most.
 *
 * @remarks
 * About 1,500 tokens by the session's estimate (characters / 4): enough for the enclosing function or
 * class of most selections, and small enough that the selection, the context and the answer still fit
 * in the 4,096-token window Ollama gives a model by default — a context the model never sees would be
 * cut from the front of the prompt without a word.
 */
export const EDIT_CONTEXT_BUDGET_CHARS = 6_000;

export interface EditRequest {
  instruction: string;
  /** The whole document's text. */
  documentText: string;
  /** The code to change, as offsets into `documentText`: the selection, or the whole file when nothing is selected. */
  start: number;
  end: number;
  languageId: string;
  /** The file's name, for the model's bearings; never its full path. */
  fileName: string;
  /** The context budget; {@link EDIT_CONTEXT_BUDGET_CHARS} when absent. */
  contextBudgetChars?: number;
}

/** The line that stands for the selection inside the context block: language-neutral, so it reads as no code. */
export const SELECTION_MARKER = '<<< THE CODE TO REPLACE IS HERE: your answer replaces it; nothing else in this block >>>';

/**
 * The messages of an edit call: the instruction, the code to replace, and the file around it as
 * context the answer must not repeat.
 *
 * @remarks
 * Sent alone, a selection is often a fragment (a method without its class, a few statements without
 * their function): the model cannot see the names it uses, and tends to "complete" the fragment into
 * something that no longer fits its place, which the check on the whole file then fails. So the lines
 * around it go too, whole lines nearest the selection first, within {@link EDIT_CONTEXT_BUDGET_CHARS},
 * in a block of their own with the selection replaced by {@link SELECTION_MARKER}, so the model can
 * tell what it may rewrite from what it may only read.
 */
export function editMessages(request: EditRequest): ChatMessage[] {
  const tag = fenceTag(request.languageId);
  const code = request.documentText.slice(request.start, request.end);
  const context = surroundingLines(
    request.documentText,
    request.start,
    request.end,
    request.contextBudgetChars ?? EDIT_CONTEXT_BUDGET_CHARS,
  );
  const lines = lineSpan(request.documentText, request.start, request.end);
  let user = `Instruction: ${request.instruction}\n\nThe code to replace, from ${request.fileName}${lines}:\n${fenced(code, tag)}`;
  if (context) {
    const cut = [
      context.omittedAbove ? `${context.omittedAbove} line${context.omittedAbove === 1 ? '' : 's'} above` : '',
      context.omittedBelow ? `${context.omittedBelow} line${context.omittedBelow === 1 ? '' : 's'} below` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    const body = `${context.above}${SELECTION_MARKER}${context.below}`;
    user +=
      `\n\nFor context only, the rest of ${request.fileName} around it${cut ? ` (${cut} not shown)` : ''}. ` +
      `Do not repeat, rewrite or answer with any of it:\n${fenced(body, tag)}`;
  }
  return [
    {
      role: 'system',
      content:
        `You edit code. Apply the user's instruction to the code they give and answer with the complete replacement ` +
        `for that code as exactly one fenced block tagged \`${tag}\` (\`\`\`${tag}). Keep everything the instruction does not ` +
        `ask to change. The replacement goes back exactly where the code was, so it must fit there: the same ` +
        `nesting and indentation, no surrounding lines added. No explanation outside the block.`,
    },
    { role: 'user', content: user },
  ];
}

/**
 * The most characters of a whole file `@rung /edit` sends when nothing is selected.
 *
 * @remarks
 * The same bound `@rung` puts on a file the user attaches: about 5,000 tokens by the session's
 * estimate, which a model with Ollama's default 4,096-token window would not even hold; past it the
 * user is asked to select the part to change, which then goes with its context bounded as Edit
 * Selection bounds it ({@link EDIT_CONTEXT_BUDGET_CHARS}).
 */
export const EDIT_WHOLE_FILE_CHARS = 20_000;

/** The active editor as `@rung /edit` reads it: its text, the selection as offsets, its language and file name. */
export interface EditorText {
  documentText: string;
  start: number;
  end: number;
  languageId: string;
  fileName: string;
}

/**
 * What `@rung /edit` sends: the messages and what code went with them (with the code, where it is in
 * the file: the answer replaces `[start, end)`), or why nothing goes.
 */
export type ChatEdit =
  | { messages: ChatMessage[]; sent: 'words' }
  | { messages: ChatMessage[]; sent: 'selection' | 'file'; start: number; end: number }
  | { refused: string };

/**
 * The messages of `@rung /edit`: the selection, else the whole active file, asked for as Edit Selection
 * asks, so the answer is the replaced code in one block the syntax check reads.
 *
 * @remarks
 * The Chat view in 1.139 shows the active file as a suggested attachment that is not sent unless the
 * user clicks it, so `/edit` used to send the sentence alone and the model wrote code for a file it had
 * never seen. With no editor open there is no code to send, and the words go alone.
 */
export function chatEditMessages(request: { instruction: string; editor: EditorText | undefined }): ChatEdit {
  const { instruction, editor } = request;
  if (!editor) return { messages: [{ role: 'user', content: instruction }], sent: 'words' };
  const selected = editor.end > editor.start;
  if (!selected && editor.documentText.length > EDIT_WHOLE_FILE_CHARS) {
    return {
      refused: `${editor.fileName} has ${editor.documentText.length.toLocaleString('en-US')} characters, more than the ${EDIT_WHOLE_FILE_CHARS.toLocaleString('en-US')} /edit sends whole: select the code to change and ask again.`,
    };
  }
  const [start, end] = selected ? [editor.start, editor.end] : [0, editor.documentText.length];
  return {
    messages: editMessages({
      instruction,
      documentText: editor.documentText,
      start,
      end,
      languageId: editor.languageId,
      fileName: editor.fileName,
    }),
    sent: selected ? 'selection' : 'file',
    start,
    end,
  };
}

/** The lines around `[start, end)` in a document, whole lines nearest it first, within `budget` characters. */
interface SurroundingLines {
  /** The lines above, then the text before the selection on its first line. */
  above: string;
  /** The text after the selection on its last line, then the lines below. */
  below: string;
  omittedAbove: number;
  omittedBelow: number;
}

/**
 * The context to send with a selection, or undefined when the selection is the whole file.
 *
 * @remarks
 * The text on the selection's own first and last lines, outside it, always goes (the indentation and
 * the `{` it opens after are what the answer must fit). Then whole lines, one above and one below in
 * turn, until the next would pass the budget; when one side runs out the other takes the rest.
 */
function surroundingLines(text: string, start: number, end: number, budget: number): SurroundingLines | undefined {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const nextNewline = text.indexOf('\n', end);
  const lineEnd = nextNewline === -1 ? text.length : nextNewline;
  const upper = text.slice(0, lineStart).split('\n').slice(0, -1);
  const lower = lineEnd === text.length ? [] : text.slice(lineEnd + 1).split('\n');
  if (lower.at(-1) === '') lower.pop();
  // A minified file is one long line: its part outside the selection is cut to half the budget a side.
  const half = Math.floor(budget / 2);
  const head = text.slice(Math.max(lineStart, start - half), start);
  const tail = text.slice(end, Math.min(lineEnd, end + half));
  if (upper.length === 0 && lower.length === 0 && head.trim() === '' && tail.trim() === '') return undefined;
  let spent = head.length + tail.length;
  let above = 0;
  let below = 0;
  for (let turn = 0; above < upper.length || below < lower.length; turn++) {
    const takeAbove = (turn % 2 === 0 && above < upper.length) || below >= lower.length;
    const line = takeAbove ? upper[upper.length - 1 - above] : lower[below];
    const cost = (line?.length ?? 0) + 1;
    if (spent + cost > budget) break;
    spent += cost;
    if (takeAbove) above++;
    else below++;
  }
  const shownAbove = upper.slice(upper.length - above);
  const shownBelow = lower.slice(0, below);
  // The marker takes the selection's place on its line, so a selection inside a line reads
  // `const total = <<< … >>>;`, and one that ended with its newline keeps the next line on its own.
  const selectionEndsLine = end > start && text[end - 1] === '\n';
  return {
    above: `${shownAbove.map((line) => `${line}\n`).join('')}${head}`,
    below: `${selectionEndsLine ? '\n' : ''}${tail}${shownBelow.map((line) => `\n${line}`).join('')}`,
    omittedAbove: upper.length - above,
    omittedBelow: lower.length - below,
  };
}

/** ` (lines 3–7)` or ` (line 3)` for the selection, counted from 1. */
function lineSpan(text: string, start: number, end: number): string {
  const first = countNewlines(text, 0, start) + 1;
  const last = first + countNewlines(text, start, Math.max(start, end - 1));
  return first === last ? ` (line ${first})` : ` (lines ${first}–${last})`;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** `text` in a fence longer than any run of backticks inside it, so code holding a fence cannot close it early. */
function fenced(text: string, tag: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${tag}\n${text}\n${fence}`;
}

/**
 * The replacement code in an answer: the first block with the language's tag, else the first block;
 * undefined when the answer has no block.
 */
export function extractEdit(answer: string, languageId: string): string | undefined {
  const blocks = fencedBlocks(answer);
  const tag = fenceTag(languageId);
  const block = blocks.find((candidate) => candidate.language === tag || candidate.language === languageId) ?? blocks[0];
  if (!block) return undefined;
  return block.body.replace(/\n$/, '');
}

/**
 * The code an answer's block puts in place of `[start, end)`: the block's code, with the line break the
 * replaced text ended with kept.
 *
 * @remarks
 * A block's code is read without its last line break, so the whole file replaced by it lost the file's
 * final line break, and a selection of whole lines would have had the line after it joined to its last.
 */
export function replacementFor(documentText: string, start: number, end: number, code: string): string {
  const endsLine = end > start && documentText[end - 1] === '\n';
  return endsLine && !code.endsWith('\n') ? `${code}\n` : code;
}

/** The document's text with `[start, end)` replaced by `replacement`. */
export function spliceText(text: string, start: number, end: number, replacement: string): string {
  return text.slice(0, start) + replacement + text.slice(end);
}

/**
 * Checks an edit in its place: the whole file, with the answer's code spliced in, must parse.
 *
 * @remarks
 * The session checks the answer's block on its own; that misses an edit that parses alone but breaks
 * the file (an extra closing brace that balances inside the block), and takes a block found word for
 * word in the request for the user's code quoted back: `@rung /edit` of a whole file answered with the
 * file less its last `}` passed that way. An answer with no code block fails in any language; the
 * syntax is judged only in the languages the syntax check knows, and for the others it says so.
 */
export class SplicedSyntaxVerifier implements Verifier {
  readonly name = 'spliced-syntax';
  /** What the short line and the toast say checked the edit ("checked: the file's syntax with the edit"). */
  readonly label = "the file's syntax with the edit";
  private readonly syntax = new CodeSyntaxVerifier();

  constructor(private readonly options: { documentText: string; start: number; end: number; languageId: string }) {}

  async verify(answer: Answer): Promise<Check> {
    // An edit with no code is a failed edit in any language, the ones no syntax check reads too.
    const block = extractEdit(answer.text, this.options.languageId);
    if (block === undefined) return { verdict: 'fail', reason: 'the answer has no code block to apply' };
    const code = replacementFor(this.options.documentText, this.options.start, this.options.end, block);
    const tag = FENCE_TAGS[this.options.languageId];
    if (!tag) return { verdict: 'unverified', reason: `no syntax check for ${this.options.languageId}` };
    const whole = spliceText(this.options.documentText, this.options.start, this.options.end, code);
    const check = await this.syntax.verify({ ...answer, text: `\`\`\`${tag}\n${whole}\n\`\`\`` });
    if (check.verdict === 'fail')
      return {
        verdict: 'fail',
        reason: `the file does not parse with the edit in place: ${check.reason.replace(/^syntax error: block 1 \([^)]*\): /, '')}`,
      };
    return check.verdict === 'pass' ? { verdict: 'pass', reason: 'the file parses with the edit in place' } : check;
  }
}

/** The command `@rung /edit`'s answer button runs: Edit Selection's diff, with Accept and Reject, for that edit. */
export const SHOW_CHAT_EDIT_COMMAND = 'rung.showChatEdit';

/**
 * An edit `@rung /edit` answered, as its button carries it to Edit Selection's diff.
 *
 * @remarks
 * The Chat view's own "Apply in Editor" on a code block needs Copilot's code mapper, which fails without
 * a Copilot sign-in; and the block is the replacement for a selection, not a file, which a mapper
 * would have to guess where to put. Rung knows where it goes, so its button shows the edit in place as
 * Edit Selection does, and Accept applies it. A button's arguments are kept with the chat as plain
 * data, so the file is named by its URI and its text then by a digest: once the file has changed, the
 * edit is not applied over it.
 */
export interface ChatEditProposal {
  callId: string;
  model: string;
  /** The rating Accept and Reject count in (`edit/typescript`). */
  classKey: string;
  /** The file's URI, as a string. */
  uri: string;
  /** A digest of the file's text when the edit was asked ({@link textDigest}). */
  digest: string;
  /** What the answer replaces, as offsets into that text. */
  start: number;
  end: number;
  replacement: string;
  /** The answer's closing line without Markdown, said beside the diff. */
  footer: string;
}

/** A digest of a file's text, to tell whether it changed since an edit was asked. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A button's argument read back as a proposal, or undefined when it is not one. */
export function readChatEditProposal(value: unknown): ChatEditProposal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  const strings = ['callId', 'model', 'classKey', 'uri', 'digest', 'replacement', 'footer'] as const;
  if (!strings.every((key) => typeof entry[key] === 'string')) return undefined;
  const { start, end } = entry;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || (start as number) < 0 || (end as number) < (start as number))
    return undefined;
  return {
    callId: entry.callId as string,
    model: entry.model as string,
    classKey: entry.classKey as string,
    uri: entry.uri as string,
    digest: entry.digest as string,
    start: start as number,
    end: end as number,
    replacement: entry.replacement as string,
    footer: entry.footer as string,
  };
}
