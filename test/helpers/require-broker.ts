/**
 * Tests that need the machine's Redis, RabbitMQ or Mosquitto: whether it answers on its port.
 * Unreachable, the tests fail under CI=true and are skipped with a message on stderr otherwise.
 * Override the addresses with PORTICO_TEST_REDIS_URL, PORTICO_TEST_AMQP_URL, PORTICO_TEST_MQTT_URL.
 */
import net from 'node:net';

export type Broker = 'redis' | 'rabbitmq' | 'mosquitto';

const DEFAULTS: Record<Broker, [string, string]> = {
  redis: ['PORTICO_TEST_REDIS_URL', 'redis://127.0.0.1:6379'],
  rabbitmq: ['PORTICO_TEST_AMQP_URL', 'amqp://guest:guest@127.0.0.1:5672'],
  mosquitto: ['PORTICO_TEST_MQTT_URL', 'mqtt://127.0.0.1:1883'],
};

/** The broker's URL for tests. */
export function brokerUrl(broker: Broker): string {
  const [variable, fallback] = DEFAULTS[broker];
  return process.env[variable] ?? fallback;
}

/** Resolves when something accepts a TCP connection on host:port within `ms`. */
export function tcpReachable(host: string, port: number, ms = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const checked = new Map<Broker, Promise<boolean>>();

/** Use as `describe.skipIf(!(await requireBroker('rabbitmq')))`; throws under CI=true when unreachable. */
export function requireBroker(broker: Broker): Promise<boolean> {
  let result = checked.get(broker);
  if (result === undefined) {
    const url = new URL(brokerUrl(broker));
    result = tcpReachable(url.hostname, Number(url.port)).then(
      () => true,
      (error: unknown) => {
        const message = `${broker} at ${url.host} is unreachable (${(error as Error).message})`;
        if (process.env.CI === 'true') throw new Error(`${message}; CI needs it.`);
        process.stderr.write(`\n[skipped] ${message}: its tests are skipped.\n`);
        return false;
      },
    );
    checked.set(broker, result);
  }
  return result;
}

/** A port nothing listens on (for unreachable-server tests). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never answers (for deadline tests); close() ends it. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
