import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.spec.ts'],
    // Several specs spawn OS processes that share one ledger file; two cores cannot run them all at once.
    pool: 'forks',
    testTimeout: 30_000,
    // CI also writes a machine-readable result, from which .ci/run prints its plain closing line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results.json' }]] : ['default'],
  },
});
