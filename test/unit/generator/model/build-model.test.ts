import { describe, expect, it } from 'vitest';
import { parseConfig } from '#generator/config/load-config.js';
import { buildModel, serviceModels, type IntrospectionSnapshot } from '#generator/model/build-model.js';
import type { FieldModel, SqlServiceModel, TableModel } from '#runtime/model/platform-model.js';
import { fixtureRegistry } from '../config/fixture-kinds.js';

const config = parseConfig(
  `
platform: { name: shop, title: Shop }
services:
  - name: orders
    type: sqlite
    config: { database: data/orders.sqlite }
  - name: db
    label: Main
  - name: crm
    type: pgsql
    config: { database: "postgres://app:\${env:CRM_PASSWORD}@localhost/crm" }
roles:
  - name: writer
    grants: [{ service: orders, verbs: [GET, POST], filters: [{ name: owner, operator: '=', value: 7 }], filter_op: or }]
  - name: auditor
apps:
  - name: web
    role: writer
  - name: admin
    api_key: \${env:ADMIN_KEY}
  - name: backoffice
admins:
  - email: ada@example.com
    password: \${env:ADA_PASSWORD}
system:
  database: postgres://portico@localhost/system
`,
  'platform.yaml',
  { env: { CRM_PASSWORD: 'x', ADMIN_KEY: 'c'.repeat(64), ADA_PASSWORD: 'p'.repeat(20) }, kinds: fixtureRegistry },
).config;

const empty: IntrospectionSnapshot = { services: {} };

function field(name: string): FieldModel {
  return {
    name,
    sourceName: name,
    label: name,
    type: 'integer',
    dbType: 'integer',
    length: null,
    precision: null,
    scale: null,
    default: null,
    allowNull: false,
    isPrimaryKey: name === 'id',
    autoIncrement: false,
    isUnique: false,
    isForeignKey: false,
    refTable: null,
    refField: null,
  };
}

function table(name: string): TableModel {
  return {
    name,
    sourceName: name,
    sourceSchema: null,
    label: name,
    description: '',
    isView: false,
    primaryKey: ['id'],
    fields: [field('id'), field('b'), field('a')],
    foreignKeys: [
      { name: 'fk_z', fields: ['b'], refTable: 'x', refFields: ['id'], onUpdate: 'no action', onDelete: 'cascade' },
      { name: 'fk_a', fields: ['a'], refTable: 'y', refFields: ['id'], onUpdate: 'no action', onDelete: 'no action' },
    ],
    uniqueKeys: [['b'], ['a', 'b']],
    relations: [],
  };
}

describe('serviceModels', () => {
  it('numbers built-ins 1-7 and declared services from 8 in declaration order', () => {
    expect(serviceModels(config).map((service) => [service.id, service.name, service.type, service.origin])).toEqual([
      [1, 'system', 'system', 'builtin'],
      [2, 'api_docs', 'swagger', 'builtin'],
      [3, 'files', 'local_file', 'builtin'],
      [4, 'logs', 'local_file', 'builtin'],
      [5, 'db', 'sqlite', 'builtin'],
      [6, 'email', 'local_email', 'builtin'],
      [7, 'user', 'user', 'builtin'],
      [8, 'orders', 'sqlite', 'platform'],
      [9, 'crm', 'pgsql', 'platform'],
    ]);
  });
});

describe('buildModel', () => {
  const model = buildModel(config, empty);

  it('keeps the declared fields of services, env references unresolved', () => {
    expect(model.services[4]).toEqual({
      id: 5,
      name: 'db',
      label: 'Main',
      type: 'sqlite',
      description: 'The embedded SQLite database.',
      is_active: true,
      config: { database: 'data/db.sqlite', max_records: 1000 },
      origin: 'builtin',
      kind: 'plain',
    });
    expect(model.services[8]!.config).toEqual({ database: 'postgres://app:${env:CRM_PASSWORD}@localhost/crm', max_records: 1000 });
  });

  it('sorts roles by name and maps grants to the model', () => {
    expect(model.roles.map((role) => role.name)).toEqual(['auditor', 'writer']);
    expect(model.roles[1]).toEqual({
      name: 'writer',
      description: '',
      is_active: true,
      origin: 'platform',
      grants: [
        {
          service: 'orders',
          component: '*',
          verbs: ['GET', 'POST'],
          requestor: ['api'],
          filters: [{ name: 'owner', operator: '=', value: '7' }],
          filterOp: 'or',
        },
      ],
    });
  });

  it('lists the built-in apps first, then the declared ones by name', () => {
    expect(model.apps.map((app) => [app.name, app.origin, app.apiKey, app.role])).toEqual([
      ['admin', 'builtin', '${env:ADMIN_KEY}', null],
      ['api_docs', 'builtin', null, null],
      ['file_manager', 'builtin', null, null],
      ['backoffice', 'platform', null, null],
      ['web', 'platform', null, 'writer'],
    ]);
  });

  it('seeds administrators and maps the settings', () => {
    expect(model.admins).toEqual([
      { email: 'ada@example.com', password: '${env:ADA_PASSWORD}', name: 'ada@example.com', first_name: '', last_name: '' },
    ]);
    expect(model.settings).toEqual({
      systemDatabase: { type: 'pgsql', url: 'postgres://portico@localhost/system' },
      redisUrl: '',
      sessionTtlMinutes: 1440,
      jwtSecret: '${env:PORTICO_JWT_SECRET:-}',
      passwordMinLength: 16,
      allowOpenRegistration: false,
      openRegistrationRole: null,
      openRegistrationAppRoles: {},
      maxRecords: 1000,
    });
    expect(buildModel({ ...config, system: { ...config.system, database: 'data/system.sqlite' } }, empty).settings.systemDatabase).toEqual({
      type: 'sqlite',
      database: 'data/system.sqlite',
    });
    // A URL scheme in capitals is still that database's (it was a SQLite path named 'MariaDB:').
    expect(buildModel({ ...config, system: { ...config.system, database: 'MariaDB://p@db/sys' } }, empty).settings.systemDatabase).toEqual({
      type: 'mysql',
      url: 'MariaDB://p@db/sys',
    });
  });

  it('takes introspected services, sorted again, with the declared fields winning', () => {
    const introspected: SqlServiceModel = {
      ...serviceModels(config)[7]!,
      label: 'stale label',
      kind: 'sql',
      dialect: 'sqlite',
      schema: { tables: [table('zeta'), table('Alpha'), table('beta')], routines: [] },
    };
    const built = buildModel(config, { services: { orders: introspected } });
    const orders = built.services[7] as SqlServiceModel;
    expect(orders).toMatchObject({ id: 8, name: 'orders', label: 'orders', kind: 'sql', dialect: 'sqlite' });
    expect(orders.schema.tables.map((t) => t.name)).toEqual(['Alpha', 'beta', 'zeta']);
    expect(orders.schema.tables[0]!.fields.map((f) => f.name)).toEqual(['id', 'b', 'a']);
    expect(orders.schema.tables[0]!.foreignKeys.map((fk) => fk.name)).toEqual(['fk_a', 'fk_z']);
    expect(orders.schema.tables[0]!.uniqueKeys).toEqual([['a', 'b'], ['b']]);
  });

  it('is deterministic and JSON-serialisable', () => {
    const again = buildModel(config, empty);
    expect(JSON.stringify(again)).toBe(JSON.stringify(model));
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });
});
