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
 * The environment is the caller's (core reads no `process.env`), less every `RUNG_*_API_KEY` and any
 * variable holding one of those keys: a test command has no business with them, and its output
 * becomes the verdict's reason, which the decision log and `rung chat --json` print. The reason is
 * scrubbed of the keys as well, for a command that finds one some other way (a `.env` file).
 */
import { spawn } from 'node:child_process';
import { redactor } from '../providers/transport';
import { answerFiles, ScratchTooLarge, scratchWithFiles, type Scratch } from './answerFiles';
import type { Answer, Check, Verifier } from './verifier';

/** How long a verify command may run when the caller sets no limit, ms (a typical unit-test suite). */
export const COMMAND_TIMEOUT_MS = 120_000;
/** How much of the output's end a failure quotes, characters. */
export const OUTPUT_TAIL_CHARS = 1_500;
/** How much output is kept while the command runs, characters: the tail is all a verdict needs. */
const KEEP_CHARS = 64 * 1024;
/** The variables `rung` reads keys from (`RUNG_OPENROUTER_API_KEY`; see `apiKeyVariable` in panel.ts). */
const API_KEY_VARIABLE = /^RUNG_.+_API_KEY$/i;

export interface CommandVerifierOptions {
  /** A shell command line (`npm test`, `tsc --noEmit`). */
  command: string;
  /** The workspace folder; the command runs on a scratch copy of it. */
  cwd: string;
  /** The caller's environment (`io.env` in the CLI); keys are dropped before the command sees it. */
  env: Record<string, string | undefined>;
  /** Keys held elsewhere (the editor's SecretStorage), kept out of the command's environment and its reason too. */
  secrets?: readonly string[];
  timeoutMs?: number;
  /** Where scratch copies are made; the system's temporary folder when absent. */
  scratchRoot?: string;
}

/**
 * The environment a command gets: `env` without `RUNG_*_API_KEY` and without any variable whose value
 * is one of the keys; and the keys, for scrubbing what the command prints.
 */
export function commandEnvironment(env: Record<string, string | undefined>, secrets: readonly string[] = []): { env: Record<string, string>; keys: string[] } {
  const keys = [...secrets, ...Object.entries(env).flatMap(([name, value]) => (API_KEY_VARIABLE.test(name) && value ? [value] : []))].filter((key) => key !== '');
  const child: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || API_KEY_VARIABLE.test(name) || keys.includes(value)) continue;
    child[name] = value;
  }
  return { env: child, keys };
}

export class CommandVerifier implements Verifier {
  readonly name = 'command';
  private readonly options: CommandVerifierOptions;

  constructor(options: CommandVerifierOptions) {
    this.options = options;
  }

  async verify(answer: Answer, signal?: AbortSignal): Promise<Check> {
    const { command } = this.options;
    const { env, keys } = commandEnvironment(this.options.env, this.options.secrets);
    const scrub = redactor(keys);
    if (signal?.aborted) return { verdict: 'unverified', reason: `\`${command}\` not run: stopped by the user` };
    const files = answerFiles(answer.text);
    if (files.length === 0) {
      return { verdict: 'unverified', reason: `\`${command}\` not run: the answer was not applied (no fenced code block names a file to write)` };
    }
    let scratch: Scratch;
    try {
      scratch = await scratchWithFiles(this.options.cwd, files, this.options.scratchRoot);
    } catch (error) {
      const why = error instanceof ScratchTooLarge ? error.message : `could not apply the answer: ${error instanceof Error ? error.message : String(error)}`;
      return { verdict: 'unverified', reason: scrub(`\`${command}\` not run: ${why}`) };
    }
    try {
      const check = await this.run(scratch.dir, env, `with the answer applied (${files.map((file) => file.path).join(', ')})`, signal);
      return { verdict: check.verdict, reason: scrub(check.reason) };
    } finally {
      await scratch.remove();
    }
  }

  /** Runs the command in `cwd` with the timeout; the verdict by its exit, the reason saying what was `applied`. */
  private run(cwd: string, env: Record<string, string>, applied: string, signal?: AbortSignal): Promise<Check> {
    const { command } = this.options;
    const timeoutMs = this.options.timeoutMs ?? COMMAND_TIMEOUT_MS;
    return new Promise<Check>((resolve) => {
      if (signal?.aborted) {
        resolve({ verdict: 'unverified', reason: `\`${command}\` not run: stopped by the user` });
        return;
      }
      let output = '';
      let ended: 'timeout' | 'stopped' | undefined;
      const child = spawn(command, { cwd, shell: true, detached: process.platform !== 'win32', env, stdio: ['ignore', 'pipe', 'pipe'] });
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
        if (code === 0) return finish({ verdict: 'pass', reason: `\`${command}\` exited 0 ${applied}` });
        const tail = output.trimEnd().slice(-OUTPUT_TAIL_CHARS);
        const how = code === null ? `was killed by ${killedBy ?? 'a signal'}` : `exited ${code}`;
        return finish({ verdict: 'fail', reason: `\`${command}\` ${how} ${applied}${tail ? `:\n${tail}` : ''}` });
      });
    });
  }
}
