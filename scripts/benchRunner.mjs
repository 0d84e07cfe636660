// Builds one benchmark's entry point under src/bench/ into dist/ and runs it with this script's arguments,
// exiting with its status: what each `scripts/<bench>.mjs` does, written once.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles `src/bench/<entry>.ts` to `dist/<out>.js` and runs it on the arguments this process was given. */
export async function runBench(entry, out) {
  const outfile = join(root, `dist/${out}.js`);
  await build({
    entryPoints: [join(root, `src/bench/${entry}.ts`)],
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
}
