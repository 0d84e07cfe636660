import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callsToStopOpening } from '../../../../src/bench/qualityMeasures';
import { generateWorld, worldNamed } from '../../../../src/bench/worlds';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import type { OutcomeRow } from '../../../../src/core/replay/outcomes';
import { runReplay } from '../../../../src/core/replay/replay';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => dir.remove());

const world = worldNamed('drift');
const models = world.models.map((model) => model.slug);
const rows = generateWorld(world, 1);
const swap = rows.length / 2;

function openLedger(): Promise<WorkspaceLedger> {
  const clock = new FixedClock();
  return WorkspaceLedger.open({
    path: join(dir.path, '.rung', 'ledger.sqlite'),
    clock,
    sql,
    schedule: new ManualScheduler(clock).schedule,
  });
}

/** Replays `part` in order into `ledger`, adding its decision rows to `sink`. */
async function replay(part: readonly OutcomeRow[], ledger: WorkspaceLedger, sink: MemoryDecisionSink): Promise<void> {
  await runReplay({ rows: part, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1, inOrder: true, sink, ledger });
}

describe('the drift alarm across a reopened ledger', () => {
  it('carries on with an alarm under way after the ledger is closed and opened again, as if it had never closed', async () => {
    // The run once through, on one ledger that stays open.
    const whole = new MemoryDecisionSink();
    const kept = await openLedger();
    await replay(rows, kept, whole);
    await kept.close();
    const uninterrupted = callsToStopOpening(rows, whole.rows, 'swapped', 'alpha', swap);

    // The same run, the ledger closed and opened again two failures of the swapped model into the swap:
    // its surprise is building but has not yet fired.
    dir.remove();
    dir = makeTempDir();
    const cut =
      rows.findIndex(
        (row, index) =>
          index >= swap && row.family === 'alpha' && rows.slice(swap, index + 1).filter((r) => r.family === 'alpha').length === 2,
      ) + 1;
    const split = new MemoryDecisionSink();
    const first = await openLedger();
    await replay(rows.slice(0, cut), first, split);
    const building = first.entries().find((entry) => entry.model === 'swapped' && entry.classKey === 'alpha');
    await first.close();
    const reopened = await openLedger();
    const carried = reopened.entries().find((entry) => entry.model === 'swapped' && entry.classKey === 'alpha');
    await replay(rows.slice(cut), reopened, split);
    await reopened.close();

    expect(building?.surprise).toBeLessThan(-0.2);
    expect(carried?.surprise).toBe(building?.surprise);
    expect(carried?.rating).toBe(building?.rating);
    expect(split.rows.map((row) => `${row.call} ${row.model} ${row.verdict}`)).toEqual(
      whole.rows.map((row) => `${row.call} ${row.model} ${row.verdict}`),
    );
    expect(callsToStopOpening(rows, split.rows, 'swapped', 'alpha', swap)).toBe(uninterrupted);
    expect(uninterrupted).toBeLessThanOrEqual(40);
  });
});
