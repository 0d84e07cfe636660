/**
 * A lock shared by every process that writes one workspace file: an exclusively created lock file.
 *
 * @remarks
 * Two VS Code windows and the `rung` CLI share nothing but the file system, so the lock is a file
 * created with `O_EXCL` (`wx`): the kernel lets exactly one creator win. A holder that crashed leaves
 * its lock behind, so a lock older than {@link LOCK_STALE_MS} is taken over. The takeover renames the
 * stale file aside and checks it moved the very file it judged stale (same inode); a second process
 * that judged the same lock stale a moment later would otherwise delete the lock the first had just
 * taken. Failing to get the lock is not an error: the caller keeps its queue and tries again, so a
 * busy lock costs latency and never data.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Clock } from '../clock';

/** Attempts to create the lock before giving up for now; with the interval, about one second (the origin's 40 × 25 ms). */
export const LOCK_WAIT_ATTEMPTS = 40;
/** Pause between attempts, ms (the origin's 25 ms). */
export const LOCK_WAIT_INTERVAL_MS = 25;
/**
 * A lock older than this is presumed abandoned and taken over, ms (the origin's 30 s).
 *
 * @remarks
 * A save holds the lock for milliseconds (see the ledger benchmark), so 30 s is four orders of magnitude
 * of margin against taking over a live holder, and short enough that a crashed window delays the
 * others' saves by at most half a minute.
 */
export const LOCK_STALE_MS = 30_000;

export interface FileLockOptions {
  /** The lock file, usually the protected file's path plus `.lock`. */
  path: string;
  clock: Clock;
  attempts?: number;
  intervalMs?: number;
  staleMs?: number;
  /** Told when a stale lock was taken over. */
  onTakeover?: (info: { path: string; ageMs: number; holder: string }) => void;
}

/** A held lock; release it exactly once. */
export interface LockHandle {
  release(): void;
}

interface LockContent {
  token: string;
  pid: number;
  /** When it was taken, by the taker's clock, ms since the epoch. */
  at: number;
}

export class FileLock {
  readonly path: string;
  private readonly clock: Clock;
  private readonly attempts: number;
  private readonly intervalMs: number;
  private readonly staleMs: number;
  private readonly onTakeover: FileLockOptions['onTakeover'];

  constructor(options: FileLockOptions) {
    this.path = options.path;
    this.clock = options.clock;
    this.attempts = options.attempts ?? LOCK_WAIT_ATTEMPTS;
    this.intervalMs = options.intervalMs ?? LOCK_WAIT_INTERVAL_MS;
    this.staleMs = options.staleMs ?? LOCK_STALE_MS;
    this.onTakeover = options.onTakeover;
  }

  /** Waits up to attempts × interval for the lock; undefined when another process kept it that long. */
  async acquire(): Promise<LockHandle | undefined> {
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      const handle = this.tryAcquire();
      if (handle) return handle;
      if (attempt + 1 < this.attempts) await sleep(this.intervalMs);
    }
    return undefined;
  }

  /** One attempt: create the lock, or take it over when stale. Never waits. */
  tryAcquire(): LockHandle | undefined {
    const created = this.create();
    if (created) return created;
    if (this.takeOverIfStale()) return this.create();
    return undefined;
  }

  private create(): LockHandle | undefined {
    const content: LockContent = { token: randomUUID(), pid: process.pid, at: this.clock.now() };
    let fd: number;
    try {
      fd = openSync(this.path, 'wx');
    } catch (error) {
      if (isCode(error, 'EEXIST')) return undefined;
      throw error;
    }
    try {
      writeSync(fd, JSON.stringify(content));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        // Only remove the lock if it is still ours: a holder that was taken over must not delete the taker's lock.
        if (this.readContent()?.token === content.token) unlinkQuietly(this.path);
      },
    };
  }

  /** Moves a stale lock aside; true when it did (or the lock vanished meanwhile). */
  private takeOverIfStale(): boolean {
    let judged: { ino: bigint; content: LockContent | undefined; mtimeMs: number };
    try {
      const fd = openSync(this.path, 'r');
      try {
        const stat = fstatSync(fd, { bigint: true });
        judged = { ino: stat.ino, content: parseContent(readAll(fd)), mtimeMs: Number(stat.mtimeMs) };
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isCode(error, 'ENOENT')) return true;
      throw error;
    }
    // A lock whose content was never written (its taker died between create and write) is aged by its mtime.
    const takenAt = judged.content?.at ?? judged.mtimeMs;
    const ageMs = this.clock.now() - takenAt;
    if (ageMs <= this.staleMs) return false;
    const aside = `${this.path}.stale-${randomUUID()}`;
    try {
      renameSync(this.path, aside);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return true;
      throw error;
    }
    if (statSync(aside, { bigint: true }).ino !== judged.ino) {
      // We moved a fresh lock someone took after our judgement: put it back unless a third process already took the name.
      try {
        linkSync(aside, this.path);
      } catch {
        // The name is taken again; that holder and the one we displaced may overlap once. Nothing safer exists without kernel locks.
      }
      unlinkQuietly(aside);
      return false;
    }
    unlinkQuietly(aside);
    this.onTakeover?.({ path: this.path, ageMs, holder: judged.content ? `pid ${judged.content.pid}` : 'unknown' });
    return true;
  }

  private readContent(): LockContent | undefined {
    try {
      return parseContent(readFileSync(this.path, 'utf8'));
    } catch {
      return undefined;
    }
  }
}

function parseContent(text: string): LockContent | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && 'token' in value && 'at' in value && 'pid' in value) {
      const { token, at, pid } = value;
      if (typeof token === 'string' && typeof at === 'number' && typeof pid === 'number') return { token, at, pid };
    }
  } catch {
    // An empty or half-written lock: the caller falls back to its mtime.
  }
  return undefined;
}

function readAll(fd: number): string {
  const buffer = Buffer.alloc(512);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.subarray(0, length).toString('utf8');
}

/** Removes a file that may already be gone; gone is the outcome wanted either way. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: the outcome we wanted.
  }
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
