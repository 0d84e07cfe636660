import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_USAGE } from '../../../../src/cli/io';
import { systemClock } from '../../../../src/core/clock';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { TeamLedger, type SharedDecision, type TeamLedgerOptions } from '../../../../src/core/ledger/teamLedger';
import { TEAM_MIGRATIONS } from '../../../../src/core/ledger/teamSchema';
import { TeamOutbox } from '../../../../src/core/ledger/teamOutbox';
import { decisionRow } from '../../../unit/support/decisionRow';
import { makeOutcomes, toJsonLines } from '../../../unit/support/outcomesFixture';
import { makeTempDir } from '../../../unit/support/tempDir';
import { TcpProxy } from '../../support/tcpProxy';
import { CHAT_ARGS, cli, escalatingChatWorkspace } from '../../support/teamCli';
import { cutFlushMidway, freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';
import { scaled } from '../../../timeScale';

// A real server, started once for this file by scripts/test-postgres.sh; every test has its own database.
// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
beforeAll(() => {
  server = startPostgres();
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => {
  server?.stop();
}, SERVER_HOOK_TIMEOUT_MS);

function open(url: string, options: Partial<TeamLedgerOptions> = {}): Promise<TeamLedger> {
  return TeamLedger.open({ url, memberId: 'ana', clock: systemClock, syncIntervalMs: 0, ...options });
}

/** One call that escalated once and was then settled by a later verdict: three rows. */
function escalatedCall(call: string): DecisionRow[] {
  return [
    decisionRow({ call, at: 1_000, verdict: 'fail' }),
    decisionRow({ call, at: 2_000, rung: 1, escalation: ['qwen2.5:3b'], model: 'qwen3:14b', verdict: 'pass' }),
    decisionRow({ call, at: 3_000, rung: 1, escalation: ['qwen2.5:3b'], model: 'qwen3:14b', verdict: 'fail', final: true }),
  ];
}

async function storedDecisions(url: string): Promise<{ member_id: string; call_id: string; decision: DecisionRow }[]> {
  return query(url, 'SELECT member_id, call_id, decision FROM rung_decisions ORDER BY at, attempt, final');
}

function workspaceRows(cwd: string): DecisionRow[] {
  return readFileSync(join(cwd, '.rung', 'decisions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as DecisionRow);
}

describe('sharing decision rows with the team ledger', () => {
  it('sends no decision row to the server unless the member opted in', async () => {
    const url = await freshDatabase(server);
    const ledger = await open(url);
    for (const row of escalatedCall('call-1')) ledger.shareDecision(row);
    expect(ledger.unsentDecisions).toBe(0);
    await ledger.close();
    expect(await storedDecisions(url)).toEqual([]);
  });

  it('stores each shared row once, however often it is sent', async () => {
    const url = await freshDatabase(server);
    const rows = escalatedCall('call-1');
    const first = await open(url, { shareDecisions: true });
    for (const row of rows) first.shareDecision(row);
    await first.flush();
    // The same rows again, from this process and from a later one: a retry that cannot know whether
    // the first send landed.
    for (const row of rows) first.shareDecision(row);
    await first.close();
    const again = await open(url, { shareDecisions: true });
    for (const row of rows) again.shareDecision(row);
    await again.close();
    const stored = await storedDecisions(url);
    expect(stored.map((row) => [row.member_id, row.call_id])).toEqual([
      ['ana', 'call-1'],
      ['ana', 'call-1'],
      ['ana', 'call-1'],
    ]);
    expect(stored.map((row) => row.decision)).toEqual(rows);
  });

  it('keeps shared rows whose send was cut off, and lands them once on the next flush', async () => {
    const url = await freshDatabase(server);
    const ledger = await open(url, { shareDecisions: true });
    for (const row of escalatedCall('call-1')) ledger.shareDecision(row);
    // Another session holds the table, so the flush's insert waits where the test can cut it off.
    await cutFlushMidway(url, 'rung_decisions', () => ledger.flush());
    expect(ledger.unsentDecisions).toBe(3);
    await ledger.flush();
    expect(ledger.unsentDecisions).toBe(0);
    await ledger.close();
    expect(await storedDecisions(url)).toHaveLength(3);
  });

  it('keeps the shared rows an exit could not send in the outbox with the observations, and says how many', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-decisions-');
    try {
      const notices: string[] = [];
      const ledger = await open(proxy.urlFor(url), {
        shareDecisions: true,
        outboxPath: join(folder.path, 'outbox.jsonl'),
        connectTimeoutMs: 500,
        onNotice: (message) => notices.push(message),
      });
      proxy.cut();
      ledger.observe([{ model: 'steady', classKey: 'plan', success: true, at: 1 }]);
      for (const row of escalatedCall('call-1')) ledger.shareDecision(row);
      await ledger.close();
      expect(notices).toEqual([
        expect.stringMatching(
          /^the team server did not answer \(.*\); 1 observation and 3 shared decision rows kept in .*outbox\.jsonl, sent once it answers$/,
        ),
      ]);
      expect(
        new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock })
          .readDecisions()
          .map((entry) => [entry.member, entry.decision]),
      ).toEqual(escalatedCall('call-1').map((row) => ['ana', row]));
    } finally {
      await proxy.close();
      folder.remove();
    }
    expect(await storedDecisions(url)).toEqual([]);
  });

  it('reads the team from a server that predates shared decisions without migrating it', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-decisions-');
    try {
      const writer = await open(url);
      writer.observe([{ model: 'steady', classKey: 'plan', success: true, at: 1 }]);
      await writer.close();
      // As a Rung before shared decisions left it.
      await query(url, `DROP TABLE rung_decisions; DELETE FROM rung_schema WHERE version > 2`);
      expect(TEAM_MIGRATIONS.length).toBeGreaterThan(2);
      const panel = join(__dirname, '../../../../examples/panel.json');
      expect(await cli(['rank', '--panel', panel, '--class', 'plan', '--ledger', url], cwd.path)).toMatchObject({ code: 0, err: '' });
      const shown = await cli(['ledger', 'show', '--ledger', url, '--json'], cwd.path);
      expect(shown).toMatchObject({ code: 0, err: '' });
      expect(JSON.parse(shown.out)).toMatchObject([{ model: 'steady', class: 'plan', graded: 1 }]);
      expect(await cli(['ledger', 'decisions', '--team', '--ledger', url], cwd.path)).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^no shared decisions on /) as string,
      });
      expect(await query(url, 'SELECT max(version) AS version FROM rung_schema')).toEqual([{ version: 2 }]);
      expect(await query(url, `SELECT to_regclass('rung_decisions') AS present`)).toEqual([{ present: null }]);
    } finally {
      cwd.remove();
    }
  });
});

