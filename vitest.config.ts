import { defineConfig } from 'vitest/config';
import { scaled } from './test/timeScale';

/**
 * Two layers of vitest specs, told apart by what they need.
 *
 * @remarks
 * `unit` needs nothing but the test process: no child process (its setup makes starting one throw), no
 * PostgreSQL; a loopback HTTP server inside the test process is allowed, which is how provider adapters
 * read recorded streams. `integration` starts processes (the CLI, check commands, ledger workers, git,
 * sqlite3) and a throwaway PostgreSQL. The extension-host suite (`npm run test:host`) is a third layer
 * with a runner of its own. Before the split, one run of everything took 12 min 38 s on this 2-core
 * machine under load.
 */
export default defineConfig({
  test: {
    // Several integration specs spawn OS processes that share one ledger file; two cores cannot run them all at once.
    pool: 'forks',
    // A limit for a hang, not a guess at a test's time, scaled by RUNG_TEST_TIME_SCALE (test/timeScale.ts):
    // with both cores busy at load 17 to 30, unit tests that take 0.7 s at load 20 took over 30 s.
    testTimeout: scaled(120_000),
    hookTimeout: scaled(120_000),
    // CI also writes a machine-readable result per run, from which .ci/run prints its plain closing line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: `test-results/vitest-${(process.env.npm_lifecycle_event ?? 'all').replace(/\W+/g, '-')}.json` }]]
      : ['default'],
    projects: [
      // Threads: a unit spec shares nothing with the machine, and a thread starts faster than a process
      // (the unit layer, 1m58s in threads against 4m14s in forks, the same loaded 2-core machine).
      // Not isolated: a thread keeps the modules it has imported for its next file. Importing the core
      // afresh for each of 111 files was half the layer's time (89 s with isolation, 50 s without, on the
      // idle 2-core machine); a unit spec keeps no state outside its own `describe`, so nothing leaks.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.spec.ts'],
          pool: 'threads',
          isolate: false,
          setupFiles: ['test/unit/support/noProcesses.ts'],
        },
      },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.spec.ts'] } },
    ],
  },
});
