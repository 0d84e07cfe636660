/**
 * Where a command's prompt comes from: the words on the command line, standard input, or a file.
 *
 * @remarks
 * A prompt on the command line is capped by the system's argument limit (`Argument list too long` at
 * about 2 MB on Linux, far less on Windows), and a real prompt — a file pasted in, a diff — runs past
 * it. So `-` reads standard input, a pipe with no prompt words is read the same way, and
 * `--prompt-file F` reads a file. Standard input is read only when it is not a terminal: a command
 * waiting silently for typing that nobody knows to do would look hung.
 */
import { readUserFile, UsageError, type CliIo } from './io';

/** The word that names standard input as the prompt. */
export const STDIN_OPERAND = '-';

export interface PromptSource {
  /** The command's positional arguments: prompt words, or `-`. */
  positionals: readonly string[];
  /** The value of `--prompt-file`, when given. */
  promptFile?: string;
}

/**
 * Reads the prompt from exactly one source; a usage error when there is none, more than one, or it is
 * empty.
 *
 * @remarks
 * Words on the command line are joined with spaces and trimmed, as the shell split them. Text from
 * standard input or a file is kept exactly as written — its first and last lines may be code whose
 * indentation matters — and is refused only when it holds nothing but whitespace.
 */
export async function readPrompt(source: PromptSource, io: Pick<CliIo, 'cwd' | 'stdin'>): Promise<string> {
  const { positionals, promptFile } = source;
  const fromStdin = positionals.includes(STDIN_OPERAND);
  if (fromStdin && positionals.length > 1)
    throw new UsageError(`give the prompt as words or as ${STDIN_OPERAND} (standard input), not both`);
  if (promptFile !== undefined) {
    if (positionals.length > 0) throw new UsageError(`give the prompt with --prompt-file or on the command line, not both`);
    return nonEmpty(readUserFile(promptFile, io, '--prompt-file'), `--prompt-file ${promptFile}`);
  }
  if (fromStdin) {
    if (!io.stdin) throw new UsageError(`${STDIN_OPERAND} reads the prompt from standard input, and there is none here`);
    return nonEmpty(await io.stdin.readAll(), 'standard input');
  }
  if (positionals.length > 0) return nonEmpty(positionals.join(' ').trim(), 'the command line');
  if (io.stdin && !io.stdin.isTTY) return nonEmpty(await io.stdin.readAll(), 'standard input');
  throw new UsageError(`needs a prompt: as words, ${STDIN_OPERAND} for standard input, or --prompt-file FILE`);
}

function nonEmpty(text: string, where: string): string {
  if (text.trim() === '') throw new UsageError(`the prompt from ${where} is empty`);
  return text;
}
