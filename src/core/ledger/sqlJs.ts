/**
 * Loads sql.js (SQLite compiled to WebAssembly) once per process.
 *
 * @remarks
 * The WebAssembly binary is found in one of three ways, because Rung runs from three places: the
 * bundled extension and CLI ship `dist/sql-wasm.wasm` beside their bundle (esbuild.mjs copies it there
 * and a bundle has no `node_modules` to resolve from); tests and scripts run from the repository, where
 * `require.resolve` finds the package's copy; and a caller that knows better (a worker in a temp dir, a
 * test) passes a path or the bytes themselves.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

/** Where the WebAssembly comes from: a file path, the bytes, or (absent) the default search. */
export interface WasmSource {
  wasmPath?: string;
  wasmBinary?: Uint8Array;
}

/** The package-relative id of the binary; a variable so the bundler leaves the lookup to run time. */
const WASM_MODULE_ID = 'sql.js/dist/sql-wasm.wasm';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/** The path the default search settles on: beside the bundle first, then the installed package. */
export function defaultWasmPath(): string {
  const besideBundle = join(__dirname, 'sql-wasm.wasm');
  if (existsSync(besideBundle)) return besideBundle;
  try {
    return require.resolve(WASM_MODULE_ID);
  } catch {
    throw new Error(`sql.js WebAssembly not found beside ${__dirname} nor as ${WASM_MODULE_ID}; pass wasmPath`);
  }
}

/** sql.js, initialised once per distinct source and shared by every ledger in the process. */
export function loadSqlJs(source: WasmSource = {}): Promise<SqlJsStatic> {
  if (source.wasmBinary) {
    const binary = source.wasmBinary;
    // Bytes given by the caller are not cached by identity: each caller that passes bytes gets its own module.
    return initSqlJs({ wasmBinary: binary.buffer.slice(binary.byteOffset, binary.byteOffset + binary.byteLength) as ArrayBuffer });
  }
  const path = source.wasmPath ?? defaultWasmPath();
  let pending = loaded.get(path);
  if (!pending) {
    pending = initSqlJs({ locateFile: () => path });
    loaded.set(path, pending);
    pending.catch(() => loaded.delete(path));
  }
  return pending;
}
