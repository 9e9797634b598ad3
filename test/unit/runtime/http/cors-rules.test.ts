import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorsRules } from '#runtime/http/cors-rules.js';
import { openSystemDb, type SystemDb } from '#runtime/system/store/system-db.js';

let db: SystemDb;
let rules: CorsRules;

beforeAll(async () => {
  db = await openSystemDb(':memory:');
  const audit = { created_date: '', last_modified_date: '', created_by_id: null, last_modified_by_id: null };
  const rule = (path: string, origin: string, method: number, extra: Record<string, unknown> = {}) => ({
    path,
    origin,
    method,
    description: '',
    header: '',
    exposed_header: '',
    max_age: 0,
    supports_credentials: 0,
    enabled: 1,
    ...audit,
    ...extra,
  });
  await db
    .insertInto('cors_config')
    .values([
      rule('*', 'https://any.example', 1),
      rule('api/v2/*', 'https://app.example', 3, { header: 'X-One, X-Two', max_age: 60 }),
      rule('api/v2/db/*', '*', 31, { supports_credentials: 1 }),
      rule('^api/v2/(user|files)/', '*', 1, { enabled: 0 }),
      rule('^api/v2/logs/', 'https://logs.example', 1),
    ])
    .execute();
  rules = new CorsRules(db);
  await rules.reload();
});
afterAll(async () => db.destroy());

describe('CorsRules.decide', () => {
  const cases: Array<[string, string | undefined, string | false, string[]?]> = [
    ['api/v2/system/app', 'https://app.example', 'https://app.example', ['GET', 'POST', 'OPTIONS']],
    ['api/v2/system/app', 'https://other.example', false],
    ['api/v2/system/app', undefined, false],
    ['api/v2/db/_table/x', 'https://other.example', 'https://other.example', ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']],
    ['api/v2/user/session', 'https://app.example', 'https://app.example'],
    ['api/v2/logs/x', 'https://logs.example', 'https://logs.example'],
    ['other/path', 'https://any.example', 'https://any.example', ['GET', 'OPTIONS']],
  ];
  it.each(cases)('%s from %s', (path, origin, allowed, methods) => {
    const decision = rules.decide(path, origin);
    expect(decision.origin).toBe(allowed);
    if (methods) expect(decision.methods).toEqual(methods);
  });

  it("allows the spec's headers, their aliases and the rule's own", () => {
    const decision = rules.decide('api/v2/system/app', 'https://app.example');
    expect(decision.allowedHeaders).toEqual(
      expect.arrayContaining(['X-Service-API-Key', 'X-DreamFactory-Session-Token', 'X-One', 'X-Two']),
    );
    expect(decision.maxAge).toBe(60);
  });

  it('names the origin (not *) when credentials are allowed', () => {
    expect(rules.decide('api/v2/db/x', 'https://z.example')).toMatchObject({ origin: 'https://z.example', credentials: true });
  });
});
