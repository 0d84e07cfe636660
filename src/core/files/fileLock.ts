/**
 * A lock shared by every process that writes one workspace file: an exclusively created lock file.
 *
 * @remarks
 * Two VS Code windows and the `rung` CLI share nothing but the file system, so the lock is a file
 * created with `O_EXCL` (`wx`): the kernel lets exactly one creator win. A holder that crashed leaves
 * its lock behind. The lock names its holder's pid and host, so a lock whose holder was a process on
 * this machine that no longer runs is taken over at once: VS Code kills extension hosts often (Reload
 * Window, an update, a crash), and a `kill -9` inside a save once made every other writer on the machine
 * wait 16.9 s for a lock naming a pid that no longer existed. A pid means nothing on another machine
 * (a ledger in a shared network folder), and a lock without a host was written by an older Rung, so
 * those are taken over only once older than {@link LOCK_STALE_MS}. The takeover renames the
 * stale file aside and checks it moved the very file it judged stale (same inode); a second process
 * that judged the same lock stale a moment later would otherwise delete the lock the first had just
 * taken. Failing to get the lock is not an error: the caller keeps its queue and tries again, so a
 * busy lock costs latency and never data.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Clock } from '../clock';
import { isCode, openFile, openNoFollow } from './safeFiles';

export { isCode } from './safeFiles';

/** Attempts to create the lock before giving up for now; with the interval, about one second (the origin's 40 × 25 ms). */
export const LOCK_WAIT_ATTEMPTS = 40;
/** Pause between attempts, ms (the origin's 25 ms). */
export const LOCK_WAIT_INTERVAL_MS = 25;
/**
 * A lock older than this is presumed abandoned and taken over, ms (the origin's 30 s).
 *
 * @remarks
 * A save holds the lock for milliseconds (see the ledger benchmark), so 30 s is four orders of magnitude
 * of margin against taking over a live holder. A holder on this machine that died is taken over at
 * once instead; this rule is for the locks whose holder cannot be checked (another machine, an older
 * Rung), which then delay the others' saves by at most half a minute.
 */
export const LOCK_STALE_MS = 30_000;

export interface FileLockOptions {
  /** The lock file, usually the protected file's path plus `.lock`. */
  path: string;
  clock: Clock;
  attempts?: number;
  intervalMs?: number;
  staleMs?: number;
  /** Told when a lock was taken over from a dead or stale holder. */
  onTakeover?: (info: LockTakeover) => void;
  /**
   * Told once when a wait for the lock ends without it (about a second with the defaults), and not
   * again until the lock has been had: a writer stalled behind a live holder says so instead of
   * waiting in silence, and a long stall is one line, not one a second.
   */
  onWait?: (info: LockWait) => void;
  /** This machine's name as written into the lock; `os.hostname()` unless a test pretends to be another machine. */
  host?: string;
}

/** Why a lock was taken over: its holder, a process on this machine, no longer runs; or it outlived {@link LOCK_STALE_MS}. */
export type TakeoverReason = 'holder-dead' | 'stale';

/** Who holds (or held) a lock, as far as its file says. */
export interface LockHolder {
  pid: number | undefined;
  /** The holder's machine; undefined for a lock from an older Rung, or one whose content was never written. */
  host: string | undefined;
  /** How long the lock has been held, by this process's clock, ms. */
  ageMs: number;
  /** For a person: `pid 4242`, `pid 4242 on build-box`, or `an unknown process`. */
  description: string;
}

export interface LockTakeover extends LockHolder {
  path: string;
  reason: TakeoverReason;
}

export interface LockWait extends LockHolder {
  path: string;
  /** The age at which the lock is taken over whoever holds it, ms ({@link LOCK_STALE_MS} unless configured). */
  staleMs: number;
}

/** A held lock; release it exactly once. */
export interface LockHandle {
  release(): void;
}

/** What the lock file holds, as JSON: `{"token","pid","host","at"}`. */
interface LockContent {
  token: string;
  pid: number;
  /** The holder's `os.hostname()`; absent in locks written by an older Rung. */
  host?: string;
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
  private readonly onWait: FileLockOptions['onWait'];
  private readonly host: string;
  /** Set once a failed wait was reported; cleared when the lock is next had. */
  private waitReported = false;

  constructor(options: FileLockOptions) {
    this.path = options.path;
    this.clock = options.clock;
    this.attempts = options.attempts ?? LOCK_WAIT_ATTEMPTS;
    this.intervalMs = options.intervalMs ?? LOCK_WAIT_INTERVAL_MS;
    this.staleMs = options.staleMs ?? LOCK_STALE_MS;
    this.onTakeover = options.onTakeover;
    this.onWait = options.onWait;
    this.host = options.host ?? hostname();
  }

