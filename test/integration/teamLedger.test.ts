/**
 * A team's ledger in a real extension host: `rung.teamLedger.url` pointed at a real PostgreSQL (started
 * by scripts/test-postgres.sh, stopped after), a URL with a password refused, and an unreachable server
 * falling back to the workspace file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { systemClock } from '../../src/core/clock';
import { TeamLedger } from '../../src/core/ledger/teamLedger';
import type { RungApi } from '../../src/extension/extension';
import { eventually, RUNG_EXTENSION_ID } from './support/rung';
import { scaled } from '../timeScale';

/** A model only the team's server has heard of: seeing its rating means the session reads the team. */
const TEAM_MODEL = 'team-only/model';

let api: RungApi;
let script: string;
let server: { url: string; folder: string } | undefined;

async function logText(): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(api.logFolder, 'Rung.log')));
}

async function setTeamUrl(url: string | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('rung').update('teamLedger.url', url, vscode.ConfigurationTarget.Workspace);
}

async function ranksFromTeam(): Promise<boolean> {
  return (await api.session()).snapshot({ limit: 0 }).ratings.some((rating) => rating.model === TEAM_MODEL);
}

describe('a team ledger in a real extension host', function () {
  this.timeout(scaled(360_000));

  before(async function () {
    const extension = vscode.extensions.getExtension<RungApi>(RUNG_EXTENSION_ID);
    assert.ok(extension, `${RUNG_EXTENSION_ID} is installed`);
    api = extension.isActive ? extension.exports : await extension.activate();
    script = join(extension.extensionPath, 'scripts', 'test-postgres.sh');
    const [url, folder] = execFileSync('bash', [script, 'start'], { encoding: 'utf8' }).trim().split(' ');
    assert.ok(url && folder, 'scripts/test-postgres.sh printed a URL and a folder');
    server = { url, folder };
    const ben = await TeamLedger.open({ url, memberId: 'ben', clock: systemClock, syncIntervalMs: 0 });
    ben.observe([true, true, false].map((success, index) => ({ model: TEAM_MODEL, classKey: 'plan', success, at: index + 1 })));
    await ben.close();
  });

  after(async () => {
    await setTeamUrl(undefined);
    if (server) execFileSync('bash', [script, 'stop', server.folder]);
  });

  it('ranks from the team ledger once rung.teamLedger.url names it', async () => {
    assert.equal(await ranksFromTeam(), false);
    await setTeamUrl(server?.url);
    await eventually('the session to read the team ledger', ranksFromTeam);
    assert.match(await logText(), /learning into the team ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres as /);
  });

  it('refuses a URL with a password in it, saying so in the log without the password', async () => {
    await setTeamUrl(server?.url.replace('//postgres@', '//postgres:hunter2@'));
    const log = await eventually('the refusal in the log', async () => {
      const text = await logText();
      return /rung\.teamLedger\.url has a password in it/.test(text) ? text : undefined;
    });
    assert.ok(!log.includes('hunter2'));
    await eventually('the session to leave the team ledger', async () => !(await ranksFromTeam()));
  });

  it('learns into the workspace file, with a warning, when the server does not answer', async () => {
    await setTeamUrl('postgres://postgres@127.0.0.1:1/postgres');
    await eventually('the fallback in the log', async () =>
      /learns into the workspace ledger .*ledger\.sqlite instead/.test(await logText()),
    );
    assert.equal(await ranksFromTeam(), false);
  });
});
