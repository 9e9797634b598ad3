import { describe, expect, it } from 'vitest';
import { parseConfig } from '#generator/config/load-config.js';
import { buildModel, serviceModels, type IntrospectionSnapshot } from '#generator/model/build-model.js';
import { checkModel } from '#generator/model/model-checks.js';
import { formatDiagnostic } from '#generator/diagnostics.js';
import type {
  FieldModel,
  ServiceModel,
  SoapOperationModel,
  SoapServiceModel,
  SqlServiceModel,
  TableModel,
} from '#runtime/model/platform-model.js';
import { fixtureRegistry } from '../config/fixture-kinds.js';

function field(name: string, type: FieldModel['type'] = 'integer'): FieldModel {
  return {
    name,
    sourceName: name,
    label: name,
    type,
    dbType: type === 'integer' ? 'integer' : 'text',
    length: null,
    precision: null,
    scale: null,
    default: null,
    allowNull: true,
    isPrimaryKey: name === 'id',
    autoIncrement: false,
    isUnique: false,
    isForeignKey: false,
    refTable: null,
    refField: null,
  };
}

function table(name: string, fields: FieldModel[], relations: TableModel['relations'] = []): TableModel {
  return {
    name,
    sourceName: name,
    sourceSchema: 'public',
    label: name,
    description: '',
    isView: false,
    primaryKey: ['id'],
    fields,
    foreignKeys: [],
    uniqueKeys: [],
    relations,
  };
}

function operation(sourceName: string): SoapOperationModel {
  return {
    name: sourceName,
    sourceName,
    description: '',
    style: 'document',
    use: 'literal',
    soapAction: '',
    soapVersions: ['1.1'],
    input: { wrapper: null, schema: { type: 'object' } },
    output: null,
    simpleInput: true,
  };
}

const tables = [
  table('customer', [field('id'), field('name', 'string'), field('owner_id')]),
  table(
    'orders',
    [field('id'), field('customer_id'), field('total'), field('owner_id')],
    [
      {
        name: 'customer_by_customer_id',
        type: 'belongs_to',
        field: ['customer_id'],
        refTable: 'customer',
        refField: ['id'],
        junctionTable: null,
        junctionField: null,
        junctionRefField: null,
      },
    ],
  ),
];

/** What introspection would find: a PostgreSQL database with two tables and two routines, a WSDL with two operations. */
function snapshot(yamlConfig: ReturnType<typeof parseConfig>['config']): IntrospectionSnapshot {
  const services: Record<string, ServiceModel> = {};
  for (const service of serviceModels(yamlConfig)) {
    if (service.name === 'shop') {
      const sql: SqlServiceModel = {
        ...service,
        kind: 'sql',
        dialect: 'postgres',
        schema: {
          tables,
          routines: [
            { name: 'restock', sourceName: 'restock', kind: 'procedure', returnType: null, params: [] },
            { name: 'total_of', sourceName: 'total_of', kind: 'function', returnType: 'numeric', params: [] },
          ],
        },
      };
      services.shop = sql;
    }
    if (service.name === 'weather') {
      const soap: SoapServiceModel = {
        ...service,
        kind: 'soap',
        wsdl: 'weather.wsdl',
        endpoints: {},
        definitions: {},
        warnings: [],
        operations: [operation('GetWeather'), operation('Get_Forecast')],
      };
      services.weather = soap;
    }
  }
  return { services };
}

const SERVICES = [
  'platform: { name: demo }',
  'services:',
  '  - { name: shop, type: pgsql, config: { database: shop } }',
  '  - { name: weather, type: soap, config: { wsdl: weather.wsdl } }',
  'roles:',
  '  - name: clerk',
  '    grants:',
];

function problems(grants: string[], options: { unavailable?: Set<string> } = {}): string[] {
  const { config, source } = parseConfig([...SERVICES, ...grants, ''].join('\n'), 'platform.yaml', { env: {}, kinds: fixtureRegistry });
  return checkModel(buildModel(config, snapshot(config)), config, source, options).map(formatDiagnostic);
}

