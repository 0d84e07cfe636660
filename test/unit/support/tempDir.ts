/** A fresh temporary directory per test, removed afterwards. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeTempDir(prefix = 'rung-ledger-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The sql.js WebAssembly in node_modules, for workers bundled into a temp directory. */
export const WASM_PATH = require.resolve('sql.js/dist/sql-wasm.wasm');
