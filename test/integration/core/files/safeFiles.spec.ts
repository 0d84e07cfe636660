import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../../src/core/files/atomicWrite';
import { DecisionLog } from '../../../../src/core/ledger/decisionLog';
import { FileLock } from '../../../../src/core/files/fileLock';
import { ensureFolder, RUNG_GITIGNORE } from '../../../../src/core/files/safeFiles';
import { TeamOutbox } from '../../../../src/core/ledger/teamOutbox';
import { WorkspaceLedger } from '../../../../src/core/ledger/workspaceLedger';
import { loadCatalog } from '../../../../src/core/providers/catalog';
import { decisionRow } from '../../../unit/support/decisionRow';
import { FixedClock } from '../../../unit/support/doubles';
import { makeTempDir, WASM_PATH } from '../../../unit/support/tempDir';

/**
 * Every file Rung writes beside its ledger, each with a symbolic link (or a pipe) where the file should
 * be: each writer refuses by name, and the file the link points at stays byte for byte as it was.
 */

let dir: ReturnType<typeof makeTempDir>;
let rung: string;
let target: string;
const clock = new FixedClock();
const TARGET_TEXT = 'export SECRET=do-not-touch\n';

beforeEach(() => {
  dir = makeTempDir('rung-safe-files-');
  rung = join(dir.path, 'repo', '.rung');
  mkdirSync(rung, { recursive: true });
  target = join(dir.path, 'outside.txt');
  writeFileSync(target, TARGET_TEXT);
});
afterEach(() => dir.remove());

function targetUntouched(): void {
  expect(readFileSync(target, 'utf8')).toBe(TARGET_TEXT);
}

describe('the decision log beside a ledger', () => {
  it('refuses to append through a link at decisions.jsonl, naming it, and keeps the rows queued', async () => {
    const path = join(rung, 'decisions.jsonl');
    symlinkSync(target, path);
    const log = new DecisionLog({ path, clock, schedule: () => () => undefined });
    log.append(decisionRow({ call: 'c1' }));
    await expect(log.flush()).rejects.toThrow(new RegExp(`refusing ${path}: it is a symbolic link to ${target}`));
    targetUntouched();
    expect(log.queued).toBe(1);
    expect(log.notices.map((notice) => notice.kind)).toEqual(['save-failed']);
  });

  it('says so before any work when checked, for the log, its lock and its set-aside file', () => {
    for (const name of ['decisions.jsonl', 'decisions.jsonl.lock', 'decisions.jsonl.unreadable']) {
      const folder = join(dir.path, name, '.rung');
      mkdirSync(folder, { recursive: true });
      symlinkSync(target, join(folder, name));
      const log = new DecisionLog({ path: join(folder, 'decisions.jsonl'), clock });
      expect(() => log.checkFiles(), name).toThrow(/symbolic link/);
    }
  });

  it('does not read or compact a log that is a link, so no line of the file it points at is copied aside', async () => {
    const path = join(rung, 'decisions.jsonl');
    symlinkSync(target, path);
    const log = new DecisionLog({ path, clock });
    await expect(log.compact()).rejects.toThrow(/symbolic link/);
    expect(() => log.readAll()).toThrow(/symbolic link/);
    expect(existsSync(log.unreadablePath)).toBe(false);
    targetUntouched();
  });

  it('refuses to append set-aside lines through a link at decisions.jsonl.unreadable', async () => {
    const path = join(rung, 'decisions.jsonl');
    writeFileSync(path, `${JSON.stringify(decisionRow({ call: 'kept' }))}\nnot a row\n`);
    symlinkSync(target, `${path}.unreadable`);
    const log = new DecisionLog({ path, clock });
    await expect(log.compact()).rejects.toThrow(/symbolic link/);
    targetUntouched();
  });

  it('refuses a lock that is a named pipe without blocking on it', async () => {
    const path = join(rung, 'decisions.jsonl');
    execFileSync('mkfifo', [`${path}.lock`]);
    const log = new DecisionLog({ path, clock });
    log.append(decisionRow({ call: 'c1' }));
    await expect(log.flush()).rejects.toThrow(/named pipe/);
  });
});

