/**
 * AMQP 0-9-1 for the `amqp` service (amqplib): one connection per service, opened on first use and
 * again after the broker drops it, declaring the configured exchanges and queues each time.
 * Publishes go through a confirm channel and answer only once the broker confirmed them; one cut
 * off by a lost connection is sent again on the next connection within the deadline (at least
 * once), so an acknowledged publish is never lost. Pulls take messages from a queue (basic.get,
 * acknowledged once read); streams consume a queue, or a private queue bound to an exchange.
 */
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Message, Options } from 'amqplib';
import { BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError, type PorticoError } from '../../core/errors.js';
import { pick, toBool, type RawQuery } from '../../core/query-params.js';
import { type BrokerClient, type Delivery, decodeMessage, encodeMessage, type Publication } from './broker-client.js';
import { exchangeDeclaration, queueDeclaration, type AmqpConfig, type ExchangeDeclaration, type QueueDeclaration } from './amqp-config.js';
import { MAYBE_DELIVERED, unavailable, withDeadline } from './deadline.js';

const MAX_NAME_BYTES = 255;
/** Message headers travel in one frame with the other properties (RabbitMQ's frame_max is 128 KiB by default). */
const MAX_HEADERS_BYTES = 32 * 1024;
const PROPERTY_NAMES: Record<string, keyof Options.Publish> = {
  content_type: 'contentType',
  content_encoding: 'contentEncoding',
  headers: 'headers',
  priority: 'priority',
  correlation_id: 'correlationId',
  reply_to: 'replyTo',
  expiration: 'expiration',
  message_id: 'messageId',
  timestamp: 'timestamp',
  type: 'type',
  user_id: 'userId',
  app_id: 'appId',
};

interface Link {
  model: ChannelModel;
  closed: boolean;
  confirm: ConfirmChannel | null;
  reader: Channel | null;
  streams: Set<() => void>;
  /** Why the broker last closed one of the link's channels. */
  lastError: unknown;
}

/** Why the broker closed a channel, from its error text (`... 404 (NOT-FOUND) with message "..."`). */
function channelProblem(error: unknown): PorticoError | null {
  const message = (error as Error | undefined)?.message ?? '';
  const code = /\b(40[3-6])\b/.exec(message)?.[1];
  const detail = /with message "([^"]*)"/.exec(message)?.[1] ?? message;
  if (code === '404') return new NotFoundError(`The broker has no such exchange or queue: ${detail}`);
  if (code === '406') return new ConflictError(`The broker refused the declaration: ${detail}`);
  if (code === '403') return new BadRequestError(`The broker refused access: ${detail}`);
  return null;
}

function checkName(name: string, what: string): void {
  if (Buffer.byteLength(name) > MAX_NAME_BYTES)
    throw new BadRequestError(`Invalid ${what} '${name.slice(0, 40)}…': longer than ${MAX_NAME_BYTES} bytes.`, { field: what });
  if (name.includes('\u0000')) throw new BadRequestError(`Invalid ${what}: it contains a NUL character.`, { field: what });
}

/**
 * A message property of a publish body, checked against its AMQP type: amqplib throws on a wrong
 * one (`priority: "high"`), which read as a lost connection (a 503 after the timeout), or as the
 * last request's channel error.
 */
function messageProperty(field: string, value: unknown): unknown {
  const fail = (expected: string): never => {
    throw new BadRequestError(`Invalid message property '${field}': ${expected}.`, { field: `message.${field}` });
  };
  switch (field) {
    case 'headers': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('an object is expected');
      // amqplib threw on a key beyond 255 bytes (at any depth) and on headers beyond a frame: a 503 after the timeout.
      const longKey = (item: unknown): string | undefined => {
        if (item === null || typeof item !== 'object') return undefined;
        for (const [key, inner] of Object.entries(item)) {
          if (!Array.isArray(item) && Buffer.byteLength(key) > MAX_NAME_BYTES) return key;
          const found = longKey(inner);
          if (found !== undefined) return found;
        }
        return undefined;
      };
      const key = longKey(value);
      if (key !== undefined) fail(`keys of at most ${MAX_NAME_BYTES} bytes are expected ('${key.slice(0, 40)}…')`);
      if (Buffer.byteLength(JSON.stringify(value)) > MAX_HEADERS_BYTES) fail(`at most ${MAX_HEADERS_BYTES} bytes (as JSON) are expected`);
      return value;
    }
    case 'priority':
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 255) fail('a whole number from 0 to 255 is expected');
      return value;
    case 'timestamp':
      if (!Number.isSafeInteger(value) || (value as number) < 0) fail('seconds since 1970 (a whole number) are expected');
      return value;
    case 'expiration': {
      const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
      if (!/^\d{1,18}$/.test(text)) fail('milliseconds (a whole number) are expected');
      return text;
    }
    default:
      if (typeof value !== 'string' || Buffer.byteLength(value) > MAX_NAME_BYTES)
        fail(`a string of at most ${MAX_NAME_BYTES} bytes is expected`);
      return value;
  }
}

