/**
 * Sessions of regular users, open registration, password reset by email (a code delivered as a
 * file by the local_email service) and the password rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { hashPassword } from '#runtime/auth/passwords.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};
const model = minimalModel({
  roles: [
    {
      name: 'member',
      description: '',
      is_active: true,
      origin: 'platform',
      grants: [{ service: 'email', component: '*', verbs: ['POST'], requestor: ['api'], filters: [], filterOp: 'and' }],
    },
    { name: 'docs-reader', description: '', is_active: true, origin: 'platform', grants: [] },
  ],
  apps: [{ name: 'portal', label: 'Portal', description: '', is_active: true, apiKey: 'd'.repeat(64), role: null, origin: 'platform' }],
  settings: {
    ...minimalModel().settings,
    allowOpenRegistration: true,
    openRegistrationRole: 'member',
    openRegistrationAppRoles: { api_docs: 'docs-reader' },
  },
});
const PASSWORD = 'user-password-123456';

let server: TestServer;
let api: Api;
let adminToken: string;

beforeAll(async () => {
  server = await startTestServer(model, { clock: clock as Clock });
  adminToken = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token: adminToken }));
  await api('POST', '/system/user', { resource: [{ name: 'Una User', first_name: 'Una', email: 'una@x.io', password: PASSWORD }] });
});
afterAll(async () => server.close());
// Tests move the clock by hours: each starts with a fresh administrator session.
beforeEach(async () => {
  adminToken = await server.adminToken();
});

const userLogin = (email: string, password: string, credentials: { key?: string } | null = null) =>
  api('POST', '/user/session', { email, password }, credentials);

/**
 * Runs `run` while the user service's config names, in `field`, an inactive email service: the
 * mail it chooses cannot go out. The config is put back and the service deleted after.
 */
async function withMailOff(
  field: 'invite_email_service_id' | 'open_reg_email_service_id' | 'password_email_service_id',
  run: () => Promise<void>,
): Promise<void> {
  const userService = (await api('GET', `/system/service?filter=${encodeURIComponent("name = 'user'")}&fields=id,config`)).body.resource[0];
  const off = await api('POST', '/system/service', {
    resource: [{ name: `mail_off_${field.split('_')[0]}`, label: 'Off', type: 'local_email', is_active: false }],
  });
  expect(off.status).toBe(201);
  const offId = off.body.resource[0].id;
  expect((await api('PATCH', `/system/service/${userService.id}`, { config: { ...userService.config, [field]: offId } })).status).toBe(200);
  try {
    await run();
  } finally {
    expect((await api('PATCH', `/system/service/${userService.id}`, { config: { ...userService.config, [field]: null } })).status).toBe(
      200,
    );
    expect((await api('DELETE', `/system/service/${offId}`)).status).toBe(200);
  }
}

