import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock } from '../../../../src/core/ledger/fileLock';
import { FixedClock } from '../../support/doubles';
import { makeTempDir } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => (dir = makeTempDir()));
afterEach(() => dir.remove());

describe('FileLock', () => {
  it('lets one holder in at a time and frees the lock on release', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    const first = new FileLock({ path, clock });
    const second = new FileLock({ path, clock });
    const held = first.tryAcquire();
    expect(held).toBeDefined();
    expect(second.tryAcquire()).toBeUndefined();
    held?.release();
    expect(existsSync(path)).toBe(false);
    expect(second.tryAcquire()).toBeDefined();
  });

  it('gives up after its attempts while another holds the lock', async () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    new FileLock({ path, clock }).tryAcquire();
    expect(await new FileLock({ path, clock, attempts: 3, intervalMs: 1 }).acquire()).toBeUndefined();
  });

  it('takes over a lock older than 30 seconds and reports it', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'dead', pid: 4242, at: clock.now() - 30_001 }));
    const takeovers: string[] = [];
    const held = new FileLock({ path, clock, onTakeover: (info) => takeovers.push(info.holder) }).tryAcquire();
    expect(held).toBeDefined();
    expect(takeovers).toEqual(['pid 4242']);
    expect(readFileSync(path, 'utf8')).not.toContain('dead');
  });

  it('does not take over a lock younger than 30 seconds', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'alive', pid: 4242, at: clock.now() - 29_000 }));
    expect(new FileLock({ path, clock }).tryAcquire()).toBeUndefined();
  });

  it('leaves the taker\'s lock alone when a holder that was taken over finally releases', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    const slow = new FileLock({ path, clock }).tryAcquire();
    clock.advance(31_000);
    const taker = new FileLock({ path, clock }).tryAcquire();
    expect(taker).toBeDefined();
    slow?.release();
    expect(existsSync(path)).toBe(true);
    taker?.release();
    expect(existsSync(path)).toBe(false);
  });
});
