/**
 * The command check: a configured test or build command run, with a timeout, on a scratch copy of the
 * workspace with the answer's files written in.
 *
 * @remarks
 * The command must see the answer, or its verdict is about the workspace: an answer with no fenced
 * block naming a file is `unverified` and the command is not run (see answerFiles.ts). Exit 0 passes
 * and any other exit fails with the tail of the output, because the end of a test run is where it
 * says what broke. A command that runs out of time says nothing about the answer — a hung test runner
 * is not a wrong edit — so a timeout is `unverified`, as is a command that could not start. The
 * command runs in its own process group so a timeout ends its children too.
 *
 * The environment is drawn from the caller's (core reads no `process.env`) through an allow-list: what
 * test runners and builds read, and the variables the user names (commandEnvironment.ts), never a
 * `RUNG_*_API_KEY`: the command's output becomes the verdict's reason, which the decision log,
 * `rung chat --json` and a team's shared rows print. The reason is scrubbed of every secret known as
 * well, for a command that finds one some other way (a `.env` file, `~/.pgpass`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { redactor } from '../redactor';
import { answerFiles, ScratchStopped, ScratchTooLarge, scratchWithFiles, type Scratch } from './answerFiles';
import { commandEnvironment } from './commandEnvironment';
import type { Answer, Check, Verifier } from './verifier';

/** How long a verify command may run when the caller sets no limit, ms (a typical unit-test suite). */
export const COMMAND_TIMEOUT_MS = 120_000;
/**
 * How long a check runs before the first "still checking" report, and then between reports, ms.
 *
 * @remarks
 * A test suite can run for minutes, and a terminal that shows nothing for that long looks hung; a
 * check that ends within a few seconds needs no word.
 */
export const PROGRESS_INTERVAL_MS = 5_000;
/** How much of the output's end a failure quotes, characters. */
export const OUTPUT_TAIL_CHARS = 1_500;
/** How much output is kept while the command runs, characters: the tail is all a verdict needs. */
const KEEP_CHARS = 64 * 1024;
/**
 * How long, after the command exits, its output is still read, ms: enough for what it wrote before
 * exiting (already in the pipe, read within a turn of the event loop), and a bound on a pipe a
 * straggler outside the process group keeps open.
 */
const OUTPUT_DRAIN_MS = 250;
export interface CommandVerifierOptions {
  /** A shell command line (`npm test`, `tsc --noEmit`). */
  command: string;
  /** The workspace folder; the command runs on a scratch copy of it. */
  cwd: string;
  /** The caller's environment (`io.env` in the CLI); the command sees only the allowed part of it (commandEnvironment.ts). */
  env: Record<string, string | undefined>;
  /** Variables the command may see beyond those every command gets, by name (`rung.verifyCommandEnv`, `--verify-env`). */
  allowEnv?: readonly string[];
  /** Secrets held elsewhere (keys from the editor's SecretStorage, the team ledger's password), kept out of the command's environment and its reason too. */
  secrets?: readonly string[];
  /** How long the command may run, ms; {@link COMMAND_TIMEOUT_MS} when absent. Past it the check is `unverified`. */
  timeoutMs?: number;
  /** Where scratch copies are made; the system's temporary folder when absent. */
  scratchRoot?: string;
  /**
   * Told every {@link progressIntervalMs} while the command runs, so a front end can say it is still
   * checking (a line on stderr, a progress message in chat); never after the verdict.
   */
  onProgress?: (progress: CheckProgress) => void;
  /** Between progress reports, ms; {@link PROGRESS_INTERVAL_MS} when absent. */
  progressIntervalMs?: number;
  /** Schedules the progress reports; real timers when absent. Returns a cancel. Tests fire the reports by hand. */
  schedule?: ProgressSchedule;
}

/** What a progress report says: the command and how long it has run so far. */
export interface CheckProgress {
  command: string;
  /** How long the command has run, ms: the reports so far times the interval. */
  elapsedMs: number;
  /** When it will be given up on, ms after it started. */
  timeoutMs: number;
}

/** Runs `callback` once after `delayMs`; the returned function cancels it. */
export type ProgressSchedule = (callback: () => void, delayMs: number) => () => void;

const timerSchedule: ProgressSchedule = (callback, delayMs) => {
  const timer = setTimeout(callback, delayMs);
  return () => clearTimeout(timer);
};

export class CommandVerifier implements Verifier {
  readonly name = 'command';
  readonly label: string;
  private readonly options: CommandVerifierOptions;

