// `node scripts/team-bench.mjs`: the team ledger's benchmark (src/bench/teamBench.ts) against a throwaway
// PostgreSQL started by scripts/test-postgres.sh, stopped again at the end. Prints a markdown table.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const out = mkdtempSync(join(tmpdir(), 'rung-team-bench-'));
const [url, folder] = execFileSync('bash', [join(root, 'scripts/test-postgres.sh'), 'start'], { encoding: 'utf8' })
  .trim()
  .split(' ');
try {
  const bundle = join(out, 'teamBench.js');
  await build({
    entryPoints: [join(root, 'src/bench/teamBench.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    external: ['pg-native'],
    logLevel: 'error',
  });
  const { runTeamBench } = require(bundle);
  const { Client } = require('pg');
  const admin = new Client({ connectionString: url });
  await admin.connect();
  const rows = await runTeamBench(async (size) => {
    await admin.query(`CREATE DATABASE bench_${size}`);
    return url.replace(/\/[^/]*$/, `/bench_${size}`);
  });
  await admin.end();
  console.log('| measurement | observations on the server | median | p99 |\n| --- | ---: | ---: | ---: |');
  for (const row of rows) console.log(`| ${row.name} | ${row.n.toLocaleString('en')} | ${row.medianMs} | ${row.p99Ms} |`);
} finally {
  execFileSync('bash', [join(root, 'scripts/test-postgres.sh'), 'stop', folder]);
  rmSync(out, { recursive: true, force: true });
}
