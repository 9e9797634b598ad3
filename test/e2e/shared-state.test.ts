/**
 * Two instances on one system database: a change made through one (service, role, app, user,
 * lookup, CORS rule, logout, password change, deactivation) is in force on the other, within one
 * second through Redis pub/sub, and within a few seconds through the database's change token
 * without Redis.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError } from '#runtime/core/errors.js';
import { defineHooks } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';

const PASSWORD = 'user-password-123456';

for (const [label, env, within, reachable] of [
  ['through Redis', { PORTICO_REDIS_URL: brokerUrl('redis') }, 1000, await requireBroker('redis')],
  ['through the system database alone', {}, 4000, true],
] as const) {
  describe.skipIf(!reachable)(`two instances sharing state ${label}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-shared-'));
    let a: TestServer;
    let b: TestServer;
    let adminA: Api;
    let adminB: Api;
    // In force on the other instance within the promised time.
    const soon = (check: () => Promise<void>) => vi.waitFor(check, { timeout: within, interval: 50 });

    beforeAll(async () => {
      const options = { systemDatabase: path.join(dir, 'system.sqlite'), env: { ...env } };
      // On A only: a post_process hook refusing some roles once they are written (the write stays, as in the reference).
      const refuseAfter = defineHooks({
        'system.role.post.post_process': (body, context) => {
          if (context.query.refuse_after !== undefined) throw new ConflictError('Refused after the write.');
          return body;
        },
      });
      a = await startTestServer(minimalModel(), { ...options, hooks: [refuseAfter] });
      b = await startTestServer(minimalModel(), options);
      const [tokenA, tokenB] = [await a.adminToken(), await b.adminToken()];
      adminA = apiClient(a.app, () => ({ key: a.apiKey, token: tokenA }));
      adminB = apiClient(b.app, () => ({ key: b.apiKey, token: tokenB }));
    });
    afterAll(async () => {
      await a.close();
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('a user created on one logs in on the other; logout, password change and deactivation on one end the session on the other', async () => {
      const id = (await adminA('POST', '/system/user', { resource: [{ name: 'Sam', email: 'sam@x.io', password: PASSWORD }] })).body
        .resource[0].id;
      const login = () => adminB('POST', '/user/session', { email: 'sam@x.io', password: PASSWORD }, null);
      const token = (await login()).body.session_token;
      const onB = (t: string) => adminB('GET', '/user/session', undefined, { token: t });
      const onA = (t: string) => adminA('GET', '/user/session', undefined, { token: t });
      expect((await onA(token)).status).toBe(200);
      expect((await onB(token)).status).toBe(200);
      expect((await adminA('DELETE', '/user/session', undefined, { token })).status).toBe(200);
      await soon(async () => expect((await onB(token)).status).toBe(401));

      const second = (await login()).body.session_token;
      expect((await onB(second)).status).toBe(200);
      await adminA('PATCH', `/system/user/${id}`, { password: 'another-password-123456' });
      await soon(async () => expect((await onB(second)).status).toBe(401));

      const third = (await adminB('POST', '/user/session', { email: 'sam@x.io', password: 'another-password-123456' }, null)).body
        .session_token;
      expect((await onB(third)).status).toBe(200);
      await adminA('PATCH', `/system/user/${id}`, { is_active: false });
      await soon(async () => expect((await onB(third)).status).toBe(401));
    });

    it('a service created, changed and deleted on one is served accordingly by the other', async () => {
      const created = await adminA('POST', '/system/service', {
        resource: [{ name: 'shared_mail', label: 'Shared', type: 'local_email', config: {} }],
      });
      expect(created.status).toBe(201);
      await soon(async () => expect((await adminB('GET', '/system/service?filter=name=shared_mail')).body.resource).toHaveLength(1));
      await soon(async () => expect(b.app.portico.services.get('shared_mail')?.label).toBe('Shared'));
      await adminA('PATCH', `/system/service/${created.body.resource[0].id}`, { label: 'Changed' });
      await soon(async () => expect(b.app.portico.services.get('shared_mail')?.label).toBe('Changed'));
      await adminA('DELETE', `/system/service/${created.body.resource[0].id}`);
      await soon(async () => expect((await adminB('GET', '/shared_mail')).status).toBe(404));
    });

    it('roles, apps, lookups and CORS rules created, changed and deleted on one are in force on the other', async () => {
      const role = (await adminA('POST', '/system/role', { resource: [{ name: 'shared-role' }] })).body.resource[0].id;
      await soon(async () => expect(b.app.portico.directory.roles.get(role)?.name).toBe('shared-role'));
      const app = await adminA('POST', '/system/app?fields=api_key', { resource: [{ name: 'shared-app', role_id: role }] });
      const key = app.body.resource[0].api_key;
      await soon(async () => expect(b.app.portico.directory.appsByKey.get(key)?.roleId).toBe(role));
      await adminA('PATCH', `/system/role/${role}`, { is_active: false });
      await soon(async () => expect(b.app.portico.directory.roles.get(role)?.isActive).toBe(false));

      await adminA('POST', '/system/cors', { resource: [{ path: 'api/v2/*', origin: 'https://shared.example' }] });
      await soon(async () => {
        const preflight = await b.app.inject({
          method: 'OPTIONS',
          url: '/api/v2/system',
          headers: { origin: 'https://shared.example', 'access-control-request-method': 'GET' },
        });
        expect(preflight.headers['access-control-allow-origin']).toBe('https://shared.example');
      });

      const lookup = (await adminA('POST', '/system/lookup', { resource: [{ name: 'shared_lookup', value: 'x' }] })).body.resource[0].id;
      await soon(async () => expect(b.app.portico.directory.lookupFor(null, null, null)('shared_lookup')).toBe('x'));
      await adminA('PATCH', `/system/lookup/${lookup}`, { value: 'y' });
      await soon(async () => expect(b.app.portico.directory.lookupFor(null, null, null)('shared_lookup')).toBe('y'));

      // Deleted on one, gone on the other.
      const cors = (await adminA('GET', '/system/cors?filter=origin=https://shared.example')).body.resource[0].id;
      await adminA('DELETE', `/system/cors/${cors}`);
      await soon(async () => {
        const preflight = await b.app.inject({
          method: 'OPTIONS',
          url: '/api/v2/system',
          headers: { origin: 'https://shared.example', 'access-control-request-method': 'GET' },
        });
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      });
      await adminA('DELETE', `/system/lookup/${lookup}`);
      await soon(async () => expect(b.app.portico.directory.lookupFor(null, null, null)('shared_lookup')).toBeUndefined());
      await adminA('DELETE', `/system/app?filter=name=shared-app`);
      await soon(async () => expect(b.app.portico.directory.appsByKey.has(key)).toBe(false));
      await adminA('DELETE', `/system/role/${role}`);
      await soon(async () => expect(b.app.portico.directory.roles.has(role)).toBe(false));
    });

    it('a write a post_process hook refuses after it was made is news for the other instance too', async () => {
      const refused = await adminA('POST', '/system/role?refuse_after=1', { resource: [{ name: 'refused-after' }] });
      expect(refused).toMatchObject({ status: 409, body: { error: { message: 'Refused after the write.' } } });
      const role = (await adminA('GET', "/system/role?filter=name='refused-after'")).body.resource[0].id;
      await soon(async () => expect(b.app.portico.directory.roles.get(role)?.name).toBe('refused-after'));
    });

    it('a rate limit created on one is enforced by the other', async () => {
      await adminA('POST', '/system/user', { resource: [{ name: 'Lim', email: 'lim@x.io', password: PASSWORD }] });
      await adminA('POST', '/system/limit', { resource: [{ name: 'shared limit', type: 'instance.each_user', rate: 1 }] });
      await soon(async () => expect(b.app.portico.limits.active.map((l) => l.name)).toContain('shared limit'));
    });

    it('a counter reset on one lifts the lock on the other, also where each instance counts on its own', async () => {
      await adminA('POST', '/system/user', { resource: [{ name: 'Reset', email: 'reset@x.io', password: PASSWORD }] });
      const token = (await adminB('POST', '/user/session', { email: 'reset@x.io', password: PASSWORD }, null)).body.session_token;
      // 'shared limit' (each user, once a minute) applies: the second request within the minute is refused.
      const onB = () => adminB('GET', '/user/session', undefined, { token });
      expect((await onB()).status).toBe(200);
      expect((await onB()).status).toBe(429);
      expect((await adminA('DELETE', '/system/limit_cache?force=true')).status).toBe(200);
      await soon(async () => expect((await onB()).status).toBe(200));
    });
  });
}
