import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStreamText, UsageError, type CliInput } from '../../../src/cli/io';
import { readPrompt } from '../../../src/cli/prompt';
import { makeTempDir } from '../support/tempDir';

/** Standard input as a test feeds it: piped text, or a terminal nobody types into. */
class FakeInput implements CliInput {
  reads = 0;
  constructor(
    private readonly text: string,
    readonly isTTY = false,
  ) {}
  readAll(): Promise<string> {
    this.reads += 1;
    return Promise.resolve(this.text);
  }
}

const MEGABYTE = 1_000_000;
let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => dir.remove());

describe('readPrompt', () => {
  it('joins the words on the command line and leaves standard input unread', async () => {
    const stdin = new FakeInput('ignored');
    expect(await readPrompt({ positionals: ['explain', ' this '] }, { cwd: dir.path, stdin })).toBe('explain  this');
    expect(stdin.reads).toBe(0);
  });

  it('reads a 1 MB prompt from standard input for -, exactly as sent', async () => {
    const big = `${'a'.repeat(MEGABYTE - 2)}é\n`;
    expect(await readPrompt({ positionals: ['-'] }, { cwd: dir.path, stdin: new FakeInput(big) })).toBe(big);
  });

  it('reads a pipe when no prompt words are given', async () => {
    expect(await readPrompt({ positionals: [] }, { cwd: dir.path, stdin: new FakeInput('from a pipe\n') })).toBe('from a pipe\n');
  });

  it('does not wait on a terminal when no prompt is given, and says how to give one', async () => {
    const stdin = new FakeInput('', true);
    await expect(readPrompt({ positionals: [] }, { cwd: dir.path, stdin })).rejects.toThrow(
      'needs a prompt: as words, - for standard input, or --prompt-file FILE',
    );
    expect(stdin.reads).toBe(0);
  });

  it('reads - from a terminal too, since the user asked for it', async () => {
    expect(await readPrompt({ positionals: ['-'] }, { cwd: dir.path, stdin: new FakeInput('typed\n', true) })).toBe('typed\n');
  });

  it('reads a 1 MB prompt from --prompt-file, relative to the folder', async () => {
    const big = 'b'.repeat(MEGABYTE);
    writeFileSync(join(dir.path, 'big.txt'), big);
    expect(await readPrompt({ positionals: [], promptFile: 'big.txt' }, { cwd: dir.path, stdin: new FakeInput('') })).toBe(big);
  });

  const refused: [string, Parameters<typeof readPrompt>[0], string, CliInput | undefined][] = [
    ['words and -', { positionals: ['hello', '-'] }, 'not both', new FakeInput('x')],
    ['words and --prompt-file', { positionals: ['hello'], promptFile: 'p.txt' }, 'not both', new FakeInput('x')],
    ['an empty pipe', { positionals: [] }, 'the prompt from standard input is empty', new FakeInput(' \n')],
    ['- with no standard input', { positionals: ['-'] }, 'there is none here', undefined],
    ['a missing --prompt-file', { positionals: [], promptFile: 'nowhere.txt' }, 'cannot read --prompt-file', new FakeInput('x')],
    ['no prompt and no standard input', { positionals: [] }, 'needs a prompt', undefined],
  ];
  for (const [name, source, message, stdin] of refused) {
    it(`refuses ${name} as a usage error`, async () => {
      const reading = readPrompt(source, { cwd: dir.path, stdin });
      await expect(reading).rejects.toBeInstanceOf(UsageError);
      await expect(reading).rejects.toThrow(message);
    });
  }

  it('refuses a --prompt-file that holds only whitespace', async () => {
    writeFileSync(join(dir.path, 'blank.txt'), '\n\n');
    await expect(readPrompt({ positionals: [], promptFile: 'blank.txt' }, { cwd: dir.path })).rejects.toThrow(
      'the prompt from --prompt-file blank.txt is empty',
    );
  });
});

describe('readStreamText', () => {
  it('keeps a character split across two chunks whole', async () => {
    const bytes = Buffer.from('né', 'utf8');
    expect(await readStreamText(Readable.from([bytes.subarray(0, 2), bytes.subarray(2)]))).toBe('né');
  });
});
