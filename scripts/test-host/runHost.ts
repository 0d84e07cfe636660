/**
 * `npm run test:host`: Rung's extension-host suite and browser checks, inside a real VS Code (code-server).
 *
 * @remarks
 * One code-server with a fresh profile serves three kinds of window, each its own extension host:
 * 1. the canary suite, which must end non-zero with exactly one failure, proving that the exit hook still
 *    reports failures (it is VS Code's web workbench's, undocumented by code-server);
 * 2. the real suite, `test/integration/**\/*.test.ts`, read back from its JSON results file;
 * 3. every browser check in `test/e2e/*.e2e.ts`, each on a fresh workbench over a fresh workspace copy.
 * A second code-server, with workspace trust on, runs two more suites: `test/integration/noFolder` in a
 * window with no folder open and `test/integration/untrusted` on a folder nobody trusted. A third, started
 * for the first check marked `installed`, has Rung installed from the .vsix this build packages and runs
 * without VS Code's test driver, as a user's editor does (the driver hides every toast; codeServer.ts).
 * It ends with the line `N passed, N failed` over the suite and the checks, and exits non-zero when
 * anything failed. `RUNG_CANARY=1` counts the canary as an ordinary suite, so the run is seen to fail.
 * `RUNG_HOST_ONLY=text` runs only the browser checks whose name or file contains `text` (no canary, no suite;
 * `RUNG_HOST_ONLY=ledgerView` runs the checks of `test/e2e/ledgerView.e2e.ts`),
 * to iterate on one check in a minute rather than the whole run's six; a filter that matches nothing fails.
 * `RUNG_HOST_ONLY=restricted` runs only the no-folder and untrusted windows.
 * Logs (the server's, each page's console) go to `test-results/host/`, screenshots to
 * `test-results/screenshots/`.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { files as e2eFiles } from 'rung:e2e-checks';
import type { SuiteResults } from '../../test/integration/mochaSuite';
import { Workbench, type E2eCheck } from '../../test/e2e/workbench';
import { CodeServer, installTestHost, repositoryRoot } from './codeServer';
import { packageRung } from './vsix';
import { scaled, TIME_SCALE, TIME_SCALE_VARIABLE } from '../../test/timeScale';

/**
 * A whole extension-host suite's limit; a hung suite must fail the run, not hang CI. Every limit here
 * scales with `RUNG_TEST_TIME_SCALE` (test/timeScale.ts), which reaches the extension hosts through
 * code-server's environment.
 */
const SUITE_TIMEOUT_MS = scaled(10 * 60_000);
/**
 * One browser check's limit, workbench load included: five minutes, as the longest checks (a reload, an
 * answer climbing two rungs) take over a minute idle and several times that on a crowded machine.
 */
const CHECK_TIMEOUT_MS = scaled(5 * 60_000);
/**
 * Playwright's limit for a click, a fill or a page load that names none: a minute, scaled. Its own default,
 * 30 s, was too short for a page load and a click with both cores busy at load 27.
 */
const ACTION_TIMEOUT_MS = scaled(60_000);
const CHROMIUM = '/usr/bin/chromium';
/** Chromium's flags for a headless run as root in a container (E2E.md). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VIEWPORT = { width: 1400, height: 900 };
/** What `RUNG_HOST_ONLY=restricted` (or any part of this) runs instead of browser checks. */
const RESTRICTED_WINDOWS = 'restricted windows: no folder open, and an untrusted workspace';

interface Tally {
  passed: number;
  failed: number;
}

const root = repositoryRoot();
const logs = join(root, 'test-results/host');
const screenshots = join(root, 'test-results/screenshots');

