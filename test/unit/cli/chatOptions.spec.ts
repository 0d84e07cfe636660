import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProgressLine, parseVerifyTimeout, printCheckProgress, readChatCommandLine } from '../../../src/cli/chatOptions';
import { UsageError, type CliInput } from '../../../src/cli/io';

describe('parseVerifyTimeout', () => {
  it('reads whole milliseconds and keeps the default when the flag is absent', () => {
    expect(parseVerifyTimeout('30000')).toBe(30_000);
    expect(parseVerifyTimeout(undefined)).toBeUndefined();
  });

  for (const text of ['0', '-5', '2.5', '30s', '']) {
    it(`refuses "${text}" as a usage error`, () => {
      expect(() => parseVerifyTimeout(text)).toThrow(UsageError);
      expect(() => parseVerifyTimeout(text)).toThrow(`--verify-timeout must be a whole number of milliseconds, at least 1, not "${text}"`);
    });
  }
});

describe('checkProgressLine', () => {
  it('says which command, for how long so far, and when it will be given up on, in seconds', () => {
    expect(checkProgressLine({ command: 'npm test', elapsedMs: 10_000, timeoutMs: 120_000 })).toBe(
      'still checking `npm test` after 10 s (gives up at 120 s)',
    );
    expect(checkProgressLine({ command: 'make', elapsedMs: 2_500, timeoutMs: 7_200 })).toBe(
      'still checking `make` after 2.5 s (gives up at 7.2 s)',
    );
  });
});

/** Piped standard input with the given text. */
class PipedInput implements CliInput {
  readonly isTTY = false;
  constructor(private readonly text: string) {}
  readAll(): Promise<string> {
    return Promise.resolve(this.text);
  }
}

describe('readChatCommandLine', () => {
  it('reads every flag and the prompt words', async () => {
    const argv = [
      '--panel',
      'p.json',
      '--class',
      'edit',
      '--schema',
      's.json',
      '--verify-command',
      'npm test',
      '--verify-timeout',
      '30000',
      '--verify-env',
      'DATABASE_URL',
      '--verify-env',
      'CI',
      '--attempt-timeout',
      '90',
      '--confidence-check',
      'all',
      '--ledger',
      'postgres://ana@db/team',
      '--share-decisions',
      '--send-workspace-ledger',
      '--json',
      'fix',
      'it',
    ];
    expect(await readChatCommandLine(argv, { cwd: '/' })).toEqual({
      panel: 'p.json',
      classKey: 'edit',
      schema: 's.json',
      verifyCommand: 'npm test',
      verifyTimeoutMs: 30_000,
      verifyEnv: ['DATABASE_URL', 'CI'],
      attemptTimeoutSeconds: 90,
      confidenceCheck: 'all',
      store: { kind: 'team', url: 'postgres://ana@db/team', fallbackPath: join('/', '.rung', 'ledger.sqlite') },
      shareDecisions: true,
      sendWorkspaceLedger: true,
      json: true,
      prompt: 'fix it',
    });
  });

  it('takes a 1 MB prompt from standard input for -', async () => {
    const big = 'p'.repeat(1_000_000);
    const line = await readChatCommandLine(['--panel', 'p.json', '-'], { cwd: '/', stdin: new PipedInput(big) });
    expect(line.prompt).toBe(big);
    expect(line.verifyTimeoutMs).toBeUndefined();
    expect(line.confidenceCheck).toBe('local');
  });

  it('refuses a mistyped flag before reading standard input', async () => {
    let reads = 0;
    const stdin: CliInput = { isTTY: false, readAll: () => Promise.resolve(`${reads++}`) };
    await expect(readChatCommandLine(['--verify-timeout', '500', '-'], { cwd: '/', stdin })).rejects.toThrow(
      '--verify-timeout limits --verify-command, which is missing',
    );
    expect(reads).toBe(0);
  });

  it('leaves the panel unnamed without --panel, for the command to find', async () => {
    expect((await readChatCommandLine(['hi'], { cwd: '/' })).panel).toBeUndefined();
  });

  it('refuses --verify-timeout without a command to limit', async () => {
    await expect(readChatCommandLine(['--panel', 'p.json', '--verify-timeout', '500', 'hi'], { cwd: '/' })).rejects.toThrow(
      '--verify-timeout limits --verify-command, which is missing',
    );
  });

  it('refuses --verify-env without a command, and a value that is not a variable name', async () => {
    await expect(readChatCommandLine(['--panel', 'p.json', '--verify-env', 'CI', 'hi'], { cwd: '/' })).rejects.toThrow(
      '--verify-env names variables for --verify-command, which is missing',
    );
    await expect(
      readChatCommandLine(['--panel', 'p.json', '--verify-command', 'npm test', '--verify-env', 'A=B', 'hi'], { cwd: '/' }),
    ).rejects.toThrow('--verify-env takes the name of an environment variable (letters, digits and _), not "A=B"');
  });
});

describe('printCheckProgress', () => {
  it('writes each report as a line of its own on stderr', () => {
    let err = '';
    const report = printCheckProgress({ stderr: (text) => (err += text) });
    report({ command: 'npm test', elapsedMs: 5_000, timeoutMs: 120_000 });
    expect(err).toBe('rung chat: still checking `npm test` after 5 s (gives up at 120 s)\n');
  });
});
