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
  /** Stops the server and keeps its data: connections to its port are refused until {@link up}. */
  down(): void;
  /** Starts it again on the same port, with the same data. */
  up(): void;
  /** Makes `role` a login role that must give `password` (scram-sha-256) over TCP. */
  passwordRole(role: string, password: string): void;
}

export function startPostgres(): TestPostgres {
  const [url, folder] = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8' }).trim().split(' ');
  if (!url || !folder) throw new Error('scripts/test-postgres.sh start printed no URL and folder');
  return {
    url,
    stop: () => execFileSync('bash', [SCRIPT, 'stop', folder]),
    down: () => execFileSync('bash', [SCRIPT, 'down', folder]),
    up: () => execFileSync('bash', [SCRIPT, 'up', folder]),
    // The password goes to the script in its environment, never on a command line.
    passwordRole: (role, password) =>
      execFileSync('bash', [SCRIPT, 'password-role', folder, role], { env: { ...process.env, ROLE_PASSWORD: password } }),
  };
}

let databases = 0;

/** A fresh, empty database on the server, owned by `owner` when given (else the server's superuser); returns its URL as that superuser. */
export async function freshDatabase(server: TestPostgres, owner?: string): Promise<string> {
  const name = `team_${process.pid}_${++databases}`;
  await query(server.url, `CREATE DATABASE ${name}${owner ? ` OWNER ${owner}` : ''}`);
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

/**
 * Runs `flush` while another session holds `table`, then kills the flush's connection while its insert
 * waits on the lock: a connection cut in the middle of a batch, at a point the test chooses. Resolves
 * once the flush has failed and the table is free again.
 */
export async function cutFlushMidway(url: string, table: string, flush: () => Promise<unknown>): Promise<void> {
  const blocker = new Client({ connectionString: url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const flushing = flush();
    let waiting: { pid: number }[] = [];
    while (waiting.length === 0) {
      waiting = (
        await blocker.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rung' AND wait_event_type = 'Lock'`,
        )
      ).rows;
    }
    await blocker.query('SELECT pg_terminate_backend($1)', [waiting[0]?.pid]);
    const outcome = await flushing.then(
      () => 'resolved',
      () => 'rejected',
    );
    if (outcome !== 'rejected') throw new Error('the flush survived its connection being cut');
    await blocker.query('ROLLBACK');
  } finally {
    await blocker.end();
  }
}
