/**
 * Opening, reading, appending and creating Rung's own files without following a symbolic link: the
 * ledger, its decision log, their locks, the team outbox, the catalog caches, the files set aside, and
 * the folder that holds them.
 *
 * @remarks
 * A folder the user clones decides what is in its `.rung/`. A link there named `decisions.jsonl`
 * pointing at `~/.bashrc` made one `rung chat` append a decision row to the user's shell start-up file,
 * because `open(path, 'a+')` follows links; a link named `ledger.sqlite.lock` pointing at a named pipe
 * would have blocked the thread in `open` for good. So every file here is opened with `O_NOFOLLOW`
 * (the kernel refuses a link in the last component, with no gap between a check and the open) and
 * `O_NONBLOCK` (a pipe cannot hang the open), and what was opened is checked on the descriptor itself
 * to be a regular file. New files are created with `O_EXCL` as well. The folder is checked with
 * `lstat` after it is made: folders above it are the user's choice (a `--ledger` path, a workspace
 * reached through a link of their own), but the one Rung keeps its files in must be a folder, not a
 * link to one. Windows has no `O_NOFOLLOW`; there the link check is an `lstat` before the open, a gap
 * a program running beside Rung could race but a cloned folder cannot.
 *
 * Refusing is the whole answer: nothing is written, moved or read through the link, and the message
 * names the path, what it points at, and what to do.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  writeSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { basename, join } from 'node:path';

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/** The name of the folder Rung keeps a workspace's files in. */
export const RUNG_FOLDER = '.rung';

/**
 * What `.rung/.gitignore` holds when Rung first writes into a `.rung/` without one: everything Rung writes
 * there, and not the panel file, which a team shares through the repository.
 *
 * @remarks
 * Patterns rather than `*` with exceptions, so a file the user keeps in `.rung/` of their own (a schema
 * for `--schema`) stays theirs to track. `*.sqlite*` covers the ledger, its lock, its temp files and
 * any `.corrupt-<time>` copy; `decisions.jsonl*` the log, its lock and its `.unreadable` lines.
 */
export const RUNG_GITIGNORE = [
  "# Written by Rung when it first wrote here: what it learns here is this machine's own.",
  '# panel.json is not listed, so it can be committed and shared.',
  '*.sqlite',
  '*.sqlite.*',
  'decisions.jsonl',
  'decisions.jsonl.*',
  'team-outbox-*',
  'catalog-*.json',
  'catalog-*.json.*',
  '*.lock',
  '',
].join('\n');

/** A path Rung will not read or write: a symbolic link, something other than a regular file or folder, a file too large. */
export class UnsafePathError extends Error {
  override name = 'UnsafePathError';
  constructor(
    readonly path: string,
    /** What is wrong, read after "it": `is a symbolic link to …; remove the link …`. */
    readonly problem: string,
    /** What stands at the path, for a caller that words its own advice: `a symbolic link to /x`, `a named pipe`. */
    readonly what: string,
  ) {
    super(`refusing ${path}: it ${problem}`);
  }
}

/** A file larger than the reader takes, refused before a byte of it is read. */
export class FileTooLargeError extends UnsafePathError {
  override name = 'FileTooLargeError';
  constructor(
    path: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      path,
      `is ${describeBytes(size)}, more than the ${describeBytes(limit)} Rung reads from such a file; it was left as it is`,
      `a file of ${describeBytes(size)}`,
    );
  }
}

/**
 * Opens `path` with `flags` (`constants.O_*`), refusing a symbolic link in its last component and
 * anything that is not a regular file; never blocks on a pipe. Throws Node's own error for anything
 * else (ENOENT, EACCES).
 */
export function openFile(path: string, flags: number, mode = 0o666): number {
  const fd = openNoFollow(path, flags, mode);
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stat.isFile()) {
    closeSync(fd);
    throw notAFile(path, stat);
  }
  return fd;
}

/**
 * Opens `path` with `flags`, refusing a symbolic link in its last component; whatever else it is, the
 * caller checks (see {@link openFile} for a regular file only).
 */
export function openNoFollow(path: string, flags: number, mode = 0o666): number {
  if (NO_FOLLOW === 0) refuseLink(path);
  try {
    return openSync(path, flags | NO_FOLLOW | NON_BLOCK, mode);
  } catch (error) {
    // Linux and macOS say ELOOP for a link under O_NOFOLLOW, FreeBSD EMLINK. ELOOP also means a loop
    // higher up the path, which is not this refusal: only a link at the path itself is said as one.
    if (isCode(error, 'ELOOP') || isCode(error, 'EMLINK')) refuseLink(path);
    throw error;
  }
}

/**
 * The whole regular file at `path`, or undefined when there is none; refuses a link, a pipe, a device
 * or a folder there, and, with `maxBytes`, a file larger than that, each before reading a byte.
 *
 * @remarks
 * `followLinks` is for a file the user named themselves (`rung chat --panel FILE`): a link they made is
 * theirs to follow, but what it leads to must still be a regular file of a sensible size.
 */
