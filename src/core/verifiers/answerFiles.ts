/**
 * An answer's files, and a scratch copy of the workspace with them written in, so a test or build
 * command can judge the answer rather than the workspace as it already was.
 *
 * @remarks
 * A command run on an unchanged workspace says nothing about the answer: a prose answer "passed"
 * whenever the tests already passed. So a command check needs the answer applied somewhere, and the
 * honest minimum is a throwaway copy: the user's files are never touched, and two checks never see
 * each other's edits. Only a fenced block that names its file is applied, because a block without a
 * path could go anywhere and guessing would grade the guess.
 */
import { lstat, mkdir, mkdtemp, readdir, readlink, realpath, copyFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { scratchPrefix, sweepDeadScratch } from './scratchFolders';
import { fencedBlocks } from './structuredOutputVerifier';

/** One file an answer asks to write, its path relative to the workspace. */
export interface AnswerFile {
  path: string;
  content: string;
}

/**
 * Folders never copied: dependencies and metadata, large and not the answer's business. Every
 * `node_modules` is linked instead, at any depth, so `npm test` in the copy finds its dependencies —
 * in a monorepo a package's own `node_modules` holds what the top-level one does not.
 */
const SKIPPED = new Set(['node_modules', '.git', '.rung']);
/** The skipped folder that is linked into the copy rather than left out. */
const LINKED = 'node_modules';
/** The most a scratch copy may hold, bytes (64 MiB): a source tree is megabytes; past this the copy is not worth its time. */
export const MAX_SCRATCH_BYTES = 64 * 1024 * 1024;
/** The most files a scratch copy may hold: the same judgement, counted in files. */
export const MAX_SCRATCH_FILES = 10_000;

/** `title="src/a.ts"`, `file=src/a.ts` or `filename='src/a.ts'` in a fence's info string. */
const INFO_PATH = /\b(?:title|file|filename|path)=(?:"([^"]+)"|'([^']+)'|(\S+))/;
/** A first line `// file: src/a.ts` or `# file: src/a.ts`; the line is a note to us, not file content. */
const FIRST_LINE_PATH = /^[ \t]*(?:\/\/|#)[ \t]*file(?:name)?:[ \t]*(\S+)[ \t]*\r?\n/i;

/** The fenced blocks of an answer that name their file, in order; a later block for a path wins. */
export function answerFiles(text: string): AnswerFile[] {
  const files = new Map<string, AnswerFile>();
  for (const block of fencedBlocks(text)) {
    const info = INFO_PATH.exec(block.info);
    const named = info ? (info[1] ?? info[2] ?? info[3]) : undefined;
    const firstLine = named === undefined ? FIRST_LINE_PATH.exec(block.body) : null;
    const path = named ?? firstLine?.[1];
    if (path === undefined) continue;
    const content = firstLine ? block.body.slice(firstLine[0].length) : block.body;
    files.set(path, { path, content });
  }
  return [...files.values()];
}

/** Why a path may not be written into the copy, or null: it must stay inside and off the skipped folders. */
export function unsafePath(path: string): string | null {
  const clean = normalize(path);
  if (isAbsolute(path) || isAbsolute(clean) || /^[A-Za-z]:/.test(path)) return `${path} is absolute`;
  const parts = clean.split(/[\\/]/);
  if (parts.includes('..')) return `${path} leaves the workspace`;
  if (parts.some((part) => SKIPPED.has(part))) return `${path} is inside ${parts.find((part) => SKIPPED.has(part))}`;
  return null;
}

/** A scratch copy of a workspace; `remove()` deletes it (a linked node_modules is unlinked, not followed). */
export interface Scratch {
  dir: string;
  remove(): Promise<void>;
}

/** Thrown when a workspace is past the copy limits; the message says which. */
export class ScratchTooLarge extends Error {}

/** Thrown when the caller's signal fired while the copy was being made. */
export class ScratchStopped extends Error {
  constructor() {
    super('stopped by the user');
  }
}

/**
 * Copies `workspace` to a fresh temporary folder (skipping {@link SKIPPED}, linking every
 * `node_modules`; named for this process, see scratchFolders.ts) and writes `files` into it. Throws {@link ScratchTooLarge} past the limits, and an
 * Error for a file that would land outside the copy (through `..` or a symlink in the workspace).
 * Throws {@link ScratchStopped} as soon as `signal` fires, checked at every entry copied, since a
 * copy of thousands of files takes long enough for a Ctrl-C to be waiting on it. Whatever it throws,
 * the partial copy is removed first.
 */
export async function scratchWithFiles(
  workspace: string,
  files: readonly AnswerFile[],
  options: { root?: string; signal?: AbortSignal } = {},
): Promise<Scratch> {
  const { signal } = options;
  const root = options.root ?? tmpdir();
  // Copies a dead run left behind go before this one is made; the sweep itself runs once a process.
  await sweepDeadScratch(root);
  const dir = await mkdtemp(join(root, scratchPrefix()));
  const scratch: Scratch = { dir, remove: () => rm(dir, { recursive: true, force: true }) };
  try {
    const real = await realpath(workspace);
    await copyTree(real, dir, { workspace: real, bytes: 0, files: 0, signal });
    const inside = await realpath(dir);
    for (const file of files) {
      if (signal?.aborted) throw new ScratchStopped();
      const unsafe = unsafePath(file.path);
      if (unsafe) throw new Error(unsafe);
      const planned = join(dir, normalize(file.path));
      const target = join(await folderInside(dirname(planned), inside, file.path), basename(planned));
      await rm(target, { force: true });
      await writeFile(target, file.content);
    }
    return scratch;
  } catch (error) {
    await scratch.remove();
    throw error;
  }
}

/**
 * Makes `folder` (a path in the copy) and returns its real path, refusing a path whose real location
 * is not under `inside`.
 *
 * @remarks
 * A symlinked folder copied from the workspace could point anywhere, so the check comes before anything
 * is created: `mkdir -p` first would build `link/deep/er` in the folder the link points to and only
 * then find it outside. The real path of the deepest folder that exists is checked, and the missing
 * levels are made one at a time under it; a level that exists as something else (a dangling link) stops
 * the write with EEXIST.
 */
async function folderInside(folder: string, inside: string, path: string): Promise<string> {
  const missing: string[] = [];
  let existing = folder;
  let real = await realIfExists(existing);
  while (real === undefined) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
    real = await realIfExists(existing);
  }
  if (real !== inside && !real.startsWith(inside + sep)) throw new Error(`${path} leaves the workspace through a symlink`);
  for (const name of missing) {
    real = join(real, name);
    await mkdir(real);
  }
  return real;
}

