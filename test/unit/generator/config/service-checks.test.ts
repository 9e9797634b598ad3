/** Service types and service configs as the runtime's registry declares them: "did you mean" for both. */
import { describe, expect, it } from 'vitest';
import { serviceKindRegistry } from '#generator/config/kind-registry.js';
import { parseConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';

function problems(services: string[]): string[] {
  try {
    parseConfig(['platform: { name: demo }', 'services:', ...services, ''].join('\n'), 'platform.yaml', {
      env: {},
      kinds: serviceKindRegistry,
    });
  } catch (error) {
    if (error instanceof DiagnosticError) return error.diagnostics.map(formatDiagnostic);
    throw error;
  }
  return [];
}

describe('service types', () => {
  it.each([
    ['postgres', 'pgsql'],
    ['PostgreSQL', 'pgsql'],
    ['postgresql', 'pgsql'],
    ['mariadb', 'mysql'],
    ['mysq', 'mysql'],
    ['sqlite3', 'sqlite'],
    ['sqlit', 'sqlite'],
  ])("suggests a registered type for '%s'", (written, type) => {
    expect(problems([`  - { name: shop, type: ${written}, config: { database: shop } }`])).toEqual([
      `platform.yaml:3:25: Unknown service type '${written}'. Did you mean '${type}'? [PCO108]`,
    ]);
  });

  it('suggests nothing for a name like no type', () => {
    expect(problems(['  - { name: shop, type: mongodb }'])).toEqual(["platform.yaml:3:25: Unknown service type 'mongodb'. [PCO108]"]);
  });
});

describe('service configs', () => {
  it('reports a misspelt key once, with did-you-mean, not also the key it misses', () => {
    expect(problems(['  - name: db', '    type: sqlite', '    config:', '      databse: data/db.sqlite'])).toEqual([
      "platform.yaml:6:7: Unknown key 'databse' in services[0].config (type sqlite). Did you mean 'database'? [PCO102]",
    ]);
  });

  it('checks the rest as if the misspelt keys were written as suggested', () => {
    expect(
      problems([
        '  - name: crm',
        '    type: mysql',
        '    config:',
        '      host: localhost',
        '      databse: crm',
        '      usernme: root',
        '      max_records: many',
        '      colour: blue',
      ]),
    ).toEqual([
      "platform.yaml:7:7: Unknown key 'databse' in services[0].config (type mysql). Did you mean 'database'? [PCO102]",
      "platform.yaml:8:7: Unknown key 'usernme' in services[0].config (type mysql). Did you mean 'username'? [PCO102]",
      'platform.yaml:9:20: services[0].config.max_records must be an integer, not a string. [PCO104]',
      "platform.yaml:10:7: Unknown key 'colour' in services[0].config (type mysql). [PCO102]",
    ]);
  });

  it('names the keys of which one is needed in one message', () => {
    expect(problems(['  - name: crm', '    type: pgsql', '    config:', '      host: localhost'])).toEqual([
      "platform.yaml:6:7: services[0].config needs 'url' or 'database'. [PCO103]",
    ]);
  });

  it('suggests within a SOAP config too, and accepts every declared key', () => {
    expect(problems(['  - { name: weather, type: soap, config: { wsdll: weather.wsdl } }'])).toEqual([
      "platform.yaml:3:44: Unknown key 'wsdll' in services[0].config (type soap). Did you mean 'wsdl'? [PCO102]",
    ]);
    expect(
      problems(['  - { name: weather, type: soap, config: { wsdl: weather.wsdl, cache_enabled: true, options: { cache_wsdl: memory } } }']),
    ).toEqual([]);
  });
});
