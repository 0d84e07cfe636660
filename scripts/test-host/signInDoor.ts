/**
 * A door to a code-server that asks for a token: a page on its own port of 127.0.0.1 that, given the
 * token in its address, signs the browser in and sends it on to the workbench.
 *
 * @remarks
 * code-server signs in through a form that asks for the password; it reads no token from an address. The
 * address `npm start` prints should open the workbench when clicked, as Jupyter's does, so this door
 * takes `?token=…`, compares it in constant time, and answers with code-server's own session cookie and
 * a redirect to the workbench. A browser keeps cookies by host, not port, so the cookie set here is sent
 * to the workbench's port; `SameSite=Strict` keeps another site's page from riding on it, and `HttpOnly`
 * keeps the workbench's scripts from reading it. Any other request is refused and told nothing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SignInDoor {
  /** The address to print: the door with the token in it. */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the door on 127.0.0.1 (`port`, else a free one): `GET /?token=TOKEN` sets `cookie` and redirects to
 * `target`; anything else is 403.
 */
export async function openSignInDoor(options: {
  token: string;
  cookie: { name: string; value: string };
  target: string;
  port?: number;
}): Promise<SignInDoor> {
  const wanted = digest(options.token);
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const given = url.searchParams.get('token');
    if (request.method !== 'GET' || url.pathname !== '/' || given === null || !timingSafeEqual(digest(given), wanted)) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      response.end('This address needs the token npm start printed.\n');
      return;
    }
    response.writeHead(302, {
      location: options.target,
      'set-cookie': `${options.cookie.name}=${options.cookie.value}; Path=/; HttpOnly; SameSite=Strict`,
      'cache-control': 'no-store',
      // The token is in this page's address: a page it leads to is not told it.
      'referrer-policy': 'no-referrer',
    });
    response.end();
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', done);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/?token=${encodeURIComponent(options.token)}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A fixed-length digest, so tokens of any length compare in constant time. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
