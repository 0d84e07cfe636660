// Bundles every entry point Rung ships: the extension host, the webview, the `rung` CLI and the benchmark.
// One script so that the CLI, the benchmark and the extension are always built from the same core.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Node-side bundles share these settings; `vscode` only exists inside the extension host. */
const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  external: ['vscode'],
};

const entries = [
  // The CLI and the benchmark run beside node_modules, so the TypeScript parser the syntax verifier loads
  // lazily stays a package there (a 10 MB bundle became 0.9 MB) instead of being copied in.
  { entryPoints: [join(root, 'src/cli/main.ts')], outfile: join(root, 'dist/cli.js'), banner: { js: '#!/usr/bin/env node' }, external: ['vscode', 'typescript'] },
  { entryPoints: [join(root, 'src/bench/main.ts')], outfile: join(root, 'dist/bench.js'), external: ['vscode', 'typescript'] },
  // TypeScript stays out of the extension bundle too: the syntax check loads it on the first edit, and
  // bundled it made dist/extension.js 11 MB, which took about 600 ms to load before activate() could run
  // (it is on the startup path, because the model picker needs Rung active). A package must ship it.
  // Minified, the 1.1 MB left loads in roughly half the time (V8 compiles what it reads); names are kept
  // for readable stack traces in the log.
  { entryPoints: [join(root, 'src/extension/extension.ts')], outfile: join(root, 'dist/extension.js'), external: ['vscode', 'typescript'], minify: true, keepNames: true },
  { entryPoints: [join(root, 'test/integration/index.ts')], outfile: join(root, 'dist/test/integration/index.js') },
  // The ledger webview's icons: codicons' css and font only (not its svg, html and metadata), beside webview.js.
  { entryPoints: [join(root, 'webview/codicons.css')], outfile: join(root, 'dist/codicons.css'), platform: 'browser', format: undefined, external: [], loader: { '.ttf': 'file' }, assetNames: '[name]', minify: true, sourcemap: false },
];

export async function buildAll() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  // sql.js loads its WebAssembly from beside the bundle.
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(root, 'dist/sql-wasm.wasm'));
  const jobs = entries.filter((e) => existsSync(e.entryPoints[0])).map((e) => build({ ...node, ...e }));
  const webview = join(root, 'webview/main.ts');
  if (existsSync(webview)) {
    jobs.push(build({ entryPoints: [webview], outfile: join(root, 'dist/webview.js'), bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: true, minify: true, logLevel: 'warning' }));
  }
  await Promise.all(jobs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildAll();
}
