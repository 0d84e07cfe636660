import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { TeamOutbox, teamOutboxPath } from '../../../../src/core/ledger/teamOutbox';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { openStore, type TeamStoreOptions } from '../../../../src/core/store/openStore';
import { decisionRow } from '../../../unit/support/decisionRow';
import { sqliteChange } from '../../../unit/support/sqliteFile';
import { makeTempDir, WASM_PATH } from '../../../unit/support/tempDir';
import { TcpProxy } from '../../support/tcpProxy';
import { freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';
import { scaled } from '../../../timeScale';

/**
 * A cloned folder opened by a member of a team: nothing it brings reaches the team's server under that
 * member's name unless the member says so. Each test opens the store as a window or a `rung` run does,
 * against a real PostgreSQL, with the folder's `.rung/` as the attacker left it.
 */

// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
let sql: SqlJsStatic;
beforeAll(async () => {
  server = startPostgres();
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => server?.stop(), SERVER_HOOK_TIMEOUT_MS);

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => (folder = makeTempDir('rung-cloned-')));
afterEach(() => folder.remove());

/** The cloned folder's ledger file. */
function workspacePath(): string {
  return join(folder.path, 'clone', '.rung', 'ledger.sqlite');
}

/** The member's own storage (the extension's global storage, the CLI's data folder): outside the clone. */
function userFolder(): string {
  return join(folder.path, 'user-storage');
}

async function openTeam(url: string, said: string[], team: Partial<TeamStoreOptions> = {}): Promise<Awaited<ReturnType<typeof openStore>>> {
  return openStore(
    { kind: 'team', url, fallbackPath: workspacePath() },
    {
      clock: systemClock,
      log: (level, message) => said.push(`${level}: ${message}`),
      userFolder: userFolder(),
      team: { memberId: 'ana', subject: 'this window', syncIntervalMs: 0, connectTimeoutMs: 2_000, ...team },
    },
  );
}

/** Where Rung once kept the outbox, in the folder: `team-outbox-<hash of the server>.jsonl` beside the ledger. */
function plantedOutboxPath(url: string): string {
  const parsed = new URL(url);
  const identity = `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  return join(folder.path, 'clone', '.rung', `team-outbox-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}.jsonl`);
}

/** A ledger file made on another machine: written by a WorkspaceLedger of its own, then raised by hand as the attack was. */
async function plantLedger(): Promise<void> {
  const ledger = await WorkspaceLedger.open({ path: workspacePath(), clock: systemClock, sql });
  const at = systemClock.now();
  ledger.observe([
    { model: 'openai/gpt-4o', classKey: 'chat', success: false, at },
    { model: 'planted/model', classKey: 'chat', success: true, at },
  ]);
  await ledger.close();
  sqliteChange(
    sql,
    workspacePath(),
    "UPDATE ratings SET graded = 200000, ok = 0, rating = -6 WHERE model = 'openai/gpt-4o'; UPDATE ratings SET graded = 200000, ok = 200000, rating = 6 WHERE model = 'planted/model'",
  );
}

async function imported(url: string): Promise<{ model: string; graded: number; member_id: string }[]> {
  return query(url, 'SELECT model, graded, member_id FROM rung_imports ORDER BY model');
}

describe('a cloned folder and the team it is opened against', () => {
  it("has the outbox it brings left unsent: no observation under another member's name, no decision row nobody shared", async () => {
    const url = await freshDatabase(server);
    const planted = plantedOutboxPath(url);
    mkdirSync(join(folder.path, 'clone', '.rung'), { recursive: true });
    const observation = (i: number): string =>
      JSON.stringify({
        member: 'ben',
        origin: `planted:${i}`,
        observation: { model: 'planted/model', classKey: 'chat', success: true, at: systemClock.now() },
      });
    writeFileSync(
      planted,
      `${[...Array.from({ length: 30 }, (_, i) => observation(i)), JSON.stringify({ member: 'ana', decision: decisionRow({ call: 'planted' }) })].join('\n')}\n`,
    );
    const said: string[] = [];
    const store = await openTeam(url, said);
    await store.close();
    expect(await query(url, 'SELECT count(*)::int AS n FROM rung_observations')).toEqual([{ n: 0 }]);
    expect(await query(url, 'SELECT count(*)::int AS n FROM rung_decisions')).toEqual([{ n: 0 }]);
    expect(said).toContain(
      `warning: the workspace holds a team outbox ${planted}, which Rung no longer sends: it now keeps its outbox in your own storage, as a folder could bring one with lines under any member's name; it was left as it is`,
    );
  });

  it('sends the decision rows an offline session kept only while the member shares them now', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    try {
      proxy.cut();
      const offline = await openTeam(proxy.urlFor(url), [], { shareDecisions: true });
      offline.decisions.append(decisionRow({ call: 'away' }));
      await offline.close();
      proxy.restore();
      const outbox = teamOutboxPath(userFolder(), proxy.urlFor(url), 'ana');
      expect(new TeamOutbox({ path: outbox, clock: systemClock }).readDecisions()).toHaveLength(1);

      const said: string[] = [];
      const withheld = await openTeam(proxy.urlFor(url), said, { shareDecisions: false });
      await withheld.close();
      expect(await query(url, 'SELECT call_id FROM rung_decisions')).toEqual([]);
      expect(said).toContain(
        `warning: the team outbox ${outbox} holds 1 decision row shared earlier; they are sent only while this member shares decision rows, and wait there until then`,
      );

      const sharing = await openTeam(proxy.urlFor(url), [], { shareDecisions: true });
      await sharing.close();
      expect(await query(url, 'SELECT member_id, call_id FROM rung_decisions')).toEqual([{ member_id: 'ana', call_id: 'away' }]);
    } finally {
      await proxy.close();
    }
  });

  it("sends from the member's own outbox only the member's lines", async () => {
    const url = await freshDatabase(server);
    const outbox = new TeamOutbox({ path: teamOutboxPath(userFolder(), url, 'ana'), clock: systemClock });
    const at = systemClock.now();
    await outbox.add([
      { member: 'ana', origin: 'w:1', observation: { model: 'm', classKey: 'chat', success: true, at } },
      { member: 'ben', origin: 'w:2', observation: { model: 'm', classKey: 'chat', success: true, at } },
    ]);
    const store = await openTeam(url, []);
    await store.close();
    expect(await query(url, 'SELECT member_id, origin FROM rung_observations')).toEqual([{ member_id: 'ana', origin: 'w:1' }]);
    expect(outbox.read().map((entry) => entry.member)).toEqual(['ben']);
  });

  it('has its own .rung/ledger.sqlite left out of the team unless the member says to send it', async () => {
    const url = await freshDatabase(server);
    await plantLedger();
    const said: string[] = [];
    const store = await openTeam(url, said);
    await store.close();
    expect(await imported(url)).toEqual([]);
    expect(said).toContain(
      `warning: the workspace ledger ${workspacePath()} holds 400000 graded observations that were not learned on this machine (it may have come with the folder); they were not sent to the team`,
    );
  });

  it('asks about a workspace ledger made elsewhere without holding the open, and remembers the answer', async () => {
    const url = await freshDatabase(server);
    await plantLedger();
    const questions: string[] = [];
    let answer: (choice: 'send' | 'never' | undefined) => void = () => {};
    const ask = (question: string): Promise<'send' | 'never' | undefined> => {
      questions.push(question);
      return new Promise((resolve) => (answer = resolve));
    };
    const dismissed = await openTeam(url, [], { askToSendWorkspaceLedger: ask });
    answer(undefined);
    await dismissed.close();
    expect(questions).toEqual([
      `the workspace ledger ${workspacePath()} holds 400000 graded observations that were not learned on this machine (it may have come with the folder): send them to the team ${url} as ana's evidence?`,
    ]);
    expect(await imported(url)).toEqual([]);

    const declined = await openTeam(url, [], { askToSendWorkspaceLedger: ask });
    answer('never');
    await declined.close();
    const again = await openTeam(url, [], { askToSendWorkspaceLedger: ask });
    await again.close();
    expect(questions).toHaveLength(2);
    expect(await imported(url)).toEqual([]);
  });

  it('sends a workspace ledger made elsewhere when the member says so, and after that without asking', async () => {
    const url = await freshDatabase(server);
    await plantLedger();
    const said: string[] = [];
    const asked = await openTeam(url, said, { askToSendWorkspaceLedger: () => Promise.resolve('send') });
    // The answer lands after the open: wait for its import before closing.
    for (let tries = 0; tries < 100 && !said.some((line) => line.includes('sent the team')); tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await asked.close();
    expect(await imported(url)).toEqual([
      { model: 'openai/gpt-4o', graded: 200000, member_id: 'ana' },
      { model: 'planted/model', graded: 200000, member_id: 'ana' },
    ]);
    const questions: string[] = [];
    const later = await openTeam(url, [], {
      askToSendWorkspaceLedger: (question) => {
        questions.push(question);
        return Promise.resolve(undefined);
      },
    });
    await later.close();
    expect(questions).toEqual([]);
  });

  it('sends the workspace ledger a `rung` run names with its flag', async () => {
    const url = await freshDatabase(server);
    await plantLedger();
    const store = await openTeam(url, [], { sendWorkspaceLedger: true });
    await store.close();
    expect((await imported(url)).map((row) => row.graded)).toEqual([200000, 200000]);
  });

  it('sends a workspace ledger this machine made, unasked', async () => {
    const url = await freshDatabase(server);
    const made = await openStore({ kind: 'file', path: workspacePath() }, { clock: systemClock, log: () => {}, userFolder: userFolder() });
    made.ratings.observe([{ model: 'm', classKey: 'chat', success: true, at: systemClock.now() }]);
    await made.close();
    const questions: string[] = [];
    const store = await openTeam(url, [], {
      askToSendWorkspaceLedger: (question) => {
        questions.push(question);
        return Promise.resolve(undefined);
      },
    });
    await store.close();
    expect(questions).toEqual([]);
    expect(await imported(url)).toEqual([{ model: 'm', graded: 1, member_id: 'ana' }]);
  });
});