describe('checkModel: grants', () => {
  it('accepts what exists, named in any case, and wildcards that match', () => {
    expect(
      problems([
        '      - { service: shop, component: "*" }',
        '      - { service: shop, component: "" }',
        '      - { service: shop, component: _table }',
        '      - { service: shop, component: "_table/*" }',
        '      - { service: shop, component: _table/Customer }',
        '      - { service: shop, component: "/_table/orders/" }',
        '      - { service: shop, component: "_table/orders/*" }',
        '      - { service: shop, component: _table/orders/5 }',
        '      - { service: shop, component: "_table/ord*" }',
        '      - { service: shop, component: _schema/new_table }',
        '      - { service: shop, component: "_proc/*" }',
        '      - { service: shop, component: _proc/restock }',
        '      - { service: shop, component: _func/total_of }',
        '      - { service: weather, component: GetWeather }',
        '      - { service: weather, component: getweather }',
        '      - { service: weather, component: getforecast }',
        '      - { service: weather, component: Get_Forecast }',
        '      - { service: weather, component: "get*" }',
        '      - { service: "*", component: "*" }',
        '      - { service: files, component: "some/dir/*" }',
      ]),
    ).toEqual([]);
  });

  it('reports missing tables, routines, resources and operations with did-you-mean', () => {
    expect(
      problems([
        '      - { service: shop, component: _table/custmer }',
        '      - { service: shop, component: _tabel/orders }',
        '      - { service: shop, component: "_table/x*" }',
        '      - { service: shop, component: _proc/restok }',
        '      - { service: shop, component: _func/restock }',
        '      - { service: weather, component: GetWether }',
        '      - { service: weather, component: "set*" }',
      ]),
    ).toEqual([
      "platform.yaml:8:37: Unknown table 'custmer' in roles[0].grants[0] (role 'clerk'): service 'shop' has no such table. Did you mean 'customer'? [PCO202]",
      "platform.yaml:9:37: Unknown resource '_tabel' in roles[0].grants[1] (role 'clerk'): a component of service 'shop' starts with '_table', '_schema', '_proc' or '_func'. Did you mean '_table'? [PCO202]",
      "platform.yaml:10:37: '_table/x*' in roles[0].grants[2] (role 'clerk') matches nothing in service 'shop'. [PCO202]",
      "platform.yaml:11:37: Unknown procedure 'restok' in roles[0].grants[3] (role 'clerk'): service 'shop' has no such procedure. Did you mean 'restock'? [PCO202]",
      "platform.yaml:12:37: Unknown function 'restock' in roles[0].grants[4] (role 'clerk'): service 'shop' has no such function. [PCO202]",
      "platform.yaml:13:40: Unknown operation 'getwether' in roles[0].grants[5] (role 'clerk'): service 'weather' has no such operation. Did you mean 'GetWeather'? [PCO202]",
      "platform.yaml:14:40: 'set*' in roles[0].grants[6] (role 'clerk') matches no operation of service 'weather'. [PCO202]",
    ]);
  });

  it('leaves the grants of a service whose introspection failed alone (that failure is reported)', () => {
    expect(problems(['      - { service: shop, component: _table/custmer }'], { unavailable: new Set(['shop']) })).toEqual([]);
  });
});

describe('checkModel: row filters', () => {
  it('accepts columns of every covered table, related fields, lookups and typed values', () => {
    expect(
      problems([
        '      - service: shop',
        '        component: "_table/*"',
        '        filters:',
        '          - { name: owner_id, operator: "=", value: "{user.id}" }',
        '          - { name: id, operator: in, value: "(1, 2)" }',
        '      - service: shop',
        '        component: _table/orders',
        '        filters:',
        '          - { name: customer_by_customer_id.name, operator: like, value: "A%" }',
        '          - { name: total, operator: ">", value: 10 }',
      ]),
    ).toEqual([]);
  });

  it('reports missing columns, invalid filters and values the column cannot take, each at its place', () => {
    expect(
      problems([
        '      - service: shop',
        '        component: _table/orders',
        '        filters:',
        '          - { name: totl, operator: ">", value: 1 }',
        '          - { name: id, operator: in, value: "(1,,2)" }',
        '          - { name: id, operator: ">", value: "null" }',
        '          - { name: id, operator: ">", value: abc }',
        '          - { name: customer_by_customer_id.nme, operator: "=", value: x }',
        '      - service: shop',
        '        component: "*"',
        '        filters:',
        '          - { name: customer_id, operator: "=", value: 1 }',
        '      - service: "*"',
        '        filters:',
        '          - { name: ownr_id, operator: "=", value: 1 }',
      ]),
    ).toEqual([
      "platform.yaml:11:21: Row filter field 'totl' in roles[0].grants[0] (role 'clerk') is not a column of table 'orders' of service 'shop'. Did you mean 'total'? [PCO203]",
      "platform.yaml:12:46: Row filter 'id in (1,,2)' in roles[0].grants[0] (role 'clerk') is invalid: the list has an empty item. [PCO204]",
      "platform.yaml:13:47: Row filter 'id > null' in roles[0].grants[0] (role 'clerk') is invalid: null can only be compared with = or !=, not >. [PCO204]",
      "platform.yaml:14:47: Row filter 'id > abc' in roles[0].grants[0] (role 'clerk') cannot apply to table 'orders' of service 'shop': Field 'id' must be a valid integer. [PCO204]",
      "platform.yaml:15:21: Row filter field 'customer_by_customer_id.nme' in roles[0].grants[0] (role 'clerk') is not a column of table 'orders' of service 'shop'. [PCO203]",
      "platform.yaml:19:21: Row filter field 'customer_id' in roles[0].grants[1] (role 'clerk') is not a column of table 'customer' of service 'shop'. [PCO203]",
      "platform.yaml:22:21: Row filter field 'ownr_id' in roles[0].grants[2] (role 'clerk') is not a column of tables 'shop.customer', 'shop.orders', which the grant covers. [PCO203]",
    ]);
  });
});
