import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandling } from '#runtime/http/error-handling.js';

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
