import { buildSync } from 'esbuild';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock';
import { isUnreachable, TeamLedger } from '../../../src/core/ledger/teamLedger';
import { TeamOutbox, teamOutboxPath } from '../../../src/core/ledger/teamOutbox';
import { makeOutcomes, toJsonLines } from '../../unit/support/outcomesFixture';
import { makeTempDir } from '../../unit/support/tempDir';
import { TcpProxy } from '../support/tcpProxy';
import { CHAT_ARGS, cli, escalatingChatWorkspace } from '../support/teamCli';
import { freshDatabase, query, startPostgres, type TestPostgres } from '../support/testPostgres';
import { scaled } from '../../timeScale';

// A real server, started once for this file by scripts/test-postgres.sh; every test has its own database.
// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
let build: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  server = startPostgres();
  // The rung command as its own OS process, bundled as esbuild.mjs bundles dist/cli.js but with pg inside
  // (its import() does not look in NODE_PATH); the rest comes from this checkout's node_modules (NODE_PATH, below).
  build = makeTempDir('rung-team-cli-build-');
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
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => {
  server?.stop();
  build?.remove();
}, SERVER_HOOK_TIMEOUT_MS);

/** Runs the bundled `rung` in `cwd` with `env` added to a clean environment (no PGPASSWORD of the test's own). */
function rungProcess(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [join(build.path, 'cli.js'), ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, NODE_PATH: join(__dirname, '../../../node_modules'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** A port of 127.0.0.1 that nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The lines on stderr that say the run fell back to the workspace ledger. */
function fallbackLines(err: string): string[] {
  return err.split('\n').filter((line) => line.includes('cannot use the team ledger'));
}

/** Graded observations summed over every rating `rung ledger show` prints for `ledger` (a URL, or the workspace file without one). */
async function graded(cwd: string, ledger?: string): Promise<number> {
  const shown = await cli(['ledger', 'show', ...(ledger ? ['--ledger', ledger] : []), '--json'], cwd);
  expect(shown).toMatchObject({ code: 0, err: '' });
  return (JSON.parse(shown.out) as { graded: number }[]).reduce((sum, row) => sum + row.graded, 0);
}

function decisionRows(cwd: string): number {
  return readFileSync(join(cwd, '.rung', 'decisions.jsonl'), 'utf8')
    .trim()
    .split('\n').length;
}

describe('rung with a team ledger whose server cannot be used', () => {
  it('replays into the workspace ledger when the port is closed, says so in one line, and the next run that reaches the server sends what it learned, once', async () => {
    const port = await closedPort();
    const down = `postgres://ana@127.0.0.1:${port}/team`;
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-fallback-');
    // The CLI's data folder, where the test's `rung` keeps its outbox (CapturedIo).
    const outbox = teamOutboxPath(join(cwd.path, '.user-data', 'rung'), down, 'ana');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
      const offline = await cli(['replay', 'outcomes.jsonl', '--ledger', down, '--share-decisions', '--json'], cwd.path, {
        RUNG_MEMBER: 'ana',
      });
      expect(offline.code).toBe(0);
      const attempts = (JSON.parse(offline.out) as { policy: { attempts: number } }).policy.attempts;
      expect(attempts).toBeGreaterThan(0);
      // One line: the server, the reason, where the run learned instead and what the team did not get.
      expect(offline.err.trim().split('\n')).toEqual([
        `rung: cannot use the team ledger ${down}: connect ECONNREFUSED 127.0.0.1:${port}; this run learns into the workspace ledger ${join(cwd.path, '.rung', 'ledger.sqlite')} instead, and what it learns is not shared with the team until Rung next opens with the server answering; its shared decision rows wait in ${outbox} until then`,
      ]);
      expect(await graded(cwd.path)).toBe(attempts);
      expect(decisionRows(cwd.path)).toBe(attempts);
      expect(new TeamOutbox({ path: outbox, clock: systemClock }).readDecisions()).toHaveLength(attempts);

      // The server answers: the next run sends the workspace file's evidence along with its own (this
      // machine made the file), and a run after that does not send it again.
      const online = await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--share-decisions', '--json'], cwd.path, {
        RUNG_MEMBER: 'ana',
      });
      expect(online).toMatchObject({ code: 0, err: '' });
      const onlineAttempts = (JSON.parse(online.out) as { policy: { attempts: number } }).policy.attempts;
      expect(await graded(cwd.path, url)).toBe(attempts + onlineAttempts);
      const again = await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--share-decisions', '--json'], cwd.path, {
        RUNG_MEMBER: 'ana',
      });
      expect(again).toMatchObject({ code: 0, err: '' });
      const againAttempts = (JSON.parse(again.out) as { policy: { attempts: number } }).policy.attempts;
      expect(await graded(cwd.path, url)).toBe(attempts + onlineAttempts + againAttempts);
    } finally {
      cwd.remove();
    }
  });

  it('chats into the workspace ledger while the PostgreSQL server is stopped, and its evidence and shared rows reach the team once it is back, once', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-fallback-');
    const servers = await escalatingChatWorkspace(cwd.path);
    const env = { RUNG_OPENROUTER_API_KEY: 'sk-test', RUNG_MEMBER: 'ana' };
    try {
      server.down();
      let offline: Awaited<ReturnType<typeof cli>>;
      try {
        offline = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--share-decisions', '--json', 'Give me Paris as JSON'], cwd.path, env);
      } finally {
        server.up();
      }
      expect(offline.code).toBe(0);
      expect(JSON.parse(offline.out)).toMatchObject({ model: 'openai/gpt-4o-mini', attempts: [{ verdict: 'fail' }, { verdict: 'pass' }] });
      const port = new URL(url).port;
      expect(fallbackLines(offline.err)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^rung: cannot use the team ledger postgres://postgres@127\\.0\\.0\\.1:${port}/team_\\w+: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; this run learns into the workspace ledger .*ledger\\.sqlite instead, and what it learns is not shared with the team until Rung next opens with the server answering; its shared decision rows wait in .*team-outbox-\\w+\\.jsonl until then$`,
          ),
        ),
      ]);
      expect(await graded(cwd.path)).toBe(2);
      const offlineCalls = readFileSync(join(cwd.path, '.rung', 'decisions.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { call: string }).call);
      expect(offlineCalls).toHaveLength(2);

      // Back, without --share-decisions: the rows shared offline wait in the outbox, as whether the team
      // sees them is the member's choice now; with it they go, and the next run finds nothing left to send.
      const outbox = teamOutboxPath(join(cwd.path, '.user-data', 'rung'), url, 'ana');
      const withheld = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--json', 'Give me Paris as JSON'], cwd.path, env);
      expect(withheld.code).toBe(0);
      expect(withheld.err.split('\n')[0]).toBe(
        `rung: the team outbox ${outbox} holds 2 decision rows shared earlier; they are sent only while this member shares decision rows, and wait there until then`,
      );
      expect(await query(url, 'SELECT call_id FROM rung_decisions')).toEqual([]);
      for (let run = 0; run < 2; run++) {
        const online = await cli(
          ['chat', ...CHAT_ARGS, '--ledger', url, '--share-decisions', '--json', 'Give me Paris as JSON'],
          cwd.path,
          env,
        );
        expect(online.code).toBe(0);
        expect(fallbackLines(online.err)).toEqual([]);
        const offlineShared = await query(
          url,
          'SELECT member_id, call_id FROM rung_decisions WHERE call_id = ANY($1) ORDER BY at, attempt',
          [offlineCalls],
        );
        expect(offlineShared).toEqual(offlineCalls.map((call) => ({ member_id: 'ana', call_id: call })));
      }
      expect(existsSync(outbox)).toBe(false);
      // Four calls' two graded attempts each: the offline one imported from the workspace file, once.
      expect(await graded(cwd.path, url)).toBe(8);
    } finally {
      await servers.close();
      cwd.remove();
    }
  });

  it('ranks from the workspace ledger when the server accepts and never answers, and from nothing when there is none, writing nothing', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const cwd = makeTempDir('rung-team-fallback-');
    const panel = join(__dirname, '../../../examples/panel.json');
    try {
      const refused = `postgres://ana@127.0.0.1:${await closedPort()}/team`;
      const cold = await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', refused, '--json'], cwd.path);
      expect(cold.code).toBe(0);
      expect(cold.err.trim().split('\n')).toEqual([
        expect.stringMatching(
          /: connect ECONNREFUSED .*; this run has no evidence to read \(no workspace ledger at .*ledger\.sqlite\): it ranks as on a cold start$/,
        ),
      ]);
      expect(existsSync(join(cwd.path, '.rung'))).toBe(false);

      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(3)));
      expect(await cli(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], cwd.path)).toMatchObject({
        code: 0,
        err: '',
      });
      const before = readFileSync(join(cwd.path, '.rung', 'ledger.sqlite'));
      proxy.hang();
      const hung = await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', proxy.urlFor(url), '--json'], cwd.path);
      expect(hung.code).toBe(0);
      expect(hung.err.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^rung: cannot use the team ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/team_\w+: Connection terminated due to connection timeout; this run reads the workspace ledger .*ledger\.sqlite instead, without the team's evidence$/,
        ),
      ]);
      expect(readFileSync(join(cwd.path, '.rung', 'ledger.sqlite')).equals(before)).toBe(true);
    } finally {
      await proxy.close();
      cwd.remove();
    }
  });

  it('still fails a rung ledger command on the team ledger itself, rather than act on the workspace file', async () => {
    const cwd = makeTempDir('rung-team-fallback-');
    try {
      // A secret the URL may carry (a password in it is refused before anything is opened) is not shown.
      const down = `postgres://ana@127.0.0.1:${await closedPort()}/team?sslpassword=hunter2`;
      const shown = await cli(['ledger', 'show', '--ledger', down], cwd.path);
      expect(shown.code).toBe(1);
      expect(shown.err).toMatch(
        /cannot use the team ledger postgres:\/\/ana@127\.0\.0\.1:\d+\/team\?sslpassword=\*\*\*: connect ECONNREFUSED/,
      );
      expect(shown.err).not.toContain('hunter2');
      expect(existsSync(join(cwd.path, '.rung'))).toBe(false);
    } finally {
      cwd.remove();
    }
  });
});