describe('rung replay and rung chat with --share-decisions', () => {
  it('replays into the team ledger: the rows stay in the workspace without the flag, and reach the server once with it', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-decisions-');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
      expect(await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--json'], cwd.path, { RUNG_MEMBER: 'ana' })).toMatchObject({
        code: 0,
        err: '',
      });
      const unshared = workspaceRows(cwd.path);
      expect(unshared.length).toBeGreaterThan(0);
      expect(await storedDecisions(url)).toEqual([]);

      expect(
        await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--share-decisions', '--json'], cwd.path, { RUNG_MEMBER: 'ana' }),
      ).toMatchObject({ code: 0, err: '' });
      const shared = workspaceRows(cwd.path).slice(unshared.length);
      const stored = await storedDecisions(url);
      expect(stored).toHaveLength(shared.length);
      expect(new Set(stored.map((row) => row.member_id))).toEqual(new Set(['ana']));
      expect(new Set(stored.map((row) => row.call_id))).toEqual(new Set(shared.map((row) => row.call)));

      const listed = await cli(['ledger', 'decisions', '--team', '--ledger', url, '--last', '3', '--json'], cwd.path);
      expect(listed).toMatchObject({ code: 0, err: '' });
      const newest = JSON.parse(listed.out) as SharedDecision[];
      expect(newest.map((each) => each.member)).toEqual(['ana', 'ana', 'ana']);
      expect(newest.map((each) => each.row.at)).toEqual([...shared.map((row) => row.at)].sort((a, b) => a - b).slice(-3));
    } finally {
      cwd.remove();
    }
  });

  it('chats into the team ledger and shares the decision rows the session wrote', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-decisions-');
    const servers = await escalatingChatWorkspace(cwd.path);
    try {
      const chat = await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--share-decisions', '--json', 'Give me Paris as JSON'], cwd.path, {
        RUNG_OPENROUTER_API_KEY: 'sk-test',
        RUNG_MEMBER: 'ana',
      });
      expect(chat.code).toBe(0);
      const written = workspaceRows(cwd.path);
      expect(written.map((row) => row.model)).toEqual(['qwen2.5:3b', 'openai/gpt-4o-mini']);
      expect((await storedDecisions(url)).map((row) => [row.member_id, row.decision.model, row.decision.verdict])).toEqual(
        written.map((row) => ['ana', row.model, row.verdict]),
      );
      // The rows name no prompt: what the user asked never leaves the workspace.
      expect(JSON.stringify(await storedDecisions(url))).not.toContain('Paris');
    } finally {
      await servers.close();
      cwd.remove();
    }
  });

  it('lists shared rows with their source, and the newest of one source with --source', async () => {
    const url = await freshDatabase(server);
    const cwd = makeTempDir('rung-team-decisions-');
    const servers = await escalatingChatWorkspace(cwd.path);
    try {
      const env = { RUNG_OPENROUTER_API_KEY: 'sk-test', RUNG_MEMBER: 'ana' };
      expect(
        await cli(['chat', ...CHAT_ARGS, '--ledger', url, '--share-decisions', '--json', 'Give me Paris as JSON'], cwd.path, env),
      ).toMatchObject({ code: 0 });
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(5)));
      expect(await cli(['replay', 'outcomes.jsonl', '--ledger', url, '--share-decisions', '--json'], cwd.path, env)).toMatchObject({
        code: 0,
        err: '',
      });
      const replayed = workspaceRows(cwd.path).filter((row) => row.source === 'replay');
      expect(replayed.length).toBeGreaterThan(2);

      const replays = await cli(
        ['ledger', 'decisions', '--team', '--ledger', url, '--source', 'replay', '--last', '2', '--json'],
        cwd.path,
      );
      expect(replays).toMatchObject({ code: 0, err: '' });
      expect((JSON.parse(replays.out) as SharedDecision[]).map((each) => [each.row.call, each.row.source])).toEqual(
        replayed.slice(-2).map((row) => [row.call, 'replay']),
      );
      const live = await cli(['ledger', 'decisions', '--team', '--ledger', url, '--source', 'live', '--json'], cwd.path);
      expect((JSON.parse(live.out) as SharedDecision[]).map((each) => [each.row.model, each.row.source])).toEqual([
        ['qwen2.5:3b', undefined],
        ['openai/gpt-4o-mini', undefined],
      ]);

      // Every shared row, as a table: each line's member and source, in the order --json gives them.
      const table = await cli(['ledger', 'decisions', '--team', '--ledger', url, '--last', '100'], cwd.path);
      const [header, ...lines] = table.out.trim().split('\n');
      expect(header?.split(/\s+/)).toEqual(['at', 'member', 'source', 'call', 'class', 'rung', 'model', 'verdict']);
      const all = JSON.parse(
        (await cli(['ledger', 'decisions', '--team', '--ledger', url, '--last', '100', '--json'], cwd.path)).out,
      ) as SharedDecision[];
      expect(lines.map((line) => line.split(/\s+/).slice(1, 3))).toEqual(
        all.map((each) => ['ana', each.row.source === 'replay' ? 'replay' : 'live']),
      );
      expect(new Set(lines.map((line) => line.split(/\s+/)[2]))).toEqual(new Set(['live', 'replay']));
      const none = await cli(['ledger', 'decisions', '--team', '--ledger', url, '--source', 'chat'], cwd.path);
      expect(none.out).toMatch(/^no shared decisions from source chat on /);
    } finally {
      await servers.close();
      cwd.remove();
    }
  });

  it('refuses --share-decisions without a team server as bad usage', async () => {
    const cwd = makeTempDir('rung-team-decisions-');
    try {
      writeFileSync(join(cwd.path, 'outcomes.jsonl'), toJsonLines(makeOutcomes(2)));
      const replayed = await cli(['replay', 'outcomes.jsonl', '--ledger', 'ledger.sqlite', '--share-decisions'], cwd.path);
      expect(replayed.code).toBe(EXIT_USAGE);
      expect(replayed.err).toMatch(/--share-decisions .* needs --ledger postgres:\/\//);
      const chatted = await cli(['chat', '--panel', 'panel.json', '--share-decisions', 'hello'], cwd.path);
      expect(chatted.code).toBe(EXIT_USAGE);
      expect(chatted.err).toMatch(/--share-decisions .* needs --ledger postgres:\/\//);
      for (const command of [
        ['replay', 'outcomes.jsonl'],
        ['chat', '--panel', 'panel.json', 'hello'],
      ]) {
        const sent = await cli([...command, '--ledger', 'ledger.sqlite', '--send-workspace-ledger'], cwd.path);
        expect(sent.code).toBe(EXIT_USAGE);
        expect(sent.err).toMatch(/--send-workspace-ledger .* needs --ledger postgres:\/\//);
      }
      const listed = await cli(['ledger', 'decisions', '--team'], cwd.path);
      expect(listed.code).toBe(EXIT_USAGE);
      expect(listed.err).toMatch(/--team .* needs --ledger postgres:\/\//);
    } finally {
      cwd.remove();
    }
  });
});
