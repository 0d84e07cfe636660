import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { redactedUrl, withPassword } from '../../../../src/core/ledger/teamLedger';
import { teamUrlHasPassword, teamUrlRole } from '../../../../src/core/ledger/teamUrl';
import { describeLocation } from '../../../../src/core/store/storeLocation';
import { readTeamLedgerSetting } from '../../../../src/extension/settings/teamLedgerChoice';

/** What pg itself would send as the password for `url`: its own client, which connects to nothing until asked. */
function pgPassword(url: string): unknown {
  // `connectionParameters` is pg's own reading of the options; its typings leave it out.
  const client = new Client({ connectionString: url }) as Client & { connectionParameters: { password?: unknown } };
  return client.connectionParameters.password;
}

/** Every form pg accepts a password in, each with the password (and nothing of it) that must not be shown. */
const WITH_PASSWORD: [string, string, string][] = [
  ['in the query', 'postgres://bob@db.example.com/rung?password=s3cret', 'postgres://bob:***@db.example.com/rung'],
  ['containing @', 'postgres://bob:pw@x@db.example.com/rung', 'postgres://bob:***@db.example.com/rung'],
  ['percent-encoded', 'postgres://bob:p%40ss%2Fw%3A@db.example.com:5433/rung', 'postgres://bob:***@db.example.com:5433/rung'],
  ['with postgresql://', 'postgresql://bob:s3cret@db.example.com/rung', 'postgresql://bob:***@db.example.com/rung'],
  ['with a socket as the host', 'postgres://bob:s3cret@%2Frun%2Fpostgresql/rung', 'postgres://bob:***@/rung?host=%2Frun%2Fpostgresql'],
  [
    'with a socket in the query',
    'postgres:///rung?host=/run/postgresql&user=bob&password=s3cret',
    'postgres://bob:***@/rung?host=%2Frun%2Fpostgresql',
  ],
  ['on IPv6', 'postgres://bob:s3cret@[::1]:5432/rung', 'postgres://bob:***@[::1]:5432/rung'],
];

describe('a team ledger URL with a password, in every form pg accepts', () => {
  for (const [form, url, shown] of WITH_PASSWORD) {
    it(`is seen to carry one and is shown without it, ${form}`, () => {
      expect(pgPassword(url)).toBeTruthy();
      expect(teamUrlHasPassword(url)).toBe(true);
      expect(redactedUrl(url)).toBe(shown);
      expect(readTeamLedgerSetting(url)).toMatchObject({ kind: 'invalid', message: expect.stringContaining('has a password in it') });
      expect(readTeamLedgerSetting(url).kind === 'invalid' ? (readTeamLedgerSetting(url) as { message: string }).message : '').not.toMatch(
        /s3cret|pw@x|p%40ss|x@db/,
      );
    });
  }
});

describe('a team ledger URL without a password', () => {
  it('is shown as it was written, and taken as a setting', () => {
    for (const url of [
      'postgres://bob@db.example.com:5432/rung',
      'postgres://bob:@db.example.com/rung',
      'postgres:///rung?host=/run/postgresql',
      'postgres://bob@db.example.com/rung?sslmode=require',
    ]) {
      expect(pgPassword(url), url).toBeFalsy();
      expect(teamUrlHasPassword(url), url).toBe(false);
      expect(redactedUrl(url)).toBe(url);
      expect(readTeamLedgerSetting(url)).toEqual({ kind: 'url', url });
    }
  });

  it('names its role as pg reads it', () => {
    expect(teamUrlRole('postgres://b%C3%B8b@host/db')).toBe('bøb');
    expect(teamUrlRole('postgres:///db?user=ana&host=/run/postgresql')).toBe('ana');
    expect(teamUrlRole('postgres://host/db')).toBeUndefined();
  });
});

describe('reading a team ledger URL for a message', () => {
  it('reads no file the URL names (sslrootcert=/dev/zero would never end)', () => {
    const url = 'postgres://bob@host/db?sslrootcert=/dev/zero&sslkey=%2Fdev%2Fzero&password=s3cret';
    expect(teamUrlHasPassword(url)).toBe(true);
    expect(redactedUrl(url)).toBe('postgres://bob:***@host/db?sslrootcert=***&sslkey=***');
  });

  it('shows no secret a query parameter can carry, and names the parameter', () => {
    expect(redactedUrl('postgres://bob@db.example.com/rung?sslmode=verify-full&sslpassword=k3y-pass&sslkey=/home/bob/.pg/key')).toBe(
      'postgres://bob@db.example.com/rung?sslmode=verify-full&sslpassword=***&sslkey=***',
    );
    expect(redactedUrl('postgres://bob@db.example.com/rung?options=-c%20app.token%3Dt0ken&application_name=rung')).toBe(
      'postgres://bob@db.example.com/rung?options=***&application_name=rung',
    );
    // A parameter Rung does not know may be a secret of a later pg: its value is not shown.
    expect(redactedUrl('postgres:///rung?host=/run/postgresql&user=bob&frobnicate=s3cret')).toBe(
      'postgres://bob@/rung?host=%2Frun%2Fpostgresql&frobnicate=***',
    );
    for (const url of [
      'postgres://bob@db.example.com/rung?sslpassword=k3y-pass',
      'postgres://bob@db.example.com/rung?options=-c%20app.token%3Dt0ken',
      'postgres://bob:s3cret@db.example.com/rung?sslpassword=k3y-pass',
    ]) {
      expect(redactedUrl(url)).not.toMatch(/k3y-pass|t0ken|s3cret/);
      expect(describeLocation({ kind: 'team', url, fallbackPath: '/w/.rung/ledger.sqlite' })).not.toMatch(/k3y-pass|t0ken|s3cret/);
    }
  });

  it('shows nothing of a URL pg cannot read', () => {
    expect(redactedUrl('postgres://bob:s3cret@[nope/db')).toBe('postgres://… (a URL that cannot be read)');
  });
});

describe('a password kept apart from the URL', () => {
  it('reaches pg whatever it holds, in every form of URL, a socket with no host included', () => {
    const password = 'p@ss:w/o%rd&x=1 #';
    for (const url of [
      'postgres://bob@db.example.com/rung',
      'postgres:///rung?host=/run/postgresql&user=bob',
      'postgres://bob@%2Frun%2Fpostgresql/rung?sslmode=disable',
    ]) {
      expect(pgPassword(withPassword(url, password)), url).toBe(password);
    }
  });
});