describe('user sessions', () => {
  it('logs a user in (without an API key), refreshes with GET and PUT, logs out', async () => {
    const login = await userLogin('una@x.io', PASSWORD);
    expect(login.status).toBe(200);
    // The fields the spec shows for a regular user's login.
    expect(login.body).toMatchObject({
      id: expect.any(Number),
      name: 'Una User',
      email: 'una@x.io',
      is_sys_admin: false,
      session_token: expect.any(String),
      token_expiry_date: '2026-01-02 00:00:00',
    });
    const token = login.body.session_token;
    expect((await api('GET', '/user/session', undefined, { token })).body.email).toBe('una@x.io');
    const put = await api('PUT', '/user/session', undefined, null, { 'x-service-session-token': token });
    expect(put.status).toBe(200);
    const fresh = put.body.session_token;
    expect((await api('GET', '/user/session', undefined, { token })).status).toBe(401);
    expect((await api('DELETE', '/user/session', undefined, { token: fresh })).body).toEqual({ success: true });
    expect((await api('GET', '/user/session', undefined, { token: fresh })).status).toBe(401);
  });

  it('refuses administrators at /user/session and users at /system/admin/session', async () => {
    const admin = await userLogin('admin@test.local', 'admin-password-12345');
    expect(admin.body.error).toEqual({ code: 401, message: 'Invalid credentials supplied.' });
    const user = await api('POST', '/system/admin/session', { email: 'una@x.io', password: PASSWORD }, null);
    expect(user.body.error).toEqual({ code: 401, message: 'Invalid credentials supplied.' });
  });

  it('expires after 24 hours by default, and refuses a deactivated user', async () => {
    const token = (await userLogin('una@x.io', PASSWORD)).body.session_token;
    clock.time += 23 * 3600_000;
    expect((await api('GET', '/user/profile', undefined, { token })).status).toBe(200);
    clock.time += 2 * 3600_000;
    const expired = await api('GET', '/user/profile', undefined, { token });
    expect(expired.body.error.code).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
    const again = (await userLogin('una@x.io', PASSWORD)).body.session_token;
    adminToken = await server.adminToken();
    const id = (await api('GET', "/system/user?filter=email='una@x.io'&fields=id")).body.resource[0].id;
    await api('PATCH', `/system/user/${id}`, { is_active: false });
    expect((await api('GET', '/user/profile', undefined, { token: again })).status).toBe(401);
    expect((await userLogin('una@x.io', PASSWORD)).status).toBe(401);
    await api('PATCH', `/system/user/${id}`, { is_active: true });
  });

  it('ends the sessions of an account whose email changes (reference 6.2); the session changing its own goes on with a new token', async () => {
    const verificationFailed = { code: 401, message: 'Invalid token: User verification failed.' };
    await api('POST', '/system/user', { resource: [{ name: 'Eve', email: 'eve@x.io', password: PASSWORD }] });
    const id = (await api('GET', "/system/user?filter=email='eve@x.io'&fields=id")).body.resource[0].id;
    const profile = (token: string) => api('GET', '/user/profile', undefined, { token });

    // Other changes keep the session.
    const first = (await userLogin('eve@x.io', PASSWORD)).body.session_token;
    await api('PATCH', `/system/user/${id}`, { first_name: 'Evelyn' });
    expect((await profile(first)).body).toMatchObject({ email: 'eve@x.io', first_name: 'Evelyn' });

    // An administrator changes it: every token issued for the old email is refused, refresh included.
    await api('PATCH', `/system/user/${id}`, { email: 'eve@y.io' });
    expect((await profile(first)).body.error).toEqual(verificationFailed);
    expect((await api('GET', '/user/session', undefined, { token: first })).body.error).toEqual(verificationFailed);
    expect((await api('PUT', '/user/session', undefined, null, { 'x-service-session-token': first })).body.error).toEqual(
      verificationFailed,
    );
    expect((await userLogin('eve@x.io', PASSWORD)).status).toBe(401);

    // The user changes it: their other sessions end, the one making the change gets a new token.
    const mine = (await userLogin('eve@y.io', PASSWORD)).body.session_token;
    const other = (await userLogin('eve@y.io', PASSWORD)).body.session_token;
    const changed = await api('POST', '/user/profile', { email: 'eve@z.io', current_password: PASSWORD }, { token: mine });
    expect(changed.body).toEqual({ success: true, session_token: expect.any(String) });
    expect((await profile(mine)).body.error).toEqual(verificationFailed);
    expect((await profile(other)).body.error).toEqual(verificationFailed);
    expect((await profile(changed.body.session_token)).body).toMatchObject({ email: 'eve@z.io' });
    // Only the letters' case: a change all the same, as on the reference.
    const cased = await api('POST', '/user/profile', { email: 'Eve@z.io' }, { token: changed.body.session_token });
    expect(cased.body).toEqual({ success: true, session_token: expect.any(String) });
    expect((await profile(changed.body.session_token)).status).toBe(401);
    expect((await profile(cased.body.session_token)).body).toMatchObject({ email: 'Eve@z.io' });
    // The same email again changes nothing.
    const same = await api('POST', '/user/profile', { email: 'Eve@z.io', name: 'Eve' }, { token: cased.body.session_token });
    expect(same.body).toEqual({ success: true });
    expect((await profile(cased.body.session_token)).status).toBe(200);
  });

  it("ends an administrator's sessions when an administrator changes their email", async () => {
    const email = 'second-admin@x.io';
    const id = (await api('POST', '/system/admin', { resource: [{ name: 'Second', email, password: PASSWORD }] })).body.resource[0].id;
    const token = (await api('POST', '/system/admin/session', { email, password: PASSWORD }, null)).body.session_token;
    expect((await api('GET', '/system/admin/session', undefined, { token })).status).toBe(200);
    await api('PATCH', `/system/admin/${id}`, { email: 'second-admin@y.io' });
    expect((await api('GET', '/system/role', undefined, { token })).body.error).toEqual({
      code: 401,
      message: 'Invalid token: User verification failed.',
    });
    expect((await api('POST', '/system/admin/session', { email: 'second-admin@y.io', password: PASSWORD }, null)).status).toBe(200);
  });

  it('stores passwords as bcrypt hashes', async () => {
    const row = await server.app.portico.db.selectFrom('user').select('password').where('email', '=', 'una@x.io').executeTakeFirstOrThrow();
    expect(row.password).toMatch(/^\$2[aby]\$10\$/);
  });
});

