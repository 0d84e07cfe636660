import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../support/CapturedIo';

/**
 * A team URL with a password in it, given to `rung` as `--ledger`: every process on the machine can read
 * a command line (`ps`), and the shell keeps it in its history. It is refused, as the editor's setting
 * refuses one, before any connection is tried, and the password is not repeated.
 */

let cwd: string;

beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'rung-team-password-'));
  writeFileSync(
    join(cwd, 'panel.json'),
    JSON.stringify({
      models: [{ slug: 'qwen2.5:3b', provider: 'ollama' }],
      providers: { ollama: { kind: 'ollama', baseUrl: 'http://127.0.0.1:9' } },
    }),
  );
});

afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

const FORMS = [
  'postgres://ana:hunter2@127.0.0.1:9/team',
  'postgresql://ana@127.0.0.1:9/team?password=hunter2',
  'postgres:///team?host=/run/postgresql&user=ana&password=hunter2',
];

describe('rung with a team URL that holds a password', () => {
  for (const url of FORMS) {
    it(`refuses it with exit 2, names PGPASSWORD, and does not repeat it: ${url.replace('hunter2', '…')}`, async () => {
      for (const argv of [
        ['ledger', 'show', '--ledger', url],
        ['rank', '--panel', 'panel.json', '--class', 'chat', '--ledger', url],
        ['chat', '--panel', 'panel.json', '--ledger', url, 'Say hello'],
      ]) {
        const io = new CapturedIo(cwd, {});
        expect(await main(argv, io), argv.join(' ')).toBe(2);
        expect(io.err).toMatch(
          /--ledger postgres(ql)?:\/\/ana:\*\*\*@.* has a password in it, .* set PGPASSWORD, or write it in ~\/\.pgpass/,
        );
        expect(io.err + io.out).not.toContain('hunter2');
      }
      expect(existsSync(join(cwd, '.rung'))).toBe(false);
    });
  }

  it('refuses one given as the file to merge, too', async () => {
    const io = new CapturedIo(cwd, {});
    expect(await main(['ledger', 'merge', 'postgres://ana:hunter2@127.0.0.1:9/team'], io)).toBe(2);
    expect(io.err).not.toContain('hunter2');
  });
});
