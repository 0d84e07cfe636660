/**
 * Runs bundled mocha test files inside the extension host and records every outcome in a JSON file.
 *
 * @remarks
 * The files are bundled with the suite (an esbuild plugin lists them), so mocha cannot `require` them
 * by path: each is loaded between mocha's `pre-require` and `post-require` events, which is what binds
 * `describe`/`it` (imported from `mocha` or used as globals) to this run. A JSON file rather than the
 * console because extension-host output reaches the browser page without printf formatting, and the
 * runner outside needs counts and error messages it can trust.
 */
import Mocha from 'mocha';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scaled } from '../timeScale';

/**
 * Generous per-test limit: a test may start local servers, open editors and wait for the workbench.
 *
 * @remarks
 * Above the waits' own limits (`eventually` in support/rung.ts), so a test that waits too long fails
 * naming what it waited for rather than with mocha's bare timeout. Scaled by `RUNG_TEST_TIME_SCALE`.
 */
const TEST_TIMEOUT_MS = scaled(180_000);

/** One test file the bundle holds; `load` evaluates it (and so declares its tests). */
export interface BundledTestFile {
  file: string;
  load(): void;
}

/** One test's outcome as the runner prints it. */
export interface TestOutcome {
  title: string;
  file: string | undefined;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number | undefined;
  error?: { message: string; stack: string | undefined };
}

/** The results file: the runner reads `passed` and `failed` and prints `tests`. */
export interface SuiteResults {
  suite: string;
  passed: number;
  failed: number;
  pending: number;
  tests: TestOutcome[];
}

/** Where a suite writes its results: the runner's folder when it named one, else beside the bundle. */
export function resultsPath(suite: string): string {
  const folder = process.env.RUNG_TEST_RESULTS_DIR ?? join(__dirname, 'results');
  return join(folder, `${suite}.json`);
}

/**
 * Runs `files` with mocha and writes `resultsPath(suite)`; rejects when any test failed or none ran.
 *
 * @remarks
 * Rejecting is how the `@vscode/test-electron` shape reports failure: the workbench turns it into a
 * non-zero exit code. A suite that declared no test at all also rejects, so a bundling mistake cannot
 * pass as an empty green run.
 */
export async function runMochaSuite(suite: string, files: BundledTestFile[]): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: TEST_TIMEOUT_MS, color: false });
  const tests: TestOutcome[] = [];
  for (const { file, load } of files) {
    mocha.suite.emit('pre-require', globalThis, file, mocha);
    try {
      mocha.suite.emit('require', load(), file, mocha);
    } catch (error) {
      // A file that throws while loading declares none of its tests: say so, and run the other files.
      tests.push({ title: `loading ${file}`, file, state: 'failed', durationMs: undefined, error: describeError(error) });
    }
    mocha.suite.emit('post-require', globalThis, file, mocha);
  }
  const runner = await new Promise<Mocha.Runner>((resolve) => {
    const started = mocha.run(() => resolve(started));
    started.on('pass', (test) => tests.push(outcome(test, 'passed')));
    started.on('pending', (test) => tests.push(outcome(test, 'pending')));
    started.on('fail', (test, error: unknown) => tests.push(outcome(test, 'failed', error)));
    // The console is still useful when someone watches the browser page's log.
    started.on('test end', (test) => console.log(`rung-test ${test.state ?? 'pending'}: ${test.fullTitle()}`));
  });
  void runner;
  const results: SuiteResults = {
    suite,
    passed: tests.filter((test) => test.state === 'passed').length,
    failed: tests.filter((test) => test.state === 'failed').length,
    pending: tests.filter((test) => test.state === 'pending').length,
    tests,
  };
  const path = resultsPath(suite);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  if (results.failed > 0) throw new Error(`${results.failed} of ${tests.length} tests failed in the ${suite} suite`);
  if (results.passed === 0) throw new Error(`the ${suite} suite ran no test`);
}

function outcome(test: Mocha.Runnable, state: TestOutcome['state'], error?: unknown): TestOutcome {
  const result: TestOutcome = { title: test.fullTitle(), file: test.file, state, durationMs: test.duration };
  if (error !== undefined) result.error = describeError(error);
  return result;
}

function describeError(error: unknown): NonNullable<TestOutcome['error']> {
  const message = error instanceof Error ? error.message : String(error);
  return { message, stack: error instanceof Error ? ownFrames(error.stack) : undefined };
}

/**
 * A stack cut where mocha's own frames begin, without Node's internals: they say nothing about the test.
 *
 * @remarks
 * Mocha is bundled into the suite, so its frames cannot be told apart by path; they are told apart by
 * the name of the frame that calls a test or hook. The frames above it are the test's own (in the
 * bundle: the extension host installs its own stack formatter, so Node's source maps do not apply).
 */
function ownFrames(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  const lines = stack.split('\n');
  const mochaStarts = lines.findIndex((line) => /^\s+at (callFn|callFnAsync|_?(Test|Hook|Runnable)\.run|Runner\.)/.test(line));
  return (mochaStarts === -1 ? lines : lines.slice(0, mochaStarts)).filter((line) => !/^\s+at .*node:internal/.test(line)).join('\n');
}