/** Exchange types a publish may declare: RabbitMQ's own, and plugins' (`x-…`); another closed the connection. */
const EXCHANGE_TYPES = new Set(['direct', 'fanout', 'topic', 'headers']);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class AmqpBrokerClient implements BrokerClient {
  private link: Promise<Link> | null = null;
  /** The link once open (calls skip the promise and its deadline). */
  private open_: Link | null = null;
  private closing = false;
  private readonly declared = new Map<string, QueueDeclaration>();

  constructor(
    private readonly name: string,
    private readonly config: AmqpConfig,
  ) {
    for (const queue of config.queues) this.declared.set(queue.name, queue);
  }

  /** The open connection, connecting (and declaring) when there is none; a 503 after the deadline. */
  private connection(deadline = Date.now() + this.config.timeoutMs): Promise<Link> {
    if (this.closing) return Promise.reject(unavailable(this.name, 'the service is closing'));
    if (this.open_ && !this.open_.closed) return Promise.resolve(this.open_);
    if (!this.link) {
      const opening = this.open();
      this.link = opening;
      opening.then(
        (link) => {
          this.open_ = link;
        },
        () => {
          if (this.link === opening) this.link = null;
        },
      );
    }
    return withDeadline(this.link, Math.max(1, deadline - Date.now()), () =>
      unavailable(this.name, 'the AMQP broker did not answer in time'),
    ).catch((error: unknown) => {
      if ((error as PorticoError).status !== undefined) throw error;
      throw unavailable(this.name, 'the AMQP broker cannot be reached');
    });
  }

  /**
   * Ends a connection the broker stopped answering on (a frozen broker, a network partition): it
   * stayed open, and every later call of the service waited on it and was a 503, also once the
   * broker was back. Its socket is destroyed (a clean close would wait on the broker too); the
   * next call connects anew.
   */
  private drop(link: Link): void {
    link.closed = true;
    if (this.open_ === link) {
      this.open_ = null;
      this.link = null;
    }
    (link.model as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  private async open(): Promise<Link> {
    const { connect } = await import('amqplib');
    const model = await connect(this.config.connect, this.config.socket);
    const link: Link = { model, closed: false, confirm: null, reader: null, streams: new Set(), lastError: null };
    model.on('error', () => undefined);
    model.on('close', () => {
      link.closed = true;
      if (this.link !== null)
        void this.link.then(
          (current) => {
            if (current === link) this.link = null;
          },
          () => undefined,
        );
      for (const end of link.streams) end();
    });
    try {
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      for (const exchange of this.config.exchanges) await this.declareExchange(channel, exchange);
      for (const queue of this.declared.values()) await this.declareQueue(channel, queue);
      await channel.close();
    } catch (error) {
      await model.close().catch(() => undefined);
      throw channelProblem(error) ?? error;
    }
    return link;
  }

  private async declareExchange(channel: Channel, exchange: ExchangeDeclaration): Promise<void> {
    if (exchange.name === '' || exchange.name.startsWith('amq.')) return;
    await channel.assertExchange(exchange.name, exchange.type, exchange.options);
  }

  private async declareQueue(channel: Channel, queue: QueueDeclaration): Promise<void> {
    await channel.assertQueue(queue.name, queue.options);
    for (const binding of queue.bindings) await channel.bindQueue(queue.name, binding.exchange, binding.routingKey);
  }

  /** A channel of the link, made again when the broker closed the last one (a channel error). */
  private async channel(link: Link, which: 'confirm' | 'reader'): Promise<Channel> {
    const current = link[which];
    if (current) return current;
    const channel = which === 'confirm' ? await link.model.createConfirmChannel() : await link.model.createChannel();
    channel.on('error', (error) => {
      link.lastError = error;
    });
    channel.on('close', () => {
      if (link[which] === channel) link[which] = null;
    });
    if (which === 'confirm') link.confirm = channel as ConfirmChannel;
    else link.reader = channel;
    return channel;
  }

  publication(pathTopic: string, body: unknown, query: RawQuery): Publication {
    let exchange: ExchangeDeclaration | null = null;
    let queue: QueueDeclaration | null = null;
    let routingKey = pathTopic;
    let message: unknown = body;
    let declare = { exchange: false, queue: false };
    const options: Options.Publish = {
      persistent: pick(query, 'persistent') === undefined ? this.config.persistent : toBool(pick(query, 'persistent')),
    };
    const exchangeName = pick(query, 'exchange');
    if (pathTopic !== '') {
      exchange = exchangeDeclaration(exchangeName ?? this.config.exchange);
      const type = pick(query, 'content_type');
      // Beyond 255 bytes amqplib threw, which read as a lost connection: a 503 after the whole timeout.
      if (type) options.contentType = messageProperty('content_type', type) as string;
    } else {
      // The reference's body: message|msg, exchange/queue/topic (names or declarations), routing_key and its aliases.
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw new BadRequestError('Invalid or no data provided for publishing.');
      const fields = body as Record<string, unknown>;
      message = fields.message ?? fields.msg;
      if (message === undefined || message === null || message === '')
        throw new BadRequestError('No message provided in data to publish.', { field: 'message' });
      if (typeof message === 'object' && !Array.isArray(message)) {
        const described = message as Record<string, unknown>;
        const content = described.body ?? described.message ?? described.msg;
        if (content === undefined) throw new BadRequestError('No message body provided in message data object.', { field: 'message.body' });
        for (const [field, property] of Object.entries(PROPERTY_NAMES))
          if (described[field] !== undefined && described[field] !== null)
            (options as Record<string, unknown>)[property] = messageProperty(field, described[field]);
        if (described.delivery_mode !== undefined) options.persistent = Number(described.delivery_mode) === 2;
        message = content;
      }
      if (fields.persistent !== undefined) options.persistent = toBool(fields.persistent);
      if (fields.delivery_mode !== undefined) options.persistent = Number(fields.delivery_mode) === 2;
      const target = fields.queue ?? fields.topic;
      if (fields.exchange !== undefined) exchange = exchangeDeclaration(fields.exchange);
      if (target !== undefined) queue = queueDeclaration(target);
      // Declarations given as objects are declared before publishing (the reference declares on every publish); names are used as they are.
      declare = {
        exchange: typeof fields.exchange === 'object' && fields.exchange !== null,
        queue: typeof target === 'object' && target !== null,
      };
      if (!exchange && !queue) throw new BadRequestError('No topic/queue/exchange provided for message publishing.');
      // Declared without a name, the broker named a new durable queue on every publish, and kept it for good.
      if (declare.queue && queue?.name === '')
        throw new BadRequestError('A queue declared for publishing needs a name.', {
          field: fields.queue !== undefined ? 'queue' : 'topic',
        });
      if (declare.exchange && exchange && !EXCHANGE_TYPES.has(exchange.type) && !exchange.type.startsWith('x-'))
        throw new BadRequestError(
          `Invalid exchange type '${exchange.type}': direct, fanout, topic, headers or a plugin's x-… type is expected.`,
          {
            field: 'exchange.type',
          },
        );
      const key = fields.routing_key ?? fields.routing_keys ?? fields.routing ?? fields.binding_key ?? fields.binding;
      routingKey = typeof key === 'string' ? key : Array.isArray(key) && typeof key[0] === 'string' ? key[0] : '';
      if (routingKey === '' && queue) routingKey = queue.name;
      if (declare.exchange && exchange?.type !== 'fanout' && routingKey === '') {
        throw new BadRequestError('No routing key provided for exchange that is NOT of type fanout.', { field: 'routing_key' });
      }
    }
    if (message === undefined || message === '') throw new BadRequestError('No message provided in data to publish.', { field: 'message' });
    checkName(routingKey, 'routing_key');
    checkName(exchange?.name ?? '', 'exchange');
    const content = encodeMessage(message);
    if (content.length > this.config.maxBytes)
      throw new PayloadTooLargeError(`The message is larger than the ${this.config.maxBytes} bytes service '${this.name}' accepts.`);
    if (options.contentType === undefined) options.contentType = typeof message === 'string' ? 'text/plain' : 'application/json';
    const target = exchange ?? exchangeDeclaration('');
    const declarations = { exchange: declare.exchange ? target : null, queue: declare.queue ? queue : null };
    // A grant on `pub/{key}` names that key on the service's exchange: to any other, the same
    // key reaches other queues (on the default exchange, the queue of that name), so publishing
    // there takes the whole `pub` component as well.
    const components = [`pub/${routingKey || target.name}`];
    if (target.name !== this.config.exchange) components.push('pub');
    return {
      components,
      send: () => this.publish(target.name, declarations, routingKey, content, options),
    };
  }

  /** Publishes and waits for the broker's confirm; after a lost connection, again on the next one. */
  private async publish(
    exchange: string,
    declare: { exchange: ExchangeDeclaration | null; queue: QueueDeclaration | null },
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
  ): Promise<void> {
    const deadline = Date.now() + this.config.timeoutMs;
    let last: unknown = null;
    // Once a publish was written, a failure can not say that the broker did not take it.
    let written = false;
    while (Date.now() < deadline) {
      const link = await this.connection(deadline);
      // Only what the broker says about this attempt explains its failure.
      link.lastError = null;
      try {
        const channel = (await this.channel(link, 'confirm')) as ConfirmChannel;
        if (declare.exchange) await this.declareExchange(channel, declare.exchange);
        if (declare.queue) await this.declareQueue(channel, declare.queue);
        await withDeadline(
          new Promise<void>((resolve, reject) => {
            channel.publish(exchange, routingKey, content, options, (error: unknown) => (error ? reject(error) : resolve()));
            written = true;
          }),
          Math.max(1, deadline - Date.now()),
          () => {
            this.drop(link);
            return unavailable(this.name, `the AMQP broker did not confirm the publish in time${MAYBE_DELIVERED}`);
          },
        );
        return;
      } catch (error) {
        if ((error as PorticoError).status !== undefined) throw error;
        // A channel the broker closed while the connection lives is the request's fault (no such exchange, ...).
        await sleep(20);
        if (!link.closed) {
          const problem = channelProblem(error) ?? channelProblem(link.lastError);
          if (problem) throw problem;
        }
        last = error;
        await sleep(50);
      }
    }
    throw unavailable(
      this.name,
      `the publish was not confirmed in time${last ? ' (the connection was lost)' : ''}${written ? MAYBE_DELIVERED : ''}`,
    );
  }

  async pull(source: string, limit: number, waitMs: number): Promise<Delivery[]> {
    checkName(source, 'queue');
    const deadline = Date.now() + this.config.timeoutMs + waitMs;
    const out: Delivery[] = [];
    const link = await this.connection();
    try {
      const channel = await this.channel(link, 'reader');
      const messages: Message[] = [];
      while (messages.length < limit) {
        const message = await withDeadline(channel.get(source, { noAck: false }), Math.max(1, deadline - Date.now()), () => {
          this.drop(link);
          return unavailable(this.name, 'the AMQP broker did not answer in time');
        });
        if (message === false) {
          if (messages.length > 0 || Date.now() >= deadline - this.config.timeoutMs) break;
          await sleep(Math.min(100, Math.max(1, deadline - this.config.timeoutMs - Date.now())));
          continue;
        }
        messages.push(message);
      }
      for (const message of messages) out.push(this.delivery(message, source));
      if (messages.length > 0) channel.ack(messages[messages.length - 1], true);
      return out;
    } catch (error) {
      if ((error as PorticoError).status !== undefined) throw error;
      throw channelProblem(error) ?? unavailable(this.name, 'reading the queue failed (the connection was lost)');
    }
  }

  private delivery(message: Message | ConsumeMessage, queue: string): Delivery {
    const p = message.properties;
    const properties: Record<string, unknown> = {};
    for (const [field, property] of Object.entries(PROPERTY_NAMES)) {
      const value = (p as unknown as Record<string, unknown>)[property];
      if (value !== undefined && !(field === 'headers' && Object.keys(value as object).length === 0)) properties[field] = value;
    }
    properties.delivery_mode = p.deliveryMode ?? 1;
    return {
      topic: message.fields.routingKey,
      message: decodeMessage(message.content),
      received_at: new Date().toISOString(),
      exchange: message.fields.exchange,
      queue,
      redelivered: message.fields.redelivered,
      properties,
    };
  }

  async stream(source: string, query: RawQuery, onDelivery: (delivery: Delivery) => void, onEnd: () => void): Promise<() => Promise<void>> {
    checkName(source, 'queue');
    const link = await this.connection();
    const channel = await withDeadline(link.model.createChannel(), this.config.timeoutMs, () =>
      unavailable(this.name, 'the AMQP broker did not answer in time'),
    );
    channel.on('error', () => undefined);
    const end = () => onEnd();
    link.streams.add(end);
    const stop = async () => {
      link.streams.delete(end);
      await channel.close().catch(() => undefined);
    };
    try {
      // `exchange=`: a private queue bound to that exchange with the path as binding key (topic patterns welcome).
      const exchange = pick(query, 'exchange');
      let queue = source;
      if (exchange !== undefined) {
        queue = (await channel.assertQueue('', { exclusive: true, autoDelete: true })).queue;
        await channel.bindQueue(queue, exchange, source);
      } else {
        await channel.checkQueue(source);
      }
      await channel.consume(queue, (message) => {
        if (message === null) {
          end();
          return;
        }
        onDelivery(this.delivery(message, queue));
        channel.ack(message);
      });
      channel.on('close', end);
    } catch (error) {
      await stop();
      throw channelProblem(error) ?? unavailable(this.name, 'subscribing failed');
    }
    return stop;
  }

  subscriptions(): Array<Record<string, unknown>> {
    return [...this.declared.values()].map((queue) => ({
      queue: queue.name,
      durable: queue.options.durable,
      bindings: queue.bindings.map((b) => ({ exchange: b.exchange, routing_key: b.routingKey })),
    }));
  }

  async subscribe(source: string, body: unknown): Promise<Record<string, unknown>> {
    checkName(source, 'queue');
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const queue = queueDeclaration({ ...fields, name: source });
    const link = await this.connection();
    const channel = await link.model.createChannel();
    channel.on('error', () => undefined);
    try {
      await withDeadline(this.declareQueue(channel, queue), this.config.timeoutMs, () =>
        unavailable(this.name, 'the AMQP broker did not answer in time'),
      );
    } catch (error) {
      if ((error as PorticoError).status !== undefined) throw error;
      throw channelProblem(error) ?? unavailable(this.name, 'declaring the queue failed');
    } finally {
      await channel.close().catch(() => undefined);
    }
    this.declared.set(queue.name, queue);
    return {
      queue: queue.name,
      durable: queue.options.durable,
      bindings: queue.bindings.map((b) => ({ exchange: b.exchange, routing_key: b.routingKey })),
    };
  }

  /**
   * Deletes a queue this service declared (its configured `queues`, or one made with POST
   * sub/{queue} on this instance): what GET sub lists. Any other queue of the virtual host is no
   * subscription of the service, and stays (it deleted any queue it was given, another
   * application's included; the reference deletes no queue at all, only its own subscription jobs).
   */
  async unsubscribe(source: string): Promise<boolean> {
    // A name beyond 255 bytes made amqplib throw: a 503 "deleting the queue failed".
    checkName(source, 'queue');
    if (!this.declared.has(source)) return false;
    const link = await this.connection();
    const channel = await link.model.createChannel();
    channel.on('error', () => undefined);
    try {
      await channel.checkQueue(source);
      await channel.deleteQueue(source);
      this.declared.delete(source);
      return true;
    } catch (error) {
      if (channelProblem(error)?.status === 404) return false;
      throw unavailable(this.name, 'deleting the queue failed');
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    const link = this.link;
    this.link = null;
    if (link) {
      await link
        .then(
          (l) => {
            for (const end of l.streams) end();
            return withDeadline(l.model.close(), 1000, () => new Error('close'));
          },
          () => undefined,
        )
        .catch(() => undefined);
    }
  }
}
