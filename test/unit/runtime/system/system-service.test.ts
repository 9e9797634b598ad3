import { describe, expect, it } from 'vitest';
import type { Verb } from '#runtime/model/platform-model.js';
import { systemAccess } from '#runtime/system/system-service.js';

describe('systemAccess', () => {
  const cases: Array<[Verb, string, 'open' | 'role' | 'admin']> = [
    ['POST', 'admin/session', 'open'],
    ['GET', 'admin/session', 'open'],
    ['DELETE', 'admin/session', 'open'],
    ['POST', 'admin/password', 'open'],
    ['PATCH', 'admin/password', 'open'],
    ['GET', 'admin/password', 'admin'],
    ['GET', 'environment', 'open'],
    ['POST', 'environment', 'role'],
    ['GET', '', 'role'],
    ['GET', 'service_type', 'role'],
    ['GET', 'service_type/sqlite', 'role'],
    ['GET', 'event', 'role'],
    ['GET', 'constant/verb', 'role'],
    ['GET', 'admin', 'admin'],
    ['GET', 'admin/profile', 'admin'],
    ['GET', 'user', 'admin'],
    ['GET', 'app', 'role'],
    ['POST', 'service', 'role'],
    ['GET', 'role/1', 'role'],
    ['DELETE', 'cache', 'role'],
    ['GET', 'package', 'admin'],
    ['GET', 'lookup', 'role'],
    ['GET', 'ADMIN/SESSION', 'open'],
  ];
  it.each(cases)('%s %s is %s', (verb, path, want) => {
    const rule = systemAccess(verb, path === '' ? [] : path.split('/'));
    expect(rule.exception ? 'open' : rule.adminOnly ? 'admin' : 'role').toBe(want);
  });
});
