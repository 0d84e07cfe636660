import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStoreLocation, StoreLocationError, workspaceFileOf } from '../../../../src/core/store/storeLocation';

const cwd = '/work/project';
const workspaceFile = join(cwd, '.rung', 'ledger.sqlite');

describe('parseStoreLocation', () => {
  it('keeps the ledger in memory, or in the workspace file, when nothing is named, as the command chooses', () => {
    expect(parseStoreLocation({ value: undefined, cwd, whenAbsent: 'memory', name: '--ledger' })).toEqual({ kind: 'memory' });
    expect(parseStoreLocation({ value: undefined, cwd, whenAbsent: 'workspace', name: '--ledger' })).toEqual({
      kind: 'file',
      path: workspaceFile,
    });
  });

  it('reads a file relative to the folder, and a team server with the workspace file as its fallback', () => {
    expect(parseStoreLocation({ value: 'ledgers/a.sqlite', cwd, whenAbsent: 'memory', name: '--ledger' })).toEqual({
      kind: 'file',
      path: join(cwd, 'ledgers', 'a.sqlite'),
    });
    const team = parseStoreLocation({ value: ' postgresql://ana@db:5432/team ', cwd, whenAbsent: 'memory', name: '--ledger' });
    expect(team).toEqual({ kind: 'team', url: 'postgresql://ana@db:5432/team', fallbackPath: workspaceFile });
    // The decision log stays beside the workspace file whatever keeps the ratings.
    expect(workspaceFileOf(team)).toBe(workspaceFile);
    expect(workspaceFileOf({ kind: 'memory' })).toBeNull();
  });

  it('refuses an empty value, a URL pg cannot read and a scheme that is not a ledger, naming the flag and what to write', () => {
    const read = (value: string) => () => parseStoreLocation({ value, cwd, whenAbsent: 'memory', name: '--ledger' });
    expect(read('  ')).toThrow(StoreLocationError);
    expect(read('  ')).toThrow(
      '--ledger needs a ledger file or a postgres://user@host:port/database URL, not an empty value; leave it out for a ledger in memory',
    );
    // Said once, and not echoed: a URL that cannot be read may still hold a password.
    expect(read('postgres://ana:s3cret@db:notaport/team')).toThrow(
      '--ledger is a postgres URL that cannot be read (not shown: it may hold a password); write it as postgres://user@host:port/database',
    );
    expect(read('https://db.example.com/team')).toThrow(
      '--ledger "https://db.example.com/team": only a postgres:// URL names a team\'s server; give a ledger file, or postgres://user@host:port/database',
    );
  });
});
