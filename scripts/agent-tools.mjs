// `node scripts/agent-tools.mjs [TOOLS.json] [--input-price USD_PER_M]`: the agent tools figures of BENCHMARKS.md —
// what Agent mode's tool schemas take of a request, sent whole and trimmed by `rung.agentTools: "relevant"`.
// Builds src/bench/agentToolsBench.ts first.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/agentToolsBench.js');
await build({
  entryPoints: [join(root, 'src/bench/agentToolsBench.ts')],
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
