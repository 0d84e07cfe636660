import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { explainWriteRefusal } from '../../../src/cli/writeRefusal';
import { makeTempDir } from '../support/tempDir';

/** The error Node throws for a refused file operation: a message, a code and the path. */
function refusal(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused, open '${path}'`), { code, path, syscall: 'open' });
}

/** The error a real call throws. */
function thrownBy(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

let dir: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  dir = makeTempDir('rung-refusal-');
});
afterEach(() => dir.remove());

describe('explainWriteRefusal', () => {
  it('names the file standing where a folder was needed, from a real mkdir through it', () => {
    const file = join(dir.path, 'notes');
    writeFileSync(file, '');
    const error = thrownBy(() => mkdirSync(join(file, '.rung', 'deeper'), { recursive: true })) as NodeJS.ErrnoException;
    expect(error.code).toBe('ENOTDIR');
    expect(explainWriteRefusal(error)).toBe(
      `cannot create ${error.path}: ${file} is a file, not a folder; move that file, or choose a path in a folder you can write`,
    );
  });

  it('names a file where the folder itself should be, from a real mkdir onto it', () => {
    const file = join(dir.path, '.rung');
    writeFileSync(file, '');
    const error = thrownBy(() => mkdirSync(file, { recursive: true }));
    expect(explainWriteRefusal(error)).toBe(`${file} is a file, not a folder; move that file, or choose a path in a folder you can write`);
  });

  it('names the folder that refused a new file, not the file Rung tried to make, and how to fix it with the flag that chose it', () => {
    mkdirSync(join(dir.path, '.rung'));
    const folder = join(dir.path, '.rung');
    expect(explainWriteRefusal(refusal('EACCES', join(folder, 'ledger.sqlite.lock')), '--ledger FILE')).toBe(
      `cannot write in the folder ${folder} (permission denied); give yourself write access to it (chmod u+w ${folder}), or pass --ledger FILE with a path in a folder you can write`,
    );
  });

  it('names the nearest folder that exists when a folder could not be made in it', () => {
    expect(explainWriteRefusal(refusal('EACCES', join(dir.path, '.rung', 'sub')))).toMatch(
      new RegExp(`^cannot write in the folder ${dir.path} \\(permission denied\\)`),
    );
  });

  it('names an existing file that cannot be written', () => {
    const file = join(dir.path, 'ledger.sqlite');
    writeFileSync(file, '');
    expect(explainWriteRefusal(refusal('EPERM', file))).toMatch(
      new RegExp(`^cannot write ${file} \\(operation not permitted\\); give yourself write access`),
    );
  });

  it('does not suggest chmod on a read-only file system', () => {
    expect(explainWriteRefusal(refusal('EROFS', join(dir.path, 'x')))).toBe(
      `cannot write in the folder ${dir.path} (the file system is read-only); choose a path in a folder you can write`,
    );
  });

  it('leaves any other error to be reported as it is', () => {
    expect(explainWriteRefusal(refusal('ENOSPC', join(dir.path, 'x')))).toBeUndefined();
    expect(explainWriteRefusal(refusal('EEXIST', dir.path))).toBeUndefined();
    expect(explainWriteRefusal(new Error('no code'))).toBeUndefined();
    expect(explainWriteRefusal('a string')).toBeUndefined();
  });
});
