import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerPathFor, severalFoldersNote, type LedgerPlace } from '../../../../src/extension/settings/ledgerPlace';

const place = (overrides: Partial<LedgerPlace>): LedgerPlace => ({
  setting: null,
  folder: '/work/app',
  trusted: true,
  workspaceStorage: '/home/u/.vscode/workspaceStorage/abc/rung.rung',
  globalStorage: '/home/u/.vscode/globalStorage/rung.rung',
  ...overrides,
});

describe('ledgerPathFor', () => {
  it("keeps a trusted workspace's ledger in its own .rung folder", () => {
    expect(ledgerPathFor(place({}))).toBe(join('/work/app', '.rung', 'ledger.sqlite'));
  });

  it("keeps an untrusted workspace's ledger in the extension's storage for that workspace, never in the folder", () => {
    expect(ledgerPathFor(place({ trusted: false }))).toBe(join('/home/u/.vscode/workspaceStorage/abc/rung.rung', 'ledger.sqlite'));
  });

  it("takes a user's relative ledger path in the storage, not in the folder, while the workspace is untrusted", () => {
    expect(ledgerPathFor(place({ trusted: false, setting: 'mine/ledger.sqlite' }))).toBe(
      join('/home/u/.vscode/workspaceStorage/abc/rung.rung', 'mine/ledger.sqlite'),
    );
    expect(ledgerPathFor(place({ trusted: true, setting: 'mine/ledger.sqlite' }))).toBe(join('/work/app', 'mine/ledger.sqlite'));
  });

  it("honours a user's absolute ledger path, trusted or not", () => {
    expect(ledgerPathFor(place({ trusted: false, setting: ' /data/ledger.sqlite ' }))).toBe('/data/ledger.sqlite');
  });

  it('uses the global storage with no folder open', () => {
    expect(ledgerPathFor(place({ folder: undefined, workspaceStorage: undefined }))).toBe(
      join('/home/u/.vscode/globalStorage/rung.rung', 'ledger.sqlite'),
    );
    expect(ledgerPathFor(place({ folder: undefined, workspaceStorage: undefined, setting: 'x.sqlite' }))).toBe(
      join('/home/u/.vscode/globalStorage/rung.rung', 'x.sqlite'),
    );
  });
});

describe('a workspace of several folders', () => {
  it("says the first folder's .rung serves them all, naming the others", () => {
    expect(severalFoldersNote([{ name: 'api' }, { name: 'web' }])).toBe(
      "this workspace has 2 folders, and Rung keeps one panel and one ledger for all of them: the first folder's, in api/.rung/. Requests from web are routed by that panel and recorded in that ledger; a panel file in it is not read.",
    );
    expect(severalFoldersNote([{ name: 'api' }, { name: 'web' }, { name: 'docs' }])).toMatch(/Requests from web and docs are routed/);
  });

  it('says nothing for one folder or none', () => {
    expect(severalFoldersNote([{ name: 'api' }])).toBeUndefined();
    expect(severalFoldersNote([])).toBeUndefined();
  });
});
