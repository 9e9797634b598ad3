/**
 * Config of the `amqp` service (reference df-amqp: host, port, username, password, vhost) plus a
 * URL form, TLS, a connection name, the default exchange and delivery mode of publishes, and the
 * exchanges, queues and bindings declared on every (re)connection.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Options, SocketOptions } from 'amqplib';
import { millis } from './deadline.js';

const declaredExchange = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    type: { type: 'string', enum: ['direct', 'topic', 'fanout', 'headers'], default: 'topic' },
    durable: { type: 'boolean', default: true },
    auto_delete: { type: 'boolean', default: false },
    internal: { type: 'boolean', default: false },
    arguments: { type: 'object' },
  },
};

const declaredQueue = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    durable: { type: 'boolean', default: true },
    exclusive: { type: 'boolean', default: false },
    auto_delete: { type: 'boolean', default: false },
    arguments: { type: 'object' },
    bindings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['exchange'],
        properties: { exchange: { type: 'string' }, routing_key: { type: 'string', default: '' } },
      },
    },
  },
};

export const amqpConfigSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    host: { type: 'string', title: 'Host', default: '127.0.0.1', description: 'Host name or address of the AMQP 0-9-1 broker (RabbitMQ).' },
    port: { type: 'integer', title: 'Port', default: 5672, minimum: 1, maximum: 65535 },
    username: { type: 'string', default: 'guest' },
    password: { type: 'string' },
    vhost: { type: 'string', title: 'Virtual Host', default: '/' },
    url: {
      type: 'string',
      title: 'URL',
      description: 'amqp:// or amqps:// URL; when given it replaces host, port, username, password, vhost and tls.',
    },
    tls: { type: 'boolean', title: 'TLS', default: false, description: 'Connect with TLS (amqps).' },
    capath: {
      type: 'string',
      title: 'CA Certificate Path',
      description: 'CA certificate file (PEM) for TLS, relative to the platform directory.',
    },
    cert_path: { type: 'string', description: 'Client certificate file (PEM) for TLS.' },
    key_path: { type: 'string', description: 'Client private key file (PEM) for TLS.' },
    reject_unauthorized: { type: 'boolean', default: true },
    client_name: { type: 'string', description: 'Connection name shown by the broker (default: portico-{service}).' },
    heartbeat: { type: 'integer', default: 30, minimum: 0, description: 'Heartbeat interval in seconds (0: none).' },
    exchange: {
      type: 'string',
      default: '',
      description:
        "Exchange of POST pub/{routing_key} when the request names none ('' is the default exchange, routing to the queue of that name).",
    },
    persistent: {
      type: 'boolean',
      default: true,
      description: 'Publish persistent messages (delivery mode 2) unless the request says otherwise.',
    },
    exchanges: { type: 'array', default: [], items: declaredExchange, description: 'Exchanges declared on every connection.' },
    queues: { type: 'array', default: [], items: declaredQueue, description: 'Queues (and their bindings) declared on every connection.' },
    timeout_ms: {
      type: 'integer',
      title: 'Timeout (ms)',
      default: 5000,
      minimum: 1,
      description: 'Deadline of each broker call (connecting, publishing with its confirm, reading): a 503 after it.',
    },
    max_message_bytes: {
      type: 'integer',
      default: 262144,
      minimum: 1,
      description: 'Largest message accepted for publishing; larger is 413.',
    },
  },
};

export interface ExchangeDeclaration {
  name: string;
  type: string;
  options: Options.AssertExchange;
}

export interface QueueDeclaration {
  name: string;
  options: Options.AssertQueue;
  bindings: Array<{ exchange: string; routingKey: string }>;
}

export interface AmqpConfig {
  connect: string | Options.Connect;
  socket: SocketOptions;
  exchange: string;
  persistent: boolean;
  exchanges: ExchangeDeclaration[];
  queues: QueueDeclaration[];
  timeoutMs: number;
  maxBytes: number;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export function exchangeDeclaration(value: unknown): ExchangeDeclaration {
  const item = typeof value === 'string' ? { name: value } : record(value);
  return {
    name: String(item.name ?? ''),
    type: text(item.type) ?? 'topic',
    options: {
      durable: item.durable !== false,
      autoDelete: item.auto_delete === true,
      internal: item.internal === true,
      arguments: record(item.arguments),
    },
  };
}

export function queueDeclaration(value: unknown): QueueDeclaration {
  const item = typeof value === 'string' ? { name: value } : record(value);
  const bindings = Array.isArray(item.bindings) ? item.bindings.map(record) : [];
  return {
    name: String(item.name ?? ''),
    options: {
      durable: item.durable !== false,
      exclusive: item.exclusive === true,
      autoDelete: item.auto_delete === true,
      arguments: record(item.arguments),
    },
    bindings: bindings.map((b) => ({ exchange: String(b.exchange ?? ''), routingKey: String(b.routing_key ?? '') })),
  };
}

export function readAmqpConfig(service: string, config: Record<string, unknown>, baseDir: string): AmqpConfig {
  const timeoutMs = millis(config.timeout_ms, 5000);
  const file = (value: unknown) => (text(value) ? fs.readFileSync(path.resolve(baseDir, value as string)) : undefined);
  const heartbeat = typeof config.heartbeat === 'number' ? config.heartbeat : 30;
  return {
    connect: text(config.url) ?? {
      protocol: config.tls === true ? 'amqps' : 'amqp',
      hostname: text(config.host) ?? '127.0.0.1',
      port: typeof config.port === 'number' ? config.port : config.tls === true ? 5671 : 5672,
      username: text(config.username) ?? 'guest',
      password: typeof config.password === 'string' ? config.password : 'guest',
      vhost: text(config.vhost) ?? '/',
      heartbeat,
    },
    socket: {
      timeout: timeoutMs,
      clientProperties: { connection_name: text(config.client_name) ?? `portico-${service}` },
      ca: file(config.capath),
      cert: file(config.cert_path),
      key: file(config.key_path),
      rejectUnauthorized: config.reject_unauthorized !== false,
    },
    exchange: typeof config.exchange === 'string' ? config.exchange : '',
    persistent: config.persistent !== false,
    exchanges: (Array.isArray(config.exchanges) ? config.exchanges : []).map(exchangeDeclaration),
    queues: (Array.isArray(config.queues) ? config.queues : []).map(queueDeclaration),
    timeoutMs,
    maxBytes: millis(config.max_message_bytes, 256 * 1024),
  };
}
