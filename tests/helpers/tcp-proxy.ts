import net from 'node:net';

/**
 * A TCP proxy on a loopback port of its own to `target` that can be cut (the port stops
 * listening and every connection through it is closed: a server that went away, connections
 * refused) and opened again on the same port. `listening: false` starts it cut: a server that
 * is not up yet.
 */
export async function tcpProxy(target: { host: string; port: number }, options: { listening?: boolean } = {}) {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  let server: net.Server | null = null;

  const listen = (port: number) =>
    new Promise<net.Server>((resolve, reject) => {
      const next = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        track(client);
        track(upstream);
        client.pipe(upstream).on('error', () => client.destroy());
        upstream.pipe(client).on('error', () => upstream.destroy());
        client.on('error', () => upstream.destroy()).on('close', () => upstream.destroy());
        upstream.on('error', () => client.destroy()).on('close', () => client.destroy());
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve(next));
    });

  const cut = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };

  server = await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  if (options.listening === false) await cut();

  return {
    port,
    /** connections are refused, those open closed */
    cut,
    /** listens on the same port again */
    open: async () => {
      if (!server) server = await listen(port);
    },
    close: cut,
  };
}

export type TcpProxy = Awaited<ReturnType<typeof tcpProxy>>;
