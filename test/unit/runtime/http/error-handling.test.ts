import net, { type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientErrorHandler, installErrorHandling } from '#runtime/http/error-handling.js';

describe('installErrorHandling', () => {
  it('answers in the spec shape when a header the handler set cannot be written, keeping the headers that can', async () => {
    const app = Fastify();
    installErrorHandling(app);
    const values: Record<string, string> = { 'line-break': 'a\r\nb', 'beyond-latin-1': 'attachment; filename="日本.txt"' };
    app.get('/:kind', async (request, reply) => {
      reply.header('x-kept', 'yes');
      reply.header('x-broken', values[(request.params as { kind: string }).kind]);
      return { ok: true };
    });
    await app.ready();
    for (const kind of Object.keys(values)) {
      const response = await app.inject(`/${kind}`);
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: { code: 500, message: 'Internal server error.' } });
      expect(response.headers['x-kept']).toBe('yes');
      expect(response.headers['x-broken']).toBeUndefined();
    }
    await app.close();
  });
});

describe('clientErrorHandler', () => {
  /** What the server writes back to a raw request, until it closes the connection. */
  async function exchange(request: string): Promise<string> {
    const app = Fastify({ clientErrorHandler });
    app.get('/', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      return await new Promise<string>((resolve, reject) => {
        const socket = net.connect((app.server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    } finally {
      await app.close();
    }
  }

  it('answers headers beyond the limit with 431 in the spec shape, and a HEAD request without a body', async () => {
    const big = `X-Big: ${'a'.repeat(20_000)}\r\n`;
    const get = await exchange(`GET / HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
    expect(get).toMatch(/^HTTP\/1\.1 431 /);
    expect(get.split('\r\n\r\n')[1]).toBe('{"error":{"code":431,"message":"Request headers (URL included) are too large."}}');
    // The JSON after a HEAD's answer was read as a next answer: Node's client failed with "Data after `Connection: close`".
    const head = await exchange(`HEAD / HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head.split('\r\n\r\n')[1]).toBe('');
  });
});
