/**
 * The hand-written yardstick of the broker benchmark: Fastify with the same credential check as
 * Portico, publishing the JSON body with the same clients and the same acknowledgement (amqplib
 * confirm channel, mqtt.js QoS 1). Prints its URL once listening.
 *
 * Env: AMQP_URL, MQTT_URL, API_KEY, JWT_SECRET, PORT (0 for any).
 */
import amqp from 'amqplib';
import Fastify from 'fastify';
import mqtt from 'mqtt';
import { createAuthCheck } from './hand-written-auth.js';

const connection = await amqp.connect(process.env.AMQP_URL!);
const channel = await connection.createConfirmChannel();
const client = await mqtt.connectAsync(process.env.MQTT_URL!);
const authorised = createAuthCheck(process.env.API_KEY!, process.env.JWT_SECRET!);
const app = Fastify();
app.post('/amqp/:queue', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  const content = Buffer.from(JSON.stringify(request.body));
  await new Promise<void>((resolve, reject) => {
    channel.publish(
      '',
      (request.params as { queue: string }).queue,
      content,
      { persistent: true, contentType: 'application/json' },
      (error: unknown) => (error ? reject(error) : resolve()),
    );
  });
  return { success: true };
});
app.post('/mqtt/*', async (request, reply) => {
  if (!authorised(request, reply)) return reply;
  await client.publishAsync((request.params as { '*': string })['*'], Buffer.from(JSON.stringify(request.body)), { qos: 1 });
  return { success: true };
});
console.log(await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) }));
process.on('SIGTERM', () => {
  void Promise.all([app.close(), connection.close(), client.endAsync()]).finally(() => process.exit(0));
});
