/**
 * MQTT for the `mqtt` service (mqtt.js, MQTT 3.1.1): one client per service that reconnects by
 * itself and re-subscribes; QoS 1/2 publishes answer only once the broker acknowledged them
 * (a publish made while the connection is down is sent when it is back, within the deadline; one
 * the connection closed on before its acknowledgement is a 503 and never sent again).
 * Pull subscriptions keep what arrives in a bounded buffer per topic filter; streams get each
 * matching message as it arrives.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IClientOptions, MqttClient } from 'mqtt';
import { BadRequestError, ForbiddenError, NotFoundError, PayloadTooLargeError, type PorticoError } from '../../core/errors.js';
import { pick, toBool, type RawQuery } from '../../core/query-params.js';
import { type BrokerClient, type Delivery, decodeMessage, encodeMessage, type Publication } from './broker-client.js';
import { MAYBE_DELIVERED, millis, unavailable, withDeadline } from './deadline.js';
import { checkTopicFilter, checkTopicName, topicMatches } from './mqtt-topics.js';

type Qos = 0 | 1 | 2;

export const mqttConfigSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    host: { type: 'string', title: 'Broker Host', default: '127.0.0.1', description: 'Host name or address of the MQTT broker.' },
    port: { type: 'integer', title: 'Broker Port', default: 1883, minimum: 1, maximum: 65535 },
    url: {
      type: 'string',
      title: 'URL',
      description: 'mqtt://, mqtts://, ws:// or wss:// URL; when given it replaces host, port and use_tls.',
    },
    client_id: {
      type: 'string',
      title: 'Client ID',
      description: 'MQTT client identifier (default: portico-{service}-{random}); must be unique per connected instance.',
    },
    username: { type: 'string' },
    password: { type: 'string' },
    use_tls: { type: 'boolean', title: 'Use TLS', default: false },
    capath: {
      type: 'string',
      title: 'CA Certificate Path',
      description: 'CA certificate file (PEM) for TLS, relative to the platform directory; default: the system CAs.',
    },
    cert_path: { type: 'string', description: 'Client certificate file (PEM) for TLS.' },
    key_path: { type: 'string', description: 'Client private key file (PEM) for TLS.' },
    reject_unauthorized: { type: 'boolean', default: true, description: 'Refuse a broker whose TLS certificate does not verify.' },
    clean_session: {
      type: 'boolean',
      default: true,
      description:
        'Start a clean session; false keeps subscriptions and queued QoS 1/2 messages at the broker across reconnects (needs a fixed, unique client_id).',
    },
    keepalive: { type: 'integer', default: 30, minimum: 0, description: 'Keep-alive interval in seconds.' },
    qos: { type: 'integer', enum: [0, 1, 2], default: 1, description: 'QoS of publishes and subscriptions when the request gives none.' },
    retain: {
      type: 'boolean',
      default: false,
      description: 'Whether publishes are retained when the request does not say (the reference always retains).',
    },
    subscriptions: {
      type: 'array',
      default: [],
      description: 'Topic filters to subscribe to for pulling (GET sub/{filter}).',
      items: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' }, qos: { type: 'integer', enum: [0, 1, 2] } } },
    },
    buffer_size: {
      type: 'integer',
      default: 1000,
      minimum: 1,
      description: 'Messages kept per pull subscription; the oldest are dropped beyond it.',
    },
    timeout_ms: {
      type: 'integer',
      title: 'Timeout (ms)',
      default: 5000,
      minimum: 1,
      description: 'Deadline of each broker call (connecting, publishing, subscribing): a 503 after it.',
    },
    max_message_bytes: {
      type: 'integer',
      default: 262144,
      minimum: 1,
      description: 'Largest message accepted for publishing; larger is 413.',
    },
  },
};

interface PullSubscription {
  filter: string;
  qos: Qos;
  buffer: Delivery[];
  dropped: number;
  waiters: Set<() => void>;
}

interface Stream {
  filter: string;
  onDelivery: (delivery: Delivery) => void;
  onEnd: () => void;
}

function qosOf(value: unknown, fallback: Qos): Qos {
  if (value === undefined || value === null || value === '') return fallback;
  // Only numbers and their text: `{"qos":[1]}` was QoS 1, and `{"qos":{}}` answered `Invalid QoS '[object Object]'`.
  const qos = typeof value === 'number' || typeof value === 'string' ? Number(value) : Number.NaN;
  if (qos !== 0 && qos !== 1 && qos !== 2)
    throw new BadRequestError(`Invalid QoS ${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)}: use 0, 1 or 2.`, {
      field: 'qos',
    });
  return qos;
}

function readFile(baseDir: string, file: unknown): Buffer | undefined {
  return typeof file === 'string' && file !== '' ? fs.readFileSync(path.resolve(baseDir, file)) : undefined;
}

export class MqttBrokerClient implements BrokerClient {
  private client: MqttClient | null = null;
  private connecting: Promise<MqttClient> | null = null;
  private starting: Promise<void> | null = null;
  private readonly pulls = new Map<string, PullSubscription>();
  private readonly streams = new Set<Stream>();
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly bufferSize: number;
  private readonly qos: Qos;
  private readonly retain: boolean;

  constructor(
    private readonly name: string,
    private readonly config: Record<string, unknown>,
    private readonly baseDir: string,
  ) {
    this.timeoutMs = millis(config.timeout_ms, 5000);
    this.maxBytes = millis(config.max_message_bytes, 256 * 1024);
    this.bufferSize = millis(config.buffer_size, 1000);
    this.qos = qosOf(config.qos, 1);
    this.retain = config.retain === true;
    for (const entry of Array.isArray(config.subscriptions) ? config.subscriptions : []) {
      const item = typeof entry === 'string' ? { topic: entry } : (entry as { topic?: unknown; qos?: unknown });
      if (typeof item.topic !== 'string') continue;
      checkTopicFilter(item.topic);
      this.pulls.set(item.topic, { filter: item.topic, qos: qosOf(item.qos, this.qos), buffer: [], dropped: 0, waiters: new Set() });
    }
  }

  /** Connects (once; mqtt.js reconnects by itself) and subscribes the configured filters. */
  async start(): Promise<void> {
    const client = await this.connected();
    if (this.pulls.size > 0) {
      const map = Object.fromEntries([...this.pulls.values()].map((p) => [p.filter, { qos: p.qos }]));
      await this.call(client.subscribeAsync(map), 'subscribing');
    }
  }

  /** start() once, again after it failed: the first connection and the configured subscriptions come before any call. */
  ensureStarted(): Promise<void> {
    if (!this.starting) {
      const starting = this.start();
      this.starting = starting;
      starting.catch(() => {
        if (this.starting === starting) this.starting = null;
      });
    }
    return this.starting;
  }

  /** The client once connected (the first time; later losses are mqtt.js's to mend), or a 503 after the deadline. */
  private async connected(): Promise<MqttClient> {
    const client = await this.connection();
    if (client.connected) return client;
    await this.call(
      new Promise<void>((resolve) => {
        client.once('connect', () => resolve());
      }),
      'connecting',
    );
    return client;
  }

  private options(): IClientOptions {
    const c = this.config;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    return {
      clientId: text(c.client_id) ?? `portico-${this.name}-${Math.random().toString(16).slice(2, 10)}`,
      username: text(c.username),
      password: text(c.password),
      clean: c.clean_session !== false,
      keepalive: typeof c.keepalive === 'number' ? c.keepalive : 30,
      protocolVersion: 4,
      connectTimeout: this.timeoutMs,
      reconnectPeriod: 500,
      resubscribe: true,
      ca: readFile(this.baseDir, c.capath),
      cert: readFile(this.baseDir, c.cert_path),
      key: readFile(this.baseDir, c.key_path),
      rejectUnauthorized: c.reject_unauthorized !== false,
    };
  }

  private url(): string {
    const c = this.config;
    if (typeof c.url === 'string' && c.url !== '') return c.url;
    const host = typeof c.host === 'string' && c.host !== '' ? c.host : '127.0.0.1';
    return `${c.use_tls === true ? 'mqtts' : 'mqtt'}://${host}:${typeof c.port === 'number' ? c.port : 1883}`;
  }

  /** The one client of the service (made once, even when calls race for it). */
  private connection(): Promise<MqttClient> {
    this.connecting ??= import('mqtt').then(({ connect }) => {
      const client = connect(this.url(), this.options());
      client.setMaxListeners(0);
      // Connection errors surface on the calls (as 503s); mqtt.js keeps reconnecting.
      client.on('error', () => undefined);
      client.on('message', (topic, payload, packet) => this.deliver(topic, payload, packet.qos, packet.retain));
      // A QoS 1/2 publish written on a connection that closes before the broker acknowledged it is
      // not sent again: a broker drops a client for a message it will not take (above Mosquitto's
      // max_packet_size, say), and mqtt.js resent it first on every reconnection, so the broker
      // dropped the client again and every later publish of every caller failed. The publish fails
      // alone (a 503 for its request); publishes queued while the connection was down are sent as before.
      const unacknowledged = new Set<number>();
      client.on('packetsend', (packet) => {
        if (packet.cmd === 'publish' && packet.qos > 0 && packet.messageId !== undefined) unacknowledged.add(packet.messageId);
      });
      client.on('packetreceive', (packet) => {
        if ((packet.cmd === 'puback' || packet.cmd === 'pubrec') && packet.messageId !== undefined) unacknowledged.delete(packet.messageId);
      });
      client.on('close', () => {
        for (const messageId of unacknowledged) client.removeOutgoingMessage(messageId);
        unacknowledged.clear();
      });
      this.client = client;
      return client;
    });
    return this.connecting;
  }

  /**
   * A broker call within the deadline; a late or unreachable broker is a 503 naming the service.
   * A connection on which the broker did not acknowledge in time is ended (a frozen broker, a
   * network partition: it stayed open, and every later call waited on it until the keep-alive gave
   * up, 45 s by default); mqtt.js connects anew and sends what was queued while it was down (a
   * publish written on the ended connection is not sent again: see connection()).
   */
  private call<T>(work: Promise<T>, what: string, written: () => boolean = () => false): Promise<T> {
    return withDeadline(work, this.timeoutMs, () => {
      if (!this.client?.connected) return unavailable(this.name, 'the MQTT broker cannot be reached');
      (this.client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
      return unavailable(this.name, `the MQTT broker did not acknowledge ${what} in time${written() ? MAYBE_DELIVERED : ''}`);
    }).catch((error: unknown) => {
      if ((error as PorticoError).status !== undefined) throw error;
      throw unavailable(this.name, `${what} failed (${(error as Error).message})`);
    });
  }

  private deliver(topic: string, payload: Buffer, qos: number, retain: boolean): void {
    const delivery: Delivery = { topic, message: decodeMessage(payload), received_at: new Date().toISOString(), qos, retain };
    for (const pull of this.pulls.values()) {
      if (!topicMatches(pull.filter, topic)) continue;
      pull.buffer.push(delivery);
      if (pull.buffer.length > this.bufferSize) {
        pull.buffer.shift();
        pull.dropped++;
      }
      for (const wake of pull.waiters) wake();
    }
    for (const stream of this.streams) if (topicMatches(stream.filter, topic)) stream.onDelivery(delivery);
  }

  publication(pathTopic: string, body: unknown, query: RawQuery): Publication {
    let topic = pathTopic;
    let message: unknown = body;
    let qos = qosOf(pick(query, 'qos'), this.qos);
    let retain = pick(query, 'retain') === undefined ? this.retain : toBool(pick(query, 'retain'));
    if (pathTopic === '') {
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw new BadRequestError('No topic and/or message supplied for publishing.');
      const fields = body as Record<string, unknown>;
      topic = typeof fields.topic === 'string' ? fields.topic : '';
      message = fields.message ?? fields.msg;
      if (fields.qos !== undefined) qos = qosOf(fields.qos, this.qos);
      if (fields.retain !== undefined) retain = toBool(fields.retain);
      if (topic === '') throw new BadRequestError('No topic and/or message supplied for publishing.', { field: 'topic' });
    }
    // An empty retained message clears the topic's retained message (MQTT 3.3.1.3).
    if (message === undefined || message === null || (message === '' && !retain))
      throw new BadRequestError('No topic and/or message supplied for publishing.', { field: 'message' });
    checkTopicName(topic);
    const payload = encodeMessage(message);
    if (payload.length > this.maxBytes)
      throw new PayloadTooLargeError(`The message is larger than the ${this.maxBytes} bytes service '${this.name}' accepts.`);
    return {
      components: [`pub/${topic}`],
      send: async () => {
        await this.ensureStarted();
        const client = await this.connection();
        await this.call(
          client.publishAsync(topic, payload, { qos, retain }).catch((error: unknown) => {
            if ((error as Error)?.message !== 'Message removed') throw error;
            throw unavailable(
              this.name,
              'the connection to the MQTT broker closed before it acknowledged the publish (a message larger than the broker accepts?); it is not sent again',
            );
          }),
          'the publish',
          // A QoS 1/2 publish on a connection that stayed up was written: the broker may have taken it.
          () => qos > 0,
        );
      },
    };
  }

  async pull(source: string, limit: number, waitMs: number): Promise<Delivery[]> {
    const pull = this.pulls.get(source);
    if (!pull)
      throw new NotFoundError(
        `No subscription to '${source}' on service '${this.name}'. Create one with POST sub/{topic} or list it in the service's subscriptions.`,
      );
    await this.ensureStarted();
    if (pull.buffer.length === 0 && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          pull.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        pull.waiters.add(wake);
      });
    }
    return pull.buffer.splice(0, limit);
  }

  async stream(
    source: string,
    _query: RawQuery,
    onDelivery: (delivery: Delivery) => void,
    onEnd: () => void,
  ): Promise<() => Promise<void>> {
    checkTopicFilter(source);
    await this.ensureStarted();
    const client = await this.connection();
    const stream: Stream = { filter: source, onDelivery, onEnd };
    const known = this.subscribed(source);
    // Listening before subscribing: retained messages follow the broker's acknowledgement at once.
    this.streams.add(stream);
    const stop = async () => {
      if (!this.streams.delete(stream)) return;
      if (!this.subscribed(source) && this.client)
        await this.call(this.client.unsubscribeAsync(source), 'unsubscribing').catch(() => undefined);
    };
    if (!known) {
      try {
        await this.subscribeFilter(client, source, this.qos);
      } catch (error) {
        await stop();
        throw error;
      }
    }
    return stop;
  }

  private subscribed(filter: string): boolean {
    return this.pulls.has(filter) || [...this.streams].some((s) => s.filter === filter);
  }

  private async subscribeFilter(client: MqttClient, filter: string, qos: Qos): Promise<void> {
    const granted = await this.call(client.subscribeAsync(filter, { qos }), 'the subscription');
    if (granted.some((grant) => grant.qos === 128)) throw new ForbiddenError(`The MQTT broker refused the subscription to '${filter}'.`);
  }

  subscriptions(): Array<Record<string, unknown>> {
    return [...this.pulls.values()].map((p) => ({ topic: p.filter, qos: p.qos, buffered: p.buffer.length, dropped: p.dropped }));
  }

  async subscribe(source: string, body: unknown, query: RawQuery): Promise<Record<string, unknown>> {
    checkTopicFilter(source);
    const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const qos = qosOf(fields.qos ?? pick(query, 'qos'), this.qos);
    await this.ensureStarted();
    const client = await this.connection();
    if (!this.pulls.has(source)) {
      await this.subscribeFilter(client, source, qos);
      this.pulls.set(source, { filter: source, qos, buffer: [], dropped: 0, waiters: new Set() });
    }
    const pull = this.pulls.get(source)!;
    return { topic: pull.filter, qos: pull.qos, buffered: pull.buffer.length, dropped: pull.dropped };
  }

  async unsubscribe(source: string): Promise<boolean> {
    if (!this.pulls.delete(source)) return false;
    if (!this.subscribed(source) && this.client) await this.call(this.client.unsubscribeAsync(source), 'unsubscribing');
    return true;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.connecting = null;
    this.starting = null;
    for (const pull of this.pulls.values()) for (const wake of pull.waiters) wake();
    for (const stream of this.streams) stream.onEnd();
    this.streams.clear();
    if (client) await withDeadline(client.endAsync(), 1000, () => new Error('close')).catch(() => client.end(true));
  }
}