export function readFileIfExists(path: string, options: { maxBytes?: number; followLinks?: boolean } = {}): Buffer | undefined {
  let fd: number;
  try {
    fd = options.followLinks ? openFollowing(path) : openFile(path, constants.O_RDONLY);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (options.maxBytes !== undefined && size > options.maxBytes) {
      throw new FileTooLargeError(path, size, options.maxBytes);
    }
    return readWhole(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** Opens the regular file `path` leads to for reading, following links; never blocks on a pipe. */
function openFollowing(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | NON_BLOCK);
  const stat = fstatSync(fd);
  if (stat.isFile()) return fd;
  closeSync(fd);
  throw notAFile(path, stat);
}

/** Appends `data` to the regular file at `path`, creating it; refuses a link or anything but a file there. */
export function appendToFile(path: string, data: Uint8Array): void {
  const fd = openFile(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    writeWhole(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the folder `dir` (and any folders above it that are missing) and checks that it is a folder, not
 * a link to one; returns whether this call made it.
 *
 * @remarks
 * A `.rung` folder gets a `.gitignore` ({@link RUNG_GITIGNORE}) when this call makes it, and, with
 * `beforeWrite` (the caller is about to write a file there), whenever it has none: created with `O_EXCL`,
 * so one the user has (even an empty one) is never replaced. Only a folder Rung made used to get one, and
 * the docs tell a user to write `.rung/panel.json` first: their `.rung/` was already there, and the
 * ledger and decision log showed in `git status` for anyone to commit. A caller that only checks the
 * folder before refusing a file in it leaves `beforeWrite` off, so a refusal writes nothing.
 */
export function ensureFolder(dir: string, options: { beforeWrite?: boolean } = {}): boolean {
  const made = mkdirSync(dir, { recursive: true }) !== undefined;
  refuseUnlessFolder(dir);
  if ((made || options.beforeWrite) && basename(dir) === RUNG_FOLDER) writeGitignore(dir);
  return made;
}

/** Throws when `dir` is a symbolic link or something other than a folder; nothing there is fine. */
export function refuseUnlessFolder(dir: string): void {
  const stat = lstatIfExists(dir);
  if (stat === undefined) return;
  if (stat.isSymbolicLink()) {
    const what = `a symbolic link${linkTarget(dir)}`;
    throw new UnsafePathError(
      dir,
      `is ${what}, and Rung never keeps its files in a folder reached through a link (a cloned folder could point its writes at any folder of yours); remove the link (rm ${quote(dir)}) and Rung makes the folder itself, or name a path in a real folder`,
      what,
    );
  }
  if (!stat.isDirectory())
    throw new UnsafePathError(dir, `is ${whatIs(stat)}, not a folder; move it away and Rung makes the folder itself`, whatIs(stat));
}

/**
 * Throws when something at `path` is a symbolic link or not a regular file; nothing there is fine.
 *
 * @remarks
 * For a file about to be replaced by a rename, or checked before a command starts work whose record
 * would go there: the rename itself would replace a link rather than write through it, but a link
 * where Rung keeps a file was put there by someone, and the user should hear of it.
 */
export function refuseUnlessFile(path: string): void {
  const stat = lstatIfExists(path);
  if (stat === undefined || stat.isFile()) return;
  if (stat.isSymbolicLink()) refuseLink(path);
  throw notAFile(path, stat);
}

/** What is at `path` itself (a link is not followed), or undefined when nothing is. */
export function lstatIfExists(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return undefined;
    throw error;
  }
}

/** Throws the refusal for a link at `path` when there is one. */
function refuseLink(path: string): void {
  if (!lstatIfExists(path)?.isSymbolicLink()) return;
  const what = `a symbolic link${linkTarget(path)}`;
  throw new UnsafePathError(
    path,
    `is ${what}, and Rung never reads or writes its files through a link (a cloned folder could point them at any file of yours); remove the link (rm ${quote(path)}) and Rung starts a fresh file there, or put the real file in its place`,
    what,
  );
}

function notAFile(path: string, stat: Stats | BigIntStats): UnsafePathError {
  return new UnsafePathError(
    path,
    `is ${whatIs(stat)}, not a file, and Rung reads and writes only regular files there; move it away and Rung starts a fresh file`,
    whatIs(stat),
  );
}

function linkTarget(path: string): string {
  try {
    return ` to ${readlinkSync(path)}`;
  } catch {
    return '';
  }
}

function writeGitignore(dir: string): void {
  let fd: number;
  try {
    fd = openNoFollow(join(dir, '.gitignore'), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  } catch (error) {
    // One the user (or another window) put there first stays as it is.
    if (isCode(error, 'EEXIST')) return;
    throw error;
  }
  try {
    writeWhole(fd, Buffer.from(RUNG_GITIGNORE, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

function readWhole(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let offset = 0;
  while (offset < size) {
    const count = readSync(fd, bytes, offset, size - offset, offset);
    if (count === 0) break;
    offset += count;
  }
  return bytes.subarray(0, offset);
}

/** Writes all of `data` at the descriptor's position. */
export function writeWhole(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.byteLength) offset += writeSync(fd, data, offset, data.byteLength - offset);
}

/** What a path that is not a regular file holds, to follow "is": "a directory", "a named pipe". */
export function whatIs(
  stat: Pick<Stats | BigIntStats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isSymbolicLink'>,
): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** A size for a person: `812 bytes`, `3.2 MiB`. */
export function describeBytes(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MiB`;
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

function quote(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
