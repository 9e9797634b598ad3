/**
 * The `mqtt` service on Mosquitto: publish with QoS and retain, pull subscriptions, a Server-Sent
 * Events stream, role grants per topic, a broker restart (a private Mosquitto the test starts)
 * losing no acknowledged publish, and 400/413/503 answers.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { brokerService, openEvents } from '#test/helpers/broker-fixtures.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { startMosquitto, type PrivateMosquitto } from '#test/helpers/private-mosquitto.js';
import { brokerUrl, closedPort, requireBroker, silentServer } from '#test/helpers/require-broker.js';

describe.skipIf(!(await requireBroker('mosquitto')))('mqtt service', () => {
  const tag = crypto.randomBytes(4).toString('hex');
  let broker: PrivateMosquitto;
  /** A broker that drops a client sending a packet of more than 1 KiB. */
  let small: PrivateMosquitto;
  let server: TestServer;
  let api: Api;
  let sensors: Api;
  let base: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    broker = await startMosquitto();
    small = await startMosquitto(['max_packet_size 1024']);
    const model = minimalModel();
    model.services.push(
      brokerService(40, 'mqtt', 'mqtt', {
        url: brokerUrl('mosquitto'),
        timeout_ms: 3000,
        max_message_bytes: 1000,
        subscriptions: [{ topic: `t/${tag}/#`, qos: 1 }],
      }),
    );
    model.services.push(
      brokerService(41, 'iot', 'mqtt', {
        url: broker.url,
        client_id: `portico-test-${tag}`,
        clean_session: false,
        timeout_ms: 10_000,
        subscriptions: [{ topic: `r/${tag}/+`, qos: 1 }],
      }),
    );
    // Its message limit (256 KiB by default) is above the broker's, which the client cannot know.
    model.services.push(brokerService(42, 'tiny', 'mqtt', { url: small.url, timeout_ms: 3000 }));
    server = await startTestServer(model);
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
    headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': token };
    base = `${await server.app.listen({ port: 0, host: '127.0.0.1' })}/api/v2`;
    const role = (
      await api('POST', '/system/role', {
        resource: [
          {
            name: 'sensors',
            role_service_access_by_role_id: [
              { service_id: 40, component: `pub/t/${tag}/sensors/*`, verb_mask: 2 },
              { service_id: 40, component: `sub/t/${tag}/#`, verb_mask: 1 },
            ],
          },
        ],
      })
    ).body.resource[0].id;
    const app = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'sensors-app', role_id: role }] })).body.resource[0];
    sensors = apiClient(server.app, () => ({ key: app.api_key }));
    // The first call opens the services, which subscribe to their configured filters.
    await api('GET', '/mqtt/sub');
    await api('GET', '/iot/sub');
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  afterAll(async () => {
    await server?.close();
    await broker?.close();
    await small?.close();
  });

  const pulled = async (service: string, filter: string, wait = 2000) =>
    (await api('GET', `/${service}/sub/${filter.replaceAll('#', '%23')}?wait=${wait}&limit=1000`)).body.resource as Array<{
      topic: string;
      message: any;
      qos: number;
      retain: boolean;
    }>;

  it('publishes (path and reference body) and pulls from a subscription', async () => {
    expect(await api('POST', `/mqtt/pub/t/${tag}/a?qos=1`, { n: 1 })).toMatchObject({ status: 200, body: { success: true } });
    expect((await api('POST', '/mqtt/pub', { topic: `t/${tag}/b`, message: 'text', qos: 2 })).status).toBe(200);
    expect((await api('POST', '/mqtt/pub', { topic: `t/${tag}/c`, msg: [1, 2], qos: 0 })).status).toBe(200);
    const got: Array<{ topic: string; message: unknown }> = [];
    for (let i = 0; i < 5 && got.length < 3; i++) got.push(...(await pulled('mqtt', `t/${tag}/#`)));
    expect(got.map((d) => [d.topic, d.message])).toEqual([
      [`t/${tag}/a`, { n: 1 }],
      [`t/${tag}/b`, 'text'],
      [`t/${tag}/c`, [1, 2]],
    ]);
    expect((await api('GET', '/mqtt/sub')).body.resource).toEqual([{ topic: `t/${tag}/#`, qos: 1, buffered: 0, dropped: 0 }]);
    expect((await api('GET', `/mqtt/sub/other/${tag}`)).status).toBe(404);
  });

  it('creates and removes pull subscriptions at run time', async () => {
    expect((await api('POST', `/mqtt/sub/x/${tag}/+`)).status).toBe(201);
    await api('POST', `/mqtt/pub/x/${tag}/1`, '"one"');
    expect((await pulled('mqtt', `x/${tag}/+`)).map((d) => d.message)).toEqual(['one']);
    expect((await api('DELETE', `/mqtt/sub/x/${tag}/+`)).body).toEqual({ success: true });
    expect((await api('DELETE', `/mqtt/sub/x/${tag}/+`)).status).toBe(404);
  });

  it('streams a topic filter as Server-Sent Events, retained messages first', async () => {
    await api('POST', `/mqtt/pub/s/${tag}/kept?retain=true`, { kept: true });
    const events = await openEvents(`${base}/mqtt/sub/s/${tag}/%23`, headers);
    try {
      expect(await events.next()).toMatchObject({ topic: `s/${tag}/kept`, message: { kept: true }, retain: true });
      await api('POST', `/mqtt/pub/s/${tag}/live`, { live: 1 });
      expect(await events.next()).toMatchObject({ topic: `s/${tag}/live`, message: { live: 1 }, retain: false });
    } finally {
      events.close();
    }
    // Clear the retained message.
    expect((await api('POST', '/mqtt/pub', { topic: `s/${tag}/kept`, message: '', retain: true })).status).toBe(200);
  });

  it('applies role grants per topic', async () => {
    expect((await sensors('POST', `/mqtt/pub/t/${tag}/sensors/temp`, 21)).status).toBe(200);
    expect((await sensors('POST', `/mqtt/pub/t/${tag}/actuators/valve`, 1)).status).toBe(401);
    expect((await sensors('POST', '/mqtt/pub', { topic: `t/${tag}/sensors/temp`, message: 1 })).status).toBe(401);
    const got = [];
    for (let i = 0; i < 5 && got.length < 1; i++) got.push(...(await sensors('GET', `/mqtt/sub/t/${tag}/%23?wait=1000`)).body.resource);
    expect(got.map((d: { message: unknown }) => d.message)).toEqual([21]);
  });

  it('loses no acknowledged publish across a broker restart', async () => {
    const statuses: Array<[number, number]> = [];
    const sending = (async () => {
      for (let i = 0; i < 30; i++) {
        statuses.push([i, (await api('POST', `/iot/pub/r/${tag}/m`, { i })).status]);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await broker.stop();
    await new Promise((resolve) => setTimeout(resolve, 700));
    await broker.start();
    await sending;
    const acknowledged = statuses.filter(([, status]) => status === 200).map(([i]) => i);
    expect(statuses.every(([, status]) => status === 200 || status === 503)).toBe(true);
    expect(acknowledged.length).toBeGreaterThan(25);
    const received = new Set<number>();
    for (let round = 0; round < 10 && acknowledged.some((i) => !received.has(i)); round++) {
      for (const d of await pulled('iot', `r/${tag}/+`, 1000)) received.add(d.message.i);
    }
    expect(acknowledged.filter((i) => !received.has(i))).toEqual([]);
  });

  it('answers 400 for invalid topics and QoS, 413 for oversized messages', async () => {
    const wildcard = await api('POST', `/mqtt/pub/a/+/b`, 1);
    expect(wildcard.status).toBe(400);
    expect(wildcard.body.error.message).toContain('wildcards');
    expect((await api('POST', '/mqtt/pub', { topic: 'a/#', message: 1 })).status).toBe(400);
    expect((await api('POST', `/mqtt/sub/a/%23/b`)).status).toBe(400);
    expect((await api('POST', `/mqtt/sub/a/b+`)).status).toBe(400);
    expect((await api('POST', `/mqtt/pub/t/${tag}/q?qos=3`, 1)).status).toBe(400);
    // A QoS that is no number: `{}` answered `Invalid QoS '[object Object]'`, and `[1]` was QoS 1.
    for (const qos of [{}, [1], true]) {
      const refused = await api('POST', '/mqtt/pub', { topic: `t/${tag}/q`, message: 1, qos });
      expect(refused.body.error, JSON.stringify(qos)).toEqual({
        code: 400,
        message: `Invalid QoS ${JSON.stringify(qos)}: use 0, 1 or 2.`,
        context: { field: 'qos' },
      });
    }
    expect((await api('POST', '/mqtt/pub', { topic: `t/${tag}/q` })).status).toBe(400);
    expect((await api('POST', `/mqtt/pub/t/${tag}/big`, JSON.stringify('x'.repeat(2000)))).status).toBe(413);
  });

  it('answers 400 for a topic with a control character or a non-character, and keeps publishing (the broker drops such a client)', async () => {
    // Mosquitto closed the connection on each of these, and mqtt.js sent the publish again on
    // every reconnection: one request made the service a 503 for every caller, for good.
    for (const bad of ['\u007f', '\u0001', '\u0085', '\uffff', '\ufdd0', '\u{1fffe}']) {
      const body = await api('POST', '/mqtt/pub', { topic: `t/${tag}/bad${bad}x`, message: 1 });
      expect(body.status, JSON.stringify(bad)).toBe(400);
      expect(body.body.error.message).toMatch(/^Invalid topic: it contains a (control character|Unicode non-character)\.$/);
      expect((await api('POST', `/mqtt/pub/t/${tag}/bad${encodeURIComponent(bad)}x`, 1)).status, JSON.stringify(bad)).toBe(400);
      expect((await api('POST', `/mqtt/sub/t/${tag}/bad${encodeURIComponent(bad)}x/%23`)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await api('POST', `/mqtt/pub/t/${tag}/after`, 1)).status).toBe(200);
  });

  it('fails only the publish the broker dropped the client for, never sends it again, and keeps publishing', async () => {
    // What reaches the broker, seen by a client of the test's own (the service's connection is dropped).
    const { connectAsync } = await import('mqtt');
    const observer = await connectAsync(small.url, { protocolVersion: 4, reconnectPeriod: 0 });
    const got: Array<[string, unknown]> = [];
    observer.on('message', (topic, payload) => got.push([topic, JSON.parse(payload.toString())]));
    await observer.subscribeAsync(`s/${tag}/#`, { qos: 1 });
    expect((await api('POST', `/tiny/pub/s/${tag}/before`, 1)).status).toBe(200);
    // Mosquitto closes the connection on a packet above its max_packet_size; mqtt.js sent the
    // message again first on every reconnection, so every later publish of every caller failed.
    for (const qos of [1, 2]) {
      const big = await api('POST', `/tiny/pub/s/${tag}/big?qos=${qos}`, JSON.stringify('x'.repeat(2000)));
      expect(big.status, `QoS ${qos}`).toBe(503);
      expect(big.body.error).toEqual({
        code: 503,
        message:
          "Service 'tiny' is unavailable: the connection to the MQTT broker closed before it acknowledged the publish (a message larger than the broker accepts?); it is not sent again.",
      });
      for (let i = 0; i < 3; i++) expect((await api('POST', `/tiny/pub/s/${tag}/after`, { qos, i })).status, `QoS ${qos}, ${i}`).toBe(200);
    }
    for (let i = 0; i < 50 && got.length < 7; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await observer.endAsync();
    expect(got).toEqual([[`s/${tag}/before`, 1], ...[1, 2].flatMap((qos) => [0, 1, 2].map((i) => [`s/${tag}/after`, { qos, i }]))]);
  });

  it('answers 503 naming the service, quickly and without credentials, when the broker is unreachable or silent', async () => {
    const silent = await silentServer();
    const port = await closedPort();
    await api('POST', '/system/service', {
      resource: [
        {
          name: 'mqtt_down',
          label: 'Down',
          type: 'mqtt',
          config: { host: '127.0.0.1', port, password: 'sekret-pw', username: 'u', timeout_ms: 1000 },
        },
        {
          name: 'mqtt_silent',
          label: 'Silent',
          type: 'mqtt',
          config: { host: '127.0.0.1', port: silent.port, password: 'sekret-pw', username: 'u', timeout_ms: 1000 },
        },
      ],
    });
    for (const name of ['mqtt_down', 'mqtt_silent']) {
      const started = Date.now();
      const response = await api('POST', `/${name}/pub/x`, { x: 1 });
      expect(response.status).toBe(503);
      expect(response.body.error.message).toContain(`'${name}'`);
      expect(JSON.stringify(response.body)).not.toContain('sekret');
      expect(Date.now() - started).toBeLessThan(4000);
    }
    await silent.close();
  });
});
