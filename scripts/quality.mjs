// `node scripts/quality.mjs [OUTCOMES.jsonl] [--economy] [--noisy] [--worlds | --recorded] [--world NAME]… [--spend]`: the routing-quality figures of BENCHMARKS.md in
// one command — the recorded data's train and test splits, families left out, and the generated worlds,
// each beside the simple online learner. Builds src/bench/quality.ts first; writes worlds to a temp dir.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/quality.js');
await build({
  entryPoints: [join(root, 'src/bench/quality.ts')],
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
