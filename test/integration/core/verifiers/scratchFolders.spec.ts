import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStart, scratchPrefix, sweepDeadScratch } from '../../../../src/core/verifiers/scratchFolders';
import { makeTempDir } from '../../../unit/support/tempDir';

let root: ReturnType<typeof makeTempDir>;
let elsewhere: ReturnType<typeof makeTempDir>;
let live: ChildProcess;

beforeEach(() => {
  root = makeTempDir('rung-sweep-');
  elsewhere = makeTempDir('rung-sweep-target-');
  live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
});

afterEach(() => {
  live.kill('SIGKILL');
  root.remove();
  elsewhere.remove();
});

/** A pid no process holds: one that has just exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid as number;
}

function folder(name: string): string {
  mkdirSync(join(root.path, name));
  writeFileSync(join(root.path, name, '.env'), 'SECRET=1\n');
  return name;
}

describe('sweepDeadScratch', () => {
  it("removes the copies of runs that no longer run, and keeps this run's, a live run's and everything not Rung's", async () => {
    const livePid = live.pid as number;
    const gone = deadPid();
    const dead = folder(`rung-verify-${gone}-x-a1B2c3`);
    const deadWithStart = folder(`rung-verify-${gone}-123456-d4E5f6`);
    const own = folder(`${scratchPrefix()}g7H8i9`);
    const liveUnknownStart = folder(`rung-verify-${livePid}-x-j1K2l3`);
    const older = folder('rung-verify-m4N5o6');
    const other = folder(`other-${gone}-x-p7Q8r9`);
    const file = `rung-verify-${gone}-x-s1T2u3`;
    writeFileSync(join(root.path, file), 'a file, not a copy');
    // A link someone else planted with Rung's name, pointing at a folder of theirs: never followed.
    const link = `rung-verify-${gone}-x-v4W5x6`;
    writeFileSync(join(elsewhere.path, 'keep.txt'), 'theirs');
    symlinkSync(elsewhere.path, join(root.path, link));
    const removed = await sweepDeadScratch(root.path);
    expect(removed.sort()).toEqual([join(root.path, dead), join(root.path, deadWithStart)].sort());
    expect(readdirSync(root.path).sort()).toEqual([own, liveUnknownStart, older, other, file, link].sort());
    expect(existsSync(join(elsewhere.path, 'keep.txt'))).toBe(true);
  });

  it.runIf(processStart(process.pid) !== undefined)(
    'tells a live run from a dead one whose pid another process now holds, by when that process started',
    async () => {
      const livePid = live.pid as number;
      const start = processStart(livePid) as string;
      const stillRunning = folder(`rung-verify-${livePid}-${start}-a1B2c3`);
      const pidReused = folder(`rung-verify-${livePid}-${Number(start) - 1}-d4E5f6`);
      const previousOwnPid = folder(`rung-verify-${process.pid}-${Number(processStart(process.pid)) - 1}-g7H8i9`);
      expect((await sweepDeadScratch(root.path)).sort()).toEqual([join(root.path, pidReused), join(root.path, previousOwnPid)].sort());
      expect(readdirSync(root.path)).toEqual([stillRunning]);
    },
  );

  it("names this process's copies with its pid and its start", () => {
    expect(scratchPrefix()).toBe(`rung-verify-${process.pid}-${processStart(process.pid) ?? 'x'}-`);
  });
});
