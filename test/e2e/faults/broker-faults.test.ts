/**
 * amqp (RabbitMQ) and mqtt (Mosquitto) services whose broker goes away while they are connected,
 * through a real TCP relay: its connections cut and refused, accepted and never answered, or
 * frozen open. A publish answers the spec's 503 naming the service within the timeout (never a
 * hang), and the service publishes again by itself once the broker is back.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { type Broker, brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';

let server: TestServer;
let api: Api;
const relays: TcpRelay[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => {
  await server.close();
  for (const relay of relays) await relay.close();
});

const KINDS: Array<{ type: 'amqp' | 'mqtt'; broker: Broker; port: number; topic: string }> = [
  { type: 'amqp', broker: 'rabbitmq', port: 5672, topic: `faults-${randomBytes(3).toString('hex')}` },
  { type: 'mqtt', broker: 'mosquitto', port: 1883, topic: `faults/${randomBytes(3).toString('hex')}` },
];

describe.each(KINDS)('$type', async ({ type, broker, port, topic }) => {
  const reachable = await requireBroker(broker);

  async function relayedService(): Promise<{ name: string; relay: TcpRelay }> {
    const target = new URL(brokerUrl(broker));
    const relay = await startTcpRelay(Number(target.port || port), target.hostname);
    relays.push(relay);
    target.port = String(relay.port);
    const name = `${type}_faults_${randomBytes(3).toString('hex')}`;
    const created = await api('POST', '/system/service', {
      resource: [{ name, label: 'Faults', type, config: { url: target.href, timeout_ms: 1000 } }],
    });
    expect(created.status).toBe(201);
    expect((await api('POST', `/${name}/pub/${topic}`, { n: 0 })).status).toBe(200);
    return { name, relay };
  }

  async function unavailable(name: string): Promise<string> {
    const started = Date.now();
    const answer = await api('POST', `/${name}/pub/${topic}`, { n: 1 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error.code).toBe(503);
    expect(answer.body.error.message).toContain(`'${name}'`);
    expect(Date.now() - started).toBeLessThan(20_000);
    return answer.body.error.message;
  }

  async function publishesAgain(name: string): Promise<void> {
    await vi.waitFor(async () => expect((await api('POST', `/${name}/pub/${topic}`, { n: 2 })).status).toBe(200), {
      timeout: 20_000,
      interval: 250,
    });
  }

  it.skipIf(!reachable)('answers 503 while the broker is down, and publishes again once it is back', { timeout: 60_000 }, async () => {
    const { name, relay } = await relayedService();
    await relay.cut();
    await unavailable(name);
    await relay.restore();
    await publishesAgain(name);
  });

  it.skipIf(!reachable)(
    'answers 503 while the broker accepts and never answers, and publishes again once it is back',
    {
      timeout: 60_000,
    },
    async () => {
      const { name, relay } = await relayedService();
      relay.silence();
      await unavailable(name);
      await relay.restore();
      await publishesAgain(name);
    },
  );

  it.skipIf(!reachable)(
    'answers 503 while its open connection is frozen, and publishes again once the broker answers',
    {
      timeout: 60_000,
    },
    async () => {
      const { name, relay } = await relayedService();
      relay.freeze();
      await unavailable(name);
      await relay.restore();
      await publishesAgain(name);
    },
  );

  it.skipIf(!reachable)(
    'answers 503 saying the message may have been delivered when the broker takes the publish and never confirms it',
    {
      timeout: 60_000,
    },
    async () => {
      const { name, relay } = await relayedService();
      // The publish reaches the broker; its confirm (AMQP) or PUBACK (MQTT QoS 1) never comes back.
      relay.freeze('down');
      expect(await unavailable(name)).toBe(
        `Service '${name}' is unavailable: the ${type.toUpperCase()} broker did not ${type === 'amqp' ? 'confirm' : 'acknowledge'} the publish in time: the message may or may not have been delivered. Check before publishing it again.`,
      );
      await relay.restore();
      await publishesAgain(name);
    },
  );
});
