/**
 * The table of `rung` commands in docs/cli.md against the flags each command declares.
 *
 * @remarks
 * The table is written by hand and the flags by code, and they had drifted: `--share-decisions` was
 * parsed by `rung chat` and `rung replay` and missing from both rows. The flags are declared once
 * (usage.ts), so the documented row is what this keeps honest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAT_COMMAND } from '../../../src/cli/chatOptions';
import { EVALUATE_COMMAND } from '../../../src/cli/evaluateCommand';
import { LEDGER_COMMANDS } from '../../../src/cli/ledgerCommand';
import { RANK_COMMAND } from '../../../src/cli/rankCommand';
import { REPLAY_COMMAND } from '../../../src/cli/replayCommand';
import type { CommandUsage } from '../../../src/cli/usage';

const CLI_DOC = readFileSync(join(__dirname, '../../../docs/cli.md'), 'utf8');

/** The docs/cli.md table row whose first cell opens with `` `rung NAME``. */
function row(name: string): string {
  const found = CLI_DOC.split('\n').find((line) => line.startsWith(`| \`rung ${name} `));
  if (found === undefined) throw new Error(`docs/cli.md has no row for rung ${name}`);
  return found;
}

/** Every `--flag` a piece of the table names. */
function flagsIn(text: string): Set<string> {
  return new Set([...text.matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1] as string));
}

const declared = (usage: CommandUsage): Set<string> => new Set(Object.keys(usage.flags));

describe('the table of rung commands in docs/cli.md', () => {
  it.each([
    ['replay', REPLAY_COMMAND],
    ['rank', RANK_COMMAND],
    ['chat', CHAT_COMMAND],
    ['evaluate', EVALUATE_COMMAND],
  ] as const)('names in its first cell exactly the flags rung %s declares', (name, usage) => {
    const usageCell = row(name).split(' | ')[0] ?? '';
    expect(flagsIn(usageCell)).toEqual(declared(usage));
  });

  it.each([
    ['replay', REPLAY_COMMAND],
    ['rank', RANK_COMMAND],
    ['chat', CHAT_COMMAND],
    ['evaluate', EVALUATE_COMMAND],
  ] as const)('describes rung %s with no flag the command lacks', (name, usage) => {
    const known = declared(usage);
    expect([...flagsIn(row(name))].filter((flag) => !known.has(flag))).toEqual([]);
  });

  it('names no flag in the rung ledger row that no ledger subcommand declares', () => {
    const known = new Set(Object.values(LEDGER_COMMANDS).flatMap((usage) => Object.keys(usage.flags)));
    expect([...flagsIn(row('ledger'))].filter((flag) => !known.has(flag))).toEqual([]);
  });
});
