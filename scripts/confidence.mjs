// `node scripts/confidence.mjs [OUTCOMES.jsonl] [--seeds K] [--svg FILE]`: the confidence-check figures of BENCHMARKS.md
// in one command — Rung with the learned check on train and test, one fixed threshold, fixed chains per
// family chosen on train, on half of test and on test itself — and, with --svg, their plot. Builds src/bench/confidenceBench.ts first.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/confidenceBench.js');
await build({
  entryPoints: [join(root, 'src/bench/confidenceBench.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
});
const result = spawnSync(process.execPath, ['--enable-source-maps', outfile, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
