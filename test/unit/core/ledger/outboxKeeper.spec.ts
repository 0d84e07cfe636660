import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { OutboxKeeper, TeamOutbox, type OutboxEntry, type Unsent } from '../../../../src/core/ledger/teamOutbox';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => (folder = makeTempDir('rung-keeper-')));
afterEach(() => folder.remove());

/** Ana, who shares her decision rows. */
const ANA = { memberId: 'ana', shareDecisions: true };

function entry(origin: string, member = 'ana'): OutboxEntry {
  return { member, origin, observation: { model: 'm', classKey: 'c', success: true, at: 1 } };
}

describe('OutboxKeeper', () => {
  it('moves the queue into the outbox file, out of the queue, and counts it until a send carries it', async () => {
    const outbox = new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock });
    const keeper = new OutboxKeeper(outbox, undefined, ANA);
    const queued: Unsent = {
      observations: [entry('w:1'), entry('w:2')],
      decisions: [{ member: 'ana', decision: decisionRow({ call: 'call-1' }) }],
    };
    await keeper.keep(queued);
    expect(queued).toEqual({ observations: [], decisions: [] });
    expect(outbox.read().map((item) => item.origin)).toEqual(['w:1', 'w:2']);
    expect([keeper.observations.length, keeper.decisionCount]).toEqual([2, 1]);
    const waiting = keeper.waiting(queued);
    expect([waiting.observations.length, waiting.decisions.length]).toEqual([2, 1]);
    await keeper.sent(waiting);
    expect(existsSync(outbox.path)).toBe(false);
    expect([keeper.observations.length, keeper.decisionCount]).toEqual([0, 0]);
  });

  it('sends along only the entries of the file that are not queued already', async () => {
    const outbox = new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock });
    await outbox.add([entry('w:1'), entry('w:2')]);
    const keeper = new OutboxKeeper(outbox, undefined, ANA);
    expect(keeper.waiting({ observations: [entry('w:2'), entry('w:3')], decisions: [] }).observations.map((item) => item.origin)).toEqual([
      'w:1',
    ]);
  });

  it('leaves the queue as it was, and says so, when the outbox cannot be written', async () => {
    writeFileSync(join(folder.path, 'not-a-folder'), '');
    const notices: string[] = [];
    const keeper = new OutboxKeeper(
      new TeamOutbox({ path: join(folder.path, 'not-a-folder', 'outbox.jsonl'), clock: systemClock }),
      (message) => notices.push(message),
      ANA,
    );
    const queued: Unsent = { observations: [entry('w:1')], decisions: [] };
    await keeper.keep(queued);
    expect(queued.observations.map((item) => item.origin)).toEqual(['w:1']);
    expect(keeper.observations).toEqual([]);
    expect(notices).toEqual([expect.stringContaining('1 observations stay in memory only')]);
  });

  it('keeps everything queued in memory when there is no outbox file', async () => {
    const keeper = new OutboxKeeper(undefined, undefined, ANA);
    const queued: Unsent = { observations: [entry('w:1')], decisions: [] };
    await keeper.keep(queued);
    expect(queued.observations).toHaveLength(1);
    expect(keeper.waiting(queued)).toEqual({ observations: [], decisions: [] });
  });

  it("sends only the member's own lines, and decision rows only while the member shares them, leaving the rest and saying so once", async () => {
    const outbox = new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock });
    await outbox.add([entry('w:1'), entry('w:2', 'mallory')]);
    await outbox.addDecisions([
      { member: 'ana', decision: decisionRow({ call: 'mine' }) },
      { member: 'mallory', decision: decisionRow({ call: 'theirs' }) },
    ]);
    const notices: string[] = [];
    const sharing = new OutboxKeeper(outbox, (message) => notices.push(message), ANA);
    const waiting = sharing.waiting({ observations: [], decisions: [] });
    expect(waiting.observations.map((item) => item.origin)).toEqual(['w:1']);
    expect(waiting.decisions.map((item) => item.decision.call)).toEqual(['mine']);
    sharing.waiting({ observations: [], decisions: [] });
    expect(notices).toEqual([
      `the team outbox ${outbox.path} holds 2 lines under another member than ana; only what ana learned is sent, and they were left as they are`,
    ]);
    const notSharing = new OutboxKeeper(outbox, (message) => notices.push(message), { memberId: 'ana', shareDecisions: false });
    expect(notSharing.waiting({ observations: [], decisions: [] }).decisions).toEqual([]);
    expect(notices.at(-1)).toBe(
      `the team outbox ${outbox.path} holds 1 decision row shared earlier; they are sent only while this member shares decision rows, and wait there until then`,
    );
    await sharing.sent(waiting);
    expect(outbox.read().map((item) => item.member)).toEqual(['mallory']);
    expect(outbox.readDecisions().map((item) => item.member)).toEqual(['mallory']);
  });
});
