/**
 * Property-based fuzzing of the services beside databases against real peers: smtp_email to an
 * SMTP server of the test's own, rws to an HTTP server of its own (and a second one nothing may
 * reach), cache_redis on the machine's Redis, mqtt on its Mosquitto, amqp on its RabbitMQ, and the
 * mcp endpoint. fast-check generates the requests (service-grammar.ts). Oracles, for every answer:
 *
 * - no 5xx that is Portico's own fault (an rws remote's 5xx, or a 503 for a remote that is slow,
 *   answers garbage or drops the connection, are the remote's); errors in the spec's envelope with
 *   code = status; no stack, driver text or service secret (passwords, configured header values);
 * - email: a refused send sends nothing; a sent one reaches the peer once, and no line break of a
 *   field made a header or a recipient of its own;
 * - rws: a refused request sends nothing; the remote never gets the caller's credentials, nor a
 *   path outside its base (not even where it redirected there itself), and the other server gets nothing;
 * - cache: a stored value reads back as it was sent;
 * - MCP: JSON-RPC answers or the error envelope, never a 5xx.
 *
 * Seeded: FUZZ_SEED and FUZZ_RUNS (scales every property; default 1) explore further locally
 * (`FUZZ_RUNS=10`); FUZZ_EXPLORE=1 goes on past failures and prints each kind once.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerService } from '#test/helpers/broker-fixtures.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { LEAKS } from '../hostile-input/hostile-input.suite.js';
import {
  amqpCase,
  cacheCase,
  emailCase,
  INJECTED_ADDRESS,
  INJECTED_HEADER,
  mcpCase,
  mqttCase,
  type RawRequest,
  rwsCase,
} from './service-grammar.js';
import { type HttpPeer, type SmtpPeer, startHttpPeer, startSmtpPeer } from './service-peers.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const EXPLORE = process.env.FUZZ_EXPLORE === '1';
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

const SMTP_SECRET = 'smtp-secret-5d1c9e';
const RWS_SECRET = 'rws-header-secret-8b2f';
const RWS_PARAMETER = 'rws-parameter-secret-41aa';
const SECRETS = [SMTP_SECRET, RWS_SECRET, RWS_PARAMETER, 'test-secret-test-secret'];

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const fail = (kind: string, detail: string): never => {
  throw Object.assign(new Error(`${kind}\n${detail}`), { failure: { kind, detail } });
};

const show = (request: RawRequest) =>
  `${request.method} ${request.url.slice(0, 600)} ${JSON.stringify(request.headers).slice(0, 300)}${
    request.payload === undefined ? '' : `\n  body: ${String(request.payload).slice(0, 800)}`
  }`;

/** What any answer must be; a description of what is wrong, or null. */
function judge(answer: Answer, request: RawRequest, allow5xx: boolean, envelope: 'api' | 'mcp' | 'relayed' = 'api'): string | null {
  if (answer.status >= 500 && !allow5xx) return `status ${answer.status}`;
  const sent = `${request.url} ${String(request.payload ?? '')}`;
  const leak = LEAKS.find((pattern) => pattern.test(answer.text) && !pattern.test(sent));
  if (leak !== undefined) return `leaks ${leak}`;
  const secret = SECRETS.find((s) => answer.text.includes(s));
  if (secret !== undefined) return `shows the secret ${secret}`;
  // A HEAD answer has no body.
  if (answer.status < 400 || request.method === 'HEAD') return null;
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `error body is not JSON (${answer.contentType})`;
  }
  if (envelope === 'mcp' && body?.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error.message === 'string')
    return null;
  if (envelope === 'mcp' && typeof body?.error === 'string') return null;
  const error = body?.error;
  if (
    error === null ||
    typeof error !== 'object' ||
    error.code !== answer.status ||
    typeof error.message !== 'string' ||
    error.message.trim() === ''
  )
    return 'error not in the shape {"error":{"code","message"}} with code = status';
  // A relayed error's message is the remote's text.
  const unclear = envelope === 'relayed' ? null : /\bundefined\b|\[object Object\]|\bNaN\b/.exec(error.message);
  if (unclear !== null && !sent.includes(unclear[0])) return `unclear message (${unclear[0]})`;
  return null;
}

