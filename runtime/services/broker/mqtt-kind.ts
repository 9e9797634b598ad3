/** The `mqtt` kind (group IoT, reference df-mqtt): publish, pull and stream over REST on an MQTT broker. */
import type { BrokerDocs } from './broker-handler.js';
import { brokerKind } from './broker-kind.js';
import { MqttBrokerClient, mqttConfigSchema } from './mqtt-client.js';

const docs: BrokerDocs = {
  topicLabel: 'topic',
  publishBody: {
    type: 'object',
    required: ['topic', 'message'],
    properties: {
      topic: { type: 'string', description: 'Topic name (no wildcards).' },
      message: { description: 'The message: a string is sent as its text, anything else as JSON. Alias: `msg`.' },
      qos: { type: 'integer', enum: [0, 1, 2], description: "QoS (default: the service's qos, 1)." },
      retain: { type: 'boolean', description: "Retain the message at the broker (default: the service's retain, false)." },
    },
  },
  publishQuery: [
    { name: 'qos', description: "QoS 0, 1 or 2 (default: the service's qos).", schema: { type: 'integer', enum: [0, 1, 2] } },
    { name: 'retain', description: 'Retain the message at the broker.', schema: { type: 'boolean' } },
  ],
  subscribeSummary: 'Subscribe to a topic filter for pulling: what arrives is kept (bounded) until pulled with GET sub/{topic}.',
};

export const mqttKind = brokerKind({
  type: 'mqtt',
  label: 'MQTT Client',
  description: 'Publishes to and reads from an MQTT broker.',
  configSchema: mqttConfigSchema,
  docs,
  client(service, config, baseDir) {
    const client = new MqttBrokerClient(service, config, baseDir);
    // Connect and subscribe in the background: an unreachable broker answers 503 on the calls, not here.
    void client.ensureStarted().catch(() => undefined);
    return client;
  },
});
