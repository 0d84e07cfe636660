/**
 * The names of the scratch copies a check command runs on, and the sweep that removes the ones a dead
 * run left behind.
 *
 * @remarks
 * A copy holds the whole workspace, its `.env` too, and is removed when the check ends; a run killed
 * outright (`kill -9`, a crashed window, a machine that lost power) cannot remove it, and such copies
 * stayed in the temporary folder for good. So each copy's name says whose it is — the process's pid and
 * when that process started — and the next check (and `rung chat` as it starts) removes every copy whose
 * process no longer runs. A pid alone is not enough: the system reuses pids, and a copy of a dead run
 * whose pid now belongs to another process would be kept forever; a live run's copy must never go. The
 * start time is the kernel's (`/proc/<pid>/stat`, in clock ticks since boot), exact and the same however
 * often it is read; where there is no `/proc` (macOS, Windows) a copy whose pid is alive is kept — a
 * copy kept too long, never a live one removed.
 *
 * Only this user's folders with Rung's name are touched, and never through a symlink: the temporary
 * folder is shared, and anyone can create a name there.
 */
import { readFileSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** What every scratch folder's name begins with. */
export const SCRATCH_PREFIX = 'rung-verify-';

/** A scratch folder's name: the prefix, the pid, its start (`x` when unknown), and `mkdtemp`'s six characters. */
const SCRATCH_NAME = /^rung-verify-(\d+)-(\d+|x)-[A-Za-z0-9]{6}$/;

let ownStart: string | undefined;

/** This process's start as its scratch folders' names say it (`x` when unknown). */
function ownProcessStart(): string {
  ownStart ??= processStart(process.pid) ?? 'x';
  return ownStart;
}

/** The prefix `mkdtemp` is given for this process's scratch folders: `rung-verify-<pid>-<start>-`. */
export function scratchPrefix(): string {
  return `${SCRATCH_PREFIX}${process.pid}-${ownProcessStart()}-`;
}

/**
 * When process `pid` started, in clock ticks since boot, as the kernel says (`/proc/<pid>/stat`, field
 * 22); undefined where there is no `/proc` or no such process.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (one we may not signal counts: it is alive, another user's). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the run that made a scratch folder named with `pid` and `start` is over. */
function deadRun(pid: number, start: string): boolean {
  if (pid === process.pid) return start !== ownProcessStart();
  if (!running(pid)) return true;
  if (start === 'x') return false;
  // The pid runs: the run is over only if the process holding it now started at another time.
  const now = processStart(pid);
  return now !== undefined && now !== start;
}

const sweeps = new Map<string, Promise<string[]>>();

/**
 * Removes the scratch folders under `root` that runs now dead left behind; resolves to the paths removed.
 * Runs once per folder per process (a second call gets the first's answer): a dead run's copies do not
 * come back, and the ones this process makes it removes itself. Never throws: a folder it cannot read or
 * remove is left as it is.
 */
export function sweepDeadScratch(root: string): Promise<string[]> {
  let sweep = sweeps.get(root);
  if (!sweep) {
    sweep = sweepOnce(root);
    sweeps.set(root, sweep);
  }
  return sweep;
}

async function sweepOnce(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const match = SCRATCH_NAME.exec(name);
    if (!match) continue;
    const path = join(root, name);
    try {
      // lstat: a symlink with Rung's name is someone else's, and is never followed.
      const stat = await lstat(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      if (!deadRun(Number(match[1]), match[2] as string)) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove: left as it is.
    }
  }
  return removed;
}
