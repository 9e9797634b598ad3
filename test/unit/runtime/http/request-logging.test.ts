/**
 * The log lines of a server with a logger (loggerOptions, here into a file instead of stdout):
 * Fastify's per-request loggers are made only when written to, and every line operators read is
 * still written, with the request's id: the completed line, the 5xx's error line, Fastify's own
 * warnings, a client leaving mid-answer, a response that fails.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '#runtime/http/error-handling.js';
import { loggerOptions } from '#runtime/http/request-logging.js';

let dir: string;
let file: string;
let app: FastifyInstance;
let port: number;

type Line = Record<string, any>;

function lines(): Line[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** The first line matching, once written (lines leave in batches). */
async function line(matches: (line: Line) => boolean): Promise<Line | undefined> {
  for (let tries = 0; tries < 100; tries++) {
    const found = lines().find(matches);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/** GET `url`; `leaveAfterBytes`: the client closes the connection once it has read that much. */
function get(url: string, headers: Record<string, string> = {}, leaveAfterBytes?: number): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: url, headers }, (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (leaveAfterBytes !== undefined && read >= leaveAfterBytes) {
          request.destroy();
          resolve(response.statusCode ?? 0);
        }
      });
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-request-log-'));
  file = path.join(dir, 'log.jsonl');
  app = Fastify({ ...loggerOptions('info', fs.openSync(file, 'w')) });
  installErrorHandling(app);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/logs', async (request) => {
    request.log.debug('below the level');
    request.log.info({ records: 2 }, 'from the handler');
    return {};
  });
  app.get('/fails', async () => {
    throw new Error('driver internals');
  });
  app.get('/twice', (_request, reply) => {
    reply.send({ first: true });
    reply.send({ second: true });
  });
  // An answer long enough that a client leaving part way is seen by the server.
  app.get('/download', (_request, reply) => {
    let chunks = 0;
    const body = new Readable({
      read() {
        setTimeout(() => this.push(chunks++ < 1000 ? 'x'.repeat(64 * 1024) : null), 5);
      },
    });
    reply.header('content-type', 'application/octet-stream').send(body);
  });
  // A response Node fails before it has finished (its 'error' event).
  app.get('/broken', (_request, reply) => {
    reply.raw.emit('error', new Error('the connection broke'));
    reply.raw.destroy();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('request logs', () => {
  it('app.log writes lines of its own (Fastify says where it listens)', async () => {
    expect(await line((l) => l.msg?.startsWith('Server listening at http://127.0.0.1:'))).toMatchObject({ level: 30 });
  });

  it('one completed line per request, with the id from X-Request-Id and secret query parameters masked', async () => {
    expect(await get('/ok?api_key=k-123&session_token=t-456&limit=1', { 'x-request-id': 'trace-log-1' })).toBe(200);
    const completed = await line((l) => l.reqId === 'trace-log-1');
    expect(completed).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: os.hostname(),
      reqId: 'trace-log-1',
      req: { method: 'GET', url: '/ok?api_key=***&session_token=***&limit=1', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(Object.keys(completed!)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg']);
    // Without the header, Fastify's own ids.
    expect(await get('/ok?second')).toBe(200);
    expect(await line((l) => l.req?.url === '/ok?second')).toMatchObject({ reqId: expect.stringMatching(/^req-/) });
  });

  it('a request id or URL that JSON must escape still makes a line of JSON', async () => {
    expect(await get('/ok?name=%22caf%C3%A9%22', { 'x-request-id': 'trace "quoted" \\ id' })).toBe(200);
    expect(await line((l) => l.reqId === 'trace "quoted" \\ id')).toMatchObject({
      req: { method: 'GET', url: '/ok?name=%22caf%C3%A9%22', remoteAddress: '127.0.0.1' },
      msg: 'request completed',
    });
  });

  it('a request whose address is no longer known is logged without one (not as `undefined`)', async () => {
    const out = path.join(dir, 'gone.jsonl');
    const { logController } = loggerOptions('info', fs.openSync(out, 'w'));
    const request = { id: 'trace-gone', method: 'GET', url: '/ok', ip: undefined };
    logController!.requestCompleted(null, request as never, { statusCode: 200, elapsedTime: 1.5 } as never);
    let text = '';
    for (let tries = 0; tries < 100 && text === ''; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      text = fs.readFileSync(out, 'utf8');
    }
    expect(JSON.parse(text)).toMatchObject({ reqId: 'trace-gone', req: { method: 'GET', url: '/ok' }, responseTime: 1.5 });
    expect(JSON.parse(text).req).not.toHaveProperty('remoteAddress');
  });

  it("what a handler writes through request.log carries the request's id; lines below the level are not written", async () => {
    expect(await get('/logs', { 'x-request-id': 'trace-log-2' })).toBe(200);
    expect(await line((l) => l.msg === 'from the handler')).toMatchObject({ level: 30, reqId: 'trace-log-2', records: 2 });
    await line((l) => l.reqId === 'trace-log-2' && l.msg === 'request completed');
    expect(lines().filter((l) => l.msg === 'below the level')).toEqual([]);
  });

  it("a 5xx's cause is an error line with the request's id, before its completed line", async () => {
    expect(await get('/fails', { 'x-request-id': 'trace-log-3' })).toBe(500);
    const completed = await line((l) => l.reqId === 'trace-log-3' && l.msg === 'request completed');
    expect(completed).toMatchObject({ res: { statusCode: 500 } });
    const mine = lines().filter((l) => l.reqId === 'trace-log-3');
    expect(mine.map((l) => l.msg)).toEqual(['Internal server error.', 'request completed']);
    expect(mine[0]).toMatchObject({ level: 50, err: { type: 'Error', message: 'driver internals', stack: expect.any(String) } });
  });

  it("Fastify's warning of an answer sent twice carries the request's id", async () => {
    expect(await get('/twice', { 'x-request-id': 'trace-log-4' })).toBe(200);
    expect(await line((l) => l.reqId === 'trace-log-4' && l.level === 40)).toMatchObject({
      err: { message: expect.stringContaining('Reply was already sent') },
    });
  });

  it('a client leaving part way through an answer is an info line with the request id', async () => {
    expect(await get('/download', { 'x-request-id': 'trace-log-5' }, 256 * 1024)).toBe(200);
    expect(await line((l) => l.reqId === 'trace-log-5')).toMatchObject({
      level: 30,
      res: { statusCode: 200 },
      msg: 'stream closed prematurely',
    });
  });

  it('a response that fails is a "request errored" line with the request, its status, time and error', async () => {
    await get('/broken', { 'x-request-id': 'trace-log-6' });
    expect(await line((l) => l.reqId === 'trace-log-6')).toMatchObject({
      level: 50,
      req: { method: 'GET', url: '/broken', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      err: { message: 'the connection broke' },
      msg: 'request errored',
    });
  });
});
