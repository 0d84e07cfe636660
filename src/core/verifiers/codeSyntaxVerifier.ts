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

type TypeScript = typeof import('typescript');
let loaded: Promise<TypeScript> | undefined;

function typescript(): Promise<TypeScript> {
  loaded ??= import('typescript').then((module) => ('default' in module && module.default ? module.default : module) as TypeScript);
  return loaded;
}

export class CodeSyntaxVerifier implements Verifier {
  readonly name = 'code-syntax';

  async verify(answer: Answer): Promise<Check> {
    const found = fencedBlocks(answer.text).filter((block) => DIALECTS[block.language]);
    if (found.length === 0) return { verdict: 'unverified', reason: 'no TypeScript, JavaScript or JSON code block in the answer' };
    const blocks = found.slice(0, MAX_CHECKED_BLOCKS);
    const problems: string[] = [];
    const labels: string[] = [];
    for (const [index, block] of blocks.entries()) {
      const dialect = DIALECTS[block.language] as { file: string; label: string };
      labels.push(dialect.label);
      const error = dialect.label === 'json' ? jsonError(block.body) : await syntaxError(block.body, dialect.file);
      if (error) problems.push(`block ${index + 1} (${dialect.label}, from answer line ${block.startLine}): ${error}`);
    }
    if (problems.length) return { verdict: 'fail', reason: `syntax error: ${problems.join('; ')}` };
    if (found.length > blocks.length) {
      return { verdict: 'unverified', reason: `the first ${blocks.length} of ${found.length} code blocks parse; the rest were not checked (more blocks than an edit writes)` };
    }
    return { verdict: 'pass', reason: `${blocks.length} code block${blocks.length > 1 ? 's' : ''} parse (${[...new Set(labels)].join(', ')})` };
  }
}

function jsonError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function syntaxError(code: string, fileName: string): Promise<string | undefined> {
  const ts = await typescript();
  const result = ts.transpileModule(code, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { allowJs: true, jsx: ts.JsxEmit.Preserve, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext },
  });
  const first = result.diagnostics?.find((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  if (!first) return undefined;
  const message = ts.flattenDiagnosticMessageText(first.messageText, ' ');
  if (first.file && first.start !== undefined) {
    const { line, character } = first.file.getLineAndCharacterOfPosition(first.start);
    return `${line + 1}:${character + 1} ${message}`;
  }
  return message;
}
