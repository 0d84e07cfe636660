/**
 * Moves the extension-host tests share: activating Rung, finding the workspace, waiting for the editor.
 *
 * @remarks
 * The editor does most things asynchronously (a document opens after a command resolves), so tests wait
 * for an event or a condition with a generous limit instead of sleeping for a guessed time; the limit
 * only turns a hang into a readable failure. It is two minutes, not seconds: on a 2-core machine running
 * fifteen other processes the session took over 30 s to open on a new panel file, and the limit scales
 * with `RUNG_TEST_TIME_SCALE` (test/timeScale.ts).
 */
import * as vscode from 'vscode';
import { scaled } from '../../timeScale';

/** Rung's identifier: `publisher.name` from package.json. */
export const RUNG_EXTENSION_ID = 'rung.rung';
/** How long `eventually` keeps asking before it fails the test. */
const EVENTUALLY_TIMEOUT_MS = scaled(120_000);
const EVENTUALLY_POLL_MS = 50;

/** Activates Rung (a no-op when it is active) and returns the extension. */
export async function activateRung(): Promise<vscode.Extension<unknown>> {
  const extension = vscode.extensions.getExtension(RUNG_EXTENSION_ID);
  if (!extension) throw new Error(`${RUNG_EXTENSION_ID} is not loaded in this extension host`);
  await extension.activate();
  return extension;
}

/** The folder the test window opened: a fresh copy of `test/fixtures/workspace`. */
export function workspaceFolder(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test window has no workspace folder open');
  return folder.uri;
}

/** Resolves with the first truthy value `probe` returns, asking again until it does or time runs out. */
export async function eventually<T>(description: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + EVENTUALLY_TIMEOUT_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`gave up after ${EVENTUALLY_TIMEOUT_MS} ms waiting for ${description}`);
    await new Promise((done) => setTimeout(done, EVENTUALLY_POLL_MS));
  }
}
