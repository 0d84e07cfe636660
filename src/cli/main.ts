/**
 * `rung`: the router from a terminal — replay recorded outcomes, ask what the router would do, inspect
 * the ledger, chat. A thin shell over src/core; nothing here imports `vscode`.
 */
import { systemClock } from '../core/clock';
import { PanelError } from '../core/panel';
import { OutcomesError } from '../core/replay/outcomes';
import { RoutingError } from '../core/routing/rank';
import { isParseArgsError, UsageError, type CliIo } from './io';
import { rankCommand, RANK_USAGE } from './rankCommand';
import { REPLAY_USAGE, runReplayCommand, type LedgerOpener } from './replayCommand';
import { runLedgerCommand } from './ledgerCommand';
import { CHAT_USAGE, runChatCommand } from './chatCommand';
import { WorkspaceLedger } from '../core/ledger/workspaceLedger';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

const USAGE = `rung — routes each request to the cheapest model that can do it

${REPLAY_USAGE}
${RANK_USAGE}
${CHAT_USAGE}
usage: rung ledger show|decisions|export|reset|merge|compact [--ledger FILE] ...   (rung ledger help)
`;

/** Opens the workspace ledger for `--ledger`, telling the user on stderr about anything it had to do (a corrupt file moved aside). */
const openLedger: LedgerOpener = async (path, io, options = {}) => {
  if (!options.readOnly) mkdirSync(dirname(path), { recursive: true });
  return WorkspaceLedger.open({ path, clock: io.clock, readOnly: options.readOnly, onNotice: (notice) => io.stderr(`rung: ${notice.message}\n`) });
};

export async function main(argv: string[], io: CliIo & { signal?: AbortSignal }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'replay':
        return await runReplayCommand(rest, io, openLedger);
      case 'rank':
        return await rankCommand(rest, io, openLedger);
      case 'ledger':
        return await runLedgerCommand(rest, io);
      case 'chat':
        return await runChatCommand(rest, io, openLedger);
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


if (require.main === module) {
  // Ctrl-C stops the call in flight (graded as nobody's fault); a second Ctrl-C exits at once.
  const stop = new AbortController();
  process.once('SIGINT', () => {
    stop.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  const io = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    clock: systemClock,
    signal: stop.signal,
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
