/**
 * `npm start`: Rung in a real VS Code in the browser — code-server on 127.0.0.1 over the current folder.
 *
 * @remarks
 * Rung is packaged from this build and installed into the profile, as a user installs it, and VS Code
 * runs as a user has it: Rung's notifications (how to start, a damaged ledger moved aside) show as
 * toasts, and workspace trust is on, so a folder is in Restricted Mode until the user trusts it. Loading
 * the repository as the extension under development instead needs VS Code's test driver, which hides
 * every toast and dialog (codeServer.ts); `RUNG_DEV=1` does that, for a rebuild and a window reload to
 * pick up changes. The workbench asks for a token made at each start; the address printed carries it
 * (workbench.ts). The profile is kept between starts in the test host folder, so settings, trusted
 * folders and keys entered in the editor stay. `npm start -- PATH` opens another folder; `RUNG_PORT`
 * picks the workbench's port, and the printed address is on the next (default: free ones). Ctrl+C stops the server and everything it started.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CodeServer, installTestHost } from './codeServer';
import { packageRung } from './vsix';
import { startWorkbench } from './workbench';

async function main(): Promise<void> {
  const host = installTestHost();
  // npm runs scripts from the package root; INIT_CWD is where the user typed `npm start`.
  const folder = resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? '.');
  const stateFolder = join(host.folder, 'start-profile');
  mkdirSync(stateFolder, { recursive: true });
  const port = process.env.RUNG_PORT ? Number(process.env.RUNG_PORT) : undefined;
  const development = process.env.RUNG_DEV === '1';
  if (!development) CodeServer.installExtension(host, stateFolder, packageRung(join(stateFolder, 'rung.vsix')));
  const workbench = await startWorkbench({ host, folder, stateFolder, development, ...(port ? { port } : {}) });
  const { server } = workbench;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping code-server…');
    await workbench.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  console.log(`Rung in VS Code (code-server 4.139.1, VS Code 1.139.1) on ${folder}`);
  console.log(`open: ${workbench.door.url}`);
  console.log(`  (signs this browser in, then opens ${server.origin}; there, the sign-in page takes the same token as its password)`);
  console.log('The folder opens in Restricted Mode until you trust it (the prompt, or "Workspaces: Manage Workspace Trust").');
  console.log(`server log: ${server.logFile}; Ctrl+C stops it`);
  const ended = await server.exited;
  if (!stopping) {
    await workbench.door.close();
    console.error(`code-server ended on its own (${ended}); its log:\n${server.logTail()}`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
