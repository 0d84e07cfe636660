/**
 * A local HTTP server on 127.0.0.1 that speaks a provider's wire protocol from recorded fixtures.
 *
 * @remarks
 * Adapters are tested through real sockets, not a stubbed `fetch`, because the faults that matter
 * (a cut stream, a slow first byte, a refused connection) live in the socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../../src/core/random';

/**
 * `test/fixtures/wire`, found by walking up from this module.
 *
 * @remarks
 * Walking up rather than a fixed relative path because the extension-host suite bundles this file into
 * `dist/test/integration/`, where `__dirname` is the bundle's folder, not this one.
 */
export const WIRE_FIXTURES = findUp(__dirname, 'test/fixtures/wire');

function findUp(from: string, path: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, path))) return join(folder, path);
    if (dirname(folder) === folder) throw new Error(`no ${path} in ${from} or any folder above it`);
  }
}

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Route = (response: ServerResponse, request: SeenRequest) => void | Promise<void>;

export class WireServer {
  readonly requests: SeenRequest[] = [];
  private readonly routes = new Map<string, Route[]>();
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();

  /** Answers `method path` with `route`; several routes for one path answer successive requests, the last repeating. */
  on(method: string, path: string, ...routes: Route[]): this {
    this.routes.set(`${method} ${path}`, routes);
    return this;
  }

