import type { CliIo } from '../../../src/cli/io';
import { FixedClock } from './FixedClock';

/** A CLI io that keeps what a command wrote. */
export class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly clock = new FixedClock();

  constructor(
    readonly cwd: string,
    readonly env: Record<string, string | undefined> = {},
  ) {}

  stdout = (text: string): void => {
    this.out += text;
  };

  stderr = (text: string): void => {
    this.err += text;
  };
}
