import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerFiles, ScratchStopped, scratchWithFiles } from '../../../../src/core/verifiers/answerFiles';
import { ALLOWED_VARIABLES, commandEnvironment } from '../../../../src/core/verifiers/commandEnvironment';
import {
  CommandVerifier,
  OUTPUT_TAIL_CHARS,
  PROGRESS_INTERVAL_MS,
  type CheckProgress,
  type ProgressSchedule,
} from '../../../../src/core/verifiers/commandVerifier';

const KEY = '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';
const node = JSON.stringify(process.execPath);
/** An answer that writes one file, as a model writes an edit. */
const edit = (path: string, content: string) => ({
  text: `Here is the fix:\n\n\`\`\`ts title="${path}"\n${content}\n\`\`\`\n`,
  toolCalls: [],
  model: 'qwen3:14b',
});
const answer = edit('src/add.ts', 'export const add = (a: number, b: number) => a + b;');
let workspace: string;
let scratchRoot: string;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-verify-'));
  scratchRoot = mkdtempSync(join(tmpdir(), 'rung-scratch-'));
});

afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(scratchRoot, { recursive: true, force: true });
});

function verifier(
  command: string,
  extra: { timeoutMs?: number; env?: Record<string, string | undefined>; allowEnv?: string[]; secrets?: string[] } = {},
): CommandVerifier {
  return new CommandVerifier({
    command,
    cwd: workspace,
    env: extra.env ?? {},
    scratchRoot,
    ...(extra.timeoutMs !== undefined ? { timeoutMs: extra.timeoutMs } : {}),
    ...(extra.allowEnv ? { allowEnv: extra.allowEnv } : {}),
    ...(extra.secrets ? { secrets: extra.secrets } : {}),
  });
}

