import { buildSync } from 'esbuild';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock';
import { DecisionLog, decisionLogPath } from '../../../../src/core/ledger/decisionLog';
import { decisionRow } from '../../../unit/support/decisionRow';
import { makeTempDir, WASM_PATH } from '../../../unit/support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

describe('DecisionLog across processes', () => {
  let build: ReturnType<typeof makeTempDir>;
  let worker: string;
  beforeAll(() => {
    build = makeTempDir('rung-worker-');
    worker = join(build.path, 'worker.js');
    buildSync({
      entryPoints: [join(__dirname, 'fixtures/ledgerWorker.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: worker,
      logLevel: 'error',
    });
  });
  afterAll(() => build.remove());

  it('keeps every whole row of three appenders while compaction rewrites the file under them', async () => {
    const ledgerPath = join(dir.path, 'ledger.sqlite');
    const log = new DecisionLog({ path: decisionLogPath(ledgerPath), clock: systemClock });
    const count = 60;
    const children = [0, 1, 2].map((index) =>
      fork(worker, ['decide', ledgerPath, WASM_PATH, String(index), String(count)], { stdio: 'ignore' }),
    );
    const exits = children.map((child) => new Promise<number | null>((resolve) => child.on('exit', resolve)));
    let compactions = 0;
    let running = true;
    void Promise.all(exits).then(() => (running = false));
    while (running) {
      // An old row each round, so every compaction really rewrites and renames the file.
      log.append(decisionRow({ call: `old-${compactions}`, at: 1 }));
      await log.flush();
      await log.compact({ maxAgeMs: 60_000 });
      compactions++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await Promise.all(exits)).toEqual([0, 0, 0]);
    const { rows, skipped } = log.readAll();
    expect(skipped).toBe(0);
    expect(compactions).toBeGreaterThan(0);
    const calls = rows.map((row) => row.call).filter((call) => !call.startsWith('old-'));
    expect(calls.sort()).toEqual([0, 1, 2].flatMap((index) => Array.from({ length: count }, (_, i) => `w${index}-c${i}`)).sort());
  });
});