async function main(): Promise<number> {
  const host = installTestHost();
  rmSync(logs, { recursive: true, force: true });
  rmSync(screenshots, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'rung-test-host-'));
  const results = join(scratch, 'results');
  const tally: Tally = { passed: 0, failed: 0 };
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await CodeServer.start({
      host,
      stateFolder: join(scratch, 'server'),
      workspace: freshWorkspace(scratch, 'default'),
      settings: {},
      env: { RUNG_TEST_RESULTS_DIR: results },
    });
    console.log(`code-server ${server.origin} (pid ${server.pid}); logs in ${logs}`);
    if (TIME_SCALE !== 1)
      console.log(`${TIME_SCALE_VARIABLE}=${TIME_SCALE}: every limit of this run is ${TIME_SCALE} times its usual length`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });

    const only = process.env.RUNG_HOST_ONLY;
    if (only) {
      if (RESTRICTED_WINDOWS.includes(only)) {
        console.log(`RUNG_HOST_ONLY=${only}: only the ${RESTRICTED_WINDOWS}`);
        await runRestrictedWindows(browser, scratch, results, tally);
      } else {
        console.log(
          `RUNG_HOST_ONLY=${only}: only the browser checks whose name or file contains it; the canary and the extension-host suite are skipped`,
        );
        add(tally, await runChecks(browser, server, scratch, only));
      }
    } else {
      await runAll(browser, server, scratch, results, tally);
    }
  } catch (error) {
    console.log(`test host: ${error instanceof Error ? error.stack : String(error)}`);
    tally.failed++;
  } finally {
    await browser?.close().catch(() => undefined);
    if (server) {
      await server.stop();
      cpSync(server.logFile, join(logs, 'code-server.log'));
    }
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(tally);
}

/** The canary, the extension-host suite and every browser check. */
async function runAll(browser: Browser, server: CodeServer, scratch: string, results: string, tally: Tally): Promise<void> {
  const canary = await runSuite(browser, server, scratch, 'canary', join(root, 'dist/test/integration/canary.js'), results);
  if (process.env.RUNG_CANARY === '1') {
    add(tally, printSuite(canary.results, canary.exitCode));
  } else if (canary.exitCode !== 0 && canary.results?.failed === 1 && canary.results.passed === 1) {
    console.log(`canary: a failing test failed its run (exit code ${canary.exitCode}, 1 passed, 1 failed), as it must`);
  } else {
    console.log(
      `canary: FAILED — the canary suite's failing test did not fail its run (exit code ${canary.exitCode}, results ${JSON.stringify(canary.results && { passed: canary.results.passed, failed: canary.results.failed })}); no result of this host can be trusted`,
    );
    tally.failed++;
  }

  const suite = await runSuite(browser, server, scratch, 'host', join(root, 'dist/test/integration/index.js'), results);
  add(tally, printSuite(suite.results, suite.exitCode));

  await runRestrictedWindows(browser, scratch, results, tally);

  add(tally, await runChecks(browser, server, scratch));
}

/**
 * The windows a user opens less often: no folder at all, and a folder they have not trusted.
 *
 * @remarks
 * A code-server of their own, with workspace trust on (the main one runs with
 * `--disable-workspace-trust`, or every check would wait on the trust prompt) and the prompt and
 * banner off, so a folder nobody trusted opens straight into restricted mode, as it does for a user
 * who dismissed the prompt. Its own profile, too: these suites change user settings (an inline panel
 * with no folder to hold a panel file), which must not reach the other windows.
 */
async function runRestrictedWindows(browser: Browser, scratch: string, results: string, tally: Tally): Promise<void> {
  let server: CodeServer | undefined;
  try {
    server = await CodeServer.start({
      host: installTestHost(),
      stateFolder: join(scratch, 'restricted-server'),
      workspace: freshWorkspace(scratch, 'restricted-default'),
      settings: {
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.banner': 'never',
        'security.workspace.trust.emptyWindow': true,
      },
      env: { RUNG_TEST_RESULTS_DIR: results },
      workspaceTrust: true,
    });
    const noFolder = await runSuite(browser, server, scratch, 'no-folder', join(root, 'dist/test/integration/noFolder.js'), results, null);
    add(tally, printSuite(noFolder.results, noFolder.exitCode));
    const untrusted = await runSuite(browser, server, scratch, 'untrusted', join(root, 'dist/test/integration/untrusted.js'), results);
    add(tally, printSuite(untrusted.results, untrusted.exitCode));
  } catch (error) {
    console.log(`restricted windows: ${error instanceof Error ? error.stack : String(error)}`);
    tally.failed++;
  } finally {
    if (server) {
      await server.stop();
      cpSync(server.logFile, join(logs, 'code-server-restricted.log'));
    }
  }
}

/** Writes the summary, prints the closing line and gives the exit code: non-zero when anything failed or nothing ran. */
function finish(tally: Tally): number {
  // .ci/run adds these to the unit tests' counts for its closing line.
  writeFileSync(join(logs, 'summary.json'), `${JSON.stringify(tally)}\n`);
  console.log(`${tally.passed} passed, ${tally.failed} failed`);
  return tally.failed > 0 || tally.passed === 0 ? 1 : 0;
}

