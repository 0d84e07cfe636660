/**
 * A team ledger's URL read the way `pg` reads it: whether it carries a password, and how it is shown in
 * messages without one.
 *
 * @remarks
 * The URL is handed to `pg`, which reads it with `pg-connection-string`, so both questions are answered
 * by that same parser rather than by a pattern of Rung's own. Two patterns disagreed with it:
 * `postgres://bob@host/db?password=…` passed "no password in the setting" and was logged whole, and in
 * `postgres://bob:pw@x@host/db` (the password is `pw@x`: the last `@` ends it) the redaction stopped at the
 * first `@` and logged `x@host`. Every form `pg` accepts — a password in the user part or in `?password=`,
 * percent-encoded, a Unix socket as the host (`postgres:///db?host=/run/postgresql`, or `%2F…` in the
 * host), `postgresql://` — now gives one answer.
 *
 * The parser reads the files `sslcert`, `sslkey` and `sslrootcert` name as it parses; those parameters
 * decide nothing here and are dropped first, so reading a URL for a message never reads a file.
 *
 * A password in a URL is refused wherever Rung takes one (the editor's setting, the CLI's `--ledger`),
 * and every other secret a URL can carry is kept out of what Rung shows of it ({@link redactedUrl}).
 */
import { parse, type ConnectionOptions } from 'pg-connection-string';

/** Whether `--ledger` (or the setting) names a team's server rather than a workspace file. */
export function isTeamLedgerUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** What `pg` reads from `url`, or undefined when it cannot read it. */
export function readTeamUrl(url: string): ConnectionOptions | undefined {
  try {
    return parse(withoutFileParameters(url));
  } catch {
    return undefined;
  }
}

/** Whether `pg` would send a password from `url` itself (the user part or `?password=`). */
export function teamUrlHasPassword(url: string): boolean {
  const password = readTeamUrl(url)?.password;
  return typeof password === 'string' && password !== '';
}

/**
 * The query parameters a message shows as written: they choose how to connect and carry nothing secret.
 *
 * @remarks
 * An allow-list, not a list of secrets: `password` was the one parameter left out, and `sslpassword=`
 * (the passphrase of the client's key) and `options=` (server settings, which can carry anything) were
 * logged verbatim, as would any parameter a later `pg` learns.
 */
const SHOWN_PARAMETERS = new Set([
  'sslmode',
  'ssl',
  'connect_timeout',
  'application_name',
  'fallback_application_name',
  'target_session_attrs',
  'keepalives',
  'keepalives_idle',
  'client_encoding',
]);
/** Parameters a rebuilt URL says in its own parts (the role, the host or socket, the port) or as `***` (the password). */
const PARTS_PARAMETERS = new Set(['user', 'password', 'host', 'port']);

/**
 * `url` for a message: as it is when it carries nothing secret, else rebuilt from what `pg` reads of it
 * (the role, the host or socket, the port, the database) with `***` for the password and for the value of
 * every query parameter not known to be harmless (`sslpassword=***`, `options=***`), so nothing of a
 * secret can be left in it however it was written. A URL `pg` cannot read is not echoed at all.
 */
export function redactedUrl(url: string): string {
  const scheme = /^(postgres(?:ql)?):\/\//i.exec(url)?.[1]?.toLowerCase() ?? 'postgres';
  const parts = readTeamUrl(url);
  if (!parts) return `${scheme}://… (a URL that cannot be read)`;
  const parameters = queryParameters(url);
  const secret = (key: string): boolean => !SHOWN_PARAMETERS.has(key) && !(PARTS_PARAMETERS.has(key) && key !== 'password');
  if (!parts.password && !parameters.some(({ key }) => secret(key))) return url;
  const user = parts.user ? encodeURIComponent(parts.user) : '';
  const host = parts.host ?? '';
  const socket = host.startsWith('/');
  const hostPart = socket ? '' : host.includes(':') ? `[${host}]` : host;
  const port = parts.port ? `:${parts.port}` : '';
  const database = parts.database ? encodeURIComponent(parts.database) : '';
  const query = [
    ...(socket ? [`host=${encodeURIComponent(host)}`, ...(parts.port ? [`port=${parts.port}`] : [])] : []),
    ...parameters
      .filter(({ key }) => !PARTS_PARAMETERS.has(key))
      .map(({ key, pair }) => (SHOWN_PARAMETERS.has(key) ? pair : `${encodeURIComponent(key)}=***`)),
  ];
  const userPart = user || parts.password ? `${user}${parts.password ? ':***' : ''}@` : '';
  return `${scheme}://${userPart}${hostPart}${socket ? '' : port}/${database}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** The query's parameters as written, each with its name decoded. */
function queryParameters(url: string): { key: string; pair: string }[] {
  const query = url.indexOf('?');
  if (query < 0) return [];
  const [parameters = ''] = url.slice(query + 1).split('#');
  return parameters
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => ({ key: decodedKey(pair), pair }));
}

/** The role `pg` would connect as from `url`, when the URL names one. */
export function teamUrlRole(url: string): string | undefined {
  return readTeamUrl(url)?.user || undefined;
}

/** Parameters whose value `pg-connection-string` reads as a file path while parsing. */
const FILE_PARAMETERS = new Set(['sslcert', 'sslkey', 'sslrootcert']);

/** `url` less the parameters that name files; everything else as it was written. */
function withoutFileParameters(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const kept = url
    .slice(query + 1)
    .split('&')
    .filter((pair) => !FILE_PARAMETERS.has(decodedKey(pair)));
  return kept.length === 0 ? url.slice(0, query) : `${url.slice(0, query)}?${kept.join('&')}`;
}

function decodedKey(pair: string): string {
  const key = pair.split('=')[0] ?? '';
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}
