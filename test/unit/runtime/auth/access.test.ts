import { describe, expect, it } from 'vitest';
import { decideAccess, matchGrant, resolveRole, type AccessRequest } from '#runtime/auth/access.js';
import { UnauthorizedError } from '#runtime/core/errors.js';
import type { AppPrincipal, Grant, RolePrincipal, UserPrincipal } from '#runtime/auth/principals.js';

const grant = (service: string | null, component: string, verbMask: number, extra: Partial<Grant> = {}): Grant => ({
  service,
  component,
  verbMask,
  requestorMask: 1,
  filters: [],
  filterOp: 'and',
  ...extra,
});
const role = (grants: Grant[], isActive = true): RolePrincipal => ({ id: 7, name: 'reader', isActive, grants });
const app: AppPrincipal = { id: 4, name: 'addressbook', isActive: true, roleId: 7 };
const user = (isSysAdmin = false): UserPrincipal => ({
  id: 2,
  email: 'u@x.io',
  name: 'U',
  isSysAdmin,
  isAdminAccount: isSysAdmin,
  isActive: true,
  tokensValidAfter: 0,
  appRoles: new Map(),
});
/** An administrator with a role assignment: roles govern them (reference 6.3). */
const restricted = (): UserPrincipal => ({ ...user(), isAdminAccount: true, appRoles: new Map([[4, 7]]) });

const base: AccessRequest = {
  verb: 'GET',
  service: 'db',
  component: '_table/contact',
  apiKeyGiven: true,
  app,
  tokenError: null,
  user: null,
  role: role([grant('db', '_table/*', 1)]),
  exception: false,
  adminOnly: false,
};