describe('passwords set outside the service', () => {
  it('do not match: a bcrypt hash given as the password is the password, not its hash (spec, Authentication 6)', async () => {
    const hashed = await hashPassword('outside-password-123456');
    const created = await api('POST', '/system/user', { resource: [{ name: 'Hashed', email: 'hashed@x.io', password: hashed }] });
    expect(created.status).toBe(201);
    expect((await userLogin('hashed@x.io', 'outside-password-123456')).body.error).toEqual({
      code: 401,
      message: 'Invalid credentials supplied.',
    });
    expect((await userLogin('hashed@x.io', hashed)).status).toBe(200);
  });
});

describe('open registration', () => {
  it('registers users, with login=false and login=true, each with its default role per app', async () => {
    const quiet = await api(
      'POST',
      '/user/register',
      { email: 'reg1@x.io', first_name: 'Reg', last_name: 'One', new_password: PASSWORD },
      null,
    );
    expect(quiet).toMatchObject({ status: 201, body: { success: true } });
    const loud = await api('POST', '/user/register?login=true', { email: 'reg2@x.io', password: PASSWORD }, { key: 'd'.repeat(64) });
    expect(loud.body).toEqual({ success: true, session_token: expect.any(String) });
    const session = await api('GET', '/user/session', undefined, { token: loud.body.session_token });
    expect(session.body).toMatchObject({ email: 'reg2@x.io', name: 'reg2', role: '', role_id: null });
    // With an app's key the session names the role requests with that key get.
    const withKey = await api('GET', '/user/session', undefined, { key: 'd'.repeat(64), token: loud.body.session_token });
    const member = (await api('GET', `/system/role?filter=${encodeURIComponent("name='member'")}&fields=id`)).body.resource[0].id;
    expect(withKey.body).toMatchObject({ role: 'member', role_id: member, is_sys_admin: false, host: expect.any(String) });
    const users = await api(
      'GET',
      `/system/user?filter=${encodeURIComponent("email like 'reg%'")}&related=user_to_app_to_role_by_user_id&fields=email,name`,
    );
    const roles = (await api('GET', '/system/role?fields=id,name')).body.resource as Array<{ id: number; name: string }>;
    const apps = (await api('GET', '/system/app?fields=id,name')).body.resource as Array<{ id: number; name: string }>;
    const expected = apps.map((app) => ({
      app_id: app.id,
      role_id: roles.find((r) => r.name === (app.name === 'api_docs' ? 'docs-reader' : 'member'))!.id,
    }));
    expect(users.body.resource[0]).toMatchObject({ email: 'reg1@x.io', name: 'Reg One' });
    for (const user of users.body.resource) {
      expect(
        user.user_to_app_to_role_by_user_id.map(({ app_id, role_id }: { app_id: number; role_id: number }) => ({ app_id, role_id })),
      ).toEqual(expected);
    }
    // The role per app decides: the portal app's key with the new user's token may POST to email.
    const mail = await api('POST', '/email', { to: 'a@b.io', subject: 'hi' }, { key: 'd'.repeat(64), token: loud.body.session_token });
    expect(mail.body).toEqual({ count: 1 });
  });

  it('takes a register form with blank name and username: the name made up from the first and last names, no username', async () => {
    const form = {
      email: 'blank-form@x.io',
      name: '',
      username: '',
      first_name: 'Blank',
      last_name: 'Form',
      phone: '',
      new_password: PASSWORD,
    };
    expect((await api('POST', '/user/register', form, null)).status).toBe(201);
    const user = (await api('GET', `/system/user?filter=${encodeURIComponent("email='blank-form@x.io'")}&fields=name,username`)).body;
    expect(user.resource).toEqual([{ name: 'Blank Form', username: null }]);
  });

  it.each([
    [{ email: 'reg1@x.io', password: PASSWORD }, 409, 'email'],
    [{ email: 'short@x.io', password: 'short' }, 400, 'password'],
    [{ email: 'nopass@x.io' }, 400, 'password'],
    [{ email: 'not-an-email', password: PASSWORD }, 400, 'email'],
    [{ email: 'x@x.io', password: PASSWORD, password_confirmation: 'other' }, 400, 'password_confirmation'],
    [{ email: 'x@x.io', password: PASSWORD, role: 'admin' }, 400, 'role'],
  ])('refuses %o', async (body, status, field) => {
    const response = await api('POST', '/user/register', body, null);
    expect(response.status).toBe(status);
    expect(JSON.stringify(response.body.error.context)).toContain(field);
  });

  it('is refused when platform.yaml does not enable it', async () => {
    const closed = await startTestServer(minimalModel());
    try {
      const response = await apiClient(closed.app, () => ({}))('POST', '/user/register', { email: 'a@x.io', password: PASSWORD });
      expect(response.body.error).toEqual({ code: 403, message: 'Open Registration is not enabled.' });
    } finally {
      await closed.close();
    }
  });
});

