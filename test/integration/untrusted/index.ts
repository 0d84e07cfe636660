/**
 * The suite for a window on a folder the user has not trusted (restricted mode): Rung runs, but takes
 * no endpoint and no check command from the workspace.
 */
import { files } from 'rung:untrusted-tests';
import { runMochaSuite } from '../mochaSuite';

export function run(): Promise<void> {
  return runMochaSuite('untrusted', files);
}
