import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateWorld, worldNamed } from '../../../../src/bench/worlds';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import type { OutcomeRow } from '../../../../src/core/replay/outcomes';
import { runReplay } from '../../../../src/core/replay/replay';
import { FixedClock, ManualScheduler } from '../../support/doubles';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

// The world shaped like the unseen 11-model data: in `science` and `commonsense` the cheap rungs between
// them answer nearly every answerable prompt, so the dear rungs are climbed to only on calls that every
// cheaper rung failed, which are mostly calls nobody answers.
const world = worldNamed('eleven-models');
const models = world.models.map((model) => model.slug);
const rows = generateWorld(world, 1);

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});
let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

describe('ratings that follow the presumed prior', () => {
  it('order the models past the gate with their true accuracy where the dear rungs only see calls the cheap ones failed', async () => {
    const sink = new MemoryDecisionSink();
    const run = await runReplay({
      rows,
      models,
      verifier: { kind: 'perfect' },
      classKey: 'family',
      seed: 1,
      inOrder: true,
      ledger: new MemoryLedger(),
      sink,
    });
    // The decisions say which ratings stand on the presumed prior rather than on their own outcomes.
    expect(sink.rows.some((row) => row.class === 'science' && /rated on its presumed prior \d/.test(row.reason))).toBe(true);
    const byClass = new Map(run.rankCorrelation.map((entry) => [entry.class, entry.pastGateRho]));
    // Rated from the role's prior alone, the dear rungs sat below the cheap ones here: −0.29 in the mean.
    for (const cls of ['science', 'commonsense', 'code']) expect(byClass.get(cls), cls).toBeGreaterThan(0.3);
    const rhos = [...byClass.values()].map((rho) => rho ?? 0);
    expect(rhos.reduce((sum, rho) => sum + rho, 0) / rhos.length).toBeGreaterThan(0.5);
  });

  it('route a reopened workspace ledger exactly as one that stayed open', async () => {
    const open = (): Promise<WorkspaceLedger> => {
      const clock = new FixedClock();
      return WorkspaceLedger.open({
        path: join(dir.path, '.rung', 'ledger.sqlite'),
        clock,
        sql,
        schedule: new ManualScheduler(clock).schedule,
      });
    };
    const replay = (part: readonly OutcomeRow[], ledger: WorkspaceLedger, sink: MemoryDecisionSink) =>
      runReplay({ rows: part, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 1, inOrder: true, sink, ledger });
    // Two replays back to back, the ledger kept open between them; then the same with it closed and reopened.
    const [before, after] = [rows.slice(0, 800), rows.slice(800, 1_600)];
    const stayed = new MemoryDecisionSink();
    const kept = await open();
    await replay(before, kept, stayed);
    await replay(after, kept, stayed);
    await kept.close();

    dir.remove();
    dir = makeTempDir();
    const split = new MemoryDecisionSink();
    const first = await open();
    await replay(before, first, split);
    // By now dear rungs' ratings have followed priors that moved: the file must carry where they stand.
    const following = first.entries().filter((entry) => entry.followedPrior !== undefined && entry.followedPrior > 0);
    expect(following.length).toBeGreaterThan(0);
    await first.close();
    const reopened = await open();
    const carried = new Map(reopened.entries().map((entry) => [`${entry.model}|${entry.classKey}`, entry]));
    for (const entry of following) {
      const back = carried.get(`${entry.model}|${entry.classKey}`);
      expect([back?.information, back?.followedPrior]).toEqual([entry.information, entry.followedPrior]);
    }
    await replay(after, reopened, split);
    await reopened.close();

    const decide = (sink: MemoryDecisionSink) => sink.rows.map((row) => `${row.call} ${row.model} ${row.verdict} ${row.reason}`);
    expect(decide(split)).toEqual(decide(stayed));
  });
});