describe('decideAccess', () => {
  const cases: Array<[string, Partial<AccessRequest>, number | 'allowed', RegExp?]> = [
    ['no key and no token', { apiKeyGiven: false, app: null, role: null }, 401, /No session token or API Key detected/],
    ['unknown API key', { app: null, role: null }, 401, /Invalid API key/],
    ['unknown API key on a login endpoint', { app: null, exception: true }, 401, /Invalid API key/],
    ['inactive app', { app: { ...app, isActive: false } }, 403, /App is not active/],
    ['login endpoint without key', { apiKeyGiven: false, app: null, role: null, exception: true }, 'allowed'],
    ['login endpoint ignores a bad token', { exception: true, tokenError: new UnauthorizedError('Invalid token: x') }, 'allowed'],
    ['expired token', { tokenError: new UnauthorizedError('Token has expired') }, 401, /expired/],
    ['administrator bypasses roles', { user: user(true), role: null, component: 'anything' }, 'allowed'],
    ['administrator with a token only', { user: user(true), apiKeyGiven: false, app: null, role: null }, 'allowed'],
    ['admin-only resource, anonymous app', { adminOnly: true }, 401, /^No session token \(JWT\) provided/],
    ['admin-only resource, non-admin user', { adminOnly: true, user: user() }, 403, /Only administrators/],
    ['no role, anonymous', { role: null }, 401],
    ['no role, user', { role: null, user: user() }, 403, /Role not found/],
    [
      'inactive role',
      { role: role([grant('db', '*', 31)], false), user: user() },
      403,
      /^Access Forbidden. The role assigned to you or your application or the default role of your application is not active.$/,
    ],
    ['inactive role, anonymous app', { role: role([grant('db', '*', 31)], false) }, 403, /not active/],
    ['inactive app on a login endpoint', { app: { ...app, isActive: false }, exception: true }, 403, /App is not active/],
    [
      'revoked token',
      { tokenError: new UnauthorizedError('Invalid token: Session terminated. Please re-login.'), user: null },
      401,
      /Session terminated/,
    ],
    [
      'bad token with an admin-only resource',
      { adminOnly: true, tokenError: new UnauthorizedError('Invalid token: x') },
      401,
      /Invalid token/,
    ],
    [
      'admin-only resource, no credentials',
      { adminOnly: true, apiKeyGiven: false, app: null, role: null },
      401,
      /No session token or API Key detected/,
    ],
    ['admin-only resource, administrator', { adminOnly: true, user: user(true) }, 'allowed'],
    ['user with a token only, no app', { apiKeyGiven: false, app: null, role: null, user: user() }, 401, /^No API Key provided\./],
    [
      'user with a token only, admin-only resource',
      { apiKeyGiven: false, app: null, role: null, user: user(), adminOnly: true },
      403,
      /Only administrators/,
    ],
    ['granted verb, user', { user: user() }, 'allowed'],
    ['every-service grant', { role: role([grant(null, '*', 1)]), user: user() }, 'allowed'],
    ['granted verb, anonymous app', {}, 'allowed'],
    ['verb not granted, user', { verb: 'POST', user: user() }, 403, /POST access to component '_table\/contact' of service 'db'/],
    ['verb not granted, anonymous', { verb: 'DELETE' }, 401],
    ['service root denied', { component: '', user: user(), role: role([grant('db', '_table/*', 1)]) }, 403, /access to service 'db'/],
    [
      'admin-only resource, restricted administrator granted it',
      { adminOnly: true, user: restricted(), service: 'system', component: 'admin/3', role: role([grant('system', 'admin/*', 1)]) },
      'allowed',
    ],
    [
      'admin-only resource, restricted administrator not granted it',
      { adminOnly: true, user: restricted(), service: 'system', component: 'user', role: role([grant('system', 'admin/*', 1)]) },
      403,
      /GET access to component 'user' of service 'system'/,
    ],
    [
      'restricted administrator, a service the role does not name',
      { user: restricted(), role: role([grant('system', 'admin/*', 1)]) },
      403,
      /of service 'db'/,
    ],
    [
      'admin-only resource, user granted it',
      { adminOnly: true, user: user(), service: 'system', component: 'admin', role: role([grant('system', '*', 31)]) },
      403,
      /Only administrators/,
    ],
  ];
  it.each(cases)('%s', (_name, change, want, message) => {
    const decision = decideAccess({ ...base, ...change });
    if (want === 'allowed') {
      expect(decision.allowed).toBe(true);
    } else {
      expect(decision.allowed).toBe(false);
      if (!decision.allowed) {
        expect(decision.error.status).toBe(want);
        if (message) expect(decision.error.message).toMatch(message);
      }
    }
  });
});

