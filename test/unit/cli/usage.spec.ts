import { describe, expect, it } from 'vitest';
import { CHAT_COMMAND } from '../../../src/cli/chatOptions';
import { asksForHelp, formatHelp, parseCommandArgs, usageLine, type CommandUsage } from '../../../src/cli/usage';

const SAMPLE = {
  name: 'rung sample',
  summary: 'Does one thing well.',
  operands: 'INPUT',
  operandHelp: [['INPUT', 'the file to read']],
  flags: {
    panel: { type: 'string', value: 'FILE', description: 'the panel' },
    seed: { type: 'string', value: 'N', default: '1', description: 'the first seed' },
    json: { type: 'boolean', default: false, description: 'print JSON' },
  },
  required: ['panel'],
  notes: ['Exit codes: 0, 1, 2.'],
} as const satisfies CommandUsage;

describe('usage', () => {
  it('shows required flags bare, the others in brackets, and the operands last', () => {
    expect(usageLine(SAMPLE)).toBe('usage: rung sample --panel FILE [--seed N] [--json] INPUT');
  });

  it('wraps a long usage line under the command name', () => {
    const lines = usageLine(CHAT_COMMAND).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    for (const line of lines.slice(1)) expect(line.startsWith(' '.repeat('usage: rung chat '.length))).toBe(true);
  });

  it('describes every flag, the arguments, the defaults, help itself and the notes', () => {
    const help = formatHelp(SAMPLE);
    expect(help).toMatch(/^usage: rung sample .*\n\nDoes one thing well\.\n\narguments:\n {2}INPUT\s+the file to read\n\nflags:\n/);
    expect(help).toMatch(/\n {2}--panel FILE\s+the panel\n/);
    expect(help).toMatch(/\n {2}--seed N\s+the first seed \(default: 1\)\n/);
    expect(help).toMatch(/\n {2}--json\s+print JSON\n/);
    expect(help).toMatch(/\n {2}-h, --help\s+print this help and exit\n/);
    expect(help.endsWith('\nExit codes: 0, 1, 2.\n')).toBe(true);
  });

  it('wraps long descriptions under their column, within the width of a terminal', () => {
    const long = {
      ...SAMPLE,
      flags: { panel: { type: 'string', value: 'FILE', description: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') } },
    } as const satisfies CommandUsage;
    const lines = formatHelp(long).split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const start = lines.findIndex((line) => line.startsWith('  --panel FILE'));
    expect(lines[start + 1]).toMatch(/^ {28}word\d+/);
    expect(
      lines
        .filter((line) => /word\d/.test(line))
        .join(' ')
        .replace(/\s+/g, ' '),
    ).toContain('word38 word39');
  });

  it('lists every flag chat declares in its help', () => {
    const help = formatHelp(CHAT_COMMAND);
    for (const flag of [
      '--panel FILE',
      '--class CLASS',
      '--schema FILE',
      '--verify-command CMD',
      '--verify-timeout MS',
      '--ledger FILE',
      '--json',
      '--prompt-file FILE',
    ]) {
      expect(help).toContain(`  ${flag}`);
    }
    expect(help).toMatch(/\n {2}-\s+read the prompt from standard input/);
  });

  it('hears --help and -h anywhere among the flags, and also beside a mistake', () => {
    expect(asksForHelp(['--help'])).toBe(true);
    expect(asksForHelp(['-h'], SAMPLE.flags)).toBe(true);
    expect(asksForHelp(['in.jsonl', '--json', '--help'], SAMPLE.flags)).toBe(true);
    expect(asksForHelp(['--bogus', '-h'], SAMPLE.flags)).toBe(true);
  });

  it('does not take a flag value or a word after -- for a request for help', () => {
    expect(asksForHelp(['--panel', '-h'], SAMPLE.flags)).toBe(false);
    expect(asksForHelp(['--', '--help'], SAMPLE.flags)).toBe(false);
    expect(asksForHelp(['in.jsonl', '--json'], SAMPLE.flags)).toBe(false);
  });

  it('parses the declared flags with their defaults and refuses an undeclared one', () => {
    const { values, positionals } = parseCommandArgs(SAMPLE, ['--panel', 'p.json', 'in.jsonl']);
    expect(values).toEqual({ panel: 'p.json', seed: '1', json: false });
    expect(positionals).toEqual(['in.jsonl']);
    expect(() => parseCommandArgs(SAMPLE, ['--bogus'])).toThrow(/Unknown option '--bogus'/);
  });

  it('marks a flag that may be repeated, and collects its values in order', () => {
    const repeated = {
      name: 'rung sample',
      summary: 'S.',
      flags: { family: { type: 'string', value: 'F', multiple: true, description: 'only this family' } },
    } as const satisfies CommandUsage;
    expect(usageLine(repeated)).toBe('usage: rung sample [--family F]...');
    expect(formatHelp(repeated)).toMatch(/\n {2}--family F\.\.\.\s+only this family\n/);
    const { values } = parseCommandArgs(repeated, ['--family', 'a', '--family', 'b']);
    const families: string[] | undefined = values.family;
    expect(families).toEqual(['a', 'b']);
  });

  it('refuses an argument to a command that declares none', () => {
    const { operands: _operands, operandHelp: _help, ...noOperands } = SAMPLE;
    expect(() => parseCommandArgs(noOperands, ['stray'])).toThrow(/Unexpected argument 'stray'/);
  });
});