/** A fresh copy of the fixture workspace, so no window sees what another wrote. */
function freshWorkspace(scratch: string, name: string): string {
  const folder = join(scratch, 'workspaces', name);
  cpSync(join(root, 'test/fixtures/workspace'), folder, { recursive: true });
  return folder;
}

/**
 * Opens a window that runs one extension-host suite and waits for the workbench to report its exit code.
 *
 * @remarks
 * With `enable-smoke-test-driver`, the web workbench calls `window.codeAutomationExit(code)` when the
 * suite's `run()` settles: 0 when it resolved, non-zero when it rejected.
 */
async function runSuite(
  browser: Browser,
  server: CodeServer,
  scratch: string,
  name: string,
  testsPath: string,
  results: string,
  folder: string | null = freshWorkspace(scratch, name),
): Promise<{ exitCode: number | undefined; results: SuiteResults | undefined }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  const console = recordConsole(page, name);
  // Whatever `run()` printed before a crash, the host suite's log is the place to look.
  page.on('crash', () => process.stdout.write(`${name}: the browser page crashed; see ${console.file}\n`));
  try {
    const started = performance.now();
    const exited = new Promise<number>((done) => void page.exposeFunction('codeAutomationExit', (code: number) => done(code)));
    await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: root, extensionTestsPath: testsPath }));
    const exitCode = await Promise.race([exited, new Promise<undefined>((done) => setTimeout(() => done(undefined), SUITE_TIMEOUT_MS))]);
    const file = join(results, `${name}.json`);
    const written = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SuiteResults) : undefined;
    if (exitCode === undefined) process.stdout.write(`${name}: no exit code within ${SUITE_TIMEOUT_MS} ms\n`);
    if (!written) process.stdout.write(`${name}: no results file at ${file}; see ${console.file}\n`);
    process.stdout.write(`${name}: the window ran its suite in ${seconds(started)}\n`);
    return { exitCode, results: written };
  } catch (error) {
    process.stdout.write(`${name}: ${error instanceof Error ? error.message : String(error)}; see ${console.file}\n`);
    return { exitCode: undefined, results: undefined };
  } finally {
    await context.close();
    console.save();
  }
}

/** Prints a suite's tests and errors; a missing results file or an exit code that disagrees with it counts as a failure. */
function printSuite(results: SuiteResults | undefined, exitCode: number | undefined): Tally {
  if (!results) return { passed: 0, failed: 1 };
  console.log(`\n${results.suite} suite (extension host):`);
  for (const test of results.tests) {
    const mark = test.state === 'passed' ? 'ok  ' : test.state === 'failed' ? 'FAIL' : 'skip';
    console.log(`  ${mark} ${test.title}${test.file ? `  (${test.file})` : ''}`);
    if (test.error) console.log(indent(test.error.stack ?? test.error.message, 8));
  }
  const agrees = (exitCode === 0) === (results.failed === 0 && results.passed > 0);
  if (!agrees) console.log(`  FAIL the workbench reported exit code ${exitCode} for ${results.passed} passed, ${results.failed} failed`);
  return { passed: results.passed, failed: results.failed + (agrees ? 0 : 1) };
}

/** Runs every browser check on its own fresh workbench. */
async function runChecks(browser: Browser, server: CodeServer, scratch: string, only?: string): Promise<Tally> {
  const tally: Tally = { passed: 0, failed: 0 };
  const checks: { file: string; check: E2eCheck }[] = [];
  for (const { file, module } of e2eFiles) {
    const exported = Array.isArray(module.default) ? (module.default as unknown[]) : [module.default];
    for (const check of exported) {
      if (isCheck(check)) {
        if (!only || check.name.includes(only) || file.includes(only)) checks.push({ file, check });
      } else {
        console.log(`  FAIL ${file}: its default export must be an E2eCheck ({ name, run }) or a list of them`);
        tally.failed++;
      }
    }
  }
  console.log('\nbrowser checks (Chromium on the workbench):');
  let installed: CodeServer | undefined;
  let untrusted: CodeServer | undefined;
  try {
    await runEachCheck(browser, checks, scratch, tally, async (check, folder) => {
      if (check.untrusted) {
        untrusted ??= await startInstalledServer(scratch, { workspaceTrust: true });
        return untrusted.workbenchUrl({ folder });
      }
      if (!check.installed) return server.workbenchUrl({ folder, extensionDevelopmentPath: root });
      installed ??= await startInstalledServer(scratch);
      return installed.workbenchUrl({ folder });
    });
  } finally {
    for (const [started, name] of [
      [installed, 'installed'],
      [untrusted, 'untrusted'],
    ] as const) {
      if (!started) continue;
      await started.stop();
      cpSync(started.logFile, join(logs, `code-server-${name}.log`));
    }
  }
  return tally;
}