describe('password reset by email and change while logged in', () => {
  const mailDir = () => path.join(server.dir, 'data/mail');
  const lastMail = () => {
    const files = fs.readdirSync(mailDir()).sort();
    return JSON.parse(fs.readFileSync(path.join(mailDir(), files[files.length - 1]), 'utf8'));
  };

  /** Una's record as the admin console's users list reads it: confirmed, or pending a code. */
  const una = async () =>
    (await api('GET', '/system/user', undefined, undefined, {})).body.resource.find((u: { email: string }) => u.email === 'una@x.io');

  it('sends a code through the email service and resets the password with it', async () => {
    expect(await una()).toMatchObject({ confirmed: true, expired: false });
    const requested = await api('POST', '/user/password?reset=true', { email: 'una@x.io' }, null);
    expect(requested.body).toEqual({ success: true });
    expect(await una()).toMatchObject({ confirmed: false, expired: false });
    const mail = lastMail();
    expect(mail).toMatchObject({ to: [{ email: 'una@x.io', name: 'Una User' }], subject: 'Password reset' });
    const code = /code is (\w+)/.exec(mail.body_text)![1];
    expect(code).toMatch(/^[0-9A-Z]{32}$/);
    expect(
      (await api('POST', '/user/password', { email: 'una@x.io', code: 'WRONG', new_password: 'new-password-123456' }, null)).status,
    ).toBe(404);
    const reset = await api('POST', '/user/password?login=true', { email: 'una@x.io', code, new_password: 'new-password-123456' }, null);
    expect(reset.body).toEqual({ success: true, session_token: expect.any(String) });
    expect(await una()).toMatchObject({ confirmed: true, expired: false });
    expect((await userLogin('una@x.io', 'new-password-123456')).status).toBe(200);
    expect((await api('POST', '/user/password', { email: 'una@x.io', code, new_password: 'again-password-123456' }, null)).status).toBe(
      404,
    );
  });

  it('refuses an expired code, an unknown email and an administrator at the user endpoint', async () => {
    await api('POST', '/user/password?reset=true', { email: 'una@x.io' }, null);
    const code = /code is (\w+)/.exec(lastMail().body_text)![1];
    clock.time += 25 * 3600_000;
    adminToken = await server.adminToken();
    expect(await una()).toMatchObject({ confirmed: false, expired: true });
    const expired = await api('POST', '/user/password', { email: 'una@x.io', code, new_password: 'new-password-654321' }, null);
    expect(expired.body.error).toEqual({ code: 400, message: 'Confirmation code expired.', context: { field: 'code' } });
    expect((await api('POST', '/user/password?reset=true', { email: 'nobody@x.io' }, null)).status).toBe(404);
    expect((await api('POST', '/user/password?reset=true', { email: 'admin@test.local' }, null)).status).toBe(401);
    expect((await api('POST', '/user/password', {}, null)).body.error.message).toBe('Not enough information provided to change password.');
  });

  it('takes {email} alone as a reset request, as the spec writes it (without ?reset=true, which the reference needs)', async () => {
    const mails = () => (fs.existsSync(mailDir()) ? fs.readdirSync(mailDir()).length : 0);
    const before = mails();
    for (const url of ['/user/password', '/system/admin/password']) {
      const email = url === '/user/password' ? 'una@x.io' : 'admin@test.local';
      expect((await api('POST', url, { email }, null)).body, url).toEqual({ success: true });
    }
    expect(mails()).toBe(before + 2);
    expect(lastMail()).toMatchObject({ to: [{ email: 'admin@test.local' }], subject: 'Password reset' });
    // Anything beside the email is no reset request: a code without a new password, a change without a session.
    expect((await api('POST', '/user/password', { email: 'una@x.io', code: 'X' }, null)).body.error.message).toBe(
      'Missing new password for reset.',
    );
    expect((await api('POST', '/user/password', { email: 'una@x.io', new_password: 'p' }, null)).status).toBe(401);
    expect((await api('POST', '/user/password', { email: 'nobody@x.io' }, null)).status).toBe(404);
    expect(mails()).toBe(before + 2);
  });

  it('changes the password while logged in; tokens issued before are refused', async () => {
    const token = (await userLogin('una@x.io', 'new-password-123456')).body.session_token;
    clock.time += 1000;
    expect(
      (await api('POST', '/user/password', { old_password: 'new-password-123456', new_password: 'third-password-123456' }, { token })).body,
    ).toEqual({ success: true });
    expect((await api('GET', '/user/profile', undefined, { token })).status).toBe(401);
    expect((await userLogin('una@x.io', 'third-password-123456')).status).toBe(200);
  });

  it("invites again on PATCH ?send_invite=true (the legacy admin app's Send Invite), an account still waiting only", async () => {
    const created = await api('POST', '/system/user?send_invite=true', { resource: [{ name: 'Ivy', email: 'ivy@x.io' }] });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    const first = /the code (\w+)/.exec(lastMail().body_text)![1];
    // The button sends no body.
    const again = await api('PATCH', `/system/user/${id}?send_invite=true`, undefined);
    expect(again.body).toEqual({ id });
    const mail = lastMail();
    expect(mail.to).toEqual([{ email: 'ivy@x.io', name: 'Ivy' }]);
    const code = /the code (\w+)/.exec(mail.body_text)![1];
    expect(code).not.toBe(first);
    expect((await api('POST', '/user/password', { email: 'ivy@x.io', code, new_password: 'ivy-password-1234567' }, null)).body).toEqual({
      success: true,
    });
    const confirmed = await api('PATCH', `/system/user/${id}?send_invite=true`, undefined);
    expect(confirmed.status).toBe(400);
    expect(confirmed.body.error.message).toBe('User with this identifier has already confirmed this account.');
  });

  it('takes the new accounts back when their invitation cannot be sent (reference 5.2: the user is deleted again)', async () => {
    await withMailOff('invite_email_service_id', async () => {
      for (const resource of ['user', 'admin']) {
        const invited = await api('POST', `/system/${resource}?send_invite=true`, {
          resource: [
            { name: 'Ned', email: `ned-${resource}@x.io` },
            { name: 'Nia', email: `nia-${resource}@x.io` },
          ],
        });
        expect(invited.status).toBe(500);
        expect(invited.body.error.message).toMatch(/^No email service is configured to send 'User Invite Default'/);
        const left = await api('GET', `/system/${resource}?filter=${encodeURIComponent("email like 'n%'")}&fields=email`);
        expect(left.body).toEqual({ resource: [] });
        // Nothing stands in the way of the same accounts once invitations can go out.
        expect((await api('POST', `/system/${resource}`, { resource: [{ name: 'Ned', email: `ned-${resource}@x.io` }] })).status).toBe(201);
      }
    });
  });

  it('stores no user whose registration mail cannot be sent: the same email registers once it can', async () => {
    const form = { email: 'rhea@x.io', password: PASSWORD, first_name: 'Rhea' };
    await withMailOff('open_reg_email_service_id', async () => {
      const refused = await api('POST', '/user/register', form, { key: server.apiKey });
      expect(refused.status).toBe(500);
      expect(refused.body.error.message).toMatch(/^No email service is configured to send 'User Registration Default'/);
      expect((await api('GET', `/system/user?filter=${encodeURIComponent("email = 'rhea@x.io'")}&fields=email`)).body).toEqual({
        resource: [],
      });
    });
    expect((await api('POST', '/user/register', form, { key: server.apiKey })).status).toBe(201);
  });

  it('keeps the code mailed before when a new reset code cannot be mailed', async () => {
    await api('POST', '/system/user', { resource: [{ name: 'Remy', email: 'remy@x.io', password: PASSWORD }] });
    expect((await api('POST', '/user/password?reset=true', { email: 'remy@x.io' }, null)).body).toEqual({ success: true });
    const code = /code is (\w+)/.exec(lastMail().body_text)![1];
    await withMailOff('password_email_service_id', async () => {
      expect((await api('POST', '/user/password?reset=true', { email: 'remy@x.io' }, null)).status).toBe(500);
    });
    const reset = await api('POST', '/user/password', { email: 'remy@x.io', code, new_password: 'remy-password-1234567' }, null);
    expect(reset.body).toEqual({ success: true });
  });

  it('applies the minimum length setting', async () => {
    const strict = await startTestServer(minimalModel({ settings: { ...minimalModel().settings, passwordMinLength: 24 } }));
    try {
      const strictApi = apiClient(strict.app, () => ({ token: '' }));
      const token = await strict.adminToken();
      const response = await strictApi(
        'POST',
        '/system/user',
        { resource: [{ name: 'S', email: 's@x.io', password: 'only-twenty-three-chars' }] },
        { token },
      );
      expect(response.body.error).toMatchObject({
        code: 400,
        message: 'Invalid data supplied. The password must be at least 24 characters.',
        context: { field: 'password' },
      });
      expect((await strictApi('GET', '/system/user', undefined, { token })).body.resource).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
