/**
 * The extension-host suite: every `test/integration/**\/*.test.ts`, run by mocha inside a real VS Code.
 *
 * @remarks
 * Exports `run()` in the shape `@vscode/test-electron` (and VS Code's own test runner, which code-server
 * embeds) loads from `extensionTestsPath`: a resolved promise is exit code 0, a rejected one fails the
 * run. `npm run test:host` runs it in code-server; `test/integration/runTest.ts` runs it in a downloaded
 * desktop VS Code where one can be downloaded.
 */
import { files } from 'rung:integration-tests';
import { runMochaSuite } from './mochaSuite';

export function run(): Promise<void> {
  return runMochaSuite('host', files);
}
