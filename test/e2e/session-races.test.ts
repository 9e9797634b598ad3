/**
 * Sessions against changes made at the same time: a login whose password check is under way when
 * the password changes (or the account is deactivated) gets no session that outlives the change,
 * and a session ended on one instance (logout, password change, deactivation) cannot be refreshed
 * into a new token on another instance that has not learnt of the change yet (without Redis the
 * change feed brings it only after a few seconds). Two refreshes of one token at once (PUT, on one
 * instance or two) leave one live token, not two, on every kind of system database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

/** While set, a password check waits for it before answering (the login's check is held open). */
const gate = vi.hoisted(() => ({ held: null as null | { reached: () => void; release: Promise<void> } }));
vi.mock('#runtime/auth/passwords.js', async (original) => {
  const real = await original<typeof import('#runtime/auth/passwords.js')>();
  return {
    ...real,
    async verifyPassword(password: string, hash: string | null) {
      const result = await real.verifyPassword(password, hash);
      const held = gate.held;
      if (held) {
        gate.held = null;
        held.reached();
        await held.release;
      }
      return result;
    },
  };
});

const PASSWORD = 'first-password-123456';
const NEW_PASSWORD = 'second-password-123456';

describe('a login racing a change of its account', () => {
  let now = Date.UTC(2026, 2, 1, 12, 0, 0, 500);
  const clock: Clock = { now: () => now };
  let server: TestServer;
  let admin: Api;
  beforeAll(async () => {
    server = await startTestServer(minimalModel(), { clock });
    const token = await server.adminToken();
    admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => server?.close());

  /** Logs in with the password checked, then `change` made and time moved on, then the login let go. */
  async function loginAcross(email: string, change: () => Promise<void>) {
    let reached!: () => void;
    let release!: () => void;
    const checked = new Promise<void>((resolve) => {
      reached = resolve;
    });
    gate.held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const login = admin('POST', '/user/session', { email, password: PASSWORD }, null);
    await checked;
    await change();
    // The login ends seconds after the change (a loaded server): past the second of its cut-off.
    now += 5000;
    release();
    return login;
  }

  for (const [label, change] of [
    ['its password changes', { password: NEW_PASSWORD }],
    ['it is deactivated', { is_active: false }],
    ['its email changes', { email: 'moved@x.io' }],
  ] as const) {
    it(`gets no session that outlives the change when ${label} during the password check`, async () => {
      const email = `race-${label.split(' ')[1]}@x.io`;
      const created = await admin('POST', '/system/user', { resource: [{ name: email, email, password: PASSWORD }] });
      const id = created.body.resource[0].id;
      const login = await loginAcross(email, async () => {
        expect((await admin('PATCH', `/system/user/${id}`, change)).status).toBe(200);
      });
      if (login.status === 200) {
        const token = login.body.session_token;
        expect((await admin('GET', '/user/session', undefined, { token })).status).toBe(401);
        expect((await admin('GET', '/user/profile', undefined, { token })).status).toBe(401);
      } else expect(login).toMatchObject({ status: 401, body: { error: { code: 401, message: 'Invalid credentials supplied.' } } });
    });
  }
});

describe('a session ended on one instance, refreshed on another that has not learnt of it yet', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-session-races-'));
  let a: TestServer;
  let b: TestServer;
  let adminA: Api;
  let adminB: Api;
  beforeAll(async () => {
    // No Redis: the other instance learns of changes from the system database only after seconds.
    const options = { systemDatabase: path.join(dir, 'system.sqlite'), env: {} };
    a = await startTestServer(minimalModel(), options);
    b = await startTestServer(minimalModel(), options);
    const [tokenA, tokenB] = [await a.adminToken(), await b.adminToken()];
    adminA = apiClient(a.app, () => ({ key: a.apiKey, token: tokenA }));
    adminB = apiClient(b.app, () => ({ key: b.apiKey, token: tokenB }));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function userSession(email: string): Promise<{ id: number; token: string }> {
    const created = await adminA('POST', '/system/user', { resource: [{ name: email, email, password: PASSWORD }] });
    const login = await adminB('POST', '/user/session', { email, password: PASSWORD }, null);
    expect(login.status).toBe(200);
    const token = login.body.session_token as string;
    // B knows the session (and caches its user).
    expect((await adminB('GET', '/user/profile', undefined, { token })).status).toBe(200);
    return { id: created.body.resource[0].id, token };
  }

  for (const [label, end] of [
    ['logged out', (token: string) => adminA('DELETE', '/user/session', undefined, { token })],
    ['ended by a password change', (_token: string, id: number) => adminA('PATCH', `/system/user/${id}`, { password: NEW_PASSWORD })],
    ['ended by deactivation', (_token: string, id: number) => adminA('PATCH', `/system/user/${id}`, { is_active: false })],
  ] as const) {
    it(`is refused, not renewed, when ${label} on the other`, async () => {
      const { id, token } = await userSession(`refresh-${label.split(' ').at(-1)}@x.io`);
      expect((await end(token, id)).status).toBe(200);
      for (const verb of ['GET', 'PUT'] as const) {
        const refreshed = await adminB(verb, '/user/session', undefined, { token });
        expect(refreshed).toMatchObject({ status: 401, body: { error: { code: 401 } } });
        expect(refreshed.body.session_token).toBeUndefined();
      }
    });
  }

  it('a live session is still refreshed on either instance, and the new token works on both', async () => {
    const { token } = await userSession('refresh-live@x.io');
    const refreshed = await adminA('GET', '/user/session', undefined, { token });
    expect(refreshed.status).toBe(200);
    const renewed = refreshed.body.session_token;
    expect((await adminB('GET', '/user/profile', undefined, { token: renewed })).status).toBe(200);
    expect((await adminA('PUT', '/user/session', undefined, { token: renewed })).status).toBe(200);
  });
});

const SYSTEM_DATABASES = [
  ['SQLite', 'sqlite', true],
  ['PostgreSQL', 'postgres', await requireService('postgres')],
  ['MariaDB', 'mysql', await requireService('mysql')],
] as const;

describe.each(SYSTEM_DATABASES)('two refreshes of one token at once, on a %s system database', (_label, kind, available) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-refresh-races-'));
  let database: TestDatabase | undefined;
  let a: TestServer;
  let b: TestServer;
  let adminA: Api;
  let adminB: Api;
  beforeAll(async () => {
    if (!available) return;
    database = kind === 'sqlite' ? undefined : await createTestDatabase(kind);
    // Two instances (or workers) on one system database.
    const options = { systemDatabase: database?.url ?? path.join(dir, 'system.sqlite'), env: {} };
    a = await startTestServer(minimalModel(), options);
    b = await startTestServer(minimalModel(), options);
    const [tokenA, tokenB] = [await a.adminToken(), await b.adminToken()];
    adminA = apiClient(a.app, () => ({ key: a.apiKey, token: tokenA }));
    adminB = apiClient(b.app, () => ({ key: b.apiKey, token: tokenB }));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Both answers: one new token, the other refresh refused in the spec's shape; the old token and the loser's are no session. */
  async function oneWins(answers: Array<{ status: number; body: any }>, old: string, path: string) {
    const won = answers.filter((answer) => answer.status === 200);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    const lost = answers.find((answer) => answer.status === 401)!;
    expect(lost.body).toEqual({ error: { code: 401, message: expect.any(String) } });
    const token = won[0].body.session_token as string;
    expect(token).not.toBe(old);
    for (const admin of [adminA, adminB]) {
      expect((await admin('GET', path, undefined, { token })).status).toBe(200);
      expect((await admin('PUT', path, undefined, { token: old })).status).toBe(401);
    }
  }

  it.skipIf(!available)('a user session: one of them gets a new token, on one instance and on two', async () => {
    const email = `twice-${kind}@x.io`;
    expect((await adminA('POST', '/system/user', { resource: [{ name: email, email, password: PASSWORD }] })).status).toBe(201);
    for (const [first, second] of [
      [adminA, adminA],
      [adminA, adminB],
    ]) {
      const login = await first('POST', '/user/session', { email, password: PASSWORD }, null);
      const token = login.body.session_token as string;
      const answers = await Promise.all([first, second].map((admin) => admin('PUT', '/user/session', undefined, { token })));
      await oneWins(answers, token, '/user/session');
    }
  });

  it.skipIf(!available)('an administrator session: one of them gets a new token', async () => {
    const token = await a.adminToken();
    const answers = await Promise.all([adminA, adminB, adminA].map((admin) => admin('PUT', '/system/admin/session', undefined, { token })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    await oneWins([answers.find((x) => x.status === 200)!, answers.find((x) => x.status === 401)!], token, '/system/admin/session');
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(2);
  });
});