describe('CommandVerifier', () => {
  it('passes when the command exits 0 on a copy of the workspace with the answer written in', async () => {
    writeFileSync(join(workspace, 'marker.txt'), 'here');
    const command = `${node} -e "require('fs').accessSync('marker.txt'); if (!require('fs').readFileSync('src/add.ts', 'utf8').includes('a + b')) process.exit(1)"`;
    expect(await verifier(command).verify(answer)).toEqual({
      verdict: 'pass',
      reason: `\`${command}\` exited 0 with the answer applied (src/add.ts)`,
    });
    expect(existsSync(join(workspace, 'src'))).toBe(false);
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('calls an answer it could not apply unverified and does not run the command', async () => {
    const command = `${node} -e "require('fs').writeFileSync('ran.txt', '')"`;
    const check = await verifier(command).verify({ text: 'The tests already pass, nothing to change.', toolCalls: [], model: 'qwen3:14b' });
    expect(check).toEqual({
      verdict: 'unverified',
      reason: `\`${command}\` not run: the answer was not applied (no fenced code block names a file to write)`,
    });
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });

  it('fails an answer that breaks the command, with the tail of the output', async () => {
    const script = "for (let i = 0; i < 500; i++) console.log('line ' + i); console.error('FAIL test/add.spec.ts'); process.exit(3)";
    const command = `${node} -e "${script}"`;
    const check = await verifier(command).verify(answer);
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/exited 3 with the answer applied \(src\/add\.ts\):\n/);
    expect(check.reason).toMatch(/FAIL test\/add\.spec\.ts$/);
    expect(check.reason).not.toContain('line 0\n');
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('refuses to write a file outside the copy, and does not run the command', async () => {
    const outside = join(scratchRoot, 'escaped.txt');
    const check = await verifier(`${node} -e ""`).verify(edit('../escaped.txt', 'x'));
    expect(check.verdict).toBe('unverified');
    expect(check.reason).toContain('leaves the workspace');
    expect(existsSync(outside)).toBe(false);
  });

  it('refuses to write through a symlinked folder that points out of the workspace', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'rung-elsewhere-'));
    symlinkSync(elsewhere, join(workspace, 'linked'));
    const check = await verifier(`${node} -e ""`).verify(edit('linked/evil.txt', 'x'));
    expect(check).toMatchObject({ verdict: 'unverified', reason: expect.stringContaining('leaves the workspace through a symlink') });
    expect(existsSync(join(elsewhere, 'evil.txt'))).toBe(false);
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('creates no folder outside the copy when a write through a symlinked folder is refused', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'rung-elsewhere-'));
    symlinkSync(elsewhere, join(workspace, 'link'));
    const check = await verifier(`${node} -e ""`).verify(edit('link/deep/er/a.ts', 'x'));
    expect(check).toMatchObject({ verdict: 'unverified', reason: expect.stringContaining('leaves the workspace through a symlink') });
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('writes a file into new folders under a symlinked folder that stays inside the workspace', async () => {
    mkdirSync(join(workspace, 'src'));
    symlinkSync('src', join(workspace, 'alias'));
    const command = `${node} -e "process.exit(require('fs').readFileSync('src/deep/a.ts', 'utf8') === 'x\\n' ? 0 : 1)"`;
    expect((await verifier(command).verify(edit('alias/deep/a.ts', 'x'))).verdict).toBe('pass');
  });

  it('keeps a relative link pointing where it pointed: out of the workspace to the same folder, inside it to the copy', async () => {
    // A monorepo package linking a sibling outside the workspace, and a link within the workspace.
    const repo = join(workspace, 'repo');
    mkdirSync(join(workspace, 'shared3'));
    writeFileSync(join(workspace, 'shared3', 'index.js'), 'module.exports = 3;');
    mkdirSync(join(repo, 'pkg'), { recursive: true });
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'add.ts'), 'export const add = (a: number, b: number) => a - b;');
    symlinkSync('../../shared3', join(repo, 'pkg', 'shared'));
    symlinkSync('../src', join(repo, 'pkg', 'lib'));
    const command = `${node} -e "process.exit(require('./pkg/shared/index.js') === 3 && require('fs').readFileSync('pkg/lib/add.ts', 'utf8').includes('a + b') ? 0 : 1)"`;
    const check = await new CommandVerifier({ command, cwd: repo, env: {}, scratchRoot }).verify(answer);
    expect(check).toEqual({ verdict: 'pass', reason: `\`${command}\` exited 0 with the answer applied (src/add.ts)` });
  });

  it('links node_modules into the copy rather than copying it, and never writes into it', async () => {
    mkdirSync(join(workspace, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(workspace, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;');
    const command = `${node} -e "if (require('dep') !== 42) process.exit(1)"`;
    expect((await verifier(command).verify(answer)).verdict).toBe('pass');
    const check = await verifier(command).verify(edit('node_modules/dep/index.js', 'module.exports = 0;'));
    expect(check.verdict).toBe('unverified');
    expect(readFileSync(join(workspace, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('module.exports = 42;');
  });

  it('links a nested node_modules too, so a package in a monorepo finds its own dependencies', async () => {
    mkdirSync(join(workspace, 'packages', 'app', 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(workspace, 'packages', 'app', 'node_modules', 'dep', 'index.js'), 'module.exports = 7;');
    const command = `cd packages/app && ${node} -e "if (require('dep') !== 7) process.exit(1)"`;
    expect((await verifier(command).verify(answer)).verdict).toBe('pass');
    const check = await verifier(command).verify(edit('packages/app/node_modules/dep/index.js', 'module.exports = 0;'));
    expect(check).toMatchObject({ verdict: 'unverified', reason: expect.stringContaining('is inside node_modules') });
    expect(readFileSync(join(workspace, 'packages', 'app', 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('module.exports = 7;');
  });

  it('calls a command that runs out of time unverified', async () => {
    const command = `${node} -e "setTimeout(() => {}, 60000)"`;
    const check = await verifier(command, { timeoutMs: 100 }).verify(answer);
    expect(check).toEqual({ verdict: 'unverified', reason: `\`${command}\` timed out after 100 ms` });
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('calls a command the user stopped unverified', async () => {
    const controller = new AbortController();
    // Stopped once the command has started (it says so with a file), not after a fixed delay: under load
    // the delay could end while the workspace was still being copied, which is another path.
    const started = `${workspace}-started`;
    const command = `${node} -e "require('fs').writeFileSync(${JSON.stringify(JSON.stringify(started)).slice(1, -1)}, ''); setTimeout(() => {}, 60000)"`;
    const pending = verifier(command).verify(answer, controller.signal);
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 10));
    rmSync(started);
    controller.abort();
    expect(await pending).toEqual({ verdict: 'unverified', reason: `\`${command}\` stopped by the user` });
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('calls a command that cannot be started unverified, and removes the copy', async () => {
    // Node refuses a command line with a NUL byte before any process exists.
    const check = await verifier('true\0false').verify(answer);
    expect(check).toMatchObject({ verdict: 'unverified', reason: expect.stringContaining('could not start') });
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('runs the command without any RUNG_*_API_KEY or a variable holding a key, even one the user named, and keeps the key out of its reason', async () => {
    writeFileSync(join(workspace, '.env'), `OPENROUTER=${KEY}\n`);
    const command = `${node} -e "console.log(JSON.stringify(process.env)); console.log(require('fs').readFileSync('.env', 'utf8')); process.exit(1)"`;
    const env = { RUNG_OPENROUTER_API_KEY: KEY, OPENAI_API_KEY: KEY, KEEP_ME: 'visible' };
    const check = await verifier(command, { env, allowEnv: ['KEEP_ME', 'OPENAI_API_KEY', 'RUNG_OPENROUTER_API_KEY'] }).verify(answer);
    expect(check.verdict).toBe('fail');
    expect(check.reason).toContain('"KEEP_ME":"visible"');
    expect(check.reason).not.toContain('RUNG_OPENROUTER_API_KEY');
    expect(check.reason).not.toContain('OPENAI_API_KEY');
    expect(check.reason).toContain('OPENROUTER=[redacted]');
    expect(check.reason).not.toContain(KEY);
  });

  it('keeps no end of a secret where the quoted tail of the output would have begun inside it', async () => {
    const secret = 'pg-S3cr3t-value-tail-99';
    // The secret, then exactly enough output that the last OUTPUT_TAIL_CHARS begin 7 characters before its end.
    const command = `${node} -e "process.stdout.write(process.env.PGPASSWORD + 'x'.repeat(${OUTPUT_TAIL_CHARS - 7})); process.exit(1)"`;
    const check = await verifier(command, { env: { PGPASSWORD: secret }, allowEnv: ['PGPASSWORD'] }).verify(answer);
    expect(check.verdict).toBe('fail');
    expect(check.reason).not.toContain('tail-99');
  });

  it('gives the command only the allowed variables and those the user named, never a secret it was not given by name', async () => {
    const command = `${node} -e "console.log(JSON.stringify(process.env)); process.exit(1)"`;
    const env = {
      PATH: process.env.PATH,
      HOME: '/home/ana',
      LC_ALL: 'C.UTF-8',
      JAVA_HOME: '/opt/jdk',
      PGPASSWORD: 'pg-hunter2',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      GITHUB_TOKEN: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
      NODE_OPTIONS: '--require /tmp/evil.js',
      DATABASE_URL: 'postgres://ana@db/app',
    };
    const check = await verifier(command, { env, allowEnv: ['DATABASE_URL'] }).verify(answer);
    expect(check.verdict).toBe('fail');
    const printed = JSON.parse(check.reason.slice(check.reason.indexOf('{'), check.reason.lastIndexOf('}') + 1)) as Record<string, string>;
    expect(printed).toMatchObject({ HOME: '/home/ana', LC_ALL: 'C.UTF-8', JAVA_HOME: '/opt/jdk', DATABASE_URL: 'postgres://ana@db/app' });
    for (const name of ['PGPASSWORD', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'NODE_OPTIONS']) expect(printed[name]).toBeUndefined();
    for (const secret of ['pg-hunter2', 'wJalrXUtnFEMI', 'ghp_0123']) expect(check.reason).not.toContain(secret);
  });

  it('scrubs from its reason a secret the command read some other way, and the value of a secret the user let it see', async () => {
    writeFileSync(join(workspace, '.pgpass'), 'db:5432:app:ana:hunter2\n');
    const command = `${node} -e "console.log(require('fs').readFileSync('.pgpass', 'utf8')); console.log(process.env.STRIPE_SECRET_KEY); console.log(process.env.USE_KEYRING); process.exit(1)"`;
    const env = { PGPASSWORD: 'hunter2', STRIPE_SECRET_KEY: 'sk_test_0123456789abcdef', USE_KEYRING: 'true' };
    const check = await verifier(command, { env, allowEnv: ['STRIPE_SECRET_KEY', 'USE_KEYRING'], secrets: ['team-password-1'] }).verify(
      answer,
    );
    expect(check.verdict).toBe('fail');
    expect(check.reason).toContain('db:5432:app:ana:[redacted]');
    expect(check.reason).toContain('\n[redacted]\ntrue');
    expect(check.reason).not.toContain('hunter2');
    expect(check.reason).not.toContain('sk_test_0123456789abcdef');
  });
});

describe('CommandVerifier with a process left holding its output', () => {
  /**
   * A command that starts a straggler sharing its stdout and writes the straggler's pid to a file:
   * `stay` exits 0 at once and leaves the straggler in its process group (`sleep 5 & exit 0`);
   * `escape` puts the straggler in a session of its own and then hangs (`setsid sleep 8 & sleep 60`).
   */
  const HOLD = [
    "const { spawn } = require('node:child_process');",
    'const [, , pidFile, mode] = process.argv;',
    "const straggler = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: mode === 'escape', stdio: ['ignore', 'inherit', 'inherit'] });",
    "require('node:fs').writeFileSync(pidFile, String(straggler.pid));",
    "if (mode === 'escape') setInterval(() => {}, 1000); else process.exit(0);",
  ].join('\n');
  let tools: string;

  beforeEach(() => {
    tools = mkdtempSync(join(tmpdir(), 'rung-tools-'));
    writeFileSync(join(tools, 'hold.js'), HOLD);
  });

  afterEach(() => {
    for (const name of readdirSync(tools).filter((file) => file.endsWith('.pid'))) {
      try {
        process.kill(Number(readFileSync(join(tools, name), 'utf8')), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(tools, { recursive: true, force: true });
  });

  const hold = (mode: 'stay' | 'escape') =>
    `${node} ${JSON.stringify(join(tools, 'hold.js'))} ${JSON.stringify(join(tools, `${mode}.pid`))} ${mode}`;

  it('passes a command that exits 0 though something it started still holds its output', async () => {
    const command = hold('stay');
    expect(await verifier(command, { timeoutMs: 60_000 }).verify(answer)).toEqual({
      verdict: 'pass',
      reason: `\`${command}\` exited 0 with the answer applied (src/add.ts)`,
    });
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('times out on time and removes the copy though a process outside its group still holds its output', async () => {
    const command = hold('escape');
    expect(await verifier(command, { timeoutMs: 300 }).verify(answer)).toEqual({
      verdict: 'unverified',
      reason: `\`${command}\` timed out after 300 ms`,
    });
    expect(readdirSync(scratchRoot)).toEqual([]);
  });
});

/** Progress timers a test fires by hand: each entry is one scheduled report, cancelled or not. */
class ManualSchedule {
  readonly entries: { callback: () => void; delayMs: number; cancelled: boolean; fired: boolean }[] = [];
  readonly schedule: ProgressSchedule = (callback, delayMs) => {
    const entry = { callback, delayMs, cancelled: false, fired: false };
    this.entries.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  /** Fires the newest report still pending. */
  fire(): void {
    const entry = this.entries.at(-1);
    if (!entry || entry.cancelled || entry.fired) throw new Error('no report is pending');
    entry.fired = true;
    entry.callback();
  }
  /** Reports scheduled and neither fired nor cancelled. */
  get pending(): number {
    return this.entries.filter((entry) => !entry.cancelled && !entry.fired).length;
  }
}

describe('CommandVerifier progress while a command runs', () => {
  let tools: string;
  let go: string;
  /** A command that runs until the test creates the file `go`. */
  let waitForGo: string;

  beforeEach(() => {
    tools = mkdtempSync(join(tmpdir(), 'rung-progress-'));
    go = join(tools, 'go');
    waitForGo = `${node} -e "setInterval(() => { if (require('fs').existsSync(${JSON.stringify(go).replace(/"/g, "'")})) process.exit(0); }, 10)"`;
  });

  afterEach(() => {
    rmSync(tools, { recursive: true, force: true });
  });

  it('reports every interval while the command runs, with the time so far and the limit, and stops at the verdict', async () => {
    const timers = new ManualSchedule();
    const reports: CheckProgress[] = [];
    const checking = new CommandVerifier({
      command: waitForGo,
      cwd: workspace,
      env: {},
      scratchRoot,
      timeoutMs: 60_000,
      onProgress: (progress) => reports.push(progress),
      schedule: timers.schedule,
    }).verify(answer);
    await vi.waitFor(() => expect(timers.pending).toBe(1));
    timers.fire();
    timers.fire();
    timers.fire();
    expect(reports).toEqual([1, 2, 3].map((n) => ({ command: waitForGo, elapsedMs: n * PROGRESS_INTERVAL_MS, timeoutMs: 60_000 })));
    expect(timers.entries.every((entry) => entry.delayMs === PROGRESS_INTERVAL_MS)).toBe(true);
    writeFileSync(go, '');
    expect((await checking).verdict).toBe('pass');
    expect(timers.pending).toBe(0);
    // A report whose timer fired as the verdict landed says nothing.
    timers.entries.at(-1)?.callback();
    expect(reports).toHaveLength(3);
  });

  it('says nothing for a command that ends before the first interval', async () => {
    const timers = new ManualSchedule();
    const reports: CheckProgress[] = [];
    const check = await new CommandVerifier({
      command: `${node} -e ""`,
      cwd: workspace,
      env: {},
      scratchRoot,
      onProgress: (progress) => reports.push(progress),
      schedule: timers.schedule,
    }).verify(answer);
    expect(check.verdict).toBe('pass');
    expect(timers.entries).toHaveLength(1);
    expect(timers.pending).toBe(0);
    expect(reports).toEqual([]);
  });

  it('reports on real timers at the interval given, while the command is still running', async () => {
    const reports: CheckProgress[] = [];
    // The command ends only once a report has arrived, so the report cannot have come after it.
    const onProgress = (progress: CheckProgress): void => {
      reports.push(progress);
      writeFileSync(go, '');
    };
    const check = await new CommandVerifier({
      command: waitForGo,
      cwd: workspace,
      env: {},
      scratchRoot,
      timeoutMs: 60_000,
      progressIntervalMs: 20,
      onProgress,
    }).verify(answer);
    expect(check.verdict).toBe('pass');
    expect(reports[0]).toEqual({ command: waitForGo, elapsedMs: 20, timeoutMs: 60_000 });
  });

  it('schedules nothing when nobody listens for progress', async () => {
    const timers = new ManualSchedule();
    expect(
      (
        await new CommandVerifier({ command: `${node} -e ""`, cwd: workspace, env: {}, scratchRoot, schedule: timers.schedule }).verify(
          answer,
        )
      ).verdict,
    ).toBe('pass');
    expect(timers.entries).toEqual([]);
  });

  it('refuses a timeout or an interval that is not a positive number of milliseconds', () => {
    expect(() => new CommandVerifier({ command: 'true', cwd: workspace, env: {}, timeoutMs: 0 })).toThrow(
      'timeoutMs must be a positive number of milliseconds, not 0',
    );
    expect(() => new CommandVerifier({ command: 'true', cwd: workspace, env: {}, progressIntervalMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('commandEnvironment', () => {
  it('keeps the allowed variables, every LC_* and the names the user lists, whatever their case, and drops the rest', () => {
    const { env } = commandEnvironment(
      {
        PATH: '/usr/bin',
        Path: '/win',
        SystemRoot: 'C:\\Windows',
        LC_CTYPE: 'C.UTF-8',
        GOPATH: '/go',
        MY_FLAG: '1',
        HTTPS_PROXY: 'http://u:p@proxy',
        EMPTY: undefined,
      },
      { allow: ['my_flag'] },
    );
    expect(env).toEqual({ PATH: '/usr/bin', Path: '/win', SystemRoot: 'C:\\Windows', LC_CTYPE: 'C.UTF-8', GOPATH: '/go', MY_FLAG: '1' });
  });

  it('drops every RUNG_*_API_KEY and any variable whose value is a key, even when listed, and keeps the keys to scrub', () => {
    const { env, secrets } = commandEnvironment(
      { RUNG_OPENAI_API_KEY: 'sk-one', RUNG_MY_LAB_API_KEY: 'sk-two', HOME: 'sk-two', PATH: '/usr/bin' },
      { allow: ['RUNG_OPENAI_API_KEY'], secrets: ['sk-three'] },
    );
    expect(env).toEqual({ PATH: '/usr/bin' });
    expect([...secrets].sort()).toEqual(['sk-one', 'sk-three', 'sk-two']);
  });

  it('scrubs the value of every variable that looks secret, a short password too, but not a flag that only looks it', () => {
    const { secrets } = commandEnvironment({
      PGPASSWORD: 'pw12',
      AWS_SESSION_TOKEN: 'FwoGZXIvYXdzE',
      DEPLOY_KEY: '0123456789',
      USE_KEYRING: 'true',
      SKIP_AUTH: 'no',
      HOME: '/home/ana',
      AWS_REGION: 'us-east-1',
      AWS_CA_BUNDLE: '/etc/ssl/certs/ca-certificates.crt',
    });
    expect([...secrets].sort()).toEqual(['0123456789', 'FwoGZXIvYXdzE', 'pw12']);
  });

  it("allows no variable whose name looks like a secret's unless the user lists it", () => {
    expect(ALLOWED_VARIABLES.filter((name) => /PASS|SECRET|TOKEN|KEY|CREDENTIAL|AUTH|COOKIE|PRIVATE/i.test(name))).toEqual([]);
  });
});

describe('scratchWithFiles', () => {
  it('stops copying as soon as the signal fires, and leaves no partial copy', async () => {
    for (let folder = 0; folder < 20; folder++) {
      mkdirSync(join(workspace, `f${folder}`));
      for (let file = 0; file < 20; file++) writeFileSync(join(workspace, `f${folder}`, `${file}.ts`), 'export {};');
    }
    const stop = new AbortController();
    const copying = scratchWithFiles(workspace, [], { root: scratchRoot, signal: stop.signal });
    // The copy takes hundreds of turns of the event loop; the stop lands in one of the first.
    setImmediate(() => stop.abort());
    await expect(copying).rejects.toBeInstanceOf(ScratchStopped);
    expect(readdirSync(scratchRoot)).toEqual([]);
  });
});

describe('answerFiles', () => {
  it('reads a path from the fence title or a first-line file comment, and skips blocks without one', () => {
    const text = [
      '```ts title="src/a.ts"',
      'export const a = 1;',
      '```',
      '```json',
      '// file: config/b.json',
      '{"b": 2}',
      '```',
      '```ts',
      'const nowhere = 3;',
      '```',
    ].join('\n');
    expect(answerFiles(text)).toEqual([
      { path: 'src/a.ts', content: 'export const a = 1;\n' },
      { path: 'config/b.json', content: '{"b": 2}\n' },
    ]);
  });
});