describe('which failures to open a team ledger rung works around', () => {
  function failure(code: string | undefined, message = 'failed'): Error {
    return new Error('cannot use the team ledger postgres://ana@db/rung: failed', {
      cause: Object.assign(new Error(message), code === undefined ? {} : { code }),
    });
  }

  it('falls back for a server that is away or will not let the role in', () => {
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', '28P01', '28000', '08006', '57P03', '53300'])
      expect(isUnreachable(failure(code))).toBe(true);
    expect(isUnreachable(failure(undefined, 'Connection terminated due to connection timeout'))).toBe(true);
    expect(
      isUnreachable(new Error('x', { cause: new AggregateError([failure('ECONNREFUSED').cause, failure('ECONNREFUSED').cause]) })),
    ).toBe(true);
  });

  it('does not for a server that answered, nor for a fault of this machine', () => {
    for (const code of ['ERR_MODULE_NOT_FOUND', '42P01', '3D000', '42501']) expect(isUnreachable(failure(code))).toBe(false);
    expect(isUnreachable(failure(undefined, 'it holds no Rung ledger yet (no rung_schema table)'))).toBe(false);
  });
});

describe('a team server that asks for a password (scram-sha-256 on a TCP host line)', () => {
  // Made up for this test server; the tests check it is never printed. It holds what a URL must encode.
  const PASSWORD = "c0rrect h0rse:@/%'";
  const WRONG = 'b4ttery-st4ple';
  const ROLE = 'rung_member';
  let owned: string;
  let asRole: string;
  beforeAll(async () => {
    server.passwordRole(ROLE, PASSWORD);
    owned = await freshDatabase(server, ROLE);
    asRole = owned.replace('//postgres@', `//${ROLE}@`);
  });

  it('is checked by scram-sha-256 for that role over TCP', async () => {
    expect(await query(server.url, `SELECT left(rolpassword, 14) AS kind FROM pg_authid WHERE rolname = $1`, [ROLE])).toEqual([
      { kind: 'SCRAM-SHA-256$' },
    ]);
    expect(await query(server.url, `SELECT type, address, auth_method FROM pg_hba_file_rules WHERE $1 = ANY(user_name)`, [ROLE])).toEqual([
      { type: 'host', address: '127.0.0.1', auth_method: 'scram-sha-256' },
    ]);
  });

  it('opens with the right password, in the URL or given apart from it, and writes as that role', async () => {
    const inUrl = await TeamLedger.open({
      url: asRole.replace(`//${ROLE}@`, `//${ROLE}:${encodeURIComponent(PASSWORD)}@`),
      memberId: 'ana',
      clock: systemClock,
      syncIntervalMs: 0,
    });
    inUrl.observe([{ model: 'm', classKey: 'plan', success: true, at: 1 }]);
    await inUrl.close();
    const apart = await TeamLedger.open({ url: asRole, password: PASSWORD, memberId: 'ben', clock: systemClock, syncIntervalMs: 0 });
    apart.observe([{ model: 'm', classKey: 'plan', success: false, at: 2 }]);
    await apart.close();
    expect(await query(owned, 'SELECT member_id FROM rung_observations ORDER BY id')).toEqual([{ member_id: 'ana' }, { member_id: 'ben' }]);
    expect(await query(owned, `SELECT tableowner FROM pg_tables WHERE tablename = 'rung_observations'`)).toEqual([{ tableowner: ROLE }]);
  });

  it('refuses a wrong or missing password naming the server and the role, never the password', async () => {
    const port = new URL(owned).port;
    const database = new URL(owned).pathname;
    const open = (url: string, password?: string) =>
      TeamLedger.open({ url, ...(password ? { password } : {}), memberId: 'ana', clock: systemClock, syncIntervalMs: 0 });
    const wrongInUrl = await open(asRole.replace(`//${ROLE}@`, `//${ROLE}:${WRONG}@`)).then(
      () => 'opened',
      (error: Error) => error.message,
    );
    expect(wrongInUrl).toBe(
      `cannot use the team ledger postgres://${ROLE}:***@127.0.0.1:${port}${database}: password authentication failed for user "${ROLE}"`,
    );
    const wrongApart = await open(asRole, WRONG).then(
      () => 'opened',
      (error: Error) => error.message,
    );
    expect(wrongApart).toBe(
      `cannot use the team ledger postgres://${ROLE}@127.0.0.1:${port}${database}: password authentication failed for user "${ROLE}"`,
    );
    const missing = await open(asRole).then(
      () => 'opened',
      (error: Error) => error.message,
    );
    expect(missing).toMatch(
      new RegExp(
        `^cannot use the team ledger postgres://${ROLE}@127\\.0\\.0\\.1:${port}${database}: the server asks for the password of role "${ROLE}" and none was given \\(put it in PGPASSWORD or ~/\\.pgpass; `,
      ),
    );
    for (const message of [wrongInUrl, wrongApart, missing]) {
      expect(message).not.toContain(WRONG);
      expect(message).not.toContain(PASSWORD);
    }
  });

  it('falls back in a rung process given the wrong PGPASSWORD, and sends that evidence once given the right one', async () => {
    const cwd = makeTempDir('rung-team-fallback-');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
      const args = ['replay', 'outcomes.jsonl', '--ledger', asRole, '--json'];
      const refused = await rungProcess(args, cwd.path, { PGPASSWORD: WRONG, RUNG_MEMBER: 'ana' });
      expect(refused.code).toBe(0);
      expect(refused.err.trim().split('\n')).toEqual([
        `rung: cannot use the team ledger ${asRole}: password authentication failed for user "${ROLE}"; this run learns into the workspace ledger ${join(cwd.path, '.rung', 'ledger.sqlite')} instead, and what it learns is not shared with the team until Rung next opens with the server answering`,
      ]);
      expect(refused.err).not.toContain(WRONG);
      const offline = (JSON.parse(refused.out) as { policy: { attempts: number } }).policy.attempts;
      expect(await graded(cwd.path)).toBe(offline);

      const accepted = await rungProcess(args, cwd.path, { PGPASSWORD: PASSWORD, RUNG_MEMBER: 'ana' });
      expect(accepted).toMatchObject({ code: 0, err: '' });
      const online = (JSON.parse(accepted.out) as { policy: { attempts: number } }).policy.attempts;
      const imported = await query<{ graded: number }>(owned, 'SELECT sum(graded)::int AS graded FROM rung_imports');
      expect(imported).toEqual([{ graded: offline }]);
      expect(await query(owned, `SELECT count(*)::int AS count FROM rung_observations WHERE member_id = 'ana'`)).toEqual([
        { count: online + 1 },
      ]);
    } finally {
      cwd.remove();
    }
  });
});
