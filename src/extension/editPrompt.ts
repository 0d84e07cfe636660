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
import { fencedBlocks } from '../core/verifiers/structuredOutputVerifier';
import { CodeSyntaxVerifier } from '../core/verifiers/codeSyntaxVerifier';
import type { Answer, Check, Verifier } from '../core/verifiers/verifier';
import type { ChatMessage } from '../core/providers/provider';

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

export interface EditRequest {
  instruction: string;
  /** The code to change: the selection, or the whole file when nothing is selected. */
  code: string;
  languageId: string;
  /** The file's name, for the model's bearings; never its full path. */
  fileName: string;
}

/** The messages of an edit call. */
export function editMessages(request: EditRequest): ChatMessage[] {
  const tag = fenceTag(request.languageId);
  return [
    {
      role: 'system',
      content:
        `You edit code. Apply the user's instruction to the code they give and answer with the complete replacement ` +
        `for that code as exactly one fenced block tagged \`${tag}\` (\`\`\`${tag}). Keep everything the instruction does not ` +
        `ask to change. No explanation outside the block.`,
    },
    { role: 'user', content: `Instruction: ${request.instruction}\n\nCode from ${request.fileName}:\n\`\`\`${tag}\n${request.code}\n\`\`\`` },
  ];
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

/** The document's text with `[start, end)` replaced by `replacement`. */
export function spliceText(text: string, start: number, end: number, replacement: string): string {
  return text.slice(0, start) + replacement + text.slice(end);
}

/**
 * Checks an edit in its place: the whole file, with the answer's code spliced in, must parse.
 *
 * @remarks
 * The session checks the answer's block on its own; that misses an edit that parses alone but breaks
 * the file (an extra closing brace that balances inside the block). Only for the languages the syntax
 * check knows; for the others it says it judged nothing.
 */
export class SplicedSyntaxVerifier implements Verifier {
  readonly name = 'spliced-syntax';
  private readonly syntax = new CodeSyntaxVerifier();

  constructor(private readonly options: { documentText: string; start: number; end: number; languageId: string }) {}

  async verify(answer: Answer): Promise<Check> {
    const tag = FENCE_TAGS[this.options.languageId];
    if (!tag) return { verdict: 'unverified', reason: `no syntax check for ${this.options.languageId}` };
    const code = extractEdit(answer.text, this.options.languageId);
    if (code === undefined) return { verdict: 'fail', reason: 'the answer has no code block to apply' };
    const whole = spliceText(this.options.documentText, this.options.start, this.options.end, code);
    const check = await this.syntax.verify({ ...answer, text: `\`\`\`${tag}\n${whole}\n\`\`\`` });
    if (check.verdict === 'fail') return { verdict: 'fail', reason: `the file does not parse with the edit in place: ${check.reason.replace(/^syntax error: block 1 \([^)]*\): /, '')}` };
    return check.verdict === 'pass' ? { verdict: 'pass', reason: 'the file parses with the edit in place' } : check;
  }
}
