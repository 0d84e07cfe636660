/**
 * The unit layer's setup: every way `node:child_process` starts a process throws, naming the layer to use.
 *
 * @remarks
 * Unit specs run in seconds with nothing but the test process; a spec that needs a process (the CLI run
 * as one, a check command, PostgreSQL, git) goes to test/integration. Before the layers were split, such
 * specs sat among the unit ones and made the unit run take minutes on a loaded 2-core machine, and
 * nothing said so: this makes the rule fail a test instead of relying on a reader.
 * `syncBuiltinESMExports` carries the replaced functions to the ESM named exports that src imports.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(`child_process.${name}: a unit spec starts no process; a spec that needs one belongs in test/integration`);
    },
  });
}
syncBuiltinESMExports();
