/**
 * Rung packaged as a user installs it: the `.vsix` that `npm run package` makes, from the bundles
 * already built in `dist/`.
 *
 * @remarks
 * Packaging is what `.vscodeignore` decides, so a window running the package finds out what the
 * package leaves out (sql.js's WebAssembly, the TypeScript compiler of the syntax check), which a
 * window loading the repository as the extension under development never can.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './codeServer';

/** Packages the built extension into `out` with the flags `npm run package` uses, and returns `out`. */
export function packageRung(out: string): string {
  const root = repositoryRoot();
  if (!existsSync(join(root, 'dist/extension.js'))) throw new Error('dist/extension.js is missing: build first (node esbuild.mjs)');
  const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
  const packaged = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], { cwd: root, encoding: 'utf8' });
  if (packaged.status !== 0)
    throw new Error(`vsce package failed (exit ${packaged.status ?? packaged.signal}):\n${packaged.stdout}${packaged.stderr}`);
  return out;
}
