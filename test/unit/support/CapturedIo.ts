import { join } from 'node:path';
import type { CliIo } from '../../../src/cli/io';
import { FixedClock } from './FixedClock';

/** A CLI io that keeps what a command wrote. */
export class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly clock = new FixedClock();
  /**
   * The environment a command sees: `env`, with the XDG data folder (userDataFolder.ts) under `cwd`
   * unless `env` names one, so a test's team outbox and ledger records stay in its own folder.
   */
  readonly env: Record<string, string | undefined>;

  constructor(
    readonly cwd: string,
    env: Record<string, string | undefined> = {},
  ) {
    this.env = { XDG_DATA_HOME: join(cwd, '.user-data'), ...env };
  }

  stdout = (text: string): void => {
    this.out += text;
  };

  stderr = (text: string): void => {
    this.err += text;
  };
}
