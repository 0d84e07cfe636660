import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main';
import { systemClock } from '../../../../src/core/clock';
import { TeamLedger, type TeamLedgerOptions } from '../../../../src/core/ledger/teamLedger';
import { CapturedIo } from '../../../unit/support/CapturedIo';
import { decisionRow } from '../../../unit/support/decisionRow';
import { makeTempDir } from '../../../unit/support/tempDir';
import { freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';
import { scaled } from '../../../timeScale';

/**
 * A team member who writes to the team's tables by hand: rows of the wrong shape, numbers that are not
 * numbers, terminal escape sequences in shared text. Every other member must still open, fold the good
 * rows, skip and count the bad, and print what they show with the escapes made visible.
 */

const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
beforeAll(() => {
  server = startPostgres();
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => server?.stop(), SERVER_HOOK_TIMEOUT_MS);

function open(url: string, options: Partial<TeamLedgerOptions> = {}): Promise<TeamLedger> {
  return TeamLedger.open({ url, memberId: 'ana', clock: systemClock, syncIntervalMs: 0, ...options });
}

/** A server with the team's schema and two good observations of `steady` at `c` from ana. */
async function teamWithGoodRows(): Promise<string> {
  const url = await freshDatabase(server);
  const ana = await open(url);
  ana.observe([
    { model: 'steady', classKey: 'c', success: true, at: 1 },
    { model: 'steady', classKey: 'c', success: false, at: 2 },
  ]);
  await ana.close();
  return url;
}

async function insertObservation(url: string, origin: string, observation: string): Promise<void> {
  await query(
    url,
    `INSERT INTO rung_observations (member_id, origin, model, class_key, graded_at, observation) VALUES ('mallory', $1, 'steady', 'c', 3, $2::jsonb)`,
    [origin, observation],
  );
}

/** Any character a terminal acts on, but a line's own end and a tab. */
function hasControl(text: string): boolean {
  return [...text].some((char) => {
    const code = char.charCodeAt(0);
    return (code < 0x20 && char !== '\n' && char !== '\t') || (code >= 0x7f && code <= 0x9f) || char === '\u202e';
  });
}

/** Clear screen, then an OSC 52 write of "pwned" to the reader's clipboard. */
const ESCAPES = '\u001b[2J\u001b]52;c;cHduZWQ=\u0007';

describe('a team member writing rows of the wrong shape', () => {
  it('cannot stop another member opening: bad observations are skipped, counted and said once, and no rating goes NaN', async () => {
    const url = await teamWithGoodRows();
    const bad = [
      'null',
      '"just text"',
      '{"model": "steady", "classKey": "c", "success": true, "at": 3, "weight": "x"}',
      '{"model": "steady", "classKey": "c", "success": true, "at": 3, "prior": "NaN"}',
      '{"model": "steady", "classKey": "c", "success": true, "at": 3, "difficulty": {"mean": "a", "sd": 1}}',
      '{"model": "steady", "classKey": "c", "success": "false", "at": 3}',
      '{"classKey": "c", "success": true, "at": 3}',
    ];
    for (const [index, observation] of bad.entries()) await insertObservation(url, `m:${index}`, observation);
    const said: string[] = [];
    const ben = await open(url, { memberId: 'ben', onNotice: (message) => said.push(message) });
    const rating = ben.snapshot(0).rating('steady', 'c');
    expect(rating?.graded).toBe(2);
    expect(Number.isFinite(rating?.rating)).toBe(true);
    expect(ben.skippedRows).toEqual({ observations: 7, resets: 0, imports: 0, aliases: 0, spawns: 0 });
    expect(said).toEqual([
      "the team ledger holds 7 observations that this Rung cannot use (not the shape Rung writes: another member's Rung, or someone writing to the tables by hand); they were skipped, and the rest of the team's evidence is used",
    ]);
    // Read again, and once more with a new good row on top: the same bad rows are not said again.
    await ben.flush();
    ben.observe([{ model: 'steady', classKey: 'c', success: true, at: 4 }]);
    await ben.flush();
    expect(ben.snapshot(0).rating('steady', 'c')?.graded).toBe(3);
    expect(said).toHaveLength(1);
    await ben.close();
  });

  it("cannot stop `rung ledger reset`, which forgets the team's ratings as asked", async () => {
    const url = await teamWithGoodRows();
    await insertObservation(url, 'm:null', 'null');
    const dir = makeTempDir('rung-team-reset-');
    try {
      const io = new CapturedIo(dir.path, { RUNG_MEMBER: 'ben' });
      expect(await main(['ledger', 'reset', '--ledger', url, '--yes'], io)).toBe(0);
      expect(io.out).toMatch(/^forgot 1 rating \(every rating\) for the whole team/);
      expect(io.err).toContain('the team ledger holds 1 observation that this Rung cannot use');
    } finally {
      dir.remove();
    }
  });

  it('skips imports, aliases and calls in flight that are not the shape Rung writes, and a team id rewritten', async () => {
    const url = await teamWithGoodRows();
    await query(
      url,
      `INSERT INTO rung_imports (source_id, model, class_key, graded, ok, rating, updated_at, member_id) VALUES ('file:nan', 'steady', 'c', 9, 9, 'NaN'::float8, 1, 'mallory'), ('file:neg', 'steady', 'c', -5, 0, 0.5, 1, 'mallory'), ('file:ok', 'other', 'c', 4, 2, 0.25, 1, 'ben')`,
    );
    await query(url, `INSERT INTO rung_aliases (slug, resolved, member_id) VALUES ('blank', '', 'mallory'), ('good', 'good-2026', 'ben')`);
    // A call started in the server's future: taken as it was, it would keep its model busy until then.
    await query(
      url,
      `INSERT INTO rung_spawns (spawn_id, trace_id, model, member_id, started_at) VALUES ('forever', 't', 'steady', 'mallory', now() + interval '10 years'), ('now', 't', 'other', 'ben', now())`,
    );
    await query(url, `UPDATE rung_meta SET value = $1 WHERE key = 'team_id'`, [`evil${ESCAPES}`]);
    const ben = await open(url, { memberId: 'ben' });
    const snapshot = ben.snapshot(systemClock.now());
    expect(ben.skippedRows).toEqual({ meta: 1, observations: 0, resets: 0, imports: 2, aliases: 1, spawns: 1 });
    expect(snapshot.rating('steady', 'c')?.graded).toBe(2);
    expect(snapshot.rating('other', 'c')?.graded).toBe(4);
    expect(snapshot.resolve('good')).toBe('good-2026');
    expect(snapshot.inFlight('steady')).toBe(0);
    expect(snapshot.inFlight('other')).toBe(1);
    expect(ben.sourceId).toMatch(/^team:derived-[0-9a-f]{32}$/);
    await ben.close();
  });
});

describe('text a team member chose, printed by rung', () => {
  it('shows shared decision rows and member names with their escape sequences visible, not obeyed', async () => {
    const url = await teamWithGoodRows();
    const row = decisionRow({ call: `call${ESCAPES}`, model: `model${ESCAPES}`, reason: `why${ESCAPES}`, at: 1_000 });
    await query(
      url,
      'INSERT INTO rung_decisions (member_id, call_id, attempt, final, at, decision) VALUES ($1, $2, 0, false, 1000, $3::jsonb)',
      [`mallory${ESCAPES}`, row.call, JSON.stringify(row)],
    );
    await query(
      url,
      `INSERT INTO rung_decisions (member_id, call_id, attempt, final, at, decision) VALUES ('mallory', 'broken', 0, false, 2000, 'null'::jsonb)`,
    );
    const dir = makeTempDir('rung-team-print-');
    try {
      for (const extra of [[], ['--json']]) {
        const io = new CapturedIo(dir.path, {});
        expect(await main(['ledger', 'decisions', '--team', '--ledger', url, ...extra], io)).toBe(0);
        expect(hasControl(io.out)).toBe(false);
        expect(io.out).toContain('mallory');
        expect(io.err).toContain('1 shared decision row among the newest 20 that this Rung cannot read');
        if (extra.length === 0) expect(io.out).toContain('mallory\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07');
        else expect((JSON.parse(io.out) as { member: string }[])[0]?.member).toBe(`mallory${ESCAPES}`);
      }
    } finally {
      dir.remove();
    }
  });

  it('shows model and class names in `rung ledger show` with their escapes visible', async () => {
    const url = await teamWithGoodRows();
    await query(
      url,
      `INSERT INTO rung_imports (source_id, model, class_key, graded, ok, rating, updated_at, member_id) VALUES ('file:x', $1, $2, 3, 1, 0.1, 1, 'mallory')`,
      [`model${ESCAPES}`, `class\u202e`],
    );
    const dir = makeTempDir('rung-team-show-');
    try {
      const io = new CapturedIo(dir.path, {});
      expect(await main(['ledger', 'show', '--ledger', url], io)).toBe(0);
      expect(hasControl(io.out)).toBe(false);
      expect(io.out).toContain('model\\x1b[2J');
      expect(io.out).toContain('class\\u202e');
    } finally {
      dir.remove();
    }
  });
});
