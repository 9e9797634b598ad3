/**
 * The peers the services fuzz test (services-fuzz.test.ts) points its services at, each recording
 * what reached it: an SMTP server (nodemailer's smtp-server, login required) keeping every message
 * raw, and an HTTP server standing in for an rws remote whose path under /v1 picks how it answers
 * (echo, a status, slow, garbage, a dropped connection, redirects, a lying gzip), plus a second
 * HTTP server on another port that no request may ever reach.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpPeer {
  port: number;
  inbox: ReceivedMail[];
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 that takes `user`/`password` and keeps every message as sent. */
export async function startSmtpPeer(user: string, password: string): Promise<SmtpPeer> {
  const inbox: ReceivedMail[] = [];
  const server = new SMTPServer({
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 64 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = session.envelope;
        inbox.push({
          from: envelope.mailFrom === false ? '' : envelope.mailFrom.address,
          to: envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    inbox,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One request as an HTTP peer received it, and the status it answered (0: none, the connection was cut). */
export interface PeerRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
}

export interface HttpPeer {
  base: string;
  port: number;
  received: PeerRequest[];
  close(): Promise<void>;
}

/** Headers the echo leaves out of what it answers (they are what the service adds: its secrets). */
const NOT_ECHOED = new Set(['x-api-secret']);

/**
 * The rws remote. `/v1/status/{n}` answers n, `/v1/slow` answers after `slowMs`, `/v1/garbage`
 * answers bytes that are no HTTP, `/v1/close` drops the connection, `/v1/redirect/{to}` redirects
 * (`other`: the other peer; `outside`: this host outside /v1; `inside`: /v1/echo; `scheme`:
 * `//other-host`; `localhost`: this peer by another host name), `/v1/badgzip` claims gzip and is
 * not; anything else echoes method, path, query and body as JSON.
 */
export async function startHttpPeer(other: () => string, slowMs: number): Promise<HttpPeer> {
  const received: PeerRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    const seen: PeerRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: '', answered: 0 };
    received.push(seen);
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => undefined);
    request.on('end', () => {
      seen.body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(request.url ?? '/', 'http://peer');
      const parts = url.pathname.split('/');
      const answer = (status: number, headers: http.OutgoingHttpHeaders, body: string | Buffer) => {
        seen.answered = status;
        response.writeHead(status, headers);
        response.end(body);
      };
      switch (parts[2]) {
        case 'status': {
          const status = Number(parts[3]);
          return status >= 200 && status <= 599
            ? answer(status, { 'content-type': 'text/html' }, `<h1>status ${status}</h1>`)
            : answer(500, { 'content-type': 'text/plain' }, 'which status?');
        }
        case 'slow':
          setTimeout(() => {
            if (!response.destroyed) answer(200, { 'content-type': 'text/plain' }, 'late');
          }, slowMs);
          return;
        case 'garbage':
          request.socket.end('NOT HTTP AT ALL\r\n\r\n\u0000\u0001');
          return;
        case 'close':
          request.socket.destroy();
          return;
        case 'badgzip':
          return answer(parts[3] === 'error' ? 502 : 200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }, 'plainly not gzip');
        case 'redirect': {
          const port = new URL(other()).port;
          const self = (server.address() as AddressInfo).port;
          const to: Record<string, string> = {
            other: `${other()}/stolen`,
            outside: '/admin/secret',
            inside: '/v1/echo?redirected=1',
            scheme: `//127.0.0.1:${port}/stolen`,
            localhost: `http://localhost:${self}/v1/echo`,
            userinfo: `http://127.0.0.1:${self}@127.0.0.1:${port}/stolen`,
          };
          return answer(Number(parts[4]) === 307 ? 307 : 302, { location: to[parts[3]] ?? '/v1/echo' }, '');
        }
        default: {
          const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !NOT_ECHOED.has(name)));
          const query = [...url.searchParams].filter(([name]) => name !== 'token');
          return answer(
            request.method === 'POST' ? 201 : 200,
            { 'content-type': 'application/json', 'x-peer': 'yes' },
            JSON.stringify({ method: request.method, path: url.pathname, query, headers, body: seen.body }),
          );
        }
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
