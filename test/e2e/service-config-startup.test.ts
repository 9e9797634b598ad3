/**
 * A model.json whose pgsql/mysql service has a connection setting no service opens with (edited by
 * hand, or an env value): the server stops at start with one line naming the service and the key,
 * where it used to start and answer 500 on every call of the service.
 */
import { describe, expect, it } from 'vitest';
import { StartupError } from '#runtime/system/store/system-db.js';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { minimalModel, startTestServer } from '#test/helpers/platform-fixtures.js';

function withService(type: string, config: Record<string, unknown>, isActive = true) {
  const base = minimalModel();
  const db: ServiceModel = {
    id: 5,
    name: 'sales',
    label: 'Sales',
    type,
    description: '',
    is_active: isActive,
    config: { host: '127.0.0.1', database: 'sales', ...config },
    origin: 'platform',
    kind: 'plain',
  };
  return minimalModel({ services: [...base.services, db].sort((a, b) => a.id - b.id) });
}

describe('connection settings of database services checked at start', () => {
  it.each([
    ['pgsql', { max_connections: 0 }, 'max_connections', {}],
    ['mysql', { connection_timeout: -3 }, 'connection_timeout', {}],
    ['pgsql', { connection_timeout: '${env:WAIT}' }, 'connection_timeout', { WAIT: '0' }],
    ['mysql', { max_connections: '${env:POOL}' }, 'max_connections', { POOL: 'lots' }],
  ])('%s %j stops the server with one line naming the service and key', async (type, config, key, env) => {
    const started = startTestServer(withService(type, config), { env });
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(
      `Portico: service 'sales' cannot be opened: Database service config '${key}' must be a positive integer.`,
    );
  });

  it('POST /system/service refuses them with a 400 naming the field, in words', async () => {
    const server = await startTestServer();
    try {
      const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ max_connections: 0 }, "Field 'config.max_connections' must be >= 1."],
        [{ connection_timeout: '-1' }, "Field 'config.connection_timeout' must be a positive whole number or an ${env:NAME} reference."],
        [{ statement_timeout: 'soon' }, "Field 'config.statement_timeout' must be a whole number of seconds or an ${env:NAME} reference."],
      ];
      for (const [config, message] of cases) {
        const answer = await server.app.inject({
          method: 'POST',
          url: '/api/v2/system/service',
          headers,
          payload: { resource: [{ name: 'sales', label: 'Sales', type: 'pgsql', config: { database: 'sales', ...config } }] },
        });
        expect(answer.statusCode, answer.body).toBe(400);
        expect(answer.json().error.message).toBe(message);
      }
    } finally {
      await server.close();
    }
  });

  it('an inactive service, or good settings, do not stop it', async () => {
    for (const model of [withService('pgsql', { max_connections: 0 }, false), withService('mysql', { max_connections: '${env:POOL}' })]) {
      const server = await startTestServer(model, { env: { POOL: '4' } });
      await server.close();
    }
  });
});