describe.skipIf(!(await requireBroker('redis')) || !(await requireBroker('rabbitmq')) || !(await requireBroker('mosquitto')))(
  'fuzzing email, rws, cache, brokers and MCP with hostile requests',
  () => {
    const tag = crypto.randomBytes(4).toString('hex');
    const prefix = `fz/${tag}/`;
    const amqpPrefix = `fz.${tag}.`;
    const exchange = `portico_fz_${tag}`;
    const queue = `portico_fzq_${tag}`;
    const cachePrefix = `portico-fuzz:${tag}:`;
    // A body above the server's limit (10 MB), made once.
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a');
    let server: TestServer;
    let headers: Record<string, string>;
    let port: number;
    let smtp: SmtpPeer;
    let peer: HttpPeer;
    let other: HttpPeer;
    let tools: string[] = [];
    const templates = ['fz_plain', 'fz_to', 'fz_odd'];
    const found = new Map<string, { detail: string; count: number }>();
    const statuses = new Map<string, number>();

    beforeAll(async () => {
      smtp = await startSmtpPeer('mailer', SMTP_SECRET);
      other = await startHttpPeer(() => 'http://127.0.0.1:9', 10);
      peer = await startHttpPeer(() => other.base, 2500);
      const redis = new URL(brokerUrl('redis'));
      const model = minimalModel();
      model.services.push(
        brokerService(60, 'mail', 'smtp_email', {
          host: '127.0.0.1',
          port: smtp.port,
          username: 'mailer',
          password: SMTP_SECRET,
          from_email: 'noreply@portico.test',
          timeout: 10,
        }),
        ...['remote', 'remote_cached'].map((name, i) =>
          brokerService(61 + i, name, 'rws', {
            base_url: `${peer.base}/v1`,
            timeout: 1,
            headers: [{ name: 'X-Api-Secret', value: RWS_SECRET }],
            parameters: [{ name: 'token', value: RWS_PARAMETER }],
            ...(name === 'remote_cached' ? { cache_enabled: true, cache_ttl: 60 } : {}),
          }),
        ),
        brokerService(63, 'cache', 'cache_redis', {
          host: redis.hostname,
          port: Number(redis.port),
          key_prefix: cachePrefix,
          default_ttl: 60,
          max_value_bytes: 4096,
        }),
        brokerService(64, 'mqtt', 'mqtt', {
          url: brokerUrl('mosquitto'),
          timeout_ms: 4000,
          max_message_bytes: 4096,
          subscriptions: [{ topic: `${prefix}#`, qos: 1 }],
        }),
        brokerService(65, 'amqp', 'amqp', {
          url: brokerUrl('rabbitmq'),
          timeout_ms: 4000,
          max_message_bytes: 4096,
          exchange,
          // Not auto-deleted: DELETE sub/{queue} deletes the queue bound to it, and with it the exchange.
          exchanges: [{ name: exchange, type: 'topic', durable: false, auto_delete: false }],
          queues: [{ name: queue, durable: false, auto_delete: false, bindings: [{ exchange, routing_key: `${amqpPrefix}#` }] }],
        }),
        brokerService(66, 'agent', 'mcp', { exposed_services: ['cache', 'remote', 'mqtt'] }),
      );
      server = await startTestServer(model);
      headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
      port = Number(new URL(await server.app.listen({ port: 0, host: '127.0.0.1' })).port);
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/v2/system/email_template',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({
          resource: [
            { name: 'fz_plain', subject: 'T {first_name}', body_text: 'x {first_name} {missing}' },
            { name: 'fz_to', to: ['templ@example.com'], subject: 'to {first_name}', body_html: '<b>{first_name}</b>' },
            { name: 'fz_odd', subject: '{constructor}{__proto__}{toString}{', body_text: '{{first_name}}', body_html: '{user.email}' },
          ],
        }),
      });
      expect(created.statusCode, created.body).toBe(201);
      const listed = await server.app.inject({
        method: 'POST',
        url: '/mcp/agent',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      tools = (JSON.parse(listed.body).result?.tools ?? []).map((t: { name: string }) => t.name);
      expect(tools.length, listed.body).toBeGreaterThan(0);
    }, 60_000);

    afterAll(async () => {
      // The queues POST sub declared (durable by default): they would stay on the shared broker.
      const declared: string[] = [queue];
      if (server) {
        const listed = await send({ method: 'GET', url: '/api/v2/amqp/sub', headers: {} }).catch(() => null);
        if (listed?.status === 200) declared.push(...JSON.parse(listed.text).resource.map((q: { queue: string }) => q.queue));
      }
      await server?.close();
      await Promise.all([smtp?.close(), peer?.close(), other?.close()]);
      const redis = new Redis(brokerUrl('redis'));
      const keys = await redis.keys(`${cachePrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      try {
        const { connect } = await import('amqplib');
        const connection = await connect(brokerUrl('rabbitmq'));
        for (const name of new Set(declared)) {
          const channel = await connection.createChannel();
          channel.on('error', () => undefined);
          await channel.deleteQueue(name).catch(() => undefined);
          await channel.close().catch(() => undefined);
        }
        const channel = await connection.createChannel();
        channel.on('error', () => undefined);
        await channel.deleteExchange(exchange).catch(() => undefined);
        await connection.close();
      } catch {
        // The broker is gone: nothing to clean.
      }
      if (EXPLORE) {
        const lines = [...found.entries()].map(([kind, { detail, count }]) => `### ${kind} (${count}x)\n${detail}`);
        process.stdout.write(`\nstatuses: ${JSON.stringify([...statuses].sort())}\n`);
        process.stdout.write(`\nfuzz failures (${found.size} kinds):\n${lines.join('\n\n')}\n`);
      }
    });

    /**
     * Sends a request over HTTP, its path as written: app.inject parses it as a WHATWG URL first,
     * which resolves `..`, `%2E.` and the like before the server sees them.
     */
    // Node sends a body of GET, DELETE, TRACE, ... with neither length nor chunks unless told: the server read it as the next request.
    const length = (request: RawRequest) =>
      request.payload === undefined || request.headers['transfer-encoding'] !== undefined
        ? {}
        : { 'content-length': String(Buffer.byteLength(request.payload)) };

    function send(request: RawRequest): Promise<Answer> {
      return new Promise((resolve, reject) => {
        const outgoing = http.request(
          {
            host: '127.0.0.1',
            port,
            method: request.method,
            path: request.url,
            headers: { ...headers, ...length(request), ...request.headers },
            agent: false,
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                contentType: String(response.headers['content-type'] ?? ''),
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        // The server may answer (413, 400) before it has read a large body, and close.
        outgoing.on('error', (error: NodeJS.ErrnoException) =>
          error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
        );
        outgoing.end(request.payload);
      });
    }

    /** Runs a property; in explore mode records each failure and goes on. */
    async function check<T>(
      label: string,
      arbitrary: fc.Arbitrary<T>,
      count: number,
      property: (value: T) => Promise<void>,
    ): Promise<void> {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          try {
            await property(value);
          } catch (error) {
            const failure = (error as { failure?: { kind: string; detail: string } }).failure;
            if (!EXPLORE || failure === undefined) throw error;
            const key = `${label}: ${failure.kind.replace(/\d+/g, 'N')}`;
            const seen = found.get(key);
            if (seen === undefined) found.set(key, { detail: failure.detail, count: 1 });
            else seen.count++;
          }
        }),
        { seed: SEED, numRuns: runs(count), endOnFailure: EXPLORE },
      );
    }

    const count = (label: string, status: number) => statuses.set(`${label} ${status}`, (statuses.get(`${label} ${status}`) ?? 0) + 1);

    it('email: no 5xx, a refused send sends nothing, no header or recipient made by a line break', async () => {
      await check(
        'email',
        emailCase(() => peer.base, templates),
        60,
        async (request) => {
          const before = smtp.inbox.length;
          const answer = await send(request);
          count('email', answer.status);
          const wrong = judge(answer, request, false);
          if (wrong !== null) fail(wrong, `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}`);
          const arrived = smtp.inbox.slice(before);
          if (answer.status >= 400 && arrived.length > 0)
            fail('a refused send sent mail', `${show(request)}\n  ${answer.status} ${answer.text}`);
          if (answer.status === 200 && arrived.length !== 1)
            fail(`a send delivered ${arrived.length} messages`, `${show(request)}\n  ${answer.text}`);
          for (const mail of arrived) {
            const head = mail.raw.split(/\r?\n\r?\n/)[0];
            if (mail.to.includes(INJECTED_ADDRESS)) fail('a line break made a recipient', `${show(request)}\n  rcpt: ${mail.to}`);
            if (new RegExp(`^${INJECTED_HEADER}:`, 'im').test(head)) fail('a line break made a header', `${show(request)}\n${head}`);
          }
        },
      );
    }, 300_000);

    it('rws: no 5xx of its own, a refused request sends nothing, no credential or path outside the base reaches a peer', async () => {
      await check('rws', rwsCase(big), 120, async (request) => {
        const before = peer.received.length;
        const otherBefore = other.received.length;
        const answer = await send(request);
        count('rws', answer.status);
        const reached = peer.received.slice(before);
        const detail = () =>
          `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}\n  peer got: ${reached.map((r) => `${r.method} ${r.url} -> ${r.answered}`).join(', ')}`;
        const misbehaves = /^(slow|garbage|close|badgzip)/.test(request.scenario ?? '');
        const relayed5xx = reached.some((r) => r.answered >= 500 && r.answered === answer.status);
        const relayed = reached.some((r) => r.answered === answer.status);
        // A redirect out of the base URL is refused with a 502 of Portico's own, after the remote was asked once.
        const redirectedOut =
          /^redirect\/(other|outside|scheme|localhost|userinfo)\//.test(request.scenario ?? '') && answer.status === 502;
        const wrong = judge(answer, request, misbehaves || relayed5xx || redirectedOut, relayed ? 'relayed' : 'api');
        if (wrong !== null) fail(wrong, detail());
        if (other.received.length > otherBefore) fail(`a request reached the other server: ${other.received.at(-1)?.url}`, detail());
        for (const r of reached) {
          if (!/^\/v1(\/|\?|$)/.test(r.url)) fail('the remote got a path outside its base', detail());
          const seen = `${r.url} ${JSON.stringify(r.headers)} ${r.body}`;
          if (seen.includes(headers['x-service-api-key']) || seen.includes(headers['x-service-session-token']))
            fail("the remote got the caller's credentials", detail());
          if (r.headers['x-api-secret'] !== RWS_SECRET) fail('the configured header was not sent as configured', detail());
        }
        // The query arrives as sent, the caller's credentials out and the configured parameter in: nothing smuggled or lost.
        const wellFormed = request.query.every((pair) => pair.every((text) => !/[\ud800-\udfff]/u.test(text)));
        if (request.scenario === 'echo' && reached.length === 1 && wellFormed) {
          const got = [...new URL(reached[0].url, 'http://peer').searchParams].map((pair) => JSON.stringify(pair)).sort();
          const want = [
            ...request.query.filter(([name]) => !['api_key', 'session_token', 'method'].includes(name)),
            ['token', RWS_PARAMETER],
          ]
            .map((pair) => JSON.stringify(pair))
            .sort();
          if (JSON.stringify(got) !== JSON.stringify(want))
            fail(
              'the remote got another query',
              `${detail()}
  want: ${want}
  got:  ${got}`,
            );
        }
        // A chunked body beyond the limit is found out while it is sent: the remote gets a request cut off midway.
        const cutOff = answer.status === 413 && reached.some((r) => r.answered === 0);
        if (
          answer.status >= 400 &&
          reached.length > 0 &&
          !reached.some((r) => r.answered === answer.status) &&
          !misbehaves &&
          !cutOff &&
          !redirectedOut
        )
          fail('a refused request reached the remote', detail());
      });
    }, 300_000);

    it('cache: no 5xx, errors in the envelope, a stored value reads back as sent', async () => {
      await check('cache', cacheCase, 120, async (request) => {
        const answer = await send(request);
        count('cache', answer.status);
        const wrong = judge(answer, request, false);
        if (wrong !== null) fail(wrong, `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}`);
        if (
          (answer.status === 200 || answer.status === 201) &&
          request.key !== undefined &&
          ['POST', 'PUT', 'PATCH'].includes(request.method) &&
          // `/cache/.` is `/cache/`: a write of several keys.
          !request.key.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))
        ) {
          const read = await send({ method: 'GET', url: `/api/v2/cache/${request.key}`, headers: {} });
          const wrongRead = judge(read, request, false);
          if (wrongRead !== null) fail(`read back: ${wrongRead}`, `${show(request)}\n  ${read.status} ${read.text.slice(0, 400)}`);
          let sent: unknown;
          try {
            sent = JSON.parse(String(request.value));
          } catch {
            return;
          }
          // A ttl of 0 seconds or below may rightly have gone already.
          if (read.status === 404) return;
          let got: unknown;
          try {
            got = JSON.parse(read.text);
          } catch {
            got = read.text;
          }
          if (JSON.stringify(got) !== JSON.stringify(sent))
            fail(
              'a stored value reads back otherwise',
              `${show(request)}\n  stored: ${answer.text.slice(0, 200)}\n  read: ${read.status} ${read.contentType} ${read.text.slice(0, 200)}`,
            );
        }
      });
    }, 300_000);

    it('mqtt: no 5xx, errors in the envelope, the service keeps working', async () => {
      await check('mqtt', mqttCase(prefix), 80, async (request) => {
        const answer = await send(request);
        count('mqtt', answer.status);
        const wrong = judge(answer, request, false);
        if (wrong !== null) fail(wrong, `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}`);
      });
      const after = await send({
        method: 'POST',
        url: `/api/v2/mqtt/pub/${encodeURIComponent(`${prefix}health`)}`,
        headers: { 'content-type': 'application/json' },
        payload: '"ok"',
      });
      expect(after.status, after.text).toBe(200);
    }, 300_000);

    it('amqp: no 5xx, errors in the envelope, the service keeps working', async () => {
      await check('amqp', amqpCase(amqpPrefix, exchange, queue), 80, async (request) => {
        const answer = await send(request);
        count('amqp', answer.status);
        const wrong = judge(answer, request, false);
        if (wrong !== null) fail(wrong, `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}`);
      });
      const after = await send({
        method: 'POST',
        url: `/api/v2/amqp/pub/${amqpPrefix}health`,
        headers: { 'content-type': 'application/json' },
        payload: '"ok"',
      });
      expect(after.status, after.text).toBe(200);
    }, 300_000);

    it('mcp: no 5xx, JSON-RPC answers or the error envelope', async () => {
      await check('mcp', mcpCase(tools), 60, async (request) => {
        const answer = await send(request);
        count('mcp', answer.status);
        const wrong = judge(answer, request, false, 'mcp');
        if (wrong !== null) fail(wrong, `${show(request)}\n  ${answer.status} ${answer.text.slice(0, 400)}`);
        if (answer.status === 200 && request.method === 'POST' && answer.text !== '') {
          try {
            JSON.parse(answer.text);
          } catch {
            fail(`a 200 that is not JSON (${answer.contentType})`, `${show(request)}\n  ${answer.text.slice(0, 400)}`);
          }
        }
      });
    }, 300_000);
  },
);
