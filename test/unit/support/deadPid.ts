import { readFileSync } from 'node:fs';

/**
 * A pid no process can have: Linux's `pid_max`, one past the largest pid the kernel hands out.
 *
 * @remarks
 * A lock holder known to be dead. Spawning a process and keeping its pid once it exited did the same but
 * started a process in the unit layer, which starts none; a pid that is merely unused today could be
 * handed to a new process during the run.
 */
export function deadPid(): number {
  return Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
}