describe('matchGrant', () => {
  const cases: Array<[string, Grant[], string, string, 'GET' | 'POST' | 'PATCH' | 'DELETE', boolean]> = [
    ['service-level star', [grant('db', '*', 1)], 'db', '_table/contact/5', 'GET', true],
    ['other service', [grant('files', '*', 31)], 'db', '_table/contact', 'GET', false],
    ['every service', [grant(null, '*', 1)], 'db', '_table/contact', 'GET', true],
    ['wildcard covers the collection itself', [grant('db', '_table/contact/*', 1)], 'db', '_table/contact', 'GET', true],
    ['wildcard covers records', [grant('db', '_table/contact/*', 1)], 'db', '_table/contact/5', 'GET', true],
    ['wildcard does not cover a longer name', [grant('db', '_table/contact/*', 1)], 'db', '_table/contact2', 'GET', false],
    ['a component covers its records', [grant('db', '_table/contact', 1)], 'db', '_table/contact/5', 'GET', true],
    ['a component covers deeper sub-paths', [grant('db', '_table/contact', 1)], 'db', '_table/contact/5/x', 'GET', true],
    ['a component does not cover a longer name', [grant('db', '_table/contact', 1)], 'db', '_table/contact2', 'GET', false],
    ['a component does not cover its parent', [grant('db', '_table/contact', 1)], 'db', '_table', 'GET', false],
    ['the service root does not cover components', [grant('db', '', 1)], 'db', '_table/contact', 'GET', false],
    [
      'a component keeps its records read-only under a service-wide grant',
      [grant('db', '*', 31), grant('db', '_table/contact', 1)],
      'db',
      '_table/contact/5',
      'DELETE',
      false,
    ],
    [
      'a component keeps its records read-only under a table wildcard',
      [grant('db', '_table/*', 31), grant('db', '_table/contact', 1)],
      'db',
      '_table/contact/5',
      'PATCH',
      false,
    ],
    [
      'a component and its wildcard add up on records',
      [grant('db', '_table/contact', 1), grant('db', '_table/contact/*', 2)],
      'db',
      '_table/contact/5',
      'POST',
      true,
    ],
    [
      'the longer covered path wins',
      [grant('db', '_table/con*', 31), grant('db', '_table/contact', 1)],
      'db',
      '_table/contact/5',
      'POST',
      false,
    ],
    [
      'a record grant wins over its table',
      [grant('db', '_table/contact', 1), grant('db', '_table/contact/5', 16)],
      'db',
      '_table/contact/5',
      'DELETE',
      true,
    ],
    [
      'an exact component wins over its wildcard',
      [grant('db', '_table/contact/*', 31), grant('db', '_table/contact', 1)],
      'db',
      '_table/contact',
      'POST',
      false,
    ],
    ['more specific class replaces', [grant('db', '*', 3), grant('db', '_table/contact', 1)], 'db', '_table/contact', 'POST', false],
    ['less specific applies elsewhere', [grant('db', '*', 3), grant('db', '_table/contact', 1)], 'db', '_table/other', 'POST', true],
    ['masks of one class add up', [grant('db', '_table/*', 1), grant('db', '_table/*', 2)], 'db', '_table/x', 'POST', true],
    ['script-only grant ignored', [grant('db', '*', 31, { requestorMask: 2 })], 'db', '_table/x', 'GET', false],
  ];
  it.each(cases)('%s', (_name, grants, service, component, verb, want) => {
    expect(matchGrant(grants, service, component, verb) !== null).toBe(want);
  });

  it("makes the README's reader example true", () => {
    const reader = [grant('db', '_table/*', 1), grant('db', '_table/orders', 1 | 2)];
    expect(matchGrant(reader, 'db', '_table/orders/5', 'GET')).not.toBeNull();
    expect(matchGrant(reader, 'db', '_table/orders', 'POST')).not.toBeNull();
    expect(matchGrant(reader, 'db', '_table/customers', 'GET')).not.toBeNull();
    expect(matchGrant(reader, 'db', '_table/customers', 'POST')).toBeNull();
  });

  it('prefers the grant that carries row filters', () => {
    const filtered = grant('db', '_table/*', 1, { filters: [{ name: 'owner_id', operator: '=', value: '{user.id}' }] });
    expect(matchGrant([grant('db', '_table/*', 1), filtered], 'db', '_table/x', 'GET')).toBe(filtered);
  });
});

describe('resolveRole', () => {
  const roles = new Map([
    [7, role([])],
    [9, { ...role([]), id: 9, name: 'editor' }],
  ]);
  it('takes the user role for the app, else the app default', () => {
    expect(resolveRole(null, app, roles)?.id).toBe(7);
    expect(resolveRole({ ...user(), appRoles: new Map([[4, 9]]) }, app, roles)?.id).toBe(9);
    expect(resolveRole(user(), null, roles)).toBeNull();
  });
  it('gives a restricted administrator their role for the app, else their first one, never the app default', () => {
    const other: AppPrincipal = { ...app, id: 5, roleId: 7 };
    expect(resolveRole({ ...restricted(), appRoles: new Map([[4, 9]]) }, app, roles)?.id).toBe(9);
    expect(resolveRole({ ...restricted(), appRoles: new Map([[4, 9]]) }, other, roles)?.id).toBe(9);
    expect(resolveRole(restricted(), null, roles)).toBeNull();
  });
});
