/**
 * smtp_email against SMTP servers that misbehave, scripted on real sockets: one that accepts and
 * never greets, one that stops answering after the message's final dot, one that closes the
 * connection then (both may have taken the message, and the answer says so), one that closes it at DATA, one that answers garbage, one that answers 421 (closing) or 451 (try later).
 * Each send answers the spec's error shape (503 for a server away or one that cannot take the mail
 * now, 502 for one that is broken) within the service's timeout, never a hang and never a 500.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

type Script = (socket: net.Socket, line: string) => void;

/** What each server does with each command line it receives (after its greeting, if it sends one). */
const SERVERS: Record<string, { greet: boolean; script: Script; status: number; message: RegExp }> = {
  silent: { greet: false, script: () => undefined, status: 503, message: /is unreachable/ },
  afterdata: {
    greet: true,
    script: (socket, line) => {
      if (/^(EHLO|HELO)/i.test(line)) socket.write('250 ok\r\n');
      else if (/^(MAIL|RCPT)/i.test(line)) socket.write('250 ok\r\n');
      else if (/^DATA/i.test(line)) socket.write('354 go ahead\r\n');
      // The message and its final dot: no answer, ever. The server may have queued the message.
    },
    status: 503,
    message:
      /did not answer within the timeout after it was handed the whole message, before it confirmed it: the message may or may not have been sent\. Check before sending it again\.$/,
  },
  // The connection dropped once the final dot came, before any answer: the message may have been taken.
  afterdot: {
    greet: true,
    script: (socket, line) => {
      if (/^(EHLO|HELO|MAIL|RCPT)/i.test(line)) socket.write('250 ok\r\n');
      else if (/^DATA/i.test(line)) socket.write('354 go ahead\r\n');
      else if (line === '.') socket.destroy();
    },
    status: 503,
    message:
      /dropped the connection after it was handed the whole message, before it confirmed it: the message may or may not have been sent\./,
  },
  // Dropped before the message was handed over (at DATA): it was not sent.
  beforemessage: {
    greet: true,
    script: (socket, line) => {
      if (/^(EHLO|HELO|MAIL|RCPT)/i.test(line)) socket.write('250 ok\r\n');
      else if (/^DATA/i.test(line)) socket.destroy();
    },
    status: 503,
    message: /is unreachable/,
  },
  // Not SMTP at all: the server is broken (502), not away.
  garbage: {
    greet: true,
    script: (socket) => socket.write('\u0000\u00ff garbage without a code\r\n'),
    status: 502,
    message: /failed to send the message\.$/,
  },
  closing: {
    greet: true,
    script: (socket, line) => {
      if (/^(EHLO|HELO)/i.test(line)) socket.write('250 ok\r\n');
      else socket.end('421 4.3.2 Service shutting down, closing transmission channel\r\n');
    },
    status: 503,
    message: /cannot take the message now \(reply 421\); try again later\.$/,
  },
  // A transient refusal of the message itself, after DATA.
  busy: {
    greet: true,
    script: (socket, line) => {
      if (/^(EHLO|HELO|MAIL|RCPT)/i.test(line)) socket.write('250 ok\r\n');
      else if (/^DATA/i.test(line)) socket.write('354 go ahead\r\n');
      else if (line === '.') socket.write('451 4.3.0 Temporary local problem, try again later\r\n');
    },
    status: 503,
    message: /cannot take the message now \(reply 451\); try again later\.$/,
  },
};

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
let portico: TestServer;
let api: Api;

async function startScripted(greet: boolean, script: Script): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (greet) socket.write('220 faults.test ESMTP\r\n');
    let buffered = '';
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      let end = buffered.indexOf('\r\n');
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!socket.destroyed) script(socket, line);
        end = buffered.indexOf('\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  portico = await startTestServer();
  const token = await portico.adminToken();
  api = apiClient(portico.app, () => ({ key: portico.apiKey, token }));
  const resource = [];
  for (const [name, { greet, script }] of Object.entries(SERVERS)) {
    const port = await startScripted(greet, script);
    resource.push({ name: `smtp_${name}`, label: name, type: 'smtp_email', config: { host: '127.0.0.1', port, timeout: 3 } });
  }
  expect((await api('POST', '/system/service', { resource })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await portico.close();
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('smtp_email against a misbehaving server', () => {
  it.each(Object.keys(SERVERS))(
    '%s: a 502/503 in the error shape naming the service, within the timeout',
    { timeout: 60_000 },
    async (name) => {
      const { status, message } = SERVERS[name];
      const started = Date.now();
      const answer = await api('POST', `/smtp_${name}`, { to: 'a@example.com', subject: 'x', body_text: 'hello' });
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(answer.body.error.code).toBe(status);
      expect(answer.body.error.message).toMatch(new RegExp(`^The SMTP server of service 'smtp_${name}' `));
      expect(answer.body.error.message).toMatch(message);
      expect(Date.now() - started).toBeLessThan(30_000);
    },
  );
});
