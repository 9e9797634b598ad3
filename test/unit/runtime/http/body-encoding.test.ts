/**
 * Request bodies sent with Content-Encoding: gzip, deflate and br are decoded before they are read
 * as JSON, the body limit counting the decoded bytes (a small zip bomb is a 413); a body that is
 * not what its Content-Encoding says is a 400, an encoding we do not decode a 415.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '#runtime/http/error-handling.js';
import { installBodyParsing } from '#runtime/http/body-parsing.js';

const LIMIT = 64 * 1024;
const record = { resource: [{ label: 'café' }] };
const json = Buffer.from(JSON.stringify(record));

describe('request bodies with a Content-Encoding', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ bodyLimit: LIMIT });
    installErrorHandling(app);
    installBodyParsing(app);
    app.post('/echo', async (request) => request.body ?? null);
    await app.ready();
  });
  afterAll(() => app.close());

  const send = (payload: Buffer, encoding: string) =>
    app.inject({ method: 'POST', url: '/echo', payload, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });

  it('decodes gzip, deflate and br bodies', async () => {
    for (const [encoding, body] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['GZip', gzipSync(json)],
      ['identity', json],
    ] as const) {
      const answer = await send(body, encoding);
      expect(answer.statusCode, `${encoding}: ${answer.body}`).toBe(200);
      expect(answer.json(), encoding).toEqual(record);
    }
  });

  it('counts the decoded bytes against the body limit: a zip bomb is a 413', async () => {
    const bomb = gzipSync(Buffer.from(`{"resource":[{"label":"${'x'.repeat(64 * 1024 * 1024)}"}]}`));
    expect(bomb.length).toBeLessThan(LIMIT);
    const answer = await send(bomb, 'gzip');
    expect(answer.statusCode, answer.body).toBe(413);
    expect(answer.json().error.code).toBe(413);
  });

  it('refuses a plain body labelled gzip with a 400 naming Content-Encoding', async () => {
    const answer = await send(json, 'gzip');
    expect(answer.statusCode, answer.body).toBe(400);
    expect(answer.json().error.message).toMatch(/Content-Encoding/);
  });

  it('answers 415 naming Content-Encoding for an encoding it does not decode', async () => {
    for (const encoding of ['compress', 'zstd', 'gzip, br']) {
      const answer = await send(json, encoding);
      expect(answer.statusCode, `${encoding}: ${answer.body}`).toBe(415);
      expect(answer.json().error.message).toMatch(/Content-Encoding/);
    }
  });
});
