import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { serverConnection, type ServerDefaults } from '#runtime/services/sql/dialects/server-config.js';
import { getServiceKind } from '#runtime/services/registry.js';
import { parseConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';

const PG: ServerDefaults = { schemes: ['postgres', 'postgresql'], port: 5432, username: 'postgres' };

describe('serverConnection', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'the reference platform fields',
      { host: 'db.local', port: 6543, database: 'shop', username: 'ann', password: 's3cret' },
      {
        host: 'db.local',
        port: 6543,
        database: 'shop',
        username: 'ann',
        password: 's3cret',
        maxConnections: 10,
        connectTimeoutMs: 10_000,
        statementTimeoutMs: 30_000,
      },
    ],
    ['defaults', { database: 'shop' }, { host: 'localhost', port: 5432, database: 'shop', username: 'postgres', password: '' }],
    [
      'a port from an env reference is a string',
      { database: 'shop', port: '7000', max_connections: '3', connection_timeout: '2', statement_timeout: '5' },
      { port: 7000, maxConnections: 3, connectTimeoutMs: 2000, statementTimeoutMs: 5000 },
    ],
    ['statement_timeout 0 is no limit', { database: 'shop', statement_timeout: 0 }, { statementTimeoutMs: 0 }],
    [
      'a url',
      { url: 'postgresql://bob:p%40ss@pg.local:5433/sales' },
      { host: 'pg.local', port: 5433, database: 'sales', username: 'bob', password: 'p@ss' },
    ],
    [
      'a url leaving parts to the fields',
      { url: 'postgres://pg.local/sales', username: 'carl' },
      { host: 'pg.local', port: 5432, username: 'carl' },
    ],
  ])('%s', (_name, config, want) => {
    expect(serverConnection(config, PG)).toMatchObject(want);
  });

  it.each<[Record<string, unknown>, string]>([
    [{}, "Database service config needs 'database' (or a 'url' naming one)."],
    [{ url: 'mysql://x/y' }, "Database service config 'url' must start with postgres:// or postgresql://."],
    [{ url: 'not a url' }, "Database service config 'url' is not a valid URL."],
    [{ database: 'x', port: 'abc' }, "Database service config 'port' must be a positive integer."],
    [{ database: 'x', connection_timeout: 0 }, "Database service config 'connection_timeout' must be a positive integer."],
    [{ database: 'x', statement_timeout: -1 }, "Database service config 'statement_timeout' must be a whole number."],
    [{ database: 'x', statement_timeout: 'soon' }, "Database service config 'statement_timeout' must be a whole number."],
    // Each threw a bare URIError at service open.
    [{ url: 'postgres://b%zzb:pw@h/db' }, "Database service config 'url' has a malformed percent-escape in its user name"],
    [{ url: 'postgres://bob:p%ss@h/db' }, "Database service config 'url' has a malformed percent-escape in its password"],
    [{ url: 'postgres://bob:p%FFss@h/db' }, "Database service config 'url' has a malformed percent-escape in its password"],
    [{ url: 'postgres://bob@h/sales%' }, "Database service config 'url' has a malformed percent-escape in its database name"],
  ])('refuses %j with a 500 naming the key', (config, message) => {
    expect(() => serverConnection(config, PG)).toThrow(message);
  });
});

