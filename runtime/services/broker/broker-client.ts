/**
 * What the REST layer of the broker services (broker-handler.ts) needs from a protocol: publish,
 * pull what a subscription received, stream a topic or queue, and manage pull subscriptions.
 * `amqp-client.ts` and `mqtt-client.ts` implement it.
 */
import type { RawQuery } from '../../core/query-params.js';

/** One message as the REST layer hands it out. */
export interface Delivery {
  /** MQTT topic, or AMQP routing key. */
  topic: string;
  /** The payload: parsed when it is JSON, else its UTF-8 text. */
  message: unknown;
  /** ISO time the service received it. */
  received_at: string;
  [detail: string]: unknown;
}

/** A publish request, validated: where to, what, and the protocol's options. */
export interface Publication {
  /**
   * The grant components the target is checked as, each of which must be allowed: `pub/{topic}`;
   * for AMQP, `pub` too when it goes to another exchange than the service's (a routing key means
   * something only on its exchange: grants on keys name those of the service's exchange).
   */
  components: string[];
  send(): Promise<void>;
}

export interface BrokerClient {
  /** Reads a publish request: topic from the path (may be empty) or the body (reference shape). */
  publication(pathTopic: string, body: unknown, query: RawQuery): Publication;
  /** Takes up to `limit` messages of a source (MQTT: a pull subscription's buffer; AMQP: a queue), waiting up to `waitMs` for the first. */
  pull(source: string, limit: number, waitMs: number): Promise<Delivery[]>;
  /** Streams a source's messages until the returned stop() is called or `onEnd` is (the connection was lost). */
  stream(source: string, query: RawQuery, onDelivery: (delivery: Delivery) => void, onEnd: () => void): Promise<() => Promise<void>>;
  /** The pull subscriptions (MQTT) or declared queues (AMQP). */
  subscriptions(): Array<Record<string, unknown>>;
  /** Creates a pull subscription (MQTT) or declares a queue (AMQP). */
  subscribe(source: string, body: unknown, query: RawQuery): Promise<Record<string, unknown>>;
  /** Removes a pull subscription; false when there was none. */
  unsubscribe(source: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A message body as bytes: strings as their UTF-8 text, everything else as JSON. */
export function encodeMessage(message: unknown): Buffer {
  if (Buffer.isBuffer(message)) return message;
  return Buffer.from(typeof message === 'string' ? message : JSON.stringify(message), 'utf8');
}

/** A received payload: parsed when it is JSON, else its text. */
export function decodeMessage(payload: Buffer): unknown {
  const text = payload.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
