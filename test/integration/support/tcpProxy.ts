/**
 * A TCP relay on 127.0.0.1 in front of a real server, that a test can cut: a team server that stops
 * answering, then comes back, without stopping PostgreSQL.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private mode: 'relay' | 'refuse' | 'hang' = 'relay';

  private constructor(server: Server) {
    this.server = server;
  }

  /** Starts relaying a free port of 127.0.0.1 to `targetPort`. */
  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(createServer());
    proxy.server.on('connection', (client) => {
      if (proxy.mode === 'refuse') {
        client.destroy();
        return;
      }
      if (proxy.mode === 'hang') {
        // Accepted and never answered: a server behind a dropped VPN.
        proxy.sockets.add(client);
        client.on('close', () => proxy.sockets.delete(client));
        client.on('error', () => {});
        return;
      }
      const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        // A reset is how a cut looks to either side; it is not the relay's error.
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  /** `url` with its port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Drops every open connection and refuses new ones, as a server that went away. */
  cut(): void {
    this.mode = 'refuse';
    for (const socket of this.sockets) socket.destroy();
  }

  /** Drops every open connection and accepts new ones without ever answering them. */
  hang(): void {
    this.mode = 'hang';
    for (const socket of this.sockets) socket.destroy();
  }

  /** Relays new connections again. */
  restore(): void {
    this.mode = 'relay';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