describe('the pgsql and mysql kinds', () => {
  it.each(['pgsql', 'mysql'])('%s: registered in the Database group, its config schema needs a url or a database', (type) => {
    const kind = getServiceKind(type);
    expect(kind).toMatchObject({ type, group: 'Database' });
    const validate = new Ajv({ useDefaults: true, allowUnionTypes: true, strict: false }).compile(kind!.configSchema);
    const config: Record<string, unknown> = { host: 'h', database: 'd', username: 'u', password: '${env:PW}', port: '${env:PORT}' };
    expect(validate(config)).toBe(true);
    expect(config).toMatchObject({ max_records: 1000, allow_upsert: false, keep_case: false });
    expect(validate({ url: 'x://y' })).toBe(true);
    expect(validate({ host: 'h' })).toBe(false);
  });

  it.each(['pgsql', 'mysql'])('%s: a statement_timeout that is not a whole number of seconds is a build error at its line', (type) => {
    const text = (value: string) =>
      `platform: { name: demo }\nservices:\n  - name: sales\n    type: ${type}\n    config:\n      database: sales\n      statement_timeout: ${value}\n`;
    const problems = (value: string) => {
      try {
        parseConfig(text(value), 'platform.yaml', { env: { T: '12' } });
      } catch (error) {
        if (error instanceof DiagnosticError) return error.diagnostics.map(formatDiagnostic);
        throw error;
      }
      return [];
    };
    expect(problems('-1')).toEqual(['platform.yaml:7:26: services[0].config.statement_timeout must be >= 0. [PCO106]']);
    expect(problems('soon')).toEqual([
      'platform.yaml:7:26: services[0].config.statement_timeout must be a whole number of seconds or an ${env:NAME} reference. [PCO106]',
    ]);
    expect(problems('2.5')).toEqual([
      'platform.yaml:7:26: services[0].config.statement_timeout must be an integer or a string, not a number. [PCO104]',
    ]);
    expect(problems('0')).toEqual([]);
    expect(problems('${env:T}')).toEqual([]);
  });

  it.each(['pgsql', 'mysql'])('%s: max_connections and connection_timeout of 0 or less are build errors at their line', (type) => {
    const problems = (key: string, value: string) => {
      const text = `platform: { name: demo }\nservices:\n  - name: sales\n    type: ${type}\n    config:\n      database: sales\n      ${key}: ${value}\n`;
      try {
        parseConfig(text, 'platform.yaml', { env: { N: '3' } });
      } catch (error) {
        if (error instanceof DiagnosticError) return error.diagnostics.map(formatDiagnostic);
        throw error;
      }
      return [];
    };
    for (const key of ['max_connections', 'connection_timeout']) {
      const column = 9 + key.length;
      expect(problems(key, '0')).toEqual([`platform.yaml:7:${column}: services[0].config.${key} must be >= 1. [PCO106]`]);
      expect(problems(key, '-5')).toEqual([`platform.yaml:7:${column}: services[0].config.${key} must be >= 1. [PCO106]`]);
      expect(problems(key, "'0'")).toEqual([
        `platform.yaml:7:${column}: services[0].config.${key} must be a positive whole number or an \${env:NAME} reference. [PCO106]`,
      ]);
      expect(problems(key, 'many')).toEqual([
        `platform.yaml:7:${column}: services[0].config.${key} must be a positive whole number or an \${env:NAME} reference. [PCO106]`,
      ]);
      expect(problems(key, '4')).toEqual([]);
      expect(problems(key, "'4'")).toEqual([]);
      expect(problems(key, '${env:N}')).toEqual([]);
    }
  });

  it.each(['pgsql', 'mysql'])('%s: a url with a percent sign that starts no escape is a build error at its line', (type) => {
    const scheme = type === 'pgsql' ? 'postgres' : 'mysql';
    const text = `platform: { name: demo }\nservices:\n  - name: sales\n    type: ${type}\n    config:\n      url: ${scheme}://bob:p%ss@h/sales\n`;
    let problems: string[] = [];
    try {
      parseConfig(text, 'platform.yaml', { env: {} });
    } catch (error) {
      if (!(error instanceof DiagnosticError)) throw error;
      problems = error.diagnostics.map(formatDiagnostic);
    }
    expect(problems).toEqual([
      "platform.yaml:6:12: services[0].config.url must write '%' as %25: each '%' starts an escape of two hex digits. [PCO106]",
    ]);
  });

  it('pgsql takes a schema', () => {
    expect(getServiceKind('pgsql')!.configSchema).toHaveProperty('properties.schema');
    expect(getServiceKind('mysql')!.configSchema).not.toHaveProperty('properties.schema');
  });
});
