import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');

/** Every TypeScript file under `dir`; a layer not written yet (no folder) has none. */
function sources(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(join(root, dir))) return out;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every module specifier a file imports, statically or dynamically. */
function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm)) {
    found.push((match[1] ?? match[2] ?? match[3] ?? match[4]) as string);
  }
  return found;
}

describe('architecture', () => {
  it('keeps vscode out of the core, the protocol, the CLI and the benchmark', () => {
    const files = [...sources('src/core'), ...sources('src/protocol'), ...sources('src/cli'), ...sources('src/bench')];
    expect(files.length).toBeGreaterThan(5);
    const offenders = files.filter((file) => imports(file).some((spec) => spec === 'vscode'));
    expect(offenders).toEqual([]);
  });

  it('lets the core import only itself and plain libraries', () => {
    const files = sources('src/core');
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of imports(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(root, dirname(file), spec));
        if (!target.startsWith('src/core')) offenders.push(`${file} -> ${spec}`);
      }
    }
    expect(files.length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('keeps vscode out of the extension layer\'s calls, which are tested without the editor', () => {
    const files = sources('src/extension/calls');
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => imports(file).some((spec) => spec === 'vscode'))).toEqual([]);
  });

  it('lets the webview import nothing but the protocol', () => {
    const files = sources('webview');
    expect(files.length).toBeGreaterThan(0);
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of imports(file)) {
        const target = spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)) : spec;
        if (!(spec.startsWith('.') && (target.startsWith('webview') || target.startsWith('src/protocol')))) offenders.push(`${file} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('finds the import of vscode when one is there', () => {
    // The rule above must not pass because the pattern matches nothing.
    expect(imports('src/extension/extension.ts')).toContain('vscode');
  });
});
