/**
 * PORTICO_REQUEST_TIMEOUT: how long a request may take to arrive whole (Node's requestTimeout, a
 * 408 past it). It was fixed at 5 minutes, which caps a 1 GiB upload (the file service's limit) at
 * about 3.4 MB/s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from '#runtime/http/create-server.js';
import { requestTimeoutSeconds } from '#runtime/http/request-timeout.js';
import { StartupError } from '#runtime/system/store/system-db.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function nodeTimeout(env: Record<string, string>): Promise<number> {
  const server = await startTestServer(minimalModel(), { env });
  servers.push(server);
  return server.app.server.requestTimeout;
}

describe('PORTICO_REQUEST_TIMEOUT', () => {
  it("reaches Node's server: whole seconds, 0 for none, 5 minutes when unset", async () => {
    expect(await nodeTimeout({})).toBe(300_000);
    expect(await nodeTimeout({ PORTICO_REQUEST_TIMEOUT: ' 3600 ' })).toBe(3_600_000);
    expect(await nodeTimeout({ PORTICO_REQUEST_TIMEOUT: '0' })).toBe(0);
  });

  it('stops the start with one line naming the setting for anything else, before anything opens', async () => {
    for (const bad of ['-1', '1.5', '5m', 'soon', '9007199254740991'])
      expect(() => requestTimeoutSeconds({ PORTICO_REQUEST_TIMEOUT: bad })).toThrow(
        new StartupError(`Portico: PORTICO_REQUEST_TIMEOUT must be a whole number of seconds (0: none), not '${bad}'.`),
      );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-timeout-'));
    try {
      await expect(
        createServer(minimalModel(), { baseDir: dir, systemDatabase: ':memory:', env: { PORTICO_REQUEST_TIMEOUT: 'x' } }),
      ).rejects.toThrow(new StartupError("Portico: PORTICO_REQUEST_TIMEOUT must be a whole number of seconds (0: none), not 'x'."));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
