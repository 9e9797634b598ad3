/**
 * A real TCP relay between a server under test and one of the machine's shared services, that a
 * fault-injection test can cut and restore without stopping the service (other tests use it):
 * `cut()` ends every relayed connection and stops listening (new ones are refused: the back-end is
 * down), `silence()` accepts connections and never answers (the back-end hangs), `restore()` relays
 * again on the same port.
 */
import net from 'node:net';

export interface TcpRelay {
  /** The relay's port on 127.0.0.1. */
  port: number;
  /** Ends every open connection (both sides) and stops listening: connecting is refused. */
  cut(): Promise<void>;
  /** Ends every open connection and accepts new ones without ever answering. */
  silence(): void;
  /**
   * Stops passing data on the open connections, which stay open (a frozen server, a partitioned
   * network), and accepts new ones without answering. `down`: only the data from the target stops
   * (the server takes what it is sent and its answers are lost: a publish it never confirms).
   */
  freeze(direction?: 'both' | 'down'): void;
  /** Relays new connections to the target again. */
  restore(): Promise<void>;
  /** Ends every open connection, leaving the mode as it is (a network blip). */
  reset(): void;
  /** Ends every open connection (as reset) once `bytes` more have been relayed towards the target (`down`: from it): a transfer cut midway. */
  resetAfter(bytes: number, direction?: 'up' | 'down'): Promise<void>;
  /**
   * Cuts (as `cut`) once a chunk towards the target matches `pattern`, before passing it on: the
   * connection lost just as a given statement is sent. Resolves once it happened.
   */
  cutOn(pattern: RegExp): Promise<void>;
  /** Connections relayed now. */
  readonly open: number;
  close(): Promise<void>;
}

export async function startTcpRelay(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpRelay> {
  let silent = false;
  let countdown: { left: number; direction: 'up' | 'down'; done: () => void } | null = null;
  let trigger: { pattern: RegExp; done: () => void } | null = null;
  const count = (direction: 'up' | 'down', chunk: Buffer) => {
    if (trigger !== null && direction === 'up' && trigger.pattern.test(chunk.toString('latin1'))) {
      const { done } = trigger;
      trigger = null;
      void stop().then(done);
      resetAll();
      return;
    }
    if (countdown === null || countdown.direction !== direction) return;
    countdown.left -= chunk.length;
    if (countdown.left <= 0) {
      const { done } = countdown;
      countdown = null;
      resetAll();
      done();
    }
  };
  const pipes = new Set<[net.Socket, net.Socket]>();
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    if (silent) return;
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    client.on('data', (chunk: Buffer) => count('up', chunk));
    upstream.on('data', (chunk: Buffer) => count('down', chunk));
    client.pipe(upstream);
    upstream.pipe(client);
    const pipe: [net.Socket, net.Socket] = [client, upstream];
    pipes.add(pipe);
    client.on('close', () => pipes.delete(pipe));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const stop = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const resetAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      const stopped = stop();
      resetAll();
      await stopped;
    },
    silence() {
      silent = true;
      resetAll();
    },
    freeze(direction = 'both') {
      silent = true;
      for (const [client, upstream] of pipes) {
        upstream.unpipe(client);
        upstream.pause();
        if (direction === 'down') continue;
        client.unpipe(upstream);
        client.pause();
      }
    },
    async restore() {
      silent = false;
      if (!server.listening) await listen(port);
    },
    reset: resetAll,
    cutOn(pattern) {
      return new Promise<void>((resolve) => {
        trigger = { pattern, done: resolve };
      });
    },
    resetAfter(bytes, direction = 'up') {
      return new Promise<void>((resolve) => {
        countdown = { left: bytes, direction, done: resolve };
      });
    },
    get open() {
      return sockets.size;
    },
    async close() {
      const stopped = stop();
      resetAll();
      await stopped;
    },
  };
}
