/**
 * The code syntax check: every TypeScript, JavaScript and JSON block in an answer parses.
 *
 * @remarks
 * TypeScript's own parser (`transpileModule`, syntactic diagnostics only — no type checking, no
 * files read) because it is the one parser that knows TypeScript, TSX and the JavaScript-only rules
 * (a type annotation in a `.js` block is an error), and it is already the project's compiler, pinned
 * in the lockfile. It is loaded on the first check, not at startup: most calls never need it. An
 * answer with no such block is `unverified`: there was nothing this check could judge.
 */
// The package's ES module build, as jsonText.ts takes it: its `main` is a UMD wrapper esbuild cannot follow.
import { parse as parseJsonc, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import type { Answer, Check, Verifier } from './verifier';
import { fencedBlocks } from './structuredOutputVerifier';

/** Fence tags read, and the file name each is parsed as (which picks TypeScript's dialect). */
const DIALECTS: Record<string, { file: string; label: string }> = {
  ts: { file: 'block.ts', label: 'typescript' },
  typescript: { file: 'block.ts', label: 'typescript' },
  mts: { file: 'block.mts', label: 'typescript' },
  cts: { file: 'block.cts', label: 'typescript' },
  tsx: { file: 'block.tsx', label: 'tsx' },
  js: { file: 'block.js', label: 'javascript' },
  javascript: { file: 'block.js', label: 'javascript' },
  mjs: { file: 'block.mjs', label: 'javascript' },
  cjs: { file: 'block.cjs', label: 'javascript' },
  jsx: { file: 'block.jsx', label: 'jsx' },
  json: { file: 'block.json', label: 'json' },
};

/**
 * The most code blocks one answer has parsed, blocks.
 *
 * @remarks
 * Each block is parsed on its own, at about 1.5 ms a block on the extension host's thread (480 KB of
 * small TypeScript blocks, 8,190 of them, took 12 s in `RUNG_BENCH_ONLY=answers npm run bench`); an
 * answer of nothing but tiny blocks, up to the 32 MiB an answer may hold, would freeze the editor for
 * minutes. An edit answer writes a handful of blocks, so 200 bounds the check at about 0.3 s and cuts off
 * no real answer. Past it, a block that fails still fails the answer; one where all checked blocks parse
 * is unverified, since the rest were not read.
 */
export const MAX_CHECKED_BLOCKS = 200;

/** Each dialect's check in the words a user reads ("checked: TypeScript syntax"). */
const CHECK_WORDS: Record<string, string> = {
  typescript: 'TypeScript syntax',
  tsx: 'TypeScript syntax',
  javascript: 'JavaScript syntax',
  jsx: 'JavaScript syntax',
  json: 'JSON syntax',
};

/**
 * The shortest block that counts as quoted from the request when it appears there word for word,
 * characters once whitespace is folded: a `}` or a `return x;` appears in any code the user sent.
 */
const QUOTE_MIN_CHARS = 20;

export interface CodeSyntaxOptions {
  /**
   * Judge a block as a fragment too: it passes when it parses as it is, or as the members of a class,
   * an object, an interface or a `switch`, or as JSX children, with `...` elisions read as "code left
   * out". Off, a block must parse as a whole file: Edit Selection checks the file with the edit in place.
   */
  fragments?: boolean;
  /** The request's text: a block found in it word for word is the user's code quoted back, not judged. */
  quotedFrom?: string;
}

type TypeScript = typeof import('typescript');
let loaded: Promise<TypeScript> | undefined;

function typescript(): Promise<TypeScript> {
  loaded ??= import('typescript').then((module) => ('default' in module && module.default ? module.default : module) as TypeScript);
  return loaded;
}

export class CodeSyntaxVerifier implements Verifier {
  readonly name = 'code-syntax';
  readonly label = 'code syntax';
  private readonly fragments: boolean;
  private readonly quoted: string | undefined;

  constructor(options: CodeSyntaxOptions = {}) {
    this.fragments = options.fragments === true;
    this.quoted = options.quotedFrom === undefined ? undefined : folded(options.quotedFrom);
  }

  async verify(answer: Answer): Promise<Check> {
    const readable = fencedBlocks(answer.text).filter((block) => DIALECTS[block.language]);
    if (readable.length === 0) return { verdict: 'unverified', reason: 'no TypeScript, JavaScript or JSON code block in the answer' };
    const unquoted = readable.filter((block) => !this.isQuote(block.body));
    if (unquoted.length === 0)
      return { verdict: 'unverified', reason: 'the only TypeScript, JavaScript or JSON code in the answer is quoted from the request' };
    const blocks = unquoted.slice(0, MAX_CHECKED_BLOCKS);
    const problems: string[] = [];
    const labels: string[] = [];
    for (const [index, block] of blocks.entries()) {
      const dialect = DIALECTS[block.language] as { file: string; label: string };
      labels.push(dialect.label);
      const error =
        dialect.label === 'json' ? jsonError(block.body, this.fragments) : await syntaxError(block.body, dialect, this.fragments);
      if (error) problems.push(`block ${index + 1} (${dialect.label}, from answer line ${block.startLine}): ${error}`);
    }
    const checks = [...new Set(labels.map((label) => CHECK_WORDS[label] as string))];
    if (problems.length) return { verdict: 'fail', reason: `syntax error: ${problems.join('; ')}`, checks };
    if (unquoted.length > blocks.length) {
      return {
        verdict: 'unverified',
        reason: `the first ${blocks.length} of ${unquoted.length} code blocks parse; the rest were not checked (more blocks than an edit writes)`,
      };
    }
    return {
      verdict: 'pass',
      reason: `${blocks.length === 1 ? '1 code block parses' : `${blocks.length} code blocks parse`} (${[...new Set(labels)].join(', ')})`,
      checks,
    };
  }

  private isQuote(body: string): boolean {
    const text = folded(body);
    return this.quoted !== undefined && text.length >= QUOTE_MIN_CHARS && this.quoted.includes(text);
  }
}

/** `text` with every run of whitespace as one space, for comparing code whose indentation moved. */
function folded(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Why a JSON block does not parse, or undefined. As a fragment, comments and trailing commas are
 * allowed (tsconfig.json and VS Code's settings have both) and a block of members (`"scripts": {…}`)
 * or of items passes.
 */
function jsonError(text: string, fragments: boolean): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    if (fragments && [text, `{\n${text}\n}`, `[\n${text}\n]`].some(parsesAsJsonc)) return undefined;
    return (error as Error).message;
  }
}

function parsesAsJsonc(text: string): boolean {
  const errors: ParseError[] = [];
  try {
    parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  } catch (error) {
    // Its parser recurses, as TypeScript's does (see firstError).
    if (error instanceof RangeError) return false;
    throw error;
  }
  return errors.length === 0;
}

/** What a block nested deeper than a parser's stack goes is said to fail with. */
const NESTED_TOO_DEEP = 'nested too deep for the parser to read';

/**
 * The wrappers a fragment is tried in, for its dialect: a method or a field parses inside a class, a
 * property list inside an object, interface members inside an interface, `case` clauses inside a
 * `switch`, sibling elements inside a JSX fragment. Statements need none: the parser takes a top-level
 * `return` or `await` without a word.
 */
function wrappers(dialect: { label: string }): ((code: string) => string)[] {
  const all = [
    (code: string) => `class Fragment__ {\n${code}\n}`,
    (code: string) => `({\n${code}\n})`,
    (code: string) => `switch (0) {\n${code}\n}`,
  ];
  if (dialect.label === 'typescript' || dialect.label === 'tsx') all.push((code) => `interface Fragment__ {\n${code}\n}`);
  if (dialect.label === 'tsx' || dialect.label === 'jsx') all.push((code) => `const fragment__ = (<>\n${code}\n</>);`);
  return all;
}

/**
 * `code` with the elisions models write for "the rest stays as it is" taken out: a line that is only
 * `...` (or `…`), and `...` just inside a bracket (`doThing(...)`, `{ ... }`), which would otherwise
 * read as a spread missing its operand.
 */
function withoutElisions(code: string): string {
  return code.replace(/^[ \t]*(?:\.\.\.|…)[ \t]*[,;]?[ \t]*$/gm, '').replace(/(?:\.\.\.|…)(?=\s*[)\]}])/g, '');
}

