// `node scripts/misfit.mjs [OUTCOMES.jsonl] [--split S] [--world NAME --seed N]`: the recorded outcomes
// (train split unless told) against the router's one-difficulty model, per family — the figures the
// correlated world in src/bench/worlds.ts was calibrated to. Builds src/bench/misfitReport.ts first.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/misfit.js');
await build({
  entryPoints: [join(root, 'src/bench/misfitReport.ts')],
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
