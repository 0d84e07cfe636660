import { buildSync } from 'esbuild';
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_USAGE } from '../../../../src/cli/io';
import { main } from '../../../../src/cli/main';
import { systemClock } from '../../../../src/core/clock';
import type { Observation } from '../../../../src/core/ratings';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { LedgerState, snapshotOf } from '../../../../src/core/ledger/ledgerState';
import { isTeamLedgerUrl, redactedUrl, TeamLedger, type TeamLedgerOptions } from '../../../../src/core/ledger/teamLedger';
import { TEAM_MIGRATIONS } from '../../../../src/core/ledger/teamSchema';
import { CapturedIo } from '../../../unit/support/CapturedIo';
import { makeOutcomes, toJsonLines } from '../../../unit/support/outcomesFixture';
import { makeTempDir } from '../../../unit/support/tempDir';
import { TeamOutbox } from '../../../../src/core/ledger/teamOutbox';
import { TcpProxy } from '../../support/tcpProxy';
import { CHAT_ARGS, cli, escalatingChatWorkspace } from '../../support/teamCli';
import { cutFlushMidway, freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';
import { scaled } from '../../../timeScale';

// A real server, started once for this file by scripts/test-postgres.sh; every test has its own database.
// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
let build: ReturnType<typeof makeTempDir>;
let worker: string;
beforeAll(() => {
  server = startPostgres();
  build = makeTempDir('rung-team-worker-');
  worker = join(build.path, 'teamWorker.js');
  // pg's optional native binding is not installed; its pure JavaScript client is bundled in.
  buildSync({
    entryPoints: [join(__dirname, 'fixtures/teamWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: worker,
    external: ['pg-native'],
    logLevel: 'error',
  });
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => {
  server?.stop();
  build?.remove();
}, SERVER_HOOK_TIMEOUT_MS);

function open(url: string, options: Partial<TeamLedgerOptions> = {}): Promise<TeamLedger> {
  return TeamLedger.open({ url, memberId: 'ana', clock: systemClock, syncIntervalMs: 0, ...options });
}

function observation(success: boolean, at: number): Observation {
  return { model: 'steady', classKey: 'c', success, at };
}

/** Graded observations of `steady` at `c` as a newly opened member sees them. */
async function gradedSeenFresh(url: string): Promise<number> {
  const reader = await open(url, { memberId: 'reader' });
  try {
    return reader.snapshot(systemClock.now()).rating('steady', 'c')?.graded ?? 0;
  } finally {
    await reader.close();
  }
}

async function storedRows(url: string): Promise<number> {
  const rows = await query<{ count: string }>(url, 'SELECT count(*) AS count FROM rung_observations');
  return Number(rows[0]?.count);
}

interface WorkerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the team worker as its own OS process. With `whenOpened`, the worker waits after connecting until
 * `whenOpened` has run (the test takes the server away there).
 */
function runWorker(
  url: string,
  member: string,
  count: number,
  options: { outbox?: string; whenOpened?: () => void; decisions?: number; share?: boolean } = {},
): Promise<WorkerRun> {
  const args = [
    url,
    member,
    String(count),
    options.outbox ?? '',
    options.whenOpened ? 'wait' : options.share ? 'share' : '',
    String(options.decisions ?? 0),
  ];
  const child = fork(worker, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('message', () => {
    options.whenOpened?.();
    child.send('go');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Sessions of Rung waiting on a lock, once at least `atLeast` are (0: however many there are now). */
async function waitingOnLocks(client: Client, atLeast: number): Promise<number> {
  for (;;) {
    const rows = await client.query<{ count: string }>(
      `SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rung' AND wait_event_type = 'Lock'`,
    );
    const count = Number(rows.rows[0]?.count);
    if (count >= atLeast) return count;
  }
}

describe('TeamLedger on a real PostgreSQL', () => {
  it('counts every observation of two processes writing at once, and none twice', async () => {
    const url = await freshDatabase(server);
    const [first, second] = await Promise.all([runWorker(url, 'ana', 60), runWorker(url, 'ben', 45)]);
    expect(first).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(second).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await storedRows(url)).toBe(105);
    expect(await gradedSeenFresh(url)).toBe(105);
  });

  it('keeps a batch whose connection was cut mid-flush, and lands it once when sent again', async () => {
    const url = await freshDatabase(server);
    const ledger = await open(url);
    ledger.observe([observation(true, 1), observation(false, 2), observation(true, 3)]);
    // Another session holds the table, so the flush's insert waits where the test can cut it off.
    await cutFlushMidway(url, 'rung_observations', () => ledger.flush());

    expect(ledger.snapshot(systemClock.now()).rating('steady', 'c')?.graded).toBe(3);
    expect(await storedRows(url)).toBe(0);
    await ledger.flush();
    await ledger.flush();
    expect(await storedRows(url)).toBe(3);
    expect(ledger.snapshot(systemClock.now()).rating('steady', 'c')?.graded).toBe(3);
    await ledger.close();
    expect(await gradedSeenFresh(url)).toBe(3);
  });

  it('counts a batch the same writer sends twice once', async () => {
    const url = await freshDatabase(server);
    const batch = [observation(true, 1), observation(true, 2), observation(false, 3), observation(true, 4)];
    for (let attempt = 0; attempt < 2; attempt++) {
      // The second open stands for a retry that cannot know whether the first commit landed.
      const ledger = await open(url, { writerId: 'ana-laptop-run-1' });
      ledger.observe(batch);
      await ledger.close();
    }
    expect(await storedRows(url)).toBe(4);
    expect(await gradedSeenFresh(url)).toBe(4);
  });

  it('keeps what a member learned offline across its exit, and a later process sends it exactly once', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-outbox-');
    try {
      const outbox = join(folder.path, 'team-outbox.jsonl');
      const viaProxy = proxy.urlFor(url);
      // Ana connects, the server goes away, she learns 30 observations and her process exits.
      const offline = await runWorker(viaProxy, 'ana', 30, { outbox, whenOpened: () => proxy.cut() });
      expect(offline).toMatchObject({ code: 0, stderr: '' });
      expect(offline.stdout).toMatch(/30 observations kept in .*team-outbox\.jsonl, sent once it answers/);
      expect(readFileSync(outbox, 'utf8').trim().split('\n')).toHaveLength(30);
      expect(await storedRows(url)).toBe(0);

      // The server is back; her next process, which learns nothing itself, sends them.
      proxy.restore();
      expect(await runWorker(viaProxy, 'ana', 0, { outbox })).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(await storedRows(url)).toBe(30);
      expect(existsSync(outbox)).toBe(false);
      // And a third finds nothing to send again.
      expect(await runWorker(viaProxy, 'ana', 0, { outbox })).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(await storedRows(url)).toBe(30);
      expect(await gradedSeenFresh(url)).toBe(30);
    } finally {
      await proxy.close();
      folder.remove();
    }
  });

  it('keeps shared decision rows across an exit while the server is stopped, and two later processes land them exactly once', async () => {
    const url = await freshDatabase(server);
    const folder = makeTempDir('rung-team-outbox-');
    try {
      const outbox = join(folder.path, 'team-outbox.jsonl');
      // Ana connects, PostgreSQL stops, she learns 10 observations, shares 25 decision rows and exits.
      let offline: WorkerRun;
      try {
        offline = await runWorker(url, 'ana', 10, { outbox, decisions: 25, whenOpened: () => server.down() });
      } finally {
        server.up();
      }
      expect(offline).toMatchObject({ code: 0, stderr: '' });
      expect(offline.stdout).toMatch(/10 observations and 25 shared decision rows kept in .*team-outbox\.jsonl, sent once it answers/);
      expect(new TeamOutbox({ path: outbox, clock: systemClock }).readDecisions()).toHaveLength(25);
      expect(await query(url, 'SELECT count(*)::int AS count FROM rung_decisions')).toEqual([{ count: 0 }]);

      // The server is back; two processes of Ana's that still share decision rows, but learn and share
      // nothing themselves, send the same file at once.
      const sent = await Promise.all([
        runWorker(url, 'ana', 0, { outbox, share: true }),
        runWorker(url, 'ana', 0, { outbox, share: true }),
      ]);
      expect(sent).toEqual([
        { code: 0, stdout: '', stderr: '' },
        { code: 0, stdout: '', stderr: '' },
      ]);
      const stored = await query<{ member_id: string; call_id: string }>(url, 'SELECT member_id, call_id FROM rung_decisions ORDER BY at');
      expect(stored).toEqual(Array.from({ length: 25 }, (_, i) => ({ member_id: 'ana', call_id: `call-ana-${i}` })));
      expect(await storedRows(url)).toBe(10);
      expect(existsSync(outbox)).toBe(false);
    } finally {
      folder.remove();
    }
  });

  it('counts an outbox entry the server already holds once (a process that died between the commit and clearing the outbox)', async () => {
    const url = await freshDatabase(server);
    const folder = makeTempDir('rung-team-outbox-');
    try {
      const outboxPath = join(folder.path, 'team-outbox.jsonl');
      const ledger = await open(url, { outboxPath });
      ledger.observe([observation(true, 1), observation(false, 2)]);
      await ledger.close();
      expect(await storedRows(url)).toBe(2);
      // Put the sent rows back in the outbox, as if the process had died before it removed them.
      const rows = await query<{ member_id: string; origin: string; observation: Observation }>(
        url,
        'SELECT member_id, origin, observation FROM rung_observations',
      );
      await new TeamOutbox({ path: outboxPath, clock: systemClock }).add(
        rows.map((row) => ({ member: row.member_id, origin: row.origin, observation: row.observation })),
      );

      const again = await open(url, { outboxPath });
      expect(again.snapshot(systemClock.now()).rating('steady', 'c')?.graded).toBe(2);
      await again.close();
      expect(await storedRows(url)).toBe(2);
      expect(existsSync(outboxPath)).toBe(false);
    } finally {
      folder.remove();
    }
  });

  it('shows what was learned offline at once, and the same counts once the server has it', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-outbox-');
    try {
      const outboxPath = join(folder.path, 'team-outbox.jsonl');
      const ledger = await open(proxy.urlFor(url), { outboxPath });
      ledger.observe([observation(true, 1)]);
      await ledger.flush();
      proxy.cut();
      ledger.observe([observation(true, 2), observation(false, 3)]);
      await expect(ledger.flush()).rejects.toThrow();
      expect(ledger.unsent).toBe(2);
      expect(ledger.snapshot(systemClock.now()).rating('steady', 'c')?.graded).toBe(3);
      proxy.restore();
      await ledger.flush();
      expect(ledger.unsent).toBe(0);
      expect(ledger.snapshot(systemClock.now()).rating('steady', 'c')?.graded).toBe(3);
      expect(await storedRows(url)).toBe(3);
      await ledger.close();
    } finally {
      await proxy.close();
      folder.remove();
    }
  });

  it('gives up on a server that accepts and never answers, keeping the batch in the outbox', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-outbox-');
    try {
      const outboxPath = join(folder.path, 'team-outbox.jsonl');
      const ledger = await open(proxy.urlFor(url), { outboxPath, connectTimeoutMs: 300 });
      proxy.hang();
      ledger.observe([observation(true, 1), observation(true, 2)]);
      // The connections open when it stopped answering fail at once; the next one must not wait forever.
      let failure: unknown;
      for (let attempt = 0; attempt < 3 && !/timeout/i.test(String(failure)); attempt++)
        failure = await ledger.flush().then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(String(failure)).toMatch(/timeout/i);
      expect(new TeamOutbox({ path: outboxPath, clock: systemClock }).read()).toHaveLength(2);
      await ledger.close();
      proxy.restore();
      const again = await open(proxy.urlFor(url), { outboxPath });
      await again.close();
      expect(await storedRows(url)).toBe(2);
    } finally {
      await proxy.close();
      folder.remove();
    }
  });

  it('fails to close, rather than lose observations, when the server is gone and there is no outbox', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    try {
      const ledger = await open(proxy.urlFor(url));
      proxy.cut();
      ledger.observe([observation(true, 1)]);
      await expect(ledger.close()).rejects.toThrow();
    } finally {
      await proxy.close();
    }
  });

  it('reads only the rows it has not folded yet: a row removed behind its back stays counted until a reset', async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    ana.observe([observation(true, 1), observation(true, 2)]);
    await ana.flush();
    await query(url, `DELETE FROM rung_observations WHERE origin = (SELECT min(origin) FROM rung_observations)`);
    ana.observe([observation(false, 3)]);
    await ana.flush();
    expect(ana.snapshot(0).rating('steady', 'c')?.graded).toBe(3);
    expect(await gradedSeenFresh(url)).toBe(2);
    // A reset of another class is still a reset: the next refresh folds from the start.
    await query(url, `INSERT INTO rung_resets (class_key, up_to, member_id) VALUES ('elsewhere', 0, 'test')`);
    await ana.flush();
    expect(ana.snapshot(0).rating('steady', 'c')?.graded).toBe(2);
    await ana.close();
  });

  it('never shows a reader a later batch before an earlier one still committing, so refreshing misses nothing', async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    const ben = await open(url, { memberId: 'ben' });
    const watcher = await open(url, { memberId: 'watcher' });
    ana.alias('slow', 'slow-2026');
    await ana.flush();
    // Another session holds the alias row, so Ana's next batch stops after drawing its observation ids.
    const blocker = new Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT * FROM rung_aliases WHERE slug = 'slow' FOR UPDATE`);
    ana.observe([observation(true, 1), observation(true, 2)]);
    ana.alias('slow', 'slow-2027');
    const anaFlush = ana.flush();
    await waitingOnLocks(blocker, 1);
    ben.observe([observation(false, 3)]);
    let benDone = false;
    const benFlush = ben.flush().then(() => (benDone = true));
    // Ben's batch either waits behind Ana's or (were writers not serialised) lands with higher ids.
    while (!benDone && (await waitingOnLocks(blocker, 0)) < 2);
    await watcher.flush();
    await blocker.query('ROLLBACK');
    await blocker.end();
    await Promise.all([anaFlush, benFlush]);
    await watcher.flush();
    expect(watcher.snapshot(0).rating('steady', 'c')?.graded).toBe(3);
    const fresh = await open(url, { memberId: 'reader' });
    expect(watcher.snapshot(0).rating('steady', 'c')).toEqual(fresh.snapshot(0).rating('steady', 'c'));
    await Promise.all([ana, ben, watcher, fresh].map((ledger) => ledger.close()));
  });

  it('derives the same ratings for every member from the shared observations', async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    const ben = await open(url, { memberId: 'ben' });
    ana.observe([observation(true, 10), observation(false, 30)]);
    ben.observe([observation(true, 20), observation(true, 40)]);
    await ana.flush();
    await ben.flush();
    await ana.flush();
    const seenByAna = ana.snapshot(0).rating('steady', 'c');
    const seenByBen = ben.snapshot(0).rating('steady', 'c');
    expect(seenByAna).toEqual(seenByBen);
    expect(seenByAna).toMatchObject({ graded: 4, ok: 3 });
    await ana.close();
    await ben.close();
  });

  it("shows what was observed here at once, and a teammate's only after a sync", async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    const ben = await open(url, { memberId: 'ben' });
    ana.observe([observation(true, 1)]);
    expect(ana.snapshot(0).rating('steady', 'c')?.graded).toBe(1);
    expect(ben.snapshot(0).rating('steady', 'c')).toBeUndefined();
    await ana.flush();
    expect(ben.snapshot(0).rating('steady', 'c')).toBeUndefined();
    await ben.flush();
    expect(ben.snapshot(0).rating('steady', 'c')?.graded).toBe(1);
    await ana.close();
    await ben.close();
  });

  it("keeps this machine's attempt times across syncs, each counted once, and never sends them to a teammate", async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    const ben = await open(url, { memberId: 'ben' });
    try {
      ana.observe([observation(false, 1)]);
      ana.observeTiming([{ model: 'steady', classKey: 'c', totalMs: 1_500, firstTokenMs: 900, outputTokens: 60 }]);
      const once = ana.timings();
      expect(once).toMatchObject([
        { model: 'steady', classKey: 'c', attempts: 1, totalMs: 1_500, firstTokenAttempts: 1, firstTokenMs: 900 },
      ]);
      // A sync rebuilds the state from the server's rows: the times carry over, and are not folded in again.
      await ana.flush();
      await ana.flush();
      expect(ana.timings()).toEqual(once);
      expect(ana.snapshot(0).rating('steady', 'c')?.graded).toBe(1);
      ana.observeTiming([{ model: 'steady', classKey: 'c', totalMs: 500 }]);
      await ana.flush();
      expect(ana.timings()).toMatchObject([{ attempts: 2, totalMs: 2_000, firstTokenAttempts: 1 }]);
      // Speed is this machine's: the teammate gets the graded attempt and no time.
      await ben.flush();
      expect(ben.snapshot(0).rating('steady', 'c')?.graded).toBe(1);
      expect(ben.timings()).toEqual([]);
    } finally {
      await ana.close();
      await ben.close();
    }
    const reopened = await open(url, { memberId: 'ana' });
    try {
      expect(reopened.timings(), 'a team ledger keeps times for the life of the process only').toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it("shares aliases and calls in flight, ageing a call by the server's clock", async () => {
    const url = await freshDatabase(server);
    const ana = await open(url, { memberId: 'ana' });
    ana.alias('~vendor/model-latest', 'vendor/model-2026');
    ana.spawnStarted({ spawnId: 's1', traceId: 't', model: 'vendor/model', startedAt: 0 });
    ana.spawnStarted({ spawnId: 's2', traceId: 't', model: 'vendor/model', startedAt: 0 });
    await ana.flush();
    // Ben's laptop clock is a day ahead; the server's clock still says the calls just started.
    const benNow = systemClock.now() + 24 * 60 * 60 * 1000;
    const ben = await open(url, { memberId: 'ben', clock: { now: () => benNow } });
    expect(ben.snapshot(benNow).resolve('~vendor/model-latest')).toBe('vendor/model-2026');
    expect(ben.snapshot(benNow).inFlight('vendor/model')).toBe(2);

    ana.spawnEnded('s1', 0);
    await ana.flush();
    await query(url, `UPDATE rung_spawns SET started_at = now() - interval '31 minutes' WHERE spawn_id = 's2'`);
    await ben.flush();
    expect(ben.snapshot(benNow).inFlight('vendor/model')).toBe(0);
    await ana.close();
    await ben.close();
  });

  it('brings the schema forward once when members open at the same time, and refuses a newer one', async () => {
    const url = await freshDatabase(server);
    const members = await Promise.all(['a', 'b', 'c'].map((memberId) => open(url, { memberId })));
    await Promise.all(members.map((member) => member.close()));
    expect(await query(url, 'SELECT version FROM rung_schema ORDER BY version')).toEqual(
      TEAM_MIGRATIONS.map((_, index) => ({ version: index + 1 })),
    );
    await query(url, 'INSERT INTO rung_schema (version) VALUES (99)');
    await expect(open(url)).rejects.toThrow(/schema is version 99, newer than this Rung knows/);
  });

  it("numbers a first-version server's rows in that version's fold order, so migrating moves no rating", async () => {
    const url = await freshDatabase(server);
    await query(url, 'CREATE TABLE rung_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    await query(url, TEAM_MIGRATIONS[0] as string);
    await query(url, 'INSERT INTO rung_schema (version) VALUES (1)');
    // Inserted out of the order v1 folded them in (when graded, member, origin).
    const rows: [string, string, Observation][] = [
      ['ben', 'b:1', observation(false, 30)],
      ['ana', 'a:2', observation(true, 20)],
      ['ana', 'a:1', observation(true, 10)],
      ['ben', 'b:2', observation(false, 20)],
    ];
    for (const [member, origin, item] of rows) {
      await query(
        url,
        'INSERT INTO rung_observations (member_id, origin, model, class_key, graded_at, observation) VALUES ($1, $2, $3, $4, $5, $6)',
        [member, origin, item.model, item.classKey, item.at, JSON.stringify(item)],
      );
    }
    const v1Order = [...rows].sort(
      ([memberA, originA, a], [memberB, originB, b]) => a.at - b.at || memberA.localeCompare(memberB) || originA.localeCompare(originB),
    );
    const expected = new LedgerState('').applied(v1Order.map(([, , item]) => ({ kind: 'observe', observation: item })));

    const ledger = await open(url);
    expect(ledger.snapshot(0).rating('steady', 'c')).toEqual(snapshotOf(expected, 0).rating('steady', 'c'));
    ledger.observe([observation(true, 5)]);
    await ledger.close();
    expect(
      (await query<{ origin: string }>(url, 'SELECT origin FROM rung_observations ORDER BY id')).map((row) =>
        row.origin.slice(-1) === '0' ? 'new' : row.origin,
      ),
    ).toEqual(['a:1', 'a:2', 'b:2', 'b:1', 'new']);
  });

  it('names the server without its password when it cannot be reached', async () => {
    await expect(open('postgres://ana:secret@127.0.0.1:1/team')).rejects.toThrow(
      /cannot use the team ledger postgres:\/\/ana:\*\*\*@127\.0\.0\.1:1\/team/,
    );
    expect(redactedUrl('postgres://ana:secret@host/db')).not.toContain('secret');
    expect(isTeamLedgerUrl('postgresql://host/db')).toBe(true);
    expect(isTeamLedgerUrl('.rung/ledger.sqlite')).toBe(false);
  });
});

async function showJson(url: string, cwd: string): Promise<{ class: string; graded: number }[]> {
  const shown = await cli(['ledger', 'show', '--ledger', url, '--json'], cwd);
  expect(shown).toMatchObject({ code: 0, err: '' });
  return JSON.parse(shown.out) as { class: string; graded: number }[];
}

async function teamGraded(url: string, cwd: string): Promise<number> {
  return (await showJson(url, cwd)).reduce((sum, row) => sum + row.graded, 0);
}

describe('the rung command with --ledger postgres://', () => {
  it("shows counts that are the sum of both workspaces' graded attempts", async () => {
    const url = await freshDatabase(server);
    const workspaces = makeTempDir('rung-team-cli-');
    try {
      const attempts: number[] = [];
      for (const [name, seed] of [
        ['ana', 1],
        ['ben', 2],
      ] as const) {
        const cwd = join(workspaces.path, name);
        mkdirSync(cwd);
        writeFileSync(join(cwd, 'outcomes.jsonl'), toJsonLines(makeOutcomes(10, undefined, seed)));
        const io = new CapturedIo(cwd, { RUNG_MEMBER: name });
        expect(await main(['replay', 'outcomes.jsonl', '--ledger', url, '--json'], io)).toBe(0);
        expect(io.err).toBe('');
        attempts.push((JSON.parse(io.out) as { policy: { attempts: number } }).policy.attempts);
      }
      const io = new CapturedIo(workspaces.path);
      expect(await main(['ledger', 'show', '--ledger', url, '--json'], io)).toBe(0);
      const rows = JSON.parse(io.out) as { graded: number }[];
      const shown = rows.reduce((sum, row) => sum + row.graded, 0);
      expect(shown).toBe((attempts[0] ?? 0) + (attempts[1] ?? 0));
      expect(shown).toBe(await storedRows(url));
    } finally {
      workspaces.remove();
    }
  });

  it('imports a file that already holds team evidence without adding anything, and adds only what it learned itself', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-cli-');
    try {
      const ana = await open(url, { memberId: 'ana' });
      ana.observe([observation(true, 1), observation(true, 2), observation(false, 3), observation(true, 4), observation(true, 5)]);
      await ana.close();
      const ben = await open(url, { memberId: 'ben' });
      ben.observe([observation(false, 6), observation(true, 7), observation(true, 8), observation(true, 9)]);
      await ben.close();
      const file = join(cwd.path, 'carla.sqlite');

      // Carla pulls the team's evidence into her file; importing that file back adds nothing.
      expect(await cli(['ledger', 'merge', url, '--ledger', file], cwd.path)).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^merged 9 graded observations/),
      });
      const back = await cli(['ledger', 'merge', file, '--ledger', url], cwd.path);
      expect(back).toMatchObject({ code: 0, err: '' });
      expect(back.out).toMatch(/nothing new from .*carla\.sqlite .*already holds its evidence/);
      expect(await teamGraded(url, cwd.path)).toBe(9);

      // She learns three more on her own: importing adds those three, once however often she imports.
      const own = await WorkspaceLedger.open({ path: file, clock: systemClock });
      own.observe([observation(true, 10), observation(false, 11), observation(true, 12)]);
      await own.close();
      expect((await cli(['ledger', 'merge', file, '--ledger', url], cwd.path)).out).toMatch(
        /^imported 3 graded observations over 1 ratings/,
      );
      expect((await cli(['ledger', 'merge', file, '--ledger', url], cwd.path)).out).toMatch(/^nothing new/);
      expect(await teamGraded(url, cwd.path)).toBe(12);
      // Pulling again brings nothing she does not hold, her own import included.
      expect((await cli(['ledger', 'merge', url, '--ledger', file], cwd.path)).out).toMatch(/^nothing new/);
      expect(await cli(['ledger', 'show', '--ledger', file, '--json'], cwd.path)).toMatchObject({
        out: expect.stringContaining('"graded": 12'),
      });
    } finally {
      cwd.remove();
    }
  });

  it('forgets a class for the whole team, and a resent old observation does not bring it back', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-cli-');
    try {
      const batch = [observation(true, 1), observation(false, 2)];
      const first = await open(url, { writerId: 'ana-run-1' });
      first.observe(batch);
      first.observe([{ model: 'steady', classKey: 'other', success: true, at: 3 }]);
      await first.close();
      const reset = await cli(['ledger', 'reset', '--class', 'c', '--yes', '--ledger', url], cwd.path);
      expect(reset).toMatchObject({ code: 0, err: '' });
      expect(reset.out).toMatch(/^forgot 1 rating \(the ratings of class c\) for the whole team/);

      const again = await open(url, { writerId: 'ana-run-1' });
      again.observe(batch);
      await again.close();
      const rows = await showJson(url, cwd.path);
      expect(rows.map((row) => [row.class, row.graded])).toEqual([['other', 1]]);

      const later = await open(url);
      later.observe([observation(true, 4)]);
      await later.close();
      expect((await showJson(url, cwd.path)).map((row) => [row.class, row.graded])).toEqual([
        ['c', 1],
        ['other', 1],
      ]);
    } finally {
      cwd.remove();
    }
  });

  it("exports the team's ratings and this workspace's decisions", async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-cli-');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(3)));
      const replay = await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--json'], cwd.path, { RUNG_MEMBER: 'ana' });
      expect(replay).toMatchObject({ code: 0, err: '' });
      const exported = await cli(['ledger', 'export', '--format', 'jsonl', '--ledger', url], cwd.path);
      expect(exported).toMatchObject({ code: 0, err: '' });
      const lines = exported.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; graded?: number });
      const graded = lines.filter((line) => line.type === 'rating').reduce((sum, line) => sum + (line.graded ?? 0), 0);
      expect(graded).toBe(await storedRows(url));
      expect(lines.filter((line) => line.type === 'decision').length).toBeGreaterThan(0);
      const decisions = await cli(['ledger', 'decisions', '--last', '2', '--json', '--ledger', url], cwd.path);
      expect(JSON.parse(decisions.out)).toHaveLength(2);
    } finally {
      cwd.remove();
    }
  });

  it('ranks from a team server without writing to it: a reading user is enough, and an old schema is left alone', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-cli-');
    try {
      const panel = join(__dirname, '../../../../examples/panel.json');
      const empty = await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', url], cwd.path);
      expect(empty.code).toBe(1);
      expect(empty.err).toMatch(/holds no Rung ledger yet/);
      expect(await query(url, `SELECT to_regclass('rung_schema') AS present`)).toEqual([{ present: null }]);

      const writer = await open(url);
      writer.observe([observation(true, 1)]);
      await writer.close();
      await query(url, 'CREATE ROLE rung_reader LOGIN');
      await query(url, 'GRANT SELECT ON ALL TABLES IN SCHEMA public TO rung_reader');
      const asReader = url.replace('//postgres@', '//rung_reader@');
      expect(await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', asReader], cwd.path)).toMatchObject({ code: 0, err: '' });
      expect(await cli(['ledger', 'show', '--ledger', asReader], cwd.path)).toMatchObject({ code: 0, err: '' });

      await query(url, 'DELETE FROM rung_schema WHERE version > 1');
      const old = await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', url], cwd.path);
      expect(old.code).toBe(1);
      expect(old.err).toMatch(/schema is version 1, older than this Rung's 2; reading does not migrate it/);
      expect(await query(url, 'SELECT version FROM rung_schema')).toEqual([{ version: 1 }]);
    } finally {
      await query(server.url, 'DROP ROLE IF EXISTS rung_reader').catch(() => undefined);
      cwd.remove();
    }
  });

  it('chats into the team ledger: the graded attempts go to the server, the decision rows stay in the workspace', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-cli-');
    const servers = await escalatingChatWorkspace(cwd.path);
    try {
      const chat = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--json', 'Give me Paris as JSON'], cwd.path, {
        RUNG_OPENROUTER_API_KEY: 'sk-test',
        RUNG_MEMBER: 'ana',
      });
      expect(chat.code).toBe(0);
      expect((await showJson(url, cwd.path)).map((row) => [row.class, row.graded])).toEqual([
        ['plan', 1],
        ['plan', 1],
      ]);
      expect(await query(url, 'SELECT DISTINCT member_id FROM rung_observations')).toEqual([{ member_id: 'ana' }]);
      const decisions = readFileSync(join(cwd.path, '.rung', 'decisions.jsonl'), 'utf8')
        .trim()
        .split('\n');
      expect(decisions).toHaveLength(2);
      expect(existsSync(join(cwd.path, '.rung', 'ledger.sqlite'))).toBe(false);
    } finally {
      await servers.close();
      cwd.remove();
    }
  });

  it('refuses two team servers in one merge as bad usage', async () => {
    const cwd = makeTempDir('rung-team-cli-');
    try {
      const url = 'postgres://ana@127.0.0.1:1/team';
      const merge = await cli(['ledger', 'merge', url, '--ledger', url], cwd.path);
      expect(merge.code).toBe(EXIT_USAGE);
      expect(merge.err).toMatch(/two team servers cannot be merged/);
      expect(readdirSync(cwd.path)).toEqual([]);
    } finally {
      cwd.remove();
    }
  });
});
