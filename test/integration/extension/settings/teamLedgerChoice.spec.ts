import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { TeamLedger } from '../../../../src/core/ledger/teamLedger';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { readTeamLedgerSetting, windowTeamOptions } from '../../../../src/extension/settings/teamLedgerChoice';
import { openStore, type TeamStoreOptions } from '../../../../src/core/store/openStore';
import type { Store } from '../../../../src/core/store/store';
import { teamOutboxPath } from '../../../../src/core/ledger/teamOutbox';
import { TcpProxy } from '../../support/tcpProxy';
import { makeTempDir } from '../../../unit/support/tempDir';
import { decisionRow } from '../../../unit/support/decisionRow';
import { freshDatabase, query, startPostgres, type TestPostgres } from '../../support/testPostgres';
import { scaled } from '../../../timeScale';

// initdb and the server's start take seconds on a loaded machine, beyond vitest's default hook timeout.
const SERVER_HOOK_TIMEOUT_MS = scaled(120_000);
let server: TestPostgres;
beforeAll(() => {
  server = startPostgres();
}, SERVER_HOOK_TIMEOUT_MS);
afterAll(() => server?.stop(), SERVER_HOOK_TIMEOUT_MS);

describe('the rung.teamLedger.url setting', () => {
  it('is no team when empty', () => {
    expect(readTeamLedgerSetting(null)).toEqual({ kind: 'none' });
    expect(readTeamLedgerSetting('  ')).toEqual({ kind: 'none' });
  });

  it('takes a PostgreSQL URL without a password', () => {
    expect(readTeamLedgerSetting(' postgres://ana@db.example.com:5432/rung ')).toEqual({
      kind: 'url',
      url: 'postgres://ana@db.example.com:5432/rung',
    });
  });

  it('refuses a URL with a password, saying where the password goes and without repeating it', () => {
    const setting = readTeamLedgerSetting('postgres://ana:hunter2@db.example.com/rung');
    expect(setting.kind).toBe('invalid');
    const message = setting.kind === 'invalid' ? setting.message : '';
    expect(message).toMatch(/has a password in it .*Rung: Set Team Ledger Password.*PGPASSWORD/);
    expect(message).not.toContain('hunter2');
  });

  it('refuses what is not a PostgreSQL URL', () => {
    expect(readTeamLedgerSetting('.rung/ledger.sqlite')).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/must be a postgres:\/\/user@host:port\/database URL/),
    });
    expect(readTeamLedgerSetting(42)).toMatchObject({ kind: 'invalid' });
  });
});

