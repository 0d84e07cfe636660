// Bundles every entry point Rung ships: the extension host, the webview, the `rung` CLI and the benchmark,
// and the test host's bundles: the extension-host suites, their runner and `npm start`.
// One script so that the CLI, the benchmark, the extension and its tests are always built from the same core.
//
// `node esbuild.mjs --production` builds what `npm run package` ships: no source maps, minified.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { renderIcon } from './scripts/icon.mjs';

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

/**
 * Keeps TypeScript's compiler out of the extension bundle and ships it beside it as `dist/typescript.js`.
 *
 * @remarks
 * The syntax check imports `typescript` lazily; inlined, that one import turned a 0.6 MB extension bundle
 * into 4.1 MB that every activation parsed. The `.vsix` has no node_modules, so the compiler goes in
 * `dist/` as its own file and is read from disk only on the first syntax check.
 */
const typescriptBesideTheBundle = {
  name: 'typescript-beside-the-bundle',
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: './typescript.js', external: true }));
  },
};

/**
 * The test files of each suite, found when the bundle is built, so adding a file is all it takes to run it.
 *
 * @remarks
 * Integration files are `require`d from a function so that esbuild evaluates each one only when the suite
 * loads it, between mocha's `pre-require` and `post-require` (which bind `describe`/`it`).
 */
const SUITES = {
  'rung:integration-tests': { folder: 'test/integration', suffix: '.test.ts', lazy: true },
  'rung:canary-tests': { folder: 'test/integration/canary', suffix: '.canary.ts', lazy: true },
  // Windows of their own: one with no folder open, one on a workspace the user has not trusted.
  'rung:no-folder-tests': { folder: 'test/integration/noFolder', suffix: '.noFolder.ts', lazy: true },
  'rung:untrusted-tests': { folder: 'test/integration/untrusted', suffix: '.untrusted.ts', lazy: true },
  'rung:e2e-checks': { folder: 'test/e2e', suffix: '.e2e.ts', lazy: false },
};

