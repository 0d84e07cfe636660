import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { decisionKey, outboxKey, TeamOutbox, teamOutboxPath, type OutboxEntry } from '../../../../src/core/ledger/teamOutbox';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => (folder = makeTempDir('rung-outbox-')));
afterEach(() => folder.remove());

function entry(origin: string, member = 'ana'): OutboxEntry {
  return { member, origin, observation: { model: 'm', classKey: 'c', success: true, at: 1 } };
}

describe('TeamOutbox', () => {
  it('adds each entry once however often it is added', async () => {
    const outbox = new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock });
    await outbox.add([entry('w:1'), entry('w:2')]);
    await outbox.add([entry('w:2'), entry('w:3')]);
    expect(outbox.read().map((item) => item.origin)).toEqual(['w:1', 'w:2', 'w:3']);
  });

  it('keeps apart the same origin observed by two members', async () => {
    const outbox = new TeamOutbox({ path: join(folder.path, 'outbox.jsonl'), clock: systemClock });
    await outbox.add([entry('w:1', 'ana'), entry('w:1', 'ben')]);
    expect(outbox.read()).toHaveLength(2);
  });

  it('removes what was acknowledged and deletes the file once it is empty', async () => {
    const path = join(folder.path, 'outbox.jsonl');
    const outbox = new TeamOutbox({ path, clock: systemClock });
    await outbox.add([entry('w:1'), entry('w:2')]);
    await outbox.remove(new Set([outboxKey(entry('w:1'))]));
    expect(outbox.read().map((item) => item.origin)).toEqual(['w:2']);
    await outbox.remove(new Set([outboxKey(entry('w:2'))]));
    expect(existsSync(path)).toBe(false);
    expect(outbox.read()).toEqual([]);
  });

  it('leaves a line it cannot read in place and says so once', async () => {
    const path = join(folder.path, 'outbox.jsonl');
    writeFileSync(path, `${JSON.stringify(entry('w:1'))}\nnot json at all\n`);
    const said: string[] = [];
    const outbox = new TeamOutbox({ path, clock: systemClock, onMalformed: (message) => said.push(message) });
    expect(outbox.read().map((item) => item.origin)).toEqual(['w:1']);
    await outbox.remove(new Set([outboxKey(entry('w:1'))]));
    expect(readFileSync(path, 'utf8')).toBe('not json at all\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/is neither an observation nor a decision row and was left in place: not json at all/);
  });

  it('keeps shared decision rows beside the observations, each once per member, call, attempt, final and time', async () => {
    const path = join(folder.path, 'outbox.jsonl');
    const outbox = new TeamOutbox({ path, clock: systemClock });
    const first = { member: 'ana', decision: decisionRow({ call: 'c1', at: 1_000 }) };
    const settled = { member: 'ana', decision: decisionRow({ call: 'c1', at: 1_000, final: true }) };
    const bens = { member: 'ben', decision: decisionRow({ call: 'c1', at: 1_000 }) };
    await outbox.add([entry('w:1')]);
    await outbox.addDecisions([first, settled]);
    await outbox.addDecisions([first, bens]);
    expect(outbox.read().map((item) => item.origin)).toEqual(['w:1']);
    expect(outbox.readDecisions()).toEqual([first, settled, bens]);
    // Four lines: the row added twice is in the file once.
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4);

    await outbox.remove(new Set([decisionKey(first), outboxKey(entry('w:1'))]));
    expect(outbox.read()).toEqual([]);
    expect(outbox.readDecisions()).toEqual([settled, bens]);
    expect(outbox.isEmpty).toBe(false);
    await outbox.remove(new Set([settled, bens].map(decisionKey)));
    expect(existsSync(path)).toBe(false);
    expect(outbox.isEmpty).toBe(true);
  });

  it('names one file per server, database and member, whoever connects and with whatever password', () => {
    const a = teamOutboxPath('/home/ana/.local/share/rung', 'postgres://ana:secret@db.example.com:5432/rung', 'ana');
    expect(a).toBe(teamOutboxPath('/home/ana/.local/share/rung', 'postgres://ben@db.example.com/rung', 'ana'));
    expect(a).not.toBe(teamOutboxPath('/home/ana/.local/share/rung', 'postgres://ana@db.example.com:5432/other', 'ana'));
    expect(a).not.toBe(teamOutboxPath('/home/ana/.local/share/rung', 'postgres://ana@db.example.com:5432/rung', 'ben'));
    expect(a).not.toContain('secret');
  });
});
