import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOutcomes, toJsonLines } from '../support/outcomesFixture';
import { makeTempDir } from '../support/tempDir';
import { TcpProxy } from '../support/tcpProxy';
import { CHAT_ARGS, cli, escalatingChatWorkspace } from '../support/teamCli';
import { freshDatabase, startPostgres, type TestPostgres } from '../support/testPostgres';

// A real server, started once for this file by scripts/test-postgres.sh; every test has its own database.
// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = 120_000;
let server: TestPostgres;
beforeAll(() => {
  server = startPostgres();
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => server?.stop(), SERVER_HOOK_TIMEOUT_MS);

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
  return readFileSync(join(cwd, '.rung', 'decisions.jsonl'), 'utf8').trim().split('\n').length;
}

describe('rung with a team ledger whose server cannot be used', () => {
  it('replays into the workspace ledger when the port is closed, says so in one line, and the next run that reaches the server sends what it learned, once', async () => {
    const port = await closedPort();
    const down = `postgres://ana@127.0.0.1:${port}/team`;
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-fallback-');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
      const offline = await cli(['replay', 'outcomes.jsonl', '--ledger', down, '--share-decisions', '--json'], cwd.path, { RUNG_MEMBER: 'ana' });
      expect(offline.code).toBe(0);
      const attempts = (JSON.parse(offline.out) as { policy: { attempts: number } }).policy.attempts;
      expect(attempts).toBeGreaterThan(0);
      // One line: the server, the reason, where the run learned instead and what the team did not get.
      expect(offline.err.trim().split('\n')).toEqual([
        `rung: cannot use the team ledger ${down}: connect ECONNREFUSED 127.0.0.1:${port}; this run learns into the workspace ledger ${join(cwd.path, '.rung', 'ledger.sqlite')} instead, and what it learns is not shared with the team until Rung next opens with the server answering; its decision rows are not shared with the team (they stay in the decision log beside that file)`,
      ]);
      expect(await graded(cwd.path)).toBe(attempts);
      expect(decisionRows(cwd.path)).toBe(attempts);

      // The server answers: the next run sends the workspace file's evidence along with its own, and a
      // run after that does not send it again.
      const online = await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--json'], cwd.path, { RUNG_MEMBER: 'ana' });
      expect(online).toMatchObject({ code: 0, err: '' });
      const onlineAttempts = (JSON.parse(online.out) as { policy: { attempts: number } }).policy.attempts;
      expect(await graded(cwd.path, url)).toBe(attempts + onlineAttempts);
      const again = await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--json'], cwd.path, { RUNG_MEMBER: 'ana' });
      expect(again).toMatchObject({ code: 0, err: '' });
      const againAttempts = (JSON.parse(again.out) as { policy: { attempts: number } }).policy.attempts;
      expect(await graded(cwd.path, url)).toBe(attempts + onlineAttempts + againAttempts);
    } finally {
      cwd.remove();
    }
  });

  it('chats into the workspace ledger while the PostgreSQL server is stopped, and its evidence reaches the team once it is back', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-fallback-');
    const servers = await escalatingChatWorkspace(cwd.path);
    const env = { RUNG_OPENROUTER_API_KEY: 'sk-test', RUNG_MEMBER: 'ana' };
    try {
      server.down();
      let offline: Awaited<ReturnType<typeof cli>>;
      try {
        offline = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--json', 'Give me Paris as JSON'], cwd.path, env);
      } finally {
        server.up();
      }
      expect(offline.code).toBe(0);
      expect(JSON.parse(offline.out)).toMatchObject({ model: 'openai/gpt-4o-mini', attempts: [{ verdict: 'fail' }, { verdict: 'pass' }] });
      const port = new URL(url).port;
      expect(fallbackLines(offline.err)).toEqual([
        expect.stringMatching(
          new RegExp(`^rung: cannot use the team ledger postgres://postgres@127\\.0\\.0\\.1:${port}/team_\\w+: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; this run learns into the workspace ledger .*ledger\\.sqlite instead, and what it learns is not shared with the team until Rung next opens with the server answering$`),
        ),
      ]);
      expect(await graded(cwd.path)).toBe(2);

      const online = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--json', 'Give me Paris as JSON'], cwd.path, env);
      expect(online.code).toBe(0);
      expect(fallbackLines(online.err)).toEqual([]);
      // Both calls' two graded attempts: the offline one imported from the workspace file, once.
      expect(await graded(cwd.path, url)).toBe(4);
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
      expect(cold.err.trim().split('\n')).toEqual([expect.stringMatching(/: connect ECONNREFUSED .*; this run has no evidence to read \(no workspace ledger at .*ledger\.sqlite\): it ranks as on a cold start$/)]);
      expect(existsSync(join(cwd.path, '.rung'))).toBe(false);

      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(3)));
      expect(await cli(['replay', 'outcomes.jsonl', '--ledger', '.rung/ledger.sqlite', '--json'], cwd.path)).toMatchObject({ code: 0, err: '' });
      const before = readFileSync(join(cwd.path, '.rung', 'ledger.sqlite'));
      proxy.hang();
      const hung = await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', proxy.urlFor(url), '--json'], cwd.path);
      expect(hung.code).toBe(0);
      expect(hung.err.trim().split('\n')).toEqual([
        expect.stringMatching(/^rung: cannot use the team ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/team_\w+: Connection terminated due to connection timeout; this run reads the workspace ledger .*ledger\.sqlite instead, without the team's evidence$/),
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
      const down = `postgres://ana:hunter2@127.0.0.1:${await closedPort()}/team`;
      const shown = await cli(['ledger', 'show', '--ledger', down], cwd.path);
      expect(shown.code).toBe(1);
      expect(shown.err).toMatch(/cannot use the team ledger postgres:\/\/ana:\*\*\*@127\.0\.0\.1:\d+\/team: connect ECONNREFUSED/);
      expect(shown.err).not.toContain('hunter2');
      expect(existsSync(join(cwd.path, '.rung'))).toBe(false);
    } finally {
      cwd.remove();
    }
  });
});