function filesUnder(folder, suffix) {
  const found = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

const testFiles = {
  name: 'test-files',
  setup(build) {
    build.onResolve({ filter: /^rung:/ }, (args) => ({ path: args.path, namespace: 'test-files' }));
    build.onLoad({ filter: /.*/, namespace: 'test-files' }, (args) => {
      const suite = SUITES[args.path];
      if (!suite) return { errors: [{ text: `no test suite is called ${args.path}` }] };
      const files = filesUnder(suite.folder, suite.suffix);
      const rows = files.map((file, index) => {
        const name = JSON.stringify(relative(root, file));
        return suite.lazy
          ? `  { file: ${name}, load: () => require(${JSON.stringify(file)}) },`
          : `  { file: ${name}, module: check${index} },`;
      });
      const imports = suite.lazy ? [] : files.map((file, index) => `import * as check${index} from ${JSON.stringify(file)};`);
      return {
        contents: [...imports, `export const files = [`, ...rows, `];`].join('\n'),
        resolveDir: root,
        loader: 'ts',
        watchFiles: files,
      };
    });
  },
};

/**
 * Keeps `pg` out of the extension bundle and ships it beside it as `dist/pg.js`, like TypeScript's compiler.
 *
 * @remarks
 * Only a team ledger (`rung.teamLedger.url`) loads it, lazily. Inlined, it added 222 KB to the 610 KB
 * bundle that every activation parses, for a setting most users never set.
 */
const pgBesideTheBundle = {
  name: 'pg-beside-the-bundle',
  setup(build) {
    build.onResolve({ filter: /^pg$/ }, () => ({ path: './pg.js', external: true }));
  },
};

const entries = [
  // The CLI and the benchmark run beside node_modules, so the TypeScript parser the syntax verifier loads
  // lazily stays a package there (a 10 MB bundle became 0.9 MB) instead of being copied in.
  // So does `pg`, which only a team ledger (`--ledger postgres://…`) loads, lazily.
  {
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: join(root, 'dist/cli.js'),
    banner: { js: '#!/usr/bin/env node' },
    external: ['vscode', 'typescript', 'pg'],
  },
  { entryPoints: [join(root, 'src/bench/main.ts')], outfile: join(root, 'dist/bench.js'), external: ['vscode', 'typescript', 'pg'] },
  {
    entryPoints: [join(root, 'src/bench/evaluationBench.ts')],
    outfile: join(root, 'dist/evaluation-bench.js'),
    external: ['vscode', 'typescript', 'pg'],
  },
  {
    entryPoints: [join(root, 'src/extension/extension.ts')],
    outfile: join(root, 'dist/extension.js'),
    plugins: [typescriptBesideTheBundle, pgBesideTheBundle],
    shipped: true,
  },
  // The PostgreSQL client a team ledger loads from beside the extension's bundle (see pgBesideTheBundle);
  // its optional native binding is not installed, and pg falls back to JavaScript without it.
  {
    entryPoints: [require.resolve('pg')],
    outfile: join(root, 'dist/pg.js'),
    external: ['pg-native'],
    sourcemap: false,
    minify: true,
    logLevel: 'error',
    shipped: true,
  },
  // The compiler the extension's syntax check loads from beside its bundle (see typescriptBesideTheBundle).
  {
    entryPoints: [require.resolve('typescript')],
    outfile: join(root, 'dist/typescript.js'),
    sourcemap: false,
    minify: true,
    logLevel: 'error',
    shipped: true,
  },
  // The ledger webview's icons: codicons' css and font only (not its svg, html and metadata), beside webview.js.
  {
    entryPoints: [join(root, 'webview/codicons.css')],
    outfile: join(root, 'dist/codicons.css'),
    platform: 'browser',
    format: undefined,
    external: [],
    loader: { '.ttf': 'file' },
    assetNames: '[name]',
    minify: true,
    sourcemap: false,
    shipped: true,
  },
];

/** The test host's bundles: never shipped, rebuilt by `npm run test:host` and `npm start`. */
/** Mocha is bundled into each suite; only its parallel mode, unused here, resolves files at run time. */
const suite = { plugins: [testFiles], logOverride: { 'require-resolve-not-external': 'silent' } };
const testEntries = [
  { entryPoints: [join(root, 'test/integration/index.ts')], outfile: join(root, 'dist/test/integration/index.js'), ...suite },
  { entryPoints: [join(root, 'test/integration/canary/index.ts')], outfile: join(root, 'dist/test/integration/canary.js'), ...suite },
  { entryPoints: [join(root, 'test/integration/noFolder/index.ts')], outfile: join(root, 'dist/test/integration/noFolder.js'), ...suite },
  { entryPoints: [join(root, 'test/integration/untrusted/index.ts')], outfile: join(root, 'dist/test/integration/untrusted.js'), ...suite },
  {
    entryPoints: [join(root, 'test/integration/runTest.ts')],
    outfile: join(root, 'dist/test/integration/runTest.js'),
    external: ['vscode', '@vscode/test-electron'],
  },
  // playwright-core loads its browser protocol pieces at run time: it stays a package in node_modules.
  {
    entryPoints: [join(root, 'scripts/test-host/runHost.ts')],
    outfile: join(root, 'dist/test/runHost.js'),
    external: ['vscode', 'playwright-core'],
    plugins: [testFiles],
  },
  { entryPoints: [join(root, 'scripts/test-host/start.ts')], outfile: join(root, 'dist/start.js') },
];

/** Where the build writes the panel file's JSON Schema; package.json's `jsonValidation` names this file. */
export const PANEL_SCHEMA = 'dist/panel.schema.json';

/**
 * Writes `dist/panel.schema.json`, the JSON Schema package.json's `jsonValidation` gives VS Code for
 * `.rung/panel.json`, from the panel's zod schema (src/core/panelJsonSchema.ts).
 *
 * @remarks
 * Made at every build rather than kept as a file beside the code, so a field added to the validator is
 * in the editor's completions the next time Rung is built, and the two cannot disagree.
 */
export async function writePanelSchema(outfile = join(root, PANEL_SCHEMA)) {
  const bundled = await build({
    ...node,
    entryPoints: [join(root, 'src/core/panelJsonSchema.ts')],
    sourcemap: false,
    write: false,
    outfile: join(root, 'dist/panel-schema.js'),
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', bundled.outputFiles[0].text)(module, module.exports, require);
  writeFileSync(outfile, `${JSON.stringify(module.exports.panelJsonSchema(), null, 2)}\n`);
}

/** Where the build writes the Marketplace icon; package.json's `icon` names this file. */
export const ICON = 'dist/icon.png';

/** Writes `dist/icon.png`, the listing's 128 px icon, from media/rung.svg (scripts/icon.mjs). */
export async function writeIcon(outfile = join(root, ICON)) {
  writeFileSync(outfile, await renderIcon(readFileSync(join(root, 'media/rung.svg'), 'utf8')));
}

export async function buildAll({ production = false, tests = !production } = {}) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  // sql.js loads its WebAssembly from beside the bundle.
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(root, 'dist/sql-wasm.wasm'));
  const chosen = [...(production ? entries.filter((e) => e.shipped) : entries), ...(tests ? testEntries : [])];
  const jobs = chosen
    .filter((e) => existsSync(e.entryPoints[0]))
    .map(({ shipped: _shipped, ...e }) => build({ ...node, ...(production ? { sourcemap: false, minify: true } : {}), ...e }));
  const webview = join(root, 'webview/main.ts');
  if (existsSync(webview)) {
    jobs.push(
      build({
        entryPoints: [webview],
        outfile: join(root, 'dist/webview.js'),
        bundle: true,
        platform: 'browser',
        target: 'es2022',
        format: 'iife',
        sourcemap: !production,
        minify: production,
        logLevel: 'warning',
      }),
    );
  }
  jobs.push(writePanelSchema(), writeIcon());
  await Promise.all(jobs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildAll({ production: process.argv.includes('--production') });
}