/** Why a block does not parse (the first error, at its line and column in the block), or undefined. */
async function syntaxError(code: string, dialect: { file: string; label: string }, fragments: boolean): Promise<string | undefined> {
  const error = await firstError(code, dialect.file);
  if (!error || !fragments) return error;
  const plain = withoutElisions(code);
  if (plain !== code && !(await firstError(plain, dialect.file))) return undefined;
  for (const wrap of wrappers(dialect)) if (!(await firstError(wrap(plain), dialect.file))) return undefined;
  return error;
}

async function firstError(code: string, fileName: string): Promise<string | undefined> {
  const ts = await typescript();
  let result: ReturnType<TypeScript['transpileModule']>;
  try {
    result = ts.transpileModule(code, {
      fileName,
      reportDiagnostics: true,
      compilerOptions: { allowJs: true, jsx: ts.JsxEmit.Preserve, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext },
    });
  } catch (error) {
    // The parser recurses: brackets nested a few hundred thousand deep overflowed its stack, and the
    // RangeError made the attempt a provider error, which grades nobody. No one writes such code.
    if (error instanceof RangeError) return NESTED_TOO_DEEP;
    throw error;
  }
  const first = result.diagnostics?.find((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  if (!first) return undefined;
  const message = ts.flattenDiagnosticMessageText(first.messageText, ' ');
  if (first.file && first.start !== undefined) {
    const { line, character } = first.file.getLineAndCharacterOfPosition(first.start);
    return `${line + 1}:${character + 1} ${message}`;
  }
  return message;
}
