import { describe, expect, it } from 'vitest';
import { describeWider, widerAccess } from '#runtime/auth/grant-width.js';
import type { Grant } from '#runtime/auth/principals.js';

const ALL = 31;
const GET = 1;
const grant = (service: string | null, component: string, verbMask: number, extra: Partial<Grant> = {}): Grant => ({
  service,
  component,
  verbMask,
  requestorMask: 1,
  filters: [],
  filterOp: 'and',
  ...extra,
});
const owner = { name: 'owner_id', operator: '=', value: '{user.id}' };
const open = { name: 'public', operator: '=', value: 'true' };

/** [name, {given, within, wider}]: `wider` is what the refusal says, null when `given` is no wider. */
const cases: Array<[string, { given: Grant[]; within: Grant[]; wider: string | null }]> = [
  ['nothing is no wider than anything', { given: [], within: [], wider: null }],
  ['the same grants', { given: [grant('system', 'admin/*', ALL)], within: [grant('system', 'admin/*', ALL)], wider: null }],
  ['fewer verbs', { given: [grant('system', 'app/*', GET)], within: [grant('system', 'app/*', ALL)], wider: null }],
  ['a component inside a wildcard', { given: [grant('system', 'app/5', ALL)], within: [grant('system', 'app/*', ALL)], wider: null }],
  [
    'more verbs',
    {
      given: [grant('system', 'role/*', ALL)],
      within: [grant('system', 'role/*', GET)],
      wider: "POST on component 'role' of service 'system'",
    },
  ],
  [
    'another component',
    {
      given: [grant('system', 'service/*', GET)],
      within: [grant('system', 'app/*', ALL)],
      wider: "GET on component 'service' of service 'system'",
    },
  ],
  [
    'a whole service over some components of it',
    { given: [grant('system', '*', GET)], within: [grant('system', 'app/*', ALL)], wider: "GET on the root of service 'system'" },
  ],
  [
    'every service over one',
    { given: [grant(null, '*', GET)], within: [grant('db', '*', ALL)], wider: 'GET on the root of every service' },
  ],
  [
    'a grant on every service within a grant on every service',
    { given: [grant(null, '*', GET)], within: [grant(null, '*', ALL)], wider: null },
  ],
  [
    'a wildcard over a more specific carve-out of the caller (the most specific class decides)',
    {
      given: [grant('db', '*', ALL)],
      within: [grant('db', '*', ALL), grant('db', '_table/secret', GET)],
      wider: "POST on component '_table/secret' of service 'db'",
    },
  ],
  [
    'the carve-out kept',
    {
      given: [grant('db', '*', ALL), grant('db', '_table/secret', GET)],
      within: [grant('db', '*', ALL), grant('db', '_table/secret', GET)],
      wider: null,
    },
  ],
  [
    'a record below a carve-out',
    {
      given: [grant('db', '_table/*', ALL)],
      within: [grant('db', '_table/*', ALL), grant('db', '_table/secret/*', GET)],
      wider: "POST on component '_table/secret' of service 'db'",
    },
  ],
  [
    'a prefix wildcard',
    {
      given: [grant('db', '_table/ord*', ALL)],
      within: [grant('db', '_table/orders', ALL)],
      wider: "GET on component '_table/ord' of service 'db'",
    },
  ],
  [
    'no row filters under filters',
    {
      given: [grant('db', '*', GET)],
      within: [grant('db', '*', GET, { filters: [owner] })],
      wider: "GET on the root of service 'db' with looser row filters",
    },
  ],
  [
    'the same row filters',
    { given: [grant('db', '*', GET, { filters: [owner] })], within: [grant('db', '*', GET, { filters: [owner] })], wider: null },
  ],
  [
    'row filters added on top',
    { given: [grant('db', '*', GET, { filters: [owner, open] })], within: [grant('db', '*', GET, { filters: [owner] })], wider: null },
  ],
  [
    'row filters added by OR',
    {
      given: [grant('db', '*', GET, { filters: [owner, open], filterOp: 'or' })],
      within: [grant('db', '*', GET, { filters: [owner] })],
      wider: "GET on the root of service 'db' with looser row filters",
    },
  ],
  [
    'a script grant beside an API-only one',
    {
      given: [grant('system', 'app/*', GET, { requestorMask: 3 })],
      within: [grant('system', 'app/*', GET)],
      wider: "GET to scripts on component 'app' of service 'system'",
    },
  ],
  ['a grant of no verbs', { given: [grant('system', '*', 0)], within: [], wider: null }],
];

describe('widerAccess', () => {
  it.each(cases)('%s', (_name, { given, within, wider }) => {
    const found = widerAccess(given, within);
    expect(found === null ? null : describeWider(found)).toBe(wider);
  });
});