  /** Starts listening on `port`, a free one when absent (a server that comes up where another was); returns the base URL. */
  async start(port = 0): Promise<string> {
    const server = createServer((request, response) => void this.handle(request, response));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const { port: listening } = server.address() as AddressInfo;
    return `http://127.0.0.1:${listening}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const response of this.open) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.open.add(response);
    response.on('close', () => this.open.delete(response));
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: request.method ?? 'GET',
      path: (request.url ?? '/').split('?')[0] ?? '/',
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const count = this.requests.filter((earlier) => earlier.method === seen.method && earlier.path === seen.path).length;
    this.requests.push(seen);
    const routes = this.routes.get(`${seen.method} ${seen.path}`);
    const route = routes?.[Math.min(count, routes.length - 1)];
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      return;
    }
    await route(response, seen);
  }
}

/**
 * An address on 127.0.0.1 where nothing listens (a port a server just let go), for a server a test starts
 * there later with {@link WireServer.start}.
 */
export async function vacantAddress(): Promise<{ url: string; port: number }> {
  const probe = new WireServer();
  const url = await probe.start();
  await probe.close();
  return { url, port: Number(new URL(url).port) };
}

/** A fixture's text. */
export function fixture(name: string): string {
  return readFileSync(join(WIRE_FIXTURES, name), 'utf8');
}

/** A fixture's bytes, exactly as they are on disk. */
export function fixtureBytes(name: string): Buffer {
  return readFileSync(join(WIRE_FIXTURES, name));
}

/** Where a recorded stream is cut into writes: every `every` bytes, or at random lengths (1 to `longest`) drawn from `seed`. */
export type Split = { every: number } | { seed: number; longest: number };

/**
 * The cuts every wire fixture is served with: single bytes, two odd strides, and two seeded random ones.
 *
 * @remarks
 * Real servers and proxies cut a stream wherever their buffers end, not at line ends: inside a
 * `data:` field name, between a CR and its LF, inside a multi-byte UTF-8 character.
 */
export const SPLITS: readonly { name: string; split: Split }[] = [
  { name: 'every byte', split: { every: 1 } },
  { name: 'every 5 bytes', split: { every: 5 } },
  { name: 'every 7 bytes', split: { every: 7 } },
  { name: 'random cuts, seed 11', split: { seed: 11, longest: 64 } },
  { name: 'random cuts, seed 20261201', split: { seed: 20261201, longest: 300 } },
];

/** Cuts `bytes` into consecutive pieces as `split` says; the pieces join back to `bytes`. */
export function splitBytes(bytes: Uint8Array, split: Split): Uint8Array[] {
  let nextLength = (): number => ('every' in split ? split.every : 1);
  if ('seed' in split) {
    const random = seededRandom(split.seed);
    nextLength = () => 1 + Math.floor(random() * split.longest);
  }
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length;) {
    const length = nextLength();
    pieces.push(bytes.subarray(start, start + length));
    start += length;
  }
  return pieces;
}

/**
 * Serves recorded bytes unchanged, written in the pieces `split` cuts them into, each flushed to the
 * socket before the next is written.
 */
export function serveBytes(bytes: Uint8Array, split: Split, contentType = 'text/event-stream'): Route {
  return async (response) => {
    response.socket?.setNoDelay(true);
    response.writeHead(200, { 'content-type': contentType });
    for (const piece of splitBytes(bytes, split)) {
      if (response.destroyed) return;
      await new Promise<void>((resolve) => response.write(piece, () => resolve()));
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  };
}

/** Waits, or gives up early when the client has gone. */
function pause(response: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    response.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export interface ReplayOptions {
  contentType?: string;
  /** Wait this long before sending anything (a slow first byte). */
  delayMs?: number;
  /** How the stream ends: cleanly, or by destroying the socket mid-response. */
  ending?: 'end' | 'destroy';
  /** Replace `{{NAME}}` placeholders. */
  values?: Record<string, string>;
}

/** Replays a recorded stream, one line per write, as Ollama and OpenAI send them. */
export function replay(text: string, options: ReplayOptions = {}): Route {
  return async (response) => {
    if (options.delayMs) await pause(response, options.delayMs);
    if (response.destroyed) return;
    response.writeHead(200, { 'content-type': options.contentType ?? 'application/x-ndjson' });
    for (const line of fill(text, options.values).split(/(?<=\n)/)) {
      response.write(line);
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (options.ending === 'destroy') response.socket?.destroy();
    else response.end();
  };
}

/** Replays a recorded error response (`{status, headers, body}`). */
export function recordedStatus(name: string, values: Record<string, string> = {}): Route {
  const recorded = JSON.parse(fill(fixture(name), values)) as { status: number; headers: Record<string, string>; body: unknown };
  return (response) => {
    response.writeHead(recorded.status, recorded.headers).end(JSON.stringify(recorded.body));
  };
}

/** Answers with a JSON document. */
export function json(value: unknown, status = 200): Route {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };
}

/** What an {@link endless} route sent: bytes written before the client stopped reading and closed the connection. */
export interface EndlessBody {
  route: Route;
  /** Bytes of body written so far. */
  readonly sent: number;
  /** Resolves once the client has closed the connection. */
  readonly closed: Promise<void>;
}

/**
 * Answers with a body that never ends: `head` (a JSON list's opening, a stream's first line), then
 * `piece` again and again, as fast as the client reads, until it closes the connection — a hostile or
 * broken server answering a list request with 900 MB, or a model that never stops. Writes wait for the
 * socket to drain, so what was sent is about what was read.
 */
export function endless(options: { status?: number; contentType: string; head?: string; piece: string }): EndlessBody {
  let sent = 0;
  let closedNow: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (closedNow = resolve));
  const route: Route = async (response) => {
    response.on('close', () => closedNow());
    response.writeHead(options.status ?? 200, { 'content-type': options.contentType });
    const write = (text: string): Promise<void> =>
      new Promise((resolve) => {
        sent += Buffer.byteLength(text);
        if (response.write(text)) setImmediate(resolve);
        else response.once('drain', resolve).once('close', resolve);
      });
    if (options.head) await write(options.head);
    while (!response.destroyed && !response.writableEnded && response.socket?.destroyed === false) await write(options.piece);
  };
  return {
    route,
    get sent() {
      return sent;
    },
    closed,
  };
}

function fill(text: string, values: Record<string, string> = {}): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** Collects every part of a stream, or the failure that ended it. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<{ parts: T[]; error: unknown }> {
  const parts: T[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  }
}
