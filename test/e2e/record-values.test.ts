/**
 * Values in record bodies that a column of each database cannot hold as sent, on SQLite,
 * PostgreSQL and MariaDB, in columns of their own native types: each is a 400 naming the field on
 * every database that cannot keep it (never a driver message without the field, never a value
 * stored changed or read back as something else), and the rows already there stay as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { startApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

const DDL: Record<TargetKind, string> = {
  sqlite: 'create table rv (id integer primary key autoincrement, r real, num numeric, doc json)',
  postgres: 'create table rv (id serial primary key, r real, num numeric, doc jsonb, nums smallint[])',
  mysql: 'create table rv (id int auto_increment primary key, r float, num decimal(65,0), doc json)',
};

const available: Record<TargetKind, boolean> = {
  sqlite: true,
  postgres: await requireService('postgres'),
  mysql: await requireService('mysql'),
};

describe.each((['sqlite', 'postgres', 'mysql'] as TargetKind[]).filter((kind) => available[kind]))('record values on %s', (kind) => {
  let target: DatabaseTarget;
  let api: ApiClient;

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec(DDL[kind]);
    api = await startApi(target);
    const seeded = await api.call('POST', '_table/rv', { resource: [{ r: 0.5, num: 7, doc: '{"a":1}' }] });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  /** The answer to a record of one value, created or (PATCH) written over the seeded row. */
  async function write(method: 'POST' | 'PATCH', field: string, value: unknown) {
    return method === 'POST'
      ? api.call('POST', '_table/rv?fields=*', { resource: [{ [field]: value }] })
      : api.call('PATCH', '_table/rv/1?fields=*', { [field]: value });
  }

  it.each(['POST', 'PATCH'] as const)(
    '%s: a float that underflows a 4-byte float is a 400 naming it (MariaDB stored 0)',
    async (method) => {
      const answer = await write(method, 'r', '1e-50');
      if (kind === 'sqlite') {
        // SQLite's floats have 8 bytes: it keeps the value.
        expect(answer.body.resource?.[0]?.r ?? answer.body.r).toBe(1e-50);
        return;
      }
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toBe("Invalid value for field 'r': the number is out of range for the field.");
      // The smallest a 4-byte float holds (a subnormal) is kept.
      expect((await write(method, 'r', 1e-40)).status).toBe(200);
    },
  );

  it.each(['POST', 'PATCH'] as const)(
    '%s: an exact number beyond any double is a 400 naming it (SQLite stored Infinity, PostgreSQL read it back as null)',
    async (method) => {
      for (const value of ['1e400', '-1e400', `1${'0'.repeat(400)}`]) {
        const answer = await write(method, 'num', value);
        expect(answer.status, value).toBe(400);
        expect(answer.body.error.message).toBe("Invalid value for field 'num': the number is out of range for the field.");
      }
      expect((await api.get('_table/rv/1', { fields: 'num' })).body).toEqual({ num: 7 });
    },
  );

  it.each(['POST', 'PATCH'] as const)(
    '%s: JSON text holding an escaped NUL is a 400 naming the field (PostgreSQL named none, the others stored it)',
    async (method) => {
      for (const value of ['"\\u0000"', '{"a":["x\\u0000y"]}', '{"\\u0000":1}']) {
        const answer = await write(method, 'doc', value);
        expect(answer.status, value).toBe(400);
        expect(answer.body.error.message).toBe("Invalid value for field 'doc': the text holds characters the database can not store.");
      }
      // An escaped backslash before u0000 is no NUL.
      expect((await write(method, 'doc', '"\\\\u0000"')).status).toBe(200);
    },
  );

  it.runIf(kind === 'postgres').each(['POST', 'PATCH'] as const)(
    '%s: an array element its column cannot hold is a 400 naming the field (PostgreSQL named none)',
    async (method) => {
      const refused: Array<[unknown, string]> = [
        [['a'], "Field 'nums' must be a valid integer."],
        [[1.5], "Field 'nums' must be a valid integer."],
        [[40000], "Invalid value for field 'nums': the number is out of range for the field."],
        [[[1], [2, 3]], "Invalid value for field 'nums': not a valid value for the field's type."],
        [{ a: 1 }, "Invalid value for field 'nums': not a valid value for the field's type."],
      ];
      for (const [value, message] of refused) {
        const answer = await write(method, 'nums', value);
        expect(answer.status, JSON.stringify(value)).toBe(400);
        expect(answer.body.error.message, JSON.stringify(value)).toBe(message);
      }
      for (const value of [
        [1, null, -2],
        [
          [1, 2],
          [3, 4],
        ],
        [],
        '{5,6}',
      ]) {
        const answer = await write(method, 'nums', value);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      }
    },
  );
});