/** The real path of `path`, or undefined when it (or what it links to) does not exist. */
async function realIfExists(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** What a copy walk carries: the workspace's real path (links are resolved against it), the running totals and the caller's stop. */
interface CopyWalk {
  workspace: string;
  bytes: number;
  files: number;
  signal: AbortSignal | undefined;
}

/** Copies the folder `from` (a real folder under `walk.workspace`) to `to`. */
async function copyTree(from: string, to: string, walk: CopyWalk): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (walk.signal?.aborted) throw new ScratchStopped();
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.name === LINKED) {
      await symlink(source, target, 'junction');
      continue;
    }
    if (SKIPPED.has(entry.name)) continue;
    if (++walk.files > MAX_SCRATCH_FILES) throw new ScratchTooLarge(`the workspace has more than ${MAX_SCRATCH_FILES} files to copy`);
    if (entry.isDirectory()) {
      await mkdir(target);
      await copyTree(source, target, walk);
    } else if (entry.isSymbolicLink()) {
      await symlink(linkInCopy(await readlink(source), from, walk.workspace), target);
    } else if (entry.isFile()) {
      walk.bytes += (await lstat(source)).size;
      if (walk.bytes > MAX_SCRATCH_BYTES) throw new ScratchTooLarge(`the workspace holds more than ${MAX_SCRATCH_BYTES} bytes to copy`);
      await copyFile(source, target);
    }
  }
}

/**
 * What a link found in `folder` should say in the copy so that it points where it pointed in the workspace.
 *
 * @remarks
 * Copied unchanged, a relative link that climbs out of the workspace (`pkg/shared -> ../../shared3` in
 * a monorepo) points somewhere else from the scratch folder — usually nowhere — and the tests that fail
 * for it blame the model. So a link is resolved against its own folder: a target inside the workspace
 * is written relative to that folder (it resolves the same inside the copy, to the copy's file, which
 * may be one the answer wrote), and a target outside it, or in a folder the copy leaves out (`.git`),
 * is written as an absolute path. `folder` and `workspace` are real paths, so `..` is resolved as the
 * system resolves it.
 */
function linkInCopy(link: string, folder: string, workspace: string): string {
  const resolved = resolve(folder, link);
  const fromRoot = relative(workspace, resolved);
  const outside = fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot);
  const leftOut = fromRoot.split(sep).some((part) => part !== LINKED && SKIPPED.has(part));
  if (outside || leftOut) return resolved;
  return isAbsolute(link) ? relative(folder, resolved) || '.' : link;
}
