import { buildSync } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../unit/support/tempDir';
import { fixture, json, replay, WireServer } from '../../unit/support/wireServer';
import { scaled } from '../../timeScale';

// The `rung` command as its own OS process, bundled as esbuild.mjs bundles dist/cli.js, so a signal
// reaches it as it would from a terminal, a CI runner or `kill`.
let build: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  build = makeTempDir('rung-signal-cli-build-');
  buildSync({
    entryPoints: [join(__dirname, '../../../src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(build.path, 'cli.js'),
    external: ['vscode', 'typescript', 'pg-native'],
    logLevel: 'error',
  });
});
afterAll(() => build?.remove());

const FIX = 'Here is the fix:\n\n```ts title="src/add.ts"\nexport const add = (a: number, b: number) => a + b;\n```\n';
const node = JSON.stringify(process.execPath);

let workspace: ReturnType<typeof makeTempDir>;
/** The child's temporary folder (its TMPDIR), where its scratch copies go. */
let temporary: ReturnType<typeof makeTempDir>;
/** Where the check command writes the pids it started, outside the copy. */
let marks: ReturnType<typeof makeTempDir>;
let server: WireServer;
const pids: number[] = [];

beforeEach(async () => {
  workspace = makeTempDir('rung-signal-workspace-');
  temporary = makeTempDir('rung-signal-tmp-');
  marks = makeTempDir('rung-signal-marks-');
  writeFileSync(join(workspace.path, '.env'), 'DATABASE_PASSWORD=not-for-the-temp-folder\n');
  const answer = [
    { model: 'qwen2.5:3b', message: { role: 'assistant', content: FIX }, done: false },
    {
      model: 'qwen2.5:3b',
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 5,
      eval_count: 9,
    },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');
  server = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', replay(answer));
  const url = await server.start();
  writeFileSync(
    join(workspace.path, 'panel.json'),
    JSON.stringify({
      models: [{ slug: 'qwen2.5:3b', provider: 'ollama' }],
      routing: { explore: 0 },
      providers: { ollama: { kind: 'ollama', baseUrl: url } },
    }),
  );
});

afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await server.close();
  workspace.remove();
  temporary.remove();
  marks.remove();
});

/**
 * A check command that starts a process of its own (in its process group, as a test runner starts
 * workers), writes both pids beside the test, and then waits for good.
 */
function hangingCheck(): string {
  const script = [
    "const { spawn } = require('node:child_process');",
    "const worker = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
    `require('node:fs').writeFileSync(${JSON.stringify(join(marks.path, 'pids'))}, process.pid + ' ' + worker.pid);`,
    'setInterval(() => {}, 1000);',
  ].join(' ');
  return `${node} -e ${JSON.stringify(script)}`;
}

function rung(argv: string[]): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>;
} {
  const child = spawn(process.execPath, [join(build.path, 'cli.js'), ...argv], {
    cwd: workspace.path,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: workspace.path,
      TMPDIR: temporary.path,
      NODE_PATH: join(__dirname, '../../../node_modules'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) pids.push(child.pid);
  let err = '';
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // The exit is awaited without a time limit of its own: a run that never ends fails on the test's timeout.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, err })),
  );
  return { child, exited };
}

/** The check command's own pid and its worker's, once it has written them. */
async function checkPids(): Promise<number[]> {
  const path = join(marks.path, 'pids');
  while (!existsSync(path) || !readFileSync(path, 'utf8').includes(' ')) await new Promise((resolve) => setTimeout(resolve, 20));
  const found = readFileSync(path, 'utf8').split(' ').map(Number);
  pids.push(...found);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until none of `pids` runs; resolves to those still running when it gave up after 5 s (scaled). */
async function gone(group: number[]): Promise<number[]> {
  const deadline = performance.now() + scaled(5_000);
  while (group.some(alive) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return group.filter(alive);
}

const scratchCopies = (): string[] => readdirSync(temporary.path).filter((name) => name.startsWith('rung-verify-'));

describe('rung chat stopped by a signal during its check command', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const) {
    it(
      `kills the command's process group and removes the scratch copy on ${signal}, exiting ${code}`,
      async () => {
        const { child, exited } = rung(['chat', '--panel', 'panel.json', '--verify-command', hangingCheck(), '--json', 'Fix add']);
        const group = await checkPids();
        expect(scratchCopies()).toHaveLength(1);
        child.kill(signal);
        const result = await exited;
        expect(result).toMatchObject({ code, signal: null });
        expect(await gone(group)).toEqual([]);
        expect(scratchCopies()).toEqual([]);
      },
      scaled(30_000),
    );
  }
});

describe('scratch copies left by a run that was killed outright', () => {
  it(
    'are removed by the next rung chat that runs a check, which says so',
    async () => {
      const first = rung(['chat', '--panel', 'panel.json', '--verify-command', hangingCheck(), '--json', 'Fix add']);
      const group = await checkPids();
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      // Nothing could clean up after a kill -9: the copy, .env and all, is still there.
      const left = scratchCopies();
      expect(left).toHaveLength(1);
      expect(readFileSync(join(temporary.path, left[0] as string, '.env'), 'utf8')).toContain('not-for-the-temp-folder');
      for (const pid of group) process.kill(pid, 'SIGKILL');
      const second = rung(['chat', '--panel', 'panel.json', '--verify-command', `${node} -e ""`, '--json', 'Fix add']);
      const result = await second.exited;
      expect(result.code).toBe(0);
      expect(result.err).toContain(
        `removed ${join(temporary.path, left[0] as string)}, a scratch copy of the workspace that a run which died left behind`,
      );
      expect(scratchCopies()).toEqual([]);
    },
    scaled(30_000),
  );
});
