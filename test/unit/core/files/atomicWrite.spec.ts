import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadOnlyFileError, writeFileAtomic } from '../../../../src/core/files/atomicWrite';
import { makeTempDir } from '../../support/tempDir';

/** Windows keeps no POSIX mode: only a read-only attribute, which the refusal below still reads. */
const posix = process.platform !== 'win32';

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  dir = makeTempDir('rung-atomic-');
});
afterEach(() => {
  // A read-only file left by a failed assertion must not stop the folder's removal on any platform.
  for (const name of readdirSync(dir.path)) chmodSync(join(dir.path, name), 0o644);
  dir.remove();
});

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('writeFileAtomic', () => {
  it.runIf(posix).each([
    { mode: 0o600, shown: '600' },
    { mode: 0o640, shown: '640' },
    { mode: 0o664, shown: '664' },
  ])('keeps the mode of the file it replaces ($shown)', ({ mode }) => {
    const path = join(dir.path, 'ledger.sqlite');
    writeFileSync(path, 'old');
    chmodSync(path, mode);
    const stat = writeFileAtomic(path, Buffer.from('new'));
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(modeOf(path)).toBe(mode);
    expect(Number(stat.mode) & 0o777).toBe(mode);
  });

  it.runIf(posix)('gives a new file the mode the umask gives any file', () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeFileAtomic(path, Buffer.from('new'));
    writeFileSync(join(dir.path, 'plain'), '');
    expect(modeOf(path)).toBe(modeOf(join(dir.path, 'plain')));
  });

  it('refuses to replace a read-only file, naming it, and leaves its bytes, its mode and no temp file behind (as root too)', () => {
    const path = join(dir.path, 'ledger.sqlite');
    writeFileSync(path, 'old');
    chmodSync(path, 0o444);
    let thrown: unknown;
    try {
      writeFileAtomic(path, Buffer.from('new'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ReadOnlyFileError);
    expect((thrown as Error).message).toBe(
      `${path} is read-only (mode 444), so Rung leaves it as it is; make it writable (chmod u+w) to save to it`,
    );
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(modeOf(path)).toBe(0o444);
    expect(readdirSync(dir.path)).toEqual(['ledger.sqlite']);
  });
});
