import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main';
import { systemClock } from '../../../../src/core/clock';
import type { DecisionRow } from '../../../../src/core/decisions/decision';
import { TEAM_MIGRATIONS, TeamLedger, type TeamLedgerOptions } from '../../../../src/core/ledger/teamLedger';
import { CapturedIo } from '../../support/CapturedIo';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';
import { freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';

// A real server, started once for this file by scripts/test-postgres.sh; every test has its own database.
// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = 120_000;
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

async function cli(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = new CapturedIo(cwd, env);
  const code = await main(argv, io);
  return { code, out: io.out, err: io.err };
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
    const blocker = new Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE rung_decisions IN ACCESS EXCLUSIVE MODE');
    const flushing = ledger.flush();
    let waiting: { pid: number }[] = [];
    while (waiting.length === 0) {
      waiting = (await blocker.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rung' AND wait_event_type = 'Lock'`)).rows;
    }
    await blocker.query('SELECT pg_terminate_backend($1)', [waiting[0]?.pid]);
    await expect(flushing).rejects.toThrow();
    await blocker.query('ROLLBACK');
    await blocker.end();
    expect(ledger.unsentDecisions).toBe(3);
    await ledger.flush();
    expect(ledger.unsentDecisions).toBe(0);
    await ledger.close();
    expect(await storedDecisions(url)).toHaveLength(3);
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
      expect(await query(url, 'SELECT max(version) AS version FROM rung_schema')).toEqual([{ version: 2 }]);
      expect(await query(url, `SELECT to_regclass('rung_decisions') AS present`)).toEqual([{ present: null }]);
    } finally {
      cwd.remove();
    }
  });
});
