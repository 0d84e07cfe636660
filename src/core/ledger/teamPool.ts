/**
 * The connections to a team's PostgreSQL server: the pool, its password and time limit, the checkout
 * that a dropped connection cannot crash the process through, one transaction, and what a failure to
 * connect means.
 *
 * @remarks
 * Kept apart from what the team ledger stores because none of it knows a table: the schema, the writes
 * and the fold each take a connection from here, and the fallback to a workspace file asks
 * {@link isUnreachable} alone whether the server was the problem.
 */
import type { Pool, PoolClient } from 'pg';
import { teamUrlRole } from './teamUrl';

/**
 * How long, ms, a connection to the team's server may take before the server counts as unreachable.
 *
 * @remarks
 * `pg` waits forever by default, and a server behind a dropped VPN does not refuse, it just never
 * answers: a flush would hang, the observations would never reach the outbox, and closing a window
 * would wait past the 5 s VS Code gives it. Five seconds is far beyond a healthy connect, even abroad.
 */
export const TEAM_CONNECT_TIMEOUT_MS = 5_000;

/** Connections this process keeps open to the team's server: one to flush and one to refresh is plenty. */
const POOL_SIZE = 2;

/** Node's error codes for a server that cannot be reached: refused, reset, timed out, no route, no such host. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EADDRNOTAVAIL',
]);

/**
 * Whether opening the team's ledger failed because the server could not be reached or would not let this
 * role in (refused, no answer, a network that is down, a password it did not take), rather than for what
 * it holds (no Rung ledger yet, a schema too old or too new), which working elsewhere would not mend.
 */
export function isUnreachable(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every((part) => isUnreachable(part));
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Node's socket errors, and PostgreSQL's connection (08), authorisation (28), too-many-connections
    // (53300) and starting-up (57P03) states. Named one by one: Node's other codes (ERR_MODULE_NOT_FOUND
    // for a pg that is not installed) are this machine's problem, which no fallback hides.
    return UNREACHABLE_CODES.has(code) || /^(08|28)[0-9A-Z]{3}$/.test(code) || code === '53300' || code === '57P03';
  }
  // pg's own: the connect limit passed, a connection the server dropped, or a password it asks for and was not given.
  return /^(Connection terminated|timeout expired|SASL: )/.test(cause.message);
}

/**
 * The URL carrying `password`, when one is given apart from it (the extension's SecretStorage).
 *
 * @remarks
 * pg reads a connection string over its other options, and reads a URL without a password as the empty
 * password: given beside the URL as pg's `password` option, the password was never sent, and a server
 * that asks for one refused every member who had set it with "Rung: Set Team Ledger Password". It goes
 * in as `password=`, percent-encoded whatever it holds (`@`, `:`, `/`, `%`, `&`), which pg's parser reads
 * before the user part: set in the user part, it was dropped without a word for a URL with no host (a
 * Unix socket given as `?host=/run/postgresql`), which cannot carry one.
 */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined || password === '') return url;
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  return `${base}${base.includes('?') ? '&' : '?'}password=${encodeURIComponent(password)}${hash < 0 ? '' : url.slice(hash)}`;
}

/** Where and how to connect: the team ledger's own options, as far as the pool reads them. */
export interface TeamPoolOptions {
  url: string;
  password?: string;
  /** See {@link TEAM_CONNECT_TIMEOUT_MS}; tests shorten it. */
  connectTimeoutMs?: number;
}

/**
 * A pool of connections to the team's server; nothing is connected until the first checkout.
 *
 * @remarks
 * `pg` is loaded here rather than at the top of the module, so the extension and the CLI load it only
 * when someone names a team server.
 */
export async function openPool(options: TeamPoolOptions): Promise<Pool> {
  const pg = await import('pg');
  // Shipped beside the extension's bundle, pg is one CommonJS file whose exports Node's import() cannot
  // name (esbuild's output defeats its export detection): they are all on `default` there.
  const named: typeof pg.Pool | undefined = pg.Pool;
  const PoolClass = named ?? pg.default.Pool;
  const pool = new PoolClass({
    connectionString: withPassword(options.url, options.password),
    max: POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? TEAM_CONNECT_TIMEOUT_MS,
    application_name: 'rung',
  });
  // An idle connection the server drops (a restart, a terminated backend) is an event, not a crash;
  // the next query takes a fresh connection.
  pool.on('error', () => {});
  return pool;
}

const listening = new WeakSet<PoolClient>();

/**
 * A connection from the pool that a server dropping it cannot crash the process through.
 *
 * @remarks
 * `pg` reports a connection the server ended (a restart, `pg_terminate_backend`) as an `error` event
 * when no query is waiting on it, and an `error` event nobody listens to throws. The query in flight,
 * if any, fails with the same error, which is where it is handled.
 */
export async function checkout(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  if (!listening.has(client)) {
    listening.add(client);
    client.on('error', () => {});
  }
  return client;
}

/** Runs `work` in one transaction on one connection; a connection that failed mid-transaction is not given to the next query. */
export async function transaction(pool: Pool, work: (client: PoolClient) => Promise<void>): Promise<void> {
  const client = await checkout(pool);
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/**
 * What went wrong opening the team's ledger, for a person.
 *
 * @remarks
 * pg's words are kept (they name the role: `password authentication failed for user "ana"`), except when
 * the server asks for a password and none was given, which pg reports as a SASL message about a string.
 */
export function openProblem(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!/client password must be a string/.test(message)) return message;
  const role = teamUrlRole(url);
  const who = role ? `role "${role}"` : 'the role (PGUSER, else your user name)';
  return `the server asks for the password of ${who} and none was given (put it in PGPASSWORD or ~/.pgpass; ${message})`;
}
