import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock, type LockTakeover, type LockWait } from '../../../../src/core/files/fileLock';
import { deadPid as anyDeadPid } from '../../support/deadPid';
import { FixedClock } from '../../support/doubles';
import { makeTempDir } from '../../support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
/** The pid of a process that has already exited: a holder known to be dead. */
let deadPid: number;
beforeEach(() => (deadPid = anyDeadPid()));
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
    const takeovers: LockTakeover[] = [];
    const held = new FileLock({ path, clock, onTakeover: (info) => takeovers.push(info) }).tryAcquire();
    expect(held).toBeDefined();
    expect(takeovers.map((info) => [info.description, info.reason])).toEqual([['pid 4242', 'stale']]);
    expect(readFileSync(path, 'utf8')).not.toContain('dead');
  });

  it('does not take over a lock younger than 30 seconds', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'alive', pid: 4242, at: clock.now() - 29_000 }));
    expect(new FileLock({ path, clock }).tryAcquire()).toBeUndefined();
  });

  it("leaves the taker's lock alone when a holder that was taken over finally releases", () => {
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

  it("writes its pid, this machine's name and the time into the lock, as JSON", () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    new FileLock({ path, clock }).tryAcquire();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      token: expect.any(String),
      pid: process.pid,
      host: hostname(),
      at: clock.now(),
    });
  });

  it('takes over at once a fresh lock whose holder on this machine no longer runs', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'dead', pid: deadPid, host: hostname(), at: clock.now() }));
    const takeovers: LockTakeover[] = [];
    const held = new FileLock({ path, clock, onTakeover: (info) => takeovers.push(info) }).tryAcquire();
    expect(held).toBeDefined();
    expect(takeovers).toEqual([{ path, reason: 'holder-dead', pid: deadPid, host: hostname(), ageMs: 0, description: `pid ${deadPid}` }]);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
  });

  it('leaves a fresh lock alone while its holder on this machine still runs', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'alive', pid: process.ppid, host: hostname(), at: clock.now() - 29_000 }));
    expect(new FileLock({ path, clock }).tryAcquire()).toBeUndefined();
  });

  it('keeps the age rule for a lock from another machine, whose pid means nothing here', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'theirs', pid: deadPid, host: `not-${hostname()}`, at: clock.now() - 29_000 }));
    const takeovers: LockTakeover[] = [];
    const lock = new FileLock({ path, clock, onTakeover: (info) => takeovers.push(info) });
    expect(lock.tryAcquire()).toBeUndefined();
    clock.advance(1_001);
    expect(lock.tryAcquire()).toBeDefined();
    expect(takeovers.map((info) => [info.reason, info.description])).toEqual([['stale', `pid ${deadPid} on not-${hostname()}`]]);
  });

  it('keeps the age rule for a lock that names no host, as an older Rung wrote them', () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    writeFileSync(path, JSON.stringify({ token: 'old', pid: deadPid, at: clock.now() - 29_000 }));
    const lock = new FileLock({ path, clock });
    expect(lock.tryAcquire()).toBeUndefined();
    clock.advance(1_001);
    expect(lock.tryAcquire()).toBeDefined();
  });

  it('says once that it is waiting, naming the holder and its age, until it has had the lock again', async () => {
    const clock = new FixedClock();
    const path = join(dir.path, 'x.lock');
    const holder = new FileLock({ path, clock, host: 'other-machine' });
    const held = holder.tryAcquire();
    clock.advance(12_000);
    const waits: LockWait[] = [];
    const waiter = new FileLock({ path, clock, attempts: 2, intervalMs: 1, onWait: (info) => waits.push(info) });
    expect(await waiter.acquire()).toBeUndefined();
    expect(await waiter.acquire()).toBeUndefined();
    expect(waits).toEqual([
      { path, pid: process.pid, host: 'other-machine', ageMs: 12_000, description: `pid ${process.pid} on other-machine`, staleMs: 30_000 },
    ]);
    held?.release();
    (await waiter.acquire())?.release();
    expect(holder.tryAcquire()).toBeDefined();
    expect(await waiter.acquire()).toBeUndefined();
    expect(waits).toHaveLength(2);
  });
});