describe('the lock file', () => {
  it('refuses a lock that is a link instead of reading, renaming or removing what it points at', async () => {
    const path = join(rung, 'ledger.sqlite.lock');
    symlinkSync(target, path);
    const lock = new FileLock({ path, clock, attempts: 1, staleMs: 0 });
    await expect(lock.acquire()).rejects.toThrow(/symbolic link/);
    targetUntouched();
    expect(readdirSync(rung)).toEqual(['ledger.sqlite.lock']);
  });
});

describe('atomic writes', () => {
  it('refuses to replace a link, writing no temp file', () => {
    const path = join(rung, 'ledger.sqlite');
    symlinkSync(target, path);
    expect(() => writeFileAtomic(path, Buffer.from('new'))).toThrow(/symbolic link/);
    targetUntouched();
    expect(readdirSync(rung)).toEqual(['ledger.sqlite']);
  });
});

describe('the workspace ledger', () => {
  it('refuses a ledger file that is a link, naming it and leaving both the link and its target as they are', async () => {
    const path = join(rung, 'ledger.sqlite');
    symlinkSync(target, path);
    await expect(WorkspaceLedger.open({ path, clock, wasmPath: WASM_PATH })).rejects.toThrow(
      new RegExp(`cannot use ${path} as the ledger: it is a symbolic link to ${target}`),
    );
    targetUntouched();
    expect(readdirSync(rung)).toEqual(['ledger.sqlite']);
  });

  it('refuses a .rung folder that is a link to another folder, writing nothing there', async () => {
    const elsewhere = join(dir.path, 'elsewhere');
    mkdirSync(elsewhere);
    const linked = join(dir.path, 'linked', '.rung');
    mkdirSync(join(dir.path, 'linked'));
    symlinkSync(elsewhere, linked);
    await expect(WorkspaceLedger.open({ path: join(linked, 'ledger.sqlite'), clock, wasmPath: WASM_PATH })).rejects.toThrow(
      /refusing .*linked\/\.rung: it is a symbolic link/,
    );
    await expect(WorkspaceLedger.open({ path: join(linked, 'ledger.sqlite'), clock, wasmPath: WASM_PATH, readOnly: true })).rejects.toThrow(
      /symbolic link/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('moves a damaged ledger aside past a link that holds the name it would have taken', async () => {
    const path = join(rung, 'ledger.sqlite');
    writeFileSync(path, 'SQLite format 3\0 and then nothing a database holds');
    symlinkSync(target, `${path}.corrupt-${clock.now()}`);
    const ledger = await WorkspaceLedger.open({ path, clock, wasmPath: WASM_PATH });
    await ledger.close();
    targetUntouched();
    expect(ledger.notices.find((notice) => notice.kind === 'moved-aside')?.movedTo).toBe(`${path}.corrupt-${clock.now()}-1`);
  });
});

describe('the team outbox', () => {
  it('refuses an outbox that is a link, to read or to write', async () => {
    const path = join(rung, 'team-outbox-0123456789ab.jsonl');
    symlinkSync(target, path);
    const outbox = new TeamOutbox({ path, clock });
    expect(() => outbox.read()).toThrow(/symbolic link/);
    await expect(
      outbox.add([{ member: 'ana', origin: 'w:1', observation: { model: 'm', classKey: 'c', success: true, at: 1 } }]),
    ).rejects.toThrow(/symbolic link/);
    targetUntouched();
  });
});

describe('the catalog cache', () => {
  it('neither reads a cache that is a link nor writes through it', async () => {
    const path = join(rung, 'catalog-openrouter.json');
    writeFileSync(
      target,
      JSON.stringify({
        version: 1,
        fetchedAt: clock.now(),
        url: 'http://127.0.0.1:9/v1/models',
        models: [{ slug: 'm', price: { input: 0, output: 0 }, advertised: [] }],
      }),
    );
    const before = readFileSync(target, 'utf8');
    symlinkSync(target, path);
    const catalog = await loadCatalog({
      baseUrl: 'http://127.0.0.1:9/v1',
      cachePath: path,
      clock,
      fetch: async () => new Response(JSON.stringify({ data: [{ id: 'm', pricing: { prompt: '0.000001', completion: '0.000002' } }] })),
    });
    expect(catalog.source).toBe('network');
    expect(readFileSync(target, 'utf8')).toBe(before);
  });
});

describe('.rung/.gitignore', () => {
  it('is written when Rung makes the .rung folder, ignoring what Rung writes there and not the panel', () => {
    const folder = join(dir.path, 'fresh', '.rung');
    expect(ensureFolder(folder)).toBe(true);
    const text = readFileSync(join(folder, '.gitignore'), 'utf8');
    expect(text).toBe(RUNG_GITIGNORE);
    expect(text.split('\n').filter((line) => !line.startsWith('#') && line.includes('panel'))).toEqual([]);
  });

  it('keeps one the user has, and writes none into a folder of another name', () => {
    writeFileSync(join(rung, '.gitignore'), 'mine\n');
    expect(ensureFolder(rung)).toBe(false);
    expect(readFileSync(join(rung, '.gitignore'), 'utf8')).toBe('mine\n');
    const plain = join(dir.path, 'plain');
    mkdirSync(plain);
    ensureFolder(plain);
    expect(existsSync(join(plain, '.gitignore'))).toBe(false);
  });

  it('is written into a .rung folder the user made first when Rung is about to write there, and not by a check alone', () => {
    const folder = join(dir.path, 'made-by-hand', '.rung');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'panel.json'), '{}');
    expect(ensureFolder(folder)).toBe(false);
    expect(existsSync(join(folder, '.gitignore'))).toBe(false);
    expect(ensureFolder(folder, { beforeWrite: true })).toBe(false);
    expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe(RUNG_GITIGNORE);
  });

  it('leaves a link planted as .rung/.gitignore as it is, writing nothing through it', () => {
    symlinkSync(target, join(rung, '.gitignore'));
    ensureFolder(rung, { beforeWrite: true });
    targetUntouched();
  });

  it('is written when the user made .rung/panel.json first, and git then ignores the ledger and its log but not the panel', async () => {
    const repo = join(dir.path, 'git-panel-first');
    mkdirSync(join(repo, '.rung'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, '.rung', 'panel.json'), '{}');
    const ledger = await WorkspaceLedger.open({ path: join(repo, '.rung', 'ledger.sqlite'), clock, wasmPath: WASM_PATH });
    const log = new DecisionLog({ path: join(repo, '.rung', 'decisions.jsonl'), clock });
    log.append(decisionRow({ call: 'c1' }));
    await log.close();
    await ledger.close();
    const status = execFileSync('git', ['-C', repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
    expect(status.trim().split('\n').sort()).toEqual(['?? .rung/.gitignore', '?? .rung/panel.json']);
  });

  it('is written when the ledger first makes .rung, and git then ignores the ledger and its log but not the panel', async () => {
    const repo = join(dir.path, 'git-repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const ledger = await WorkspaceLedger.open({ path: join(repo, '.rung', 'ledger.sqlite'), clock, wasmPath: WASM_PATH });
    const log = new DecisionLog({ path: join(repo, '.rung', 'decisions.jsonl'), clock });
    log.append(decisionRow({ call: 'c1' }));
    await log.close();
    await ledger.close();
    writeFileSync(join(repo, '.rung', 'panel.json'), '{}');
    const status = execFileSync('git', ['-C', repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
    expect(status.trim().split('\n').sort()).toEqual(['?? .rung/.gitignore', '?? .rung/panel.json']);
  });
});