describe("a window's team store on a real PostgreSQL", () => {
  interface Choice {
    url: string;
    workspacePath: string;
    said: string[];
    shown: string[];
    team?: Partial<TeamStoreOptions>;
  }
  function options(url: string, workspacePath: string, said: string[], shown: string[]): Choice {
    return { url, workspacePath, said, shown };
  }

  /** The extension's global storage in these tests: beside the workspace's `.rung`, in the test's folder. */
  function userStorage(workspacePath: string): string {
    return join(dirname(dirname(workspacePath)), 'global-storage');
  }

  /** Opens the store a window opens for the team at `url`, with `workspacePath` as its fallback. */
  function openTeamOrWorkspace(choice: Choice): Promise<Store> {
    return openStore(
      { kind: 'team', url: choice.url, fallbackPath: choice.workspacePath },
      {
        clock: systemClock,
        userFolder: userStorage(choice.workspacePath),
        log: (level, message) => choice.said.push(`${level}: ${message}`),
        team: windowTeamOptions(choice.url, {
          memberId: 'ana',
          notifyFallback: (message) => choice.shown.push(message),
          syncIntervalMs: 0,
          ...choice.team,
        }),
      },
    );
  }

  async function teamGraded(url: string): Promise<number> {
    const reader = await TeamLedger.open({ url, memberId: 'reader', clock: systemClock, syncIntervalMs: 0, readOnly: true });
    try {
      return reader.entries().reduce((sum, entry) => sum + entry.graded, 0);
    } finally {
      await reader.close();
    }
  }

  it('learns into the workspace file when the server does not answer, and sends that to the team once it does, once', async () => {
    const url = await freshDatabase(server);
    const folder = makeTempDir('rung-team-choice-');
    try {
      const workspacePath = join(folder.path, '.rung', 'ledger.sqlite');
      const said: string[] = [];
      const shown: string[] = [];
      const offline = await openTeamOrWorkspace(options('postgres://ana@127.0.0.1:1/team', workspacePath, said, shown));
      expect(offline.ratings).toBeInstanceOf(WorkspaceLedger);
      expect(shown).toHaveLength(1);
      expect(shown[0]).toMatch(
        /cannot use the team ledger postgres:\/\/ana@127\.0\.0\.1:1\/team: .*learns into the workspace ledger .*ledger\.sqlite instead/,
      );
      offline.ratings.observe([
        { model: 'm', classKey: 'edit', success: true, at: 1 },
        { model: 'm', classKey: 'edit', success: false, at: 2 },
      ]);
      await offline.close();

      for (let round = 0; round < 2; round++) {
        const online = await openTeamOrWorkspace(options(url, workspacePath, said, shown));
        expect(online.ratings).toBeInstanceOf(TeamLedger);
        await online.close();
        expect(await teamGraded(url)).toBe(2);
      }
      expect(said.filter((line) => /sent the team 2 graded observations/.test(line))).toHaveLength(1);
      expect(shown).toHaveLength(1);
    } finally {
      folder.remove();
    }
  });

  it("keeps the team ledger's outbox in the extension's storage, and refuses a reset from one window", async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-choice-');
    try {
      const workspacePath = join(folder.path, '.rung', 'ledger.sqlite');
      const said: string[] = [];
      const ledger = await openTeamOrWorkspace(options(proxy.urlFor(url), workspacePath, said, []));
      expect(ledger.ratings).toBeInstanceOf(TeamLedger);
      await expect(ledger.reset()).rejects.toThrow(
        /shared by the whole team; reset it from a terminal: rung ledger reset --ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ --yes/,
      );
      proxy.cut();
      ledger.ratings.observe([{ model: 'm', classKey: 'edit', success: true, at: 1 }]);
      await ledger.close();
      const outbox = teamOutboxPath(userStorage(workspacePath), proxy.urlFor(url), 'ana');
      expect(readFileSync(outbox, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(said.some((line) => line.startsWith('warning: the team server did not answer') && line.includes(outbox))).toBe(true);
    } finally {
      await proxy.close();
      folder.remove();
    }
  });
  it('keeps the decision rows a window shares while the server is away, and the next window that reaches it sends them', async () => {
    const url = await freshDatabase(server);
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const folder = makeTempDir('rung-team-choice-');
    try {
      const workspacePath = join(folder.path, '.rung', 'ledger.sqlite');
      proxy.cut();
      const shown: string[] = [];
      const offline = await openTeamOrWorkspace({
        ...options(proxy.urlFor(url), workspacePath, [], shown),
        team: { shareDecisions: true },
      });
      expect(offline.ratings).toBeInstanceOf(WorkspaceLedger);
      expect(shown).toEqual([expect.stringMatching(/; its shared decision rows wait in .*team-outbox-\w+\.jsonl until then$/)]);
      offline.decisions.append(decisionRow({ call: 'away' }));
      await offline.close();

      proxy.restore();
      const online = await openTeamOrWorkspace({ ...options(proxy.urlFor(url), workspacePath, [], []), team: { shareDecisions: true } });
      expect(online.ratings).toBeInstanceOf(TeamLedger);
      await online.close();
      expect(await query(url, 'SELECT member_id, call_id FROM rung_decisions')).toEqual([{ member_id: 'ana', call_id: 'away' }]);
    } finally {
      await proxy.close();
      folder.remove();
    }
  });

  it('shares decision rows with the team only when rung.teamLedger.shareDecisions is on', async () => {
    const url = await freshDatabase(server);
    const folder = makeTempDir('rung-team-choice-');
    try {
      const workspacePath = join(folder.path, '.rung', 'ledger.sqlite');
      for (const shareDecisions of [false, true]) {
        const ledger = await openTeamOrWorkspace({ ...options(url, workspacePath, [], []), team: { shareDecisions } });
        expect(ledger.ratings).toBeInstanceOf(TeamLedger);
        ledger.decisions.append(decisionRow({ call: shareDecisions ? 'shared' : 'kept' }));
        await ledger.close();
      }
      expect(await query(url, 'SELECT call_id FROM rung_decisions')).toEqual([{ call_id: 'shared' }]);
    } finally {
      folder.remove();
    }
  });
});