  constructor(options: CommandVerifierOptions) {
    this.label = `workspace command \`${options.command}\``;
    for (const [name, value] of [
      ['timeoutMs', options.timeoutMs],
      ['progressIntervalMs', options.progressIntervalMs],
    ] as const) {
      if (value !== undefined && !(Number.isFinite(value) && value > 0))
        throw new RangeError(`${name} must be a positive number of milliseconds, not ${value}`);
    }
    this.options = options;
  }

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    const { command } = this.options;
    const { env, secrets } = commandEnvironment(this.options.env, {
      allow: this.options.allowEnv ?? [],
      secrets: this.options.secrets ?? [],
    });
    const scrub = redactor(secrets);
    if (signal?.aborted) return { verdict: 'unverified', reason: `\`${command}\` not run: stopped by the user` };
    const files = answerFiles(answer.text);
    if (files.length === 0) {
      return {
        verdict: 'unverified',
        reason: `\`${command}\` not run: the answer was not applied (no fenced code block names a file to write)`,
      };
    }
    let scratch: Scratch;
    try {
      scratch = await scratchWithFiles(this.options.cwd, files, { root: this.options.scratchRoot, signal });
    } catch (error) {
      const why =
        error instanceof ScratchTooLarge || error instanceof ScratchStopped
          ? error.message
          : `could not apply the answer: ${error instanceof Error ? error.message : String(error)}`;
      return { verdict: 'unverified', reason: scrub(`\`${command}\` not run: ${why}`) };
    }
    try {
      const check = await this.run(
        scratch.dir,
        env,
        `with the answer applied (${files.map((file) => file.path).join(', ')})`,
        scrub,
        signal,
      );
      return { verdict: check.verdict, reason: scrub(check.reason) };
    } finally {
      await scratch.remove();
    }
  }

  /**
   * Runs the command in `cwd` with the timeout; the verdict by its exit, the reason saying what was `applied`
   * and quoting the end of the output with every secret `scrub` knows replaced.
   *
   * @remarks
   * The verdict is decided on the shell's `'exit'`, not on `'close'`: `'close'` waits for every holder
   * of the output pipes, and a test runner that leaves a watcher or a `setsid` daemon behind would hold
   * the verdict (and the scratch copy) for as long as that straggler lives — past the timeout, which
   * only kills the process group. So on exit the rest of the group is killed, the output still in the
   * pipes is read for at most {@link OUTPUT_DRAIN_MS}, and the pipes are destroyed; on the timer or the
   * user's stop the group is killed and the check settles at once.
   */
  private run(
    cwd: string,
    env: Record<string, string>,
    applied: string,
    scrub: (text: string) => string,
    signal?: AbortSignal,
  ): Promise<Check> {
    const { command } = this.options;
    const timeoutMs = this.options.timeoutMs ?? COMMAND_TIMEOUT_MS;
    return new Promise<Check>((resolve) => {
      if (signal?.aborted) {
        resolve({ verdict: 'unverified', reason: `\`${command}\` not run: stopped by the user` });
        return;
      }
      let output = '';
      let settled = false;
      let child: ChildProcess;
      try {
        child = spawn(command, { cwd, shell: true, detached: process.platform !== 'win32', env, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        resolve({
          verdict: 'unverified',
          reason: `\`${command}\` could not start: ${error instanceof Error ? error.message : String(error)}`,
        });
        return;
      }
      const keep = (chunk: Buffer): void => {
        output = (output + chunk.toString('utf8')).slice(-KEEP_CHARS);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      const killGroup = (): void => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const finish = (check: Check): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        cancelProgress();
        signal?.removeEventListener('abort', onStop);
        // A straggler outside the group (`setsid`) may still hold the pipes; we are done reading them.
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve(check);
      };
      const timer = setTimeout(() => {
        killGroup();
        finish({ verdict: 'unverified', reason: `\`${command}\` timed out after ${timeoutMs} ms` });
      }, timeoutMs);
      const onStop = (): void => {
        killGroup();
        finish({ verdict: 'unverified', reason: `\`${command}\` stopped by the user` });
      };
      signal?.addEventListener('abort', onStop, { once: true });
      // Each report schedules the next, so elapsed time is counted in whole intervals and a report
      // cannot fire after the verdict: finish() cancels the one pending.
      let cancelProgress = (): void => undefined;
      const { onProgress } = this.options;
      if (onProgress) {
        const intervalMs = this.options.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
        const schedule = this.options.schedule ?? timerSchedule;
        let reports = 0;
        const report = (): void => {
          if (settled) return;
          reports += 1;
          onProgress({ command, elapsedMs: reports * intervalMs, timeoutMs });
          cancelProgress = schedule(report, intervalMs);
        };
        cancelProgress = schedule(report, intervalMs);
      }
      child.on('error', (error) => finish({ verdict: 'unverified', reason: `\`${command}\` could not start: ${error.message}` }));
      child.on('exit', (code, killedBy) => {
        if (settled) return;
        // The command is over; what it left running in its group has no verdict to wait for.
        killGroup();
        void drained(child, OUTPUT_DRAIN_MS).then(() => {
          if (code === 0) return finish({ verdict: 'pass', reason: `\`${command}\` exited 0 ${applied}` });
          // Scrubbed before it is cut: a tail that began inside a secret would keep the secret's end.
          const tail = scrub(output.trimEnd()).slice(-OUTPUT_TAIL_CHARS);
          const how = code === null ? `was killed by ${killedBy ?? 'a signal'}` : `exited ${code}`;
          return finish({ verdict: 'fail', reason: `\`${command}\` ${how} ${applied}${tail ? `:\n${tail}` : ''}` });
        });
      });
    });
  }
}

/**
 * Resolves when both of the child's output pipes have ended, or after `graceMs`, whichever is first.
 *
 * @remarks
 * What the shell wrote before it exited is already in the pipes and is read within a turn of the event
 * loop; the grace is only for a pipe that a process outside the group still holds open, which would
 * never end.
 */
function drained(child: ChildProcess, graceMs: number): Promise<void> {
  const ended = (stream: Readable | null): Promise<void> =>
    stream === null || stream.readableEnded || stream.destroyed
      ? Promise.resolve()
      : new Promise((resolve) => stream.once('close', () => resolve()).once('end', () => resolve()));
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    void Promise.all([ended(child.stdout), ended(child.stderr)]).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
