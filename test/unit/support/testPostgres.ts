/**
 * A real PostgreSQL for the team ledger's tests: started by scripts/test-postgres.sh, one database per test.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';

const SCRIPT = join(__dirname, '../../../scripts/test-postgres.sh');

export interface TestPostgres {
  /** The server's own database, for making test databases. */
  url: string;
  stop(): void;
}

export function startPostgres(): TestPostgres {
  const [url, folder] = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8' }).trim().split(' ');
  if (!url || !folder) throw new Error('scripts/test-postgres.sh start printed no URL and folder');
  return { url, stop: () => execFileSync('bash', [SCRIPT, 'stop', folder]) };
}

let databases = 0;

/** A fresh, empty database on the server; returns its URL. */
export async function freshDatabase(server: TestPostgres): Promise<string> {
  const name = `team_${process.pid}_${++databases}`;
  await query(server.url, `CREATE DATABASE ${name}`);
  return server.url.replace(/\/[^/]*$/, `/${name}`);
}

/** Runs one statement on its own connection and returns its rows. */
export async function query<Row extends Record<string, unknown>>(url: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
