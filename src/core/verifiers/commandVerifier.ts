/**
 * The command check: a configured test or build command run in the workspace, with a timeout.
 *
 * @remarks
 * Exit 0 passes and any other exit fails with the tail of the output, because the end of a test
 * run is where it says what broke. A command that runs out of time says nothing about the answer —
 * a hung test runner is not a wrong edit — so a timeout is `unverified`, as is a command that could
 * not start. The command runs in its own process group so a timeout ends its children too.
 */
import { spawn } from 'node:child_process';
import type { Answer, Check, Verifier } from './verifier';

/** How long a verify command may run when the caller sets no limit, ms (a typical unit-test suite). */
export const COMMAND_TIMEOUT_MS = 120_000;
/** How much of the output's end a failure quotes, characters. */
export const OUTPUT_TAIL_CHARS = 1_500;
/** How much output is kept while the command runs, characters: the tail is all a verdict needs. */
const KEEP_CHARS = 64 * 1024;

export interface CommandVerifierOptions {
  /** A shell command line (`npm test`, `tsc --noEmit`). */
  command: string;
  /** The workspace folder. */
  cwd: string;
  timeoutMs?: number;
  env?: Record<string, string | undefined>;
}

export class CommandVerifier implements Verifier {
  readonly name = 'command';
  private readonly options: CommandVerifierOptions;

  constructor(options: CommandVerifierOptions) {
    this.options = options;
  }

  verify(_answer: Answer, signal?: AbortSignal): Promise<Check> {
    const { command, cwd } = this.options;
    const timeoutMs = this.options.timeoutMs ?? COMMAND_TIMEOUT_MS;
    return new Promise<Check>((resolve) => {
      if (signal?.aborted) {
        resolve({ verdict: 'unverified', reason: `\`${command}\` not run: stopped by the user` });
        return;
      }
      let output = '';
      let ended: 'timeout' | 'stopped' | undefined;
      const child = spawn(command, { cwd, shell: true, detached: process.platform !== 'win32', env: { ...process.env, ...(this.options.env ?? {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk: Buffer): void => {
        output = (output + chunk.toString('utf8')).slice(-KEEP_CHARS);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      const kill = (): void => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        ended = 'timeout';
        kill();
      }, timeoutMs);
      const onStop = (): void => {
        ended = 'stopped';
        kill();
      };
      signal?.addEventListener('abort', onStop, { once: true });
      const finish = (check: Check): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onStop);
        resolve(check);
      };
      child.on('error', (error) => finish({ verdict: 'unverified', reason: `\`${command}\` could not start: ${error.message}` }));
      child.on('close', (code, killedBy) => {
        if (ended === 'timeout') return finish({ verdict: 'unverified', reason: `\`${command}\` timed out after ${timeoutMs} ms` });
        if (ended === 'stopped') return finish({ verdict: 'unverified', reason: `\`${command}\` stopped by the user` });
        if (code === 0) return finish({ verdict: 'pass', reason: `\`${command}\` exited 0` });
        const tail = output.trimEnd().slice(-OUTPUT_TAIL_CHARS);
        const how = code === null ? `was killed by ${killedBy ?? 'a signal'}` : `exited ${code}`;
        return finish({ verdict: 'fail', reason: `\`${command}\` ${how}${tail ? `:\n${tail}` : ''}` });
      });
    });
  }
}
