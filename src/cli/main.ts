/**
 * `rung`: the router from a terminal — replay recorded outcomes, ask what the router would do, inspect
 * the ledger, chat. A thin shell over src/core; nothing here imports `vscode`.
 *
 * @remarks
 * Every subcommand answers `--help` and `-h` here, from the flags it declares (see usage.ts), and every
 * failure it throws is turned into one exit code by one rule (see io.ts and the table in docs/cli.md).
 */
import { printableLines } from '../core/terminalText';
import { constants } from 'node:os';
import { systemClock } from '../core/clock';
import { PanelError } from '../core/panel';
import { OutcomesError } from '../core/replay/outcomes';
import { PolicySpecError } from '../core/evaluation/policy';
import { EVALUATE_COMMAND, runEvaluateCommand } from './evaluateCommand';
import { openCliStore } from './cliStore';
import { CHAT_COMMAND } from './chatOptions';
import { runChatCommand } from './chatCommand';
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_STOPPED,
  EXIT_USAGE,
  isParseArgsError,
  readStreamText,
  StoppedError,
  UsageError,
  type CliIo,
} from './io';
import { LEDGER_USAGE, runLedgerCommand } from './ledgerCommand';
import { RANK_COMMAND, rankCommand } from './rankCommand';
import { REPLAY_COMMAND, runReplayCommand } from './replayCommand';
import { asksForHelp, commandList, formatHelp, usageLine, type CommandUsage } from './usage';
import { explainWriteRefusal } from './writeRefusal';

interface Subcommand {
  usage: CommandUsage;
  run: (argv: string[], io: CliIo) => Promise<number>;
}

const COMMANDS: Readonly<Record<string, Subcommand>> = {
  replay: { usage: REPLAY_COMMAND, run: (argv, io) => runReplayCommand(argv, io, openCliStore) },
  rank: { usage: RANK_COMMAND, run: (argv, io) => rankCommand(argv, io, openCliStore) },
  chat: { usage: CHAT_COMMAND, run: (argv, io) => runChatCommand(argv, io, openCliStore) },
  evaluate: { usage: EVALUATE_COMMAND, run: runEvaluateCommand },
};

const EXIT_CODES =
  'exit codes: 0 done, 1 failed while running, 2 usage or bad input, 130 stopped by Ctrl-C (143 by SIGTERM, 129 by SIGHUP)';

const USAGE = [
  'rung — routes each request to the cheapest model that can do it',
  '',
  ...Object.values(COMMANDS).map((command) => usageLine(command.usage)),
  LEDGER_USAGE.split('\n')[0],
  '',
  'commands:',
  ...commandList([
    ...Object.entries(COMMANDS).map(([name, command]): [string, string] => [name, command.usage.summary]),
    ['ledger', 'Looks into the workspace ledger, exports, resets, merges or compacts it.'],
  ]),
  '',
  'rung COMMAND --help describes every flag of COMMAND.',
  EXIT_CODES,
  '',
].join('\n');

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr(USAGE);
    return EXIT_USAGE;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  if (command === 'ledger') return runLedgerCommand(rest, io);
  const subcommand = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!subcommand) {
    io.stderr(`rung: unknown command "${command}"\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (asksForHelp(rest, subcommand.usage.flags)) {
    io.stdout(formatHelp(subcommand.usage));
    return EXIT_OK;
  }
  try {
    return await subcommand.run(rest, io);
  } catch (error) {
    return report(error, subcommand.usage, io);
  }
}

/**
 * Prints what went wrong, prefixed once with the command's name, and returns its exit code.
 *
 * @remarks
 * A panel or outcomes file that does not parse is bad input, like a bad flag: exit 2, as `rung chat`
 * already answered, where `rank` and `replay` used to answer 1.
 */
function report(error: unknown, usage: CommandUsage, io: CliIo): number {
  const name = usage.name;
  if (error instanceof UsageError || isParseArgsError(error)) {
    io.stderr(`${name}: ${printableLines((error as Error).message)}\n${usageLine(usage)}\n(${name} --help describes every flag)\n`);
    return EXIT_USAGE;
  }
  if (error instanceof PanelError || error instanceof OutcomesError || error instanceof PolicySpecError) {
    io.stderr(`${name}: ${printableLines(error.message)}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof StoppedError) {
    io.stderr(`${name}: ${printableLines(error.message)}\n`);
    return EXIT_STOPPED;
  }
  io.stderr(`${name}: ${printableLines(explainWriteRefusal(error) ?? (error instanceof Error ? error.message : String(error)))}\n`);
  return EXIT_FAILED;
}

/** The running process as a {@link CliIo}: its streams, folder, environment and the clock; `signal` is the caller's. */
export function processIo(signal?: AbortSignal): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    stdin: { isTTY: Boolean(process.stdin.isTTY), readAll: () => readStreamText(process.stdin) },
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
    clock: systemClock,
    ...(signal ? { signal } : {}),
  };
}

/**
 * The signals that stop a run as Ctrl-C does: the call in flight is stopped (graded as nobody's fault),
 * a check command's process group is killed and its scratch copy of the workspace removed.
 *
 * @remarks
 * SIGTERM (`kill`, a CI runner's timeout, `timeout(1)`) and SIGHUP (a closed terminal) used to end the
 * process at once, by the default action: a check command's process group ran on, and its scratch copy,
 * `.env` and all, stayed in the temporary folder. A second signal of any of them exits at once.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The exit code a stop by `signal` ends with: 128 + its number, as shells report a process a signal ended (SIGINT 130). */
export function stoppedExitCode(signal: (typeof STOP_SIGNALS)[number]): number {
  return 128 + constants.signals[signal];
}

if (require.main === module) {
  const stop = new AbortController();
  let stoppedBy: (typeof STOP_SIGNALS)[number] | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (stoppedBy !== undefined) process.exit(stoppedExitCode(signal));
      stoppedBy = signal;
      stop.abort();
    });
  }
  main(process.argv.slice(2), processIo(stop.signal)).then(
    (code) => {
      process.exitCode = code === EXIT_STOPPED && stoppedBy !== undefined ? stoppedExitCode(stoppedBy) : code;
    },
    (error: unknown) => {
      process.stderr.write(`rung: ${String(error)}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}
