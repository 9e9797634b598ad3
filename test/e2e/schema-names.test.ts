/**
 * Names and types a client gives through `_schema`, and the fields it names in `fields`, on SQLite,
 * PostgreSQL and MariaDB/MySQL: table and field names are letters, digits, `_` and `$` within the
 * database's identifier length (400 naming them otherwise, nothing created); a field's `type` is
 * one of the abstract vocabulary (native types go in `db_type`); `fields` naming anything but the
 * table's fields is 400 "Invalid field requested", also next to `*`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTIFIER_LIMITS } from '#runtime/services/sql/schema/identifiers.js';
import { requireService } from '#test/helpers/require-service.js';
import { startApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

const available: Record<TargetKind, boolean> = {
  sqlite: true,
  postgres: await requireService('postgres'),
  mysql: await requireService('mysql'),
};

const NAME_RULE = "use letters, digits, '_' and '$', starting with a letter or '_'.";

describe.each((['sqlite', 'postgres', 'mysql'] as const).filter((kind) => available[kind]))('on %s', (kind) => {
  let target: DatabaseTarget;
  let api: ApiClient;
  const limit = IDENTIFIER_LIMITS[kind];

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    api = await startApi(target);
    const created = await api.call('POST', '_schema', {
      resource: [
        {
          name: 'thing',
          field: [
            { name: 'id', type: 'id' },
            { name: 'label', type: 'string' },
          ],
        },
      ],
    });
    expect(created.status).toBe(200);
    await api.call('POST', '_table/thing', { resource: [{ label: 'one' }, { label: 'two' }] });
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  const tableNames = async () => (await api.get('_schema')).body.resource.map((t: { name: string }) => t.name);
  const fieldNames = async (table: string) => (await api.get(`_schema/${table}`)).body.field.map((f: { name: string }) => f.name);
  const createTable = (name: string, field: Record<string, unknown>[] = [{ name: 'id', type: 'id' }]) =>
    api.call('POST', '_schema', { resource: [{ name, field }] });

  describe('new table and field names', () => {
    it.each([
      ['a double quote', 'bad"name'],
      ['a single quote', "it's"],
      ['a backtick', 'tick`x'],
      ['a control character', 'line\nx'],
      ['a space', 'two words'],
      ['a semicolon', 'a;b'],
      ['a leading digit', '1st'],
      ['a hyphen', 'a-b'],
      ['brackets', 'a[b]'],
    ])('refuse a table name with %s', async (_what, name) => {
      const response = await createTable(name);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(`Invalid name for table '${name}': ${NAME_RULE}`);
      expect(response.body.error.context).toEqual({ table: name });
      expect(await tableNames()).toEqual(['thing']);
    });

    it('refuse a NUL in a name (bodies refuse NUL characters anywhere)', async () => {
      const response = await createTable('nul\u0000x');
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/NUL/);
      expect(await tableNames()).toEqual(['thing']);
    });

    it('refuse a bad field name in a new table, naming the field, and create nothing', async () => {
      const response = await createTable('fresh', [
        { name: 'id', type: 'id' },
        { name: 'x"y', type: 'string' },
      ]);
      expect(response.body.error).toEqual({
        code: 400,
        message: `Invalid name for field 'x"y' of table 'fresh': ${NAME_RULE}`,
        context: { table: 'fresh', field: 'x"y' },
      });
      expect(await tableNames()).toEqual(['thing']);
    });

    it.each([
      ['POST _field', () => api.call('POST', '_schema/thing/_field', { resource: [{ name: 'we"ird', type: 'string', allow_null: true }] })],
      [
        'PATCH _schema/{table}',
        () => api.call('PATCH', '_schema/thing', { field: [{ name: 'we"ird', type: 'string', allow_null: true }] }),
      ],
      [
        'PUT _schema',
        () => api.call('PUT', '_schema', { resource: [{ name: 'thing', field: [{ name: 'we"ird', type: 'string', allow_null: true }] }] }),
      ],
    ])('refuse a bad name for a field added through %s', async (_how, call) => {
      const response = await call();
      expect(response.body.error).toEqual({
        code: 400,
        message: `Invalid name for field 'we"ird' of table 'thing': ${NAME_RULE}`,
        context: { table: 'thing', field: 'we"ird' },
      });
      expect(await fieldNames('thing')).toEqual(['id', 'label']);
    });

    it("accept letters, digits, _ and $, up to the database's length, and serve the table under that name", async () => {
      const longest = `t${'x'.repeat(limit.length - 1)}`;
      const response = await createTable(longest, [
        { name: 'id', type: 'id' },
        { name: 'price$2', type: 'integer', allow_null: true },
        { name: `f${'y'.repeat(limit.length - 1)}`, type: 'string', allow_null: true },
      ]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const written = await api.call('POST', `_table/${longest}?fields=*`, { resource: [{ price$2: 5 }] });
      expect(written.body.resource[0]).toMatchObject({ price$2: 5 });
      expect((await api.get(`_table/${longest}`)).body.resource).toHaveLength(1);
      expect((await api.call('DELETE', `_schema/${longest}`)).status).toBe(200);
    });

    it("refuse names one past the database's length", async () => {
      const tooLong = `t${'x'.repeat(limit.length)}`;
      const response = await createTable(tooLong);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(
        new RegExp(`^Invalid name for table 't.*': at most ${limit.length} ${limit.unit} on this database\\.$`),
      );
      const field = await api.call('POST', '_schema/thing/_field', {
        resource: [{ name: `f${'y'.repeat(limit.length)}`, type: 'string', allow_null: true }],
      });
      expect(field.status).toBe(400);
      expect(field.body.error.context).toMatchObject({ table: 'thing' });
      expect(await tableNames()).toEqual(['thing']);
      expect(await fieldNames('thing')).toEqual(['id', 'label']);
    });

    it('count bytes where the database does (PostgreSQL), characters elsewhere', async () => {
      // 32 two-byte letters: 64 bytes, 32 characters.
      const name = `é${'é'.repeat(31)}`;
      const response = await createTable(name);
      expect(response.status).toBe(kind === 'postgres' ? 400 : 200);
      if (response.status === 200) expect((await api.call('DELETE', `_schema/${encodeURIComponent(name)}`)).status).toBe(200);
    });
  });

  describe('field types', () => {
    it.each([['id id'], ['double precision'], ['varchar'], ['int); drop table thing; --'], ['nonsense']])(
      'refuse type %j, naming the field, and create nothing',
      async (type) => {
        const response = await createTable('typed', [
          { name: 'id', type: 'id' },
          { name: 'f', type },
        ]);
        expect(response.status).toBe(400);
        expect(response.body.error.message).toMatch(/^Invalid schema detected - invalid type '.*' for field 'f' of table 'typed'/);
        expect(response.body.error.context).toMatchObject({ field: 'f' });
        expect(await tableNames()).toEqual(['thing']);
      },
    );

    it('refuse an unknown type for a field added or changed', async () => {
      expect((await api.call('POST', '_schema/thing/_field', { resource: [{ name: 'g', type: 'id id' }] })).status).toBe(400);
      expect((await api.call('PATCH', '_schema/thing/_field/label', { type: 'id id' })).status).toBe(400);
      expect(await fieldNames('thing')).toEqual(['id', 'label']);
    });

    it('take native types from db_type', async () => {
      const response = await createTable('native', [
        { name: 'id', type: 'id' },
        { name: 'f', db_type: 'varchar(12)', allow_null: true },
      ]);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect((await api.get('_schema/native/_field/f')).body).toMatchObject({ type: 'string', length: 12 });
      expect((await api.call('DELETE', '_schema/native')).status).toBe(200);
    });
  });

  describe('fields=', () => {
    it.each([
      ['*, sqlite_version()', 'sqlite_version()'],
      ['*,nope', 'nope'],
      ['label,version()', 'version()'],
      ['*,label,*,id;', 'id;'],
    ])('refuses %j', async (fields, bad) => {
      const response = await api.get('_table/thing', { fields });
      expect(response.body.error).toEqual({ code: 400, message: `Invalid field requested: ${bad}`, context: { field: bad } });
    });

    it('refuses them on writes too, writing nothing', async () => {
      const response = await api.call('POST', `_table/thing?fields=${encodeURIComponent('*,nope')}`, { resource: [{ label: 'three' }] });
      expect(response.status).toBe(400);
      expect((await api.get('_table/thing')).body.resource).toHaveLength(2);
    });

    it('keeps *, names in any case and * next to names', async () => {
      expect((await api.get('_table/thing', { fields: '*' })).body.resource[0]).toEqual({ id: 1, label: 'one' });
      expect((await api.get('_table/thing', { fields: 'LABEL' })).body.resource[0]).toEqual({ label: 'one' });
      expect((await api.get('_table/thing', { fields: '*,label' })).body.resource[0]).toEqual({ id: 1, label: 'one' });
      expect((await api.get('_table/thing/1', { fields: '*,id' })).body).toEqual({ id: 1, label: 'one' });
    });
  });
});
