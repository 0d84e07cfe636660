/**
 * Runs the extension-host suite in a downloaded desktop VS Code, on machines that can download one.
 *
 * @remarks
 * `npm run test:host` runs the same `dist/test/integration/index.js` inside code-server, because the
 * project's machines reach no download site; this file keeps the suite honest to the standard
 * `@vscode/test-electron` shape. Build first (`node esbuild.mjs`), then `node dist/test/integration/runTest.js`.
 * The results file lands in `dist/test/integration/results/host.json`.
 */
import { runTests } from '@vscode/test-electron';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The VS Code release the code-server test host embeds, so both hosts run the same editor. */
const VSCODE_VERSION = '1.139.1';

async function main(): Promise<void> {
  const root = resolve(__dirname, '../../..');
  const workspace = mkdtempSync(join(tmpdir(), 'rung-workspace-'));
  cpSync(join(root, 'test/fixtures/workspace'), workspace, { recursive: true });
  await runTests({
    version: VSCODE_VERSION,
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'dist/test/integration/index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
