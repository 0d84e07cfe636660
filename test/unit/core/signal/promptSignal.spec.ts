import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateWorld, worldNamed } from '../../../../src/bench/worlds';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import type { Ledger } from '../../../../src/core/ledger/ledger';
import { MemoryLedger } from '../../../../src/core/ledger/memoryLedger';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { seededRandom } from '../../../../src/core/random';
import type { OutcomeRow } from '../../../../src/core/replay/outcomes';
import { runReplay, type ReplaySummary } from '../../../../src/core/replay/replay';
import { classPrior } from '../../../../src/core/difficulty';
import { promptFeatures, type PromptText } from '../../../../src/core/signal/promptFeatures';
import { readSignal, signalPrior } from '../../../../src/core/signal/promptSignal';
import { FixedClock } from '../../support/FixedClock';
import { ManualScheduler } from '../../support/doubles';
import { makeTempDir, WASM_PATH } from '../../support/tempDir';

// eleven-models with 4% of prompts nobody answers: the calls where climbing the whole ladder buys nothing.
const world = worldNamed('eleven-models-unanswerable');
const models = world.models.map((model) => model.slug);
const rows = generateWorld(world, 1);

/** Prompts whose text gives away most of the calls nobody answers: 80% of them say so, 1% of the others too. */
function tellingPrompts(from: readonly OutcomeRow[]): Map<string, PromptText> {
  const random = seededRandom(7);
  const topics = ['river', 'planet', 'engine', 'garden', 'market', 'poem', 'number', 'castle'];
  return new Map(
    from.map((row) => {
      const nobody = models.every((model) => row.m[model]?.c === 0);
      const marked = random() < (nobody ? 0.8 : 0.01);
      const topic = topics[Math.floor(random() * topics.length)] as string;
      return [row.id, { text: `A question about the ${topic}.${marked ? ' The text is garbled beyond repair.' : ''}` }];
    }),
  );
}

const replay = (
  part: readonly OutcomeRow[],
  ledger: Ledger,
  sink: MemoryDecisionSink,
  prompts?: Map<string, PromptText>,
): Promise<ReplaySummary> =>
  runReplay({
    rows: part,
    models,
    verifier: { kind: 'perfect' },
    classKey: 'family',
    seed: 1,
    inOrder: true,
    ledger,
    sink,
    ...(prompts ? { prompts } : {}),
  });

let sql: SqlJsStatic;
beforeAll(async () => {
  sql = await initSqlJs({ locateFile: () => WASM_PATH });
});
let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

describe('the per-prompt signal', () => {
  it('gives the class prior exactly while it has learned nothing', () => {
    const reading = readSignal(undefined, promptFeatures({ text: 'anything at all' }, 'plan'), 'plan');
    expect(reading.speaks).toBe(false);
    expect([...signalPrior(reading)]).toEqual([...classPrior()]);
  });

  it('learns which prompts nobody answers, stops paying for them, and says so in the decision rows', async () => {
    const without = new MemoryDecisionSink();
    const plain = await replay(rows, new MemoryLedger(), without);
    const withText = new MemoryDecisionSink();
    const told = await replay(rows, new MemoryLedger(), withText, tellingPrompts(rows));

    expect(told.policy.accuracy).toBeGreaterThanOrEqual(plain.policy.accuracy);
    expect(told.policy.cost).toBeLessThan(plain.policy.cost);
    const skipped = withText.rows
      .flatMap((row) => row.pruned.map((entry) => entry.reason))
      .filter((reason) => /^skipped: predicted 0\.\d\d success for this prompt; stopped climbing/.test(reason));
    expect(skipped.length).toBeGreaterThan(20);
    expect(withText.rows.some((row) => /; predicted 0\.\d\d success for this prompt \(0\.\d\d for the class\)/.test(row.reason))).toBe(
      true,
    );
    expect(without.rows.some((row) => row.reason.includes('for this prompt'))).toBe(false);
  });

  it('stays silent on prompts that say nothing, and the calls route as without it', async () => {
    const same = new Map(rows.map((row) => [row.id, { text: 'A question.' }]));
    const silent = new MemoryDecisionSink();
    await replay(rows, new MemoryLedger(), silent, same);
    const none = new MemoryDecisionSink();
    await replay(rows, new MemoryLedger(), none);
    expect(silent.rows).toEqual(none.rows);
  });

  it('survives a reopened workspace ledger: the calls after it route exactly as in one that stayed open', async () => {
    const open = (): Promise<WorkspaceLedger> => {
      const clock = new FixedClock();
      return WorkspaceLedger.open({
        path: join(dir.path, '.rung', 'ledger.sqlite'),
        clock,
        sql,
        schedule: new ManualScheduler(clock).schedule,
      });
    };
    const prompts = tellingPrompts(rows);
    const [before, after] = [rows.slice(0, 900), rows.slice(900, 1_300)];
    const stayed = new MemoryDecisionSink();
    const kept = await open();
    await replay(before, kept, stayed, prompts);
    const learned = kept.snapshot(0).signal?.();
    await replay(after, kept, stayed, prompts);
    await kept.close();
    expect([...(learned?.classes.values() ?? [])].some((stats) => stats.calls > 250)).toBe(true);

    dir.remove();
    dir = makeTempDir();
    const split = new MemoryDecisionSink();
    const first = await open();
    await replay(before, first, split, prompts);
    await first.close();
    const second = await open();
    expect(second.snapshot(0).signal?.()).toEqual(learned);
    await replay(after, second, split, prompts);
    await second.close();
    expect(split.rows).toEqual(stayed.rows);
  });
});
