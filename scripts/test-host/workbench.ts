/**
 * The workbench `npm start` serves: code-server over a folder, with workspace trust on and a sign-in
 * token, and the door whose address signs a browser in (signInDoor.ts).
 *
 * @remarks
 * It served with no sign-in and trust switched off, as the test suites' servers do: any process on the
 * machine, and any page a browser on it opened that could reach 127.0.0.1, had a workbench whose terminal
 * runs as the user who typed `npm start` (root, in a container), and `npm start -- ~/cloned-repo` opened a
 * folder someone else wrote fully trusted, so its settings chose endpoints and ran its check command
 * without Restricted Mode's protections. The token is 32 random bytes, new at every start.
 */
import { randomBytes } from 'node:crypto';
import { CodeServer, repositoryRoot, type TestHost } from './codeServer';
import { openSignInDoor, type SignInDoor } from './signInDoor';

export interface Workbench {
  server: CodeServer;
  door: SignInDoor;
  /** The workbench's own address: it asks for {@link token} on code-server's sign-in page. */
  workbenchUrl: string;
  /** The token: in {@link SignInDoor.url}, and what code-server's sign-in page takes as the password. */
  token: string;
  stop(): Promise<void>;
}

/** Starts the workbench over `folder` from the profile in `stateFolder`; `development` loads this repository instead of the installed Rung. */
export async function startWorkbench(options: {
  host: TestHost;
  folder: string;
  stateFolder: string;
  development: boolean;
  /** The workbench's port, and the next one the door's; absent: free ones. */
  port?: number;
}): Promise<Workbench> {
  const token = randomBytes(32).toString('base64url');
  const server = await CodeServer.start({
    host: options.host,
    stateFolder: options.stateFolder,
    workspace: options.folder,
    automation: options.development,
    workspaceTrust: true,
    token,
    ...(options.port ? { port: options.port } : {}),
  });
  const workbenchUrl = server.workbenchUrl({
    folder: options.folder,
    ...(options.development ? { extensionDevelopmentPath: repositoryRoot() } : {}),
  });
  let door: SignInDoor;
  try {
    door = await openSignInDoor({
      token,
      cookie: server.signInCookie as { name: string; value: string },
      target: workbenchUrl,
      ...(options.port ? { port: options.port + 1 } : {}),
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    server,
    door,
    workbenchUrl,
    token,
    stop: async () => {
      await door.close();
      await server.stop();
    },
  };
}
