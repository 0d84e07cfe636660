/**
 * The suite for a window with no folder open: Rung must still activate, route and keep a ledger
 * (in the extension's global storage, since there is no workspace to hold `.rung/`).
 */
import { files } from 'rung:no-folder-tests';
import { runMochaSuite } from '../mochaSuite';

export function run(): Promise<void> {
  return runMochaSuite('no-folder', files);
}
