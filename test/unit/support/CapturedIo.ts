import { join } from 'node:path';
import type { CliIo } from '../../../src/cli/io';
import { FixedClock } from './FixedClock';

/** A CLI io that keeps what a command wrote. */
export class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly clock = new FixedClock();
  /**
   * The environment a command sees: `env`, with the CLI's data folder (userDataFolder.ts) under `cwd`
   * unless `env` names one, so no test writes into the home folder of whoever runs it.
   */
  readonly env: Record<string, string | undefined>;

  constructor(
    readonly cwd: string,
    env: Record<string, string | undefined> = {},
  ) {
    this.env = { RUNG_DATA_HOME: join(cwd, '.user-data'), ...env };
  }

  stdout = (text: string): void => {
    this.out += text;
  };

  stderr = (text: string): void => {
    this.err += text;
  };
}
