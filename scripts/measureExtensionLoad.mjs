// Measures how long Node takes to load Rung's extension bundle (the code VS Code reads before it can
// call activate()), in fresh processes, with a stand-in for the `vscode` module the bundle imports.
//
//   node esbuild.mjs [--production] && node scripts/measureExtensionLoad.mjs [RUNS]
//
// activate() itself runs inside the editor; its time is in Rung's log ("activated in N ms").
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist/extension.js');
const runs = Number(process.argv[2] ?? 15);
// The child resolves `vscode` to an empty stand-in, then times one require of the bundle.
const child = `
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: {} };
const started = process.hrtime.bigint();
require(${JSON.stringify(bundle)});
process.stdout.write(String(Number(process.hrtime.bigint() - started) / 1e6));
`;
const times = [];
for (let run = 0; run < runs; run++) times.push(Number(execFileSync(process.execPath, ['-e', child], { encoding: 'utf8' })));
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(
  `dist/extension.js ${(statSync(bundle).size / 1024).toFixed(0)} KB: load median ${median.toFixed(1)} ms, min ${times[0].toFixed(1)} ms, max ${times.at(-1).toFixed(1)} ms over ${runs} fresh processes (node ${process.version})`,
);