/**
 * The code-server of the checks that meet Rung as a user has it: installed from the .vsix this build
 * packages, in a workbench without VS Code's test driver, so notifications show as toasts.
 *
 * @remarks
 * With `workspaceTrust`, trust is on and its start-up prompt off, so a folder nobody trusted opens in
 * Restricted Mode, its banner and status bar item showing, as for a user who dismissed the prompt.
 */
async function startInstalledServer(scratch: string, options: { workspaceTrust?: boolean } = {}): Promise<CodeServer> {
  const host = installTestHost();
  const name = options.workspaceTrust ? 'untrusted' : 'installed';
  const stateFolder = join(scratch, `${name}-server`);
  mkdirSync(stateFolder, { recursive: true });
  const vsix = join(scratch, 'rung.vsix');
  CodeServer.installExtension(host, stateFolder, existsSync(vsix) ? vsix : packageRung(vsix));
  return CodeServer.start({
    host,
    stateFolder,
    workspace: freshWorkspace(scratch, `${name}-default`),
    settings: options.workspaceTrust ? { 'security.workspace.trust.startupPrompt': 'never' } : {},
    automation: false,
    ...(options.workspaceTrust ? { workspaceTrust: true } : {}),
  });
}

/** Runs each check on a fresh workspace copy in its own browser context, at the workbench URL `urlFor` gives it. */
async function runEachCheck(
  browser: Browser,
  checks: { file: string; check: E2eCheck }[],
  scratch: string,
  tally: Tally,
  urlFor: (check: E2eCheck, folder: string) => Promise<string>,
): Promise<void> {
  for (const [index, { file, check }] of checks.entries()) {
    const folder = freshWorkspace(scratch, `check-${index}`);
    const context = await browser.newContext({ viewport: VIEWPORT });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const page = await context.newPage();
    const console = recordConsole(page, `check-${index}`);
    const workbench = new Workbench(page, folder, screenshots);
    const started = performance.now();
    try {
      await within(
        (async () => {
          const url = await urlFor(check, folder);
          await check.prepare?.(folder);
          await page.goto(url);
          await workbench.waitUntilReady();
          await check.run(page, workbench);
        })(),
        check.timeoutMs ?? CHECK_TIMEOUT_MS,
        `the check did not finish within ${check.timeoutMs ?? CHECK_TIMEOUT_MS} ms`,
      );
      tally.passed++;
      process.stdout.write(`  ok   ${check.name}  (${file}, ${seconds(started)})\n`);
    } catch (error) {
      tally.failed++;
      process.stdout.write(
        `  FAIL ${check.name}  (${file}, ${seconds(started)})\n${indent(error instanceof Error ? (error.stack ?? error.message) : String(error), 8)}\n`,
      );
      const shot = await workbench.screenshot(`FAILED-check-${index}`).catch(() => undefined);
      if (shot) process.stdout.write(`        screenshot: ${shot}; console: ${console.file}\n`);
    } finally {
      await context.close();
      console.save();
    }
  }
}

function isCheck(value: unknown): value is E2eCheck {
  const candidate = value as Partial<E2eCheck> | undefined;
  return typeof candidate?.name === 'string' && typeof candidate.run === 'function';
}

/** Keeps a page's console messages, including the extension host's forwarded output, for the logs folder. */
function recordConsole(page: Page, name: string): { file: string; save(): void } {
  const lines: string[] = [];
  page.on('console', (message) => lines.push(`[${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => lines.push(`[pageerror] ${error.stack ?? error.message}`));
  const file = join(logs, `${name}.console.log`);
  return { file, save: () => writeFileSync(file, `${lines.join('\n')}\n`) };
}

async function within<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(message)), timeoutMs)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Time since `started`, for the log: which suite or check makes the run long. */
function seconds(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}

function add(into: Tally, more: Tally): void {
  into.passed += more.passed;
  into.failed += more.failed;
}

function indent(text: string, spaces: number): string {
  return text
    .split('\n')
    .map((line) => ' '.repeat(spaces) + line)
    .join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
