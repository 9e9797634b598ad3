/** The `amqp` kind (group IoT, reference df-amqp): publish, pull and stream over REST on an AMQP 0-9-1 broker (RabbitMQ). */
import { AmqpBrokerClient } from './amqp-client.js';
import { amqpConfigSchema, readAmqpConfig } from './amqp-config.js';
import type { BrokerDocs } from './broker-handler.js';
import { brokerKind } from './broker-kind.js';

const declaration = { oneOf: [{ type: 'string' as const }, { type: 'object' as const, additionalProperties: true }] };

const docs: BrokerDocs = {
  topicLabel: 'routing key (or queue)',
  publishBody: {
    type: 'object',
    required: ['message'],
    properties: {
      message: {
        description:
          'The message: a string is sent as its text, anything else as JSON; or `{body, content_type, headers, message_id, priority, expiration, delivery_mode, ...}`. Alias: `msg`.',
      },
      exchange: {
        ...declaration,
        description:
          'Exchange name, or a declaration `{name, type, durable, auto_delete, internal, arguments}` declared before publishing.',
      },
      queue: {
        ...declaration,
        description:
          'Queue name (routing key on the default exchange), or a declaration `{name, durable, exclusive, auto_delete, arguments}`. Alias: `topic`.',
      },
      routing_key: { type: 'string', description: 'Routing key (aliases: routing, binding_key, binding).' },
      persistent: { type: 'boolean', description: "Persistent delivery (mode 2); default: the service's persistent, true." },
    },
  },
  publishQuery: [
    {
      name: 'exchange',
      description: "Exchange to publish to (default: the service's exchange; '' the default exchange).",
      schema: { type: 'string' },
    },
    { name: 'persistent', description: 'Persistent delivery (mode 2).', schema: { type: 'boolean' } },
    { name: 'content_type', description: 'Content type property of the message.', schema: { type: 'string' } },
  ],
  subscribeSummary:
    'Declare a queue (body: durable, exclusive, auto_delete, arguments, bindings [{exchange, routing_key}]) to pull from with GET sub/{queue}.',
};

export const amqpKind = brokerKind({
  type: 'amqp',
  label: 'AMQP Client',
  description: 'Publishes to and reads from an AMQP 0-9-1 broker (RabbitMQ).',
  configSchema: amqpConfigSchema,
  docs,
  client: (service, config, baseDir) => new AmqpBrokerClient(service, readAmqpConfig(service, config, baseDir)),
});
