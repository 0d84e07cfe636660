/**
 * `rung`: the router from a terminal — replay recorded outcomes, ask what the router would do, inspect
 * the ledger, chat. A thin shell over src/core; nothing here imports `vscode`.
 */
import { systemClock } from '../core/clock';
import { PanelError } from '../core/panel';
import { OutcomesError } from '../core/replay/outcomes';
import { RoutingError } from '../core/routing/rank';
import { UsageError, type CliIo } from './io';
import { rankCommand, RANK_USAGE } from './rankCommand';
import { REPLAY_USAGE, runReplayCommand } from './replayCommand';

const USAGE = `rung — routes each request to the cheapest model that can do it

${REPLAY_USAGE}
${RANK_USAGE}
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'replay':
        return await runReplayCommand(rest, io);
      case 'rank':
        return await rankCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`rung: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof PanelError || error instanceof OutcomesError || error instanceof RoutingError) {
      io.stderr(`rung: ${error.message}\n`);
      return 1;
    }
    io.stderr(`rung: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).code!.startsWith('ERR_PARSE_ARGS');
}

if (require.main === module) {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    clock: systemClock,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`rung: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
