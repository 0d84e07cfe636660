import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../src/core/store/openStore';
import type { Store } from '../../../../src/core/store/store';
import type { StoreLocation } from '../../../../src/core/store/storeLocation';
import { FixedClock } from '../../support/FixedClock';
import { decisionRow } from '../../support/decisionRow';
import { makeTempDir } from '../../support/tempDir';

const temps: { remove(): void }[] = [];
afterEach(() => temps.splice(0).forEach((dir) => dir.remove()));

function folder(): string {
  const dir = makeTempDir('rung-store-');
  temps.push(dir);
  return dir.path;
}

/** What every store answers the same way, whatever it is kept in. */
async function learnAndRead(store: Store): Promise<void> {
  store.ratings.observe([
    { model: 'qwen2.5:3b', classKey: 'plan', success: true, at: 1 },
    { model: 'qwen2.5:3b', classKey: 'edit', success: false, at: 2 },
  ]);
  store.decisions.append(decisionRow({ call: 'a', class: 'plan' }));
  store.decisions.append(decisionRow({ call: 'b', class: 'edit', rung: 0, verdict: 'fail' }));
  store.decisions.append(decisionRow({ call: 'b', class: 'edit', rung: 1, model: 'qwen3:14b' }));
  // Rows are readable as soon as they are appended, before any flush.
  expect(store.decisions.page(0, 10, {}).rows.map((row) => row.call)).toEqual(['b', 'b', 'a']);
  expect(store.decisions.page(0, 10, { verdict: 'fail' }).total).toBe(2);
  await store.flush();
  expect(store.decisions.forCall('b').map((row) => row.rung)).toEqual([0, 1]);
  expect(store.decisions.all()).toHaveLength(3);
  expect(await store.reset('edit')).toBe(1);
  const exported = (await store.export()).trim().split('\n');
  expect(exported.filter((line) => line.includes('"classKey":"plan"'))).toHaveLength(1);
  expect(exported.filter((line) => line.includes('"classKey":"edit"'))).toHaveLength(0);
}

describe('openStore', () => {
  it('keeps ratings and decision rows in memory, paged and exported as a file store does', async () => {
    const store = await openStore({ kind: 'memory' }, { clock: new FixedClock(), log: () => {} });
    expect(store.decisions.path).toBeNull();
    await learnAndRead(store);
    await store.close();
  });

  it('keeps them in the workspace file with the decision log beside it, read back after reopening', async () => {
    const path = join(folder(), '.rung', 'ledger.sqlite');
    const location: StoreLocation = { kind: 'file', path };
    const store = await openStore(location, { clock: new FixedClock(), log: () => {} });
    expect(store.decisions.path).toBe(join(path, '..', 'decisions.jsonl'));
    await learnAndRead(store);
    await store.close();
    expect(
      readFileSync(join(path, '..', 'decisions.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
    const again = await openStore(location, { clock: new FixedClock(), log: () => {} });
    expect(again.ratings.entries().map((entry) => `${entry.model} ${entry.classKey}`)).toEqual(['qwen2.5:3b plan']);
    expect(again.decisions.page(0, 10, { classKey: 'edit' }).total).toBe(2);
    await again.close();
  });

  it('refuses a decision log that is a folder before anything is learned', async () => {
    const dir = folder();
    mkdirSync(join(dir, '.rung', 'decisions.jsonl'), { recursive: true });
    const opening = openStore({ kind: 'file', path: join(dir, '.rung', 'ledger.sqlite') }, { clock: new FixedClock(), log: () => {} });
    await expect(opening).rejects.toThrow('it is a directory, not a file');
  });

  it('writes nothing when read-only, not even the folder', async () => {
    const dir = folder();
    const store = await openStore(
      { kind: 'file', path: join(dir, 'none', 'ledger.sqlite') },
      { clock: new FixedClock(), log: () => {}, readOnly: true },
    );
    expect(store.ratings.entries()).toEqual([]);
    await store.close();
    expect(existsSync(join(dir, 'none'))).toBe(false);
  });

  it('falls back to the workspace file when the team server does not answer, says so once, and keeps the decision log there', async () => {
    const dir = folder();
    const fallbackPath = join(dir, '.rung', 'ledger.sqlite');
    const said: string[] = [];
    const shown: string[] = [];
    const store = await openStore(
      { kind: 'team', url: 'postgres://ana@127.0.0.1:1/team', fallbackPath },
      {
        clock: new FixedClock(),
        log: (level, message) => said.push(`${level}: ${message}`),
        userFolder: join(dir, 'user-storage'),
        team: { memberId: 'ana', subject: 'this run', notifyFallback: (message) => shown.push(message), connectTimeoutMs: 2_000 },
      },
    );
    expect(shown).toEqual([expect.stringMatching(/this run learns into the workspace ledger .*ledger\.sqlite instead/)]);
    expect(said.filter((line) => line.startsWith('warning:'))).toHaveLength(1);
    expect(store.decisions.path).toBe(join(dir, '.rung', 'decisions.jsonl'));
    await learnAndRead(store);
    await store.close();
  });
});
