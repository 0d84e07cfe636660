/**
 * The canary suite: one test that passes and one that fails, run exactly like the real suite.
 *
 * @remarks
 * The exit hook that reports a suite's result (`codeAutomationExit`) belongs to VS Code's web
 * workbench and is not documented by code-server, so a version bump could silently turn every run
 * green. `npm run test:host` runs this first and refuses to go on unless it ends non-zero with
 * exactly one failure.
 */
import { files } from 'rung:canary-tests';
import { runMochaSuite } from '../mochaSuite';

export function run(): Promise<void> {
  return runMochaSuite('canary', files);
}
