/**
 * The REST side of the `amqp` and `mqtt` services (reference df-pubsub resources `pub` and `sub`):
 *
 *   GET    /{svc}                 {"resource":[{"name":"pub"},{"name":"sub"}]}
 *   POST   /{svc}/pub             reference body ({topic, message, ...}) → {"success":true} once the broker acknowledged
 *   POST   /{svc}/pub/{topic}     the body is the message; options as query parameters
 *   GET    /{svc}/sub             the pull subscriptions (MQTT) or declared queues (AMQP)
 *   POST   /{svc}/sub[/{topic}]   creates a pull subscription (MQTT) / declares a queue (AMQP)
 *   GET    /{svc}/sub/{topic}     pulls what arrived (`limit`, `wait` ms); with `Accept: text/event-stream`
 *                                 (or `stream=true`) a Server-Sent Events stream of the topic instead
 *   DELETE /{svc}/sub/{topic}     removes a pull subscription
 *
 * Grants apply per topic: the path form is checked by the HTTP layer as `pub/{topic}` or
 * `sub/{topic}`; a topic named in the body is checked here as the same component. AMQP routing
 * keys are keys of the service's exchange: another exchange (`exchange=`, or in the body) takes
 * the whole `pub` or `sub` component too.
 */
import { PassThrough } from 'node:stream';
import type { SchemaObject } from 'openapi3-ts/oas30';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { coreMessages } from '../../core/messages.js';
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { jsonOperation, pathParameter } from '../../openapi/operation-builder.js';
import { componentRef } from '../../openapi/shared-components.js';
import type { ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import type { BrokerClient } from './broker-client.js';
import { checkComponent } from './component-access.js';

const MAX_PULL = 1000;
const MAX_WAIT_MS = 30_000;
const KEEP_ALIVE_MS = 15_000;

/** What the documents say that differs by protocol. */
export interface BrokerDocs {
  /** `topic` (MQTT) or `routing key or queue` (AMQP). */
  topicLabel: string;
  /** Body of POST /pub (the reference's shape). */
  publishBody: SchemaObject;
  /** Query parameters of POST /pub/{topic}. */
  publishQuery: Array<{ name: string; description: string; schema: SchemaObject }>;
  /** What POST /sub/{topic} does. */
  subscribeSummary: string;
}

function wantsStream(call: ServiceCall): boolean {
  const accept = call.headers.accept;
  const text = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return text.includes('text/event-stream') || toBool(pick(call.query, 'stream'));
}

function boundedInt(call: ServiceCall, name: string, fallback: number, max: number): number {
  const text = pick(call.query, name);
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new BadRequestError(`Parameter '${name}' must be a whole number, not '${text}'.`, { parameter: name });
  return Math.min(value, max);
}

export class BrokerHandler implements ServiceHandler {
  constructor(
    private readonly name: string,
    private readonly client: BrokerClient,
    private readonly docs: BrokerDocs,
  ) {}

  async handle(call: ServiceCall): Promise<ServiceResult> {
    const [resource, ...rest] = call.resource;
    const topic = rest.join('/');
    if (resource === undefined) {
      if (call.verb !== 'GET') throw coreMessages.verbNotSupported.error(call.verb, '', this.name);
      return { body: wrapList([{ name: 'pub' }, { name: 'sub' }]) };
    }
    if (resource === 'pub') {
      if (call.verb === 'GET' && topic === '') return { body: wrapList([]) };
      if (call.verb !== 'POST') throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), this.name);
      const publication = this.client.publication(topic, call.body, call.query);
      for (const component of publication.components) checkComponent(call.auth, this.name, component, 'POST');
      await publication.send();
      return { body: { success: true } };
    }
    if (resource === 'sub') return this.sub(call, topic);
    throw coreMessages.resourceNotFound.error(call.resource.join('/'), this.name);
  }

  private async sub(call: ServiceCall, topic: string): Promise<ServiceResult> {
    if (topic === '') {
      if (call.verb === 'GET') return { body: wrapList(this.client.subscriptions()) };
      if (call.verb === 'POST') {
        const items = Array.isArray(call.body) ? call.body : [call.body];
        const created: Array<Record<string, unknown>> = [];
        for (const item of items) {
          const source =
            item !== null && typeof item === 'object'
              ? ((item as Record<string, unknown>).topic ?? (item as Record<string, unknown>).queue)
              : undefined;
          if (typeof source !== 'string' || source === '')
            throw new BadRequestError('Bad payload supplied. Could not find proper topic and/or queue information in the payload.');
          if ((item as Record<string, unknown>).service !== undefined) {
            throw new BadRequestError(
              'Subscriptions that call a service for each message are not supported: pull with GET sub/{topic}, or stream it with Server-Sent Events.',
            );
          }
          checkComponent(call.auth, this.name, `sub/${source}`, 'POST');
          created.push(await this.client.subscribe(source, item, call.query));
        }
        return { status: 201, body: wrapList(created) };
      }
      throw coreMessages.verbNotSupported.error(call.verb, 'sub', this.name);
    }
    switch (call.verb) {
      case 'GET':
        // `exchange=` binds a private queue to any exchange with the path as binding key: a grant
        // on `sub/{queue}` names a queue, not what an exchange carries, so it takes `sub` as well.
        if (pick(call.query, 'exchange') !== undefined) checkComponent(call.auth, this.name, 'sub', 'GET');
        if (wantsStream(call)) return this.stream(call, topic);
        return {
          body: wrapList(await this.client.pull(topic, boundedInt(call, 'limit', 100, MAX_PULL), boundedInt(call, 'wait', 0, MAX_WAIT_MS))),
        };
      case 'POST':
        return { status: 201, body: await this.client.subscribe(topic, call.body, call.query) };
      case 'DELETE':
        if (!(await this.client.unsubscribe(topic))) throw new NotFoundError(`No subscription to '${topic}' on service '${this.name}'.`);
        return { body: { success: true } };
      default:
        throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), this.name);
    }
  }

  /** A Server-Sent Events stream: one `message` event per delivery (its data the delivery as JSON), a comment every 15 s. */
  private async stream(call: ServiceCall, topic: string): Promise<ServiceResult> {
    const out = new PassThrough();
    let id = 0;
    let stop: (() => Promise<void>) | null = null;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(keepAlive);
      out.end();
    };
    const keepAlive = setInterval(() => out.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    out.on('close', () => {
      ended = true;
      clearInterval(keepAlive);
      void stop?.().catch(() => undefined);
    });
    try {
      stop = await this.client.stream(
        topic,
        call.query,
        (delivery) => {
          if (!ended) out.write(`id: ${++id}\nevent: message\ndata: ${JSON.stringify(delivery)}\n\n`);
        },
        end,
      );
    } catch (error) {
      clearInterval(keepAlive);
      throw error;
    }
    // The first bytes send the headers: the client knows the subscription is in place.
    out.write(': subscribed\n\n');
    return {
      body: out,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    };
  }

  openapi(): OpenApiFragment {
    return brokerOpenApi(this.docs);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The OpenAPI fragment of a broker service (static: what the service's model gives at build time too). */
export function brokerOpenApi(docs: BrokerDocs): OpenApiFragment {
  const topic = pathParameter('topic', `The ${docs.topicLabel} (may contain '/'; percent-encode '#' as %23).`);
  const success: SchemaObject = { type: 'object', properties: { success: { type: 'boolean' } } };
  const delivery: SchemaObject = {
    type: 'object',
    properties: {
      topic: { type: 'string', description: `The ${docs.topicLabel} the message came on.` },
      message: { description: 'The payload: parsed when it is JSON, else its text.' },
      received_at: { type: 'string', format: 'date-time' },
    },
  };
  const listOf = (items: SchemaObject): SchemaObject => ({ type: 'object', properties: { resource: { type: 'array', items } } });
  const subscription: SchemaObject = { type: 'object', additionalProperties: true };
  return {
    paths: {
      '/': {
        get: jsonOperation({
          operationId: 'listResources',
          summary: 'The resources of the service: pub and sub.',
          response: { description: 'Resources.', schema: listOf({ type: 'object', properties: { name: { type: 'string' } } }) },
        }),
      },
      '/pub': {
        get: jsonOperation({
          operationId: 'listPublications',
          summary: 'An empty list: publications are sent, not kept (as the reference answers).',
          response: { description: 'No resources.', schema: listOf({ type: 'object', additionalProperties: true }) },
        }),
        post: jsonOperation({
          operationId: 'publish',
          summary: "Publish a message (the reference's body); answers once the broker has acknowledged it.",
          body: { description: 'Where to and what.', schema: componentRef('schemas', 'PublishRequest') },
          response: { description: 'Published and acknowledged.', schema: success },
        }),
      },
      '/pub/{topic}': {
        post: jsonOperation({
          operationId: 'publishTo',
          summary: `Publish the request body to a ${docs.topicLabel}; answers once the broker has acknowledged it.`,
          parameters: [topic, ...docs.publishQuery.map((p) => ({ ...p, in: 'query' as const }))],
          body: {
            description: 'The message: a string is sent as its text, anything else as JSON.',
            schema: componentRef('schemas', 'MessageRequest'),
          },
          response: { description: 'Published and acknowledged.', schema: success },
        }),
      },
      '/sub': {
        get: jsonOperation({
          operationId: 'listSubscriptions',
          summary: 'The pull subscriptions or declared queues.',
          response: { description: 'Subscriptions.', schema: listOf(subscription) },
        }),
        post: {
          ...jsonOperation({
            operationId: 'subscribeMany',
            summary: docs.subscribeSummary,
            body: { description: 'One or more `{topic}` (or `{queue}`) objects.', schema: componentRef('schemas', 'SubscribeRequest') },
            response: { description: 'Created.', schema: listOf(subscription) },
          }),
          responses: { '201': { description: 'Created.', content: { 'application/json': { schema: listOf(subscription) } } } },
        },
      },
      '/sub/{topic}': {
        get: {
          ...jsonOperation({
            operationId: 'pull',
            summary:
              'Take the messages that arrived (pull); with `Accept: text/event-stream` or `stream=true`, stream them as Server-Sent Events instead.',
            parameters: [
              topic,
              {
                name: 'limit',
                in: 'query',
                description: `At most this many messages (default 100, at most ${MAX_PULL}).`,
                schema: { type: 'integer', minimum: 0 },
              },
              {
                name: 'wait',
                in: 'query',
                description: `Milliseconds to wait for a first message when none is there (default 0, at most ${MAX_WAIT_MS}).`,
                schema: { type: 'integer', minimum: 0 },
              },
              {
                name: 'stream',
                in: 'query',
                description: 'Stream as Server-Sent Events (as `Accept: text/event-stream` does).',
                schema: { type: 'boolean' },
              },
            ],
            response: { description: 'The messages, oldest first.', schema: listOf(delivery) },
          }),
          responses: {
            '200': {
              description: "The messages, oldest first; or the event stream (each `message` event's data a delivery as JSON).",
              content: { 'application/json': { schema: listOf(delivery) }, 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
        },
        post: {
          ...jsonOperation({
            operationId: 'subscribe',
            summary: docs.subscribeSummary,
            parameters: [topic],
            response: { description: 'Created.', schema: subscription },
          }),
          responses: { '201': { description: 'Created.', content: { 'application/json': { schema: subscription } } } },
        },
        delete: jsonOperation({
          operationId: 'unsubscribe',
          summary: 'Remove a pull subscription.',
          parameters: [topic],
          response: { description: 'Removed.', schema: success },
        }),
      },
    },
    // Request bodies reference components (spec, Discovery).
    components: {
      schemas: {
        PublishRequest: structuredClone(docs.publishBody),
        MessageRequest: { description: 'Any JSON value: a string is sent as its text.' },
        SubscribeRequest: { oneOf: [subscription, { type: 'array', items: subscription }] },
      },
    },
  };
}
