import { describe, expect, it } from 'vitest';
import { PorticoError } from '#runtime/core/errors.js';
import { validateRecord, type WriteMode } from '#runtime/system/record-resources/record-validation.js';
import { appResource, corsResource, roleResource, serviceResource, userResource } from '#runtime/system/record-resources/system-records.js';
import type { RecordDefinition } from '#runtime/system/record-resources/resource-definition.js';

function problem(
  def: RecordDefinition,
  record: unknown,
  mode: WriteMode = 'create',
  prefix = '',
): { message: string; context: unknown } | null {
  try {
    validateRecord(def, record, mode, prefix);
    return null;
  } catch (error) {
    if (!(error instanceof PorticoError)) throw error;
    expect(error.status).toBe(400);
    return { message: error.message, context: error.context };
  }
}

describe('validateRecord', () => {
  const cases: Array<[string, RecordDefinition, unknown, WriteMode, string | null, RegExp?]> = [
    ['a valid role', roleResource, { name: 'r', is_active: true }, 'create', null],
    ['flags may be 0/1', roleResource, { name: 'r', is_active: 0 }, 'create', null],
    ['read-only fields are accepted', roleResource, { id: 3, name: 'r', created_date: 'x', origin: 'api' }, 'create', null],
    [
      'ignored reference fields are accepted',
      appResource,
      { name: 'a', requires_fullscreen: false, toggle_location: 'top' },
      'create',
      null,
    ],
    ['a required field', roleResource, { description: 'x' }, 'create', 'name', /^Field 'name' is required\.$/],
    ['required only on create', roleResource, { description: 'x' }, 'update', null],
    ['an unknown field', roleResource, { name: 'r', nosuch: 1 }, 'create', 'nosuch', /^Unknown field 'nosuch' in the Role record\.$/],
    ['a wrong type', roleResource, { name: 5 }, 'create', 'name', /must be of type string/],
    ['a flag that is not one', roleResource, { name: 'r', is_active: 'yes' }, 'create', 'is_active'],
    ['an email', userResource, { name: 'u', email: 'nope' }, 'create', 'email'],
    ['a service name', serviceResource, { name: 'Has Space', label: 'x', type: 'sqlite' }, 'create', 'name'],
    ['config must be an object', serviceResource, { name: 's', label: 'x', type: 'sqlite', config: [] }, 'create', 'config'],
    ['an API key', appResource, { name: 'a', api_key: 'short' }, 'create', 'api_key'],
    ['cors methods as names', corsResource, { path: 'a', origin: '*', method: ['GET', 'POST'] }, 'create', null],
    ['cors methods as a mask', corsResource, { path: 'a', origin: '*', method: 3 }, 'create', null],
    ['cors methods unknown', corsResource, { path: 'a', origin: '*', method: ['FETCH'] }, 'create', 'method'],
    [
      'a nested grant',
      roleResource,
      { name: 'r', role_service_access_by_role_id: [{ component: '*', verb_mask: 32 }] },
      'create',
      'role_service_access_by_role_id[0].verb_mask',
    ],
    [
      'a nested row filter',
      roleResource,
      { name: 'r', role_service_access_by_role_id: [{ filters: [{ name: 'a', operator: '=' }] }] },
      'create',
      'role_service_access_by_role_id[0].filters[0].value',
    ],
    [
      'nested records must be objects',
      roleResource,
      { name: 'r', role_service_access_by_role_id: ['x'] },
      'create',
      'role_service_access_by_role_id[0]',
    ],
    [
      'nested user roles need app and role',
      userResource,
      { name: 'u', email: 'u@x.io', user_to_app_to_role_by_user_id: [{ app_id: 1 }] },
      'create',
      'user_to_app_to_role_by_user_id[0].role_id',
    ],
    ['a read-only relation is accepted and ignored', roleResource, { name: 'r', user_to_app_to_role_by_role_id: [1] }, 'create', null],
    ['not an object', roleResource, 'x', 'create', 'The record'],
  ];
  it.each(cases)('%s', (_name, def, record, mode, field, message) => {
    const found = problem(def, record, mode);
    if (field === null) {
      expect(found).toBeNull();
    } else {
      expect(JSON.stringify(found)).toContain(field);
      if (message) expect(found?.message).toMatch(message);
    }
  });

  it('places records of a batch in messages', () => {
    expect(problem(roleResource, { name: 5 }, 'create', 'resource[2]')?.context).toEqual({ field: 'resource[2].name' });
  });
});