  /** Waits up to attempts × interval for the lock; undefined when another process kept it that long. */
  async acquire(): Promise<LockHandle | undefined> {
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      const handle = this.tryAcquire();
      if (handle) return handle;
      if (attempt + 1 < this.attempts) await sleep(this.intervalMs);
    }
    this.reportWait();
    return undefined;
  }

  /** One attempt: create the lock, or take it over from a dead or stale holder. Never waits. */
  tryAcquire(): LockHandle | undefined {
    const handle = this.create() ?? (this.takeOverIfAbandoned() ? this.create() : undefined);
    if (handle) this.waitReported = false;
    return handle;
  }

  private reportWait(): void {
    if (this.waitReported || !this.onWait) return;
    let content: LockContent | undefined;
    let mtimeMs: number;
    try {
      const fd = openFile(this.path, constants.O_RDONLY);
      try {
        content = parseContent(readAll(fd));
        mtimeMs = fstatSync(fd).mtimeMs;
      } finally {
        closeSync(fd);
      }
    } catch {
      return; // freed meanwhile: nothing to report, the next attempt takes it
    }
    this.waitReported = true;
    const holder = this.holderOf(content, mtimeMs);
    this.onWait({ path: this.path, ...holder, staleMs: this.staleMs });
  }

  private holderOf(content: LockContent | undefined, mtimeMs: number): LockHolder {
    // A lock whose content was never written (its taker died between create and write) is aged by its mtime.
    const ageMs = this.clock.now() - (content?.at ?? mtimeMs);
    if (!content) return { pid: undefined, host: undefined, ageMs, description: 'an unknown process' };
    const elsewhere = content.host !== undefined && content.host !== this.host ? ` on ${content.host}` : '';
    return { pid: content.pid, host: content.host, ageMs, description: `pid ${content.pid}${elsewhere}` };
  }

  /**
   * Whether the holder is known to be gone: it wrote this machine's name and its pid no longer runs.
   *
   * @remarks
   * `kill(pid, 0)` sends nothing; it fails with ESRCH when no such process exists and EPERM when one
   * exists that we may not signal (alive, another user's). Any other answer counts as alive, leaving the
   * age rule to decide. A pid reused by an unrelated process also counts as alive: a wait, never a
   * wrong takeover. The host name is what makes a pid comparable, so two containers that share a
   * folder *and* a host name (each has its own pids) would each judge the other's live lock dead;
   * containers get distinct host names by default.
   */
  private holderIsDead(content: LockContent | undefined): boolean {
    if (!content || content.host !== this.host || content.pid === process.pid) return false;
    try {
      process.kill(content.pid, 0);
      return false;
    } catch (error) {
      return isCode(error, 'ESRCH');
    }
  }

  private create(): LockHandle | undefined {
    const content: LockContent = { token: randomUUID(), pid: process.pid, host: this.host, at: this.clock.now() };
    let fd: number;
    try {
      // O_EXCL never follows a link; O_NOFOLLOW says so in the message when one stands there.
      fd = openNoFollow(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
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

  /** Moves aside a lock whose holder is dead or which is stale; true when it did (or the lock vanished meanwhile). */
  private takeOverIfAbandoned(): boolean {
    let judged: { ino: bigint; content: LockContent | undefined; mtimeMs: number };
    try {
      // Not through a link, and never a pipe: a lock that is either is refused by name (see safeFiles.ts).
      const fd = openFile(this.path, constants.O_RDONLY);
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
    const holder = this.holderOf(judged.content, judged.mtimeMs);
    const reason: TakeoverReason | undefined = this.holderIsDead(judged.content)
      ? 'holder-dead'
      : holder.ageMs > this.staleMs
        ? 'stale'
        : undefined;
    if (!reason) return false;
    const aside = `${this.path}.stale-${randomUUID()}`;
    try {
      renameSync(this.path, aside);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return true;
      throw error;
    }
    if (lstatSync(aside, { bigint: true }).ino !== judged.ino) {
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
    this.onTakeover?.({ path: this.path, reason, ...holder });
    return true;
  }

  private readContent(): LockContent | undefined {
    try {
      const fd = openFile(this.path, constants.O_RDONLY);
      try {
        return parseContent(readAll(fd));
      } finally {
        closeSync(fd);
      }
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
      const host = 'host' in value && typeof value.host === 'string' ? value.host : undefined;
      if (typeof token === 'string' && typeof at === 'number' && typeof pid === 'number')
        return { token, at, pid, ...(host === undefined ? {} : { host }) };
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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
