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
  for (const match of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm,
  )) {
    found.push((match[1] ?? match[2] ?? match[3] ?? match[4]) as string);
  }
  return found;
}

/**
 * The rooms of src/core, lowest first: a file imports only from its own room and the rooms below it.
 *
 * @remarks
 * `base` is the core's loose files (the panel, ratings, the difficulty model, the clock, the verdict,
 * small text helpers); `files` is the plumbing of Rung's own files (no symbolic links, atomic writes,
 * locks, the flush timer), which knows nothing of what the files hold and so sits just above the clock
 * it needs; `panel files` are the three loose files that find and read a panel on disk and ask a local
 * Ollama for one, so they sit above what they use. ARCHITECTURE.md gives each room a line.
 * The order is the one the code had once connectProviders, isLocal, the redactor and the alias rule
 * moved to where they are used from; a new folder must be placed here before the test passes.
 */
const CORE_ROOMS = [
  'base',
  'files',
  'decisions',
  'signal',
  'ledger',
  'store',
  'providers',
  'verifiers',
  'routing',
  'confidence',
  'chat',
  'evaluation',
  'replay',
  'session',
  'panel files',
];
const PANEL_FILES = ['ollamaPanel.ts', 'panelDiscovery.ts', 'panelFileText.ts'];

/** The room a file of src/core belongs to: its folder, or `base` / `panel files` for a loose file. */
function roomOf(file: string): string {
  const parts = relative('src/core', file).split('/');
  if (parts.length > 1) return parts[0] as string;
  return PANEL_FILES.includes(parts[0] as string) ? 'panel files' : 'base';
}

/** Every import inside src/core that climbs to a room above its own, or leaves the rooms known. */
function climbingImports(files: string[], importsOf: (file: string) => string[] = imports): string[] {
  const offenders: string[] = [];
  for (const file of files) {
    const from = CORE_ROOMS.indexOf(roomOf(file));
    if (from < 0) offenders.push(`${file}: room ${roomOf(file)} is not in CORE_ROOMS`);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(file), spec));
      if (!target.startsWith('src/core/')) continue;
      const to = CORE_ROOMS.indexOf(roomOf(target));
      if (to > from) offenders.push(`${file} (${roomOf(file)}) -> ${spec} (${roomOf(target)})`);
    }
  }
  return offenders;
}

describe('architecture', () => {
  it('keeps the rooms of the core in order: no import climbs to a room above its own', () => {
    const files = sources('src/core');
    expect(files.length).toBeGreaterThan(5);
    expect(climbingImports(files)).toEqual([]);
  });

  it('finds an import that climbs when one is there, and a room it does not know', () => {
    // The rule above must not pass because it reads nothing: the router importing the session climbs.
    const climbing = (file: string) => (file.endsWith('router.ts') ? ['../session/session', '../ledger/ledger'] : []);
    expect(climbingImports(['src/core/routing/router.ts'], climbing)).toEqual([
      'src/core/routing/router.ts (routing) -> ../session/session (session)',
    ]);
    expect(climbingImports(['src/core/attic/old.ts'], () => [])).toEqual(['src/core/attic/old.ts: room attic is not in CORE_ROOMS']);
    expect(climbingImports(['src/core/ollamaPanel.ts'], () => ['./routing/ladder', './panel'])).toEqual([]);
  });

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

  it("keeps vscode out of the extension layer's calls, which are tested without the editor", () => {
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
        if (!(spec.startsWith('.') && (target.startsWith('webview') || target.startsWith('src/protocol'))))
          offenders.push(`${file} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('finds the import of vscode when one is there', () => {
    // The rule above must not pass because the pattern matches nothing.
    expect(imports('src/extension/extension.ts')).toContain('vscode');
  });
});
