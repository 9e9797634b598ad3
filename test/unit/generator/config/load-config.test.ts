import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, missingEnvDiagnostics, parseConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';
import { fixtureRegistry } from './fixture-kinds.js';

const KEY = 'ab'.repeat(32);

function parse(text: string, env: Record<string, string> = {}) {
  return parseConfig(text, 'platform.yaml', { env, kinds: fixtureRegistry }).config;
}

/** The formatted diagnostics of a config that must fail. */
function problems(text: string, env: Record<string, string> = {}): string[] {
  try {
    parse(text, env);
  } catch (error) {
    if (error instanceof DiagnosticError) return error.diagnostics.map(formatDiagnostic);
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

describe('parseConfig: valid configs', () => {
  it('fills every default of a minimal config and merges the built-ins', () => {
    const config = parse('platform:\n  name: demo\n');
    expect(config.platform).toEqual({ name: 'demo', title: 'demo', description: '' });
    expect(config.services.map((service) => [service.name, service.type, service.label])).toEqual([
      ['system', 'system', 'System Management'],
      ['api_docs', 'swagger', 'Live API Docs'],
      ['files', 'local_file', 'Local File Storage'],
      ['logs', 'local_file', 'Local Log Storage'],
      ['db', 'sqlite', 'Local SQL Database'],
      ['email', 'local_email', 'Local Email Service'],
      ['user', 'user', 'User Management'],
    ]);
    expect(config.services.find((service) => service.name === 'db')!.config).toEqual({ database: 'data/db.sqlite', max_records: 1000 });
    expect(config.apps.map((app) => [app.name, app.api_key, app.role])).toEqual([
      ['admin', null, null],
      ['api_docs', null, null],
      ['file_manager', null, null],
    ]);
    expect(config.roles).toEqual([]);
    expect(config.admins).toEqual([]);
    expect(config.system).toEqual({
      database: '.portico/system.sqlite',
      redis: { url: '' },
      session_ttl_minutes: 1440,
      jwt_secret: '${env:PORTICO_JWT_SECRET:-}',
      password_min_length: 16,
      allow_open_registration: false,
      open_registration_role: null,
      open_registration_app_roles: {},
      max_records: 1000,
    });
  });

  it('reads services, roles, apps, admins and system settings with the spec record fields', () => {
    const config = parse(`
platform: { name: shop, title: Shop, description: The shop }
services:
  - name: db
    label: Main database
    config: { database: data/main.sqlite }
  - name: crm
    label: CRM
    type: pgsql
    description: Customers
    is_active: false
    config: { database: crm, max_records: 50 }
  - name: orders
    type: sqlite
    config: { database: data/orders.sqlite }
roles:
  - name: reader
    description: Reads everything
    grants:
      - service: crm
        component: _table/*
        verbs: [GET]
        filters: [{ name: owner_id, operator: '=', value: 7 }]
      - service: '*'
apps:
  - name: web
    api_key: ${KEY}
    role: reader
  - name: admin
    label: Administration
admins:
  - email: ada@example.com
    password: a-long-enough-password
    first_name: Ada
    last_name: Lovelace
system:
  session_ttl_minutes: 60
  allow_open_registration: true
  open_registration_role: reader
  open_registration_app_roles: { web: reader }
`);
    expect(config.platform).toEqual({ name: 'shop', title: 'Shop', description: 'The shop' });
    expect(config.services.slice(4, 5)).toEqual([
      {
        name: 'db',
        label: 'Main database',
        type: 'sqlite',
        description: 'The embedded SQLite database.',
        is_active: true,
        config: { database: 'data/main.sqlite', max_records: 1000 },
      },
    ]);
    expect(config.services.slice(7)).toEqual([
      {
        name: 'crm',
        label: 'CRM',
        type: 'pgsql',
        description: 'Customers',
        is_active: false,
        config: { database: 'crm', max_records: 50 },
      },
      {
        name: 'orders',
        label: 'orders',
        type: 'sqlite',
        description: '',
        is_active: true,
        config: { database: 'data/orders.sqlite', max_records: 1000 },
      },
    ]);
    expect(config.roles).toEqual([
      {
        name: 'reader',
        description: 'Reads everything',
        is_active: true,
        grants: [
          {
            service: 'crm',
            component: '_table/*',
            verbs: ['GET'],
            requestor: ['api'],
            filters: [{ name: 'owner_id', operator: '=', value: 7 }],
            filter_op: 'and',
          },
          {
            service: '*',
            component: '*',
            verbs: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
            requestor: ['api'],
            filters: [],
            filter_op: 'and',
          },
        ],
      },
    ]);
    expect(config.apps.map((app) => [app.name, app.label, app.api_key, app.role])).toEqual([
      ['admin', 'Administration', null, null],
      ['api_docs', 'API Docs', null, null],
      ['file_manager', 'File Manager', null, null],
      ['web', 'web', KEY, 'reader'],
    ]);
    expect(config.admins).toEqual([
      { email: 'ada@example.com', password: 'a-long-enough-password', name: 'Ada Lovelace', first_name: 'Ada', last_name: 'Lovelace' },
    ]);
    expect(config.system).toMatchObject({
      session_ttl_minutes: 60,
      allow_open_registration: true,
      open_registration_role: 'reader',
      open_registration_app_roles: { web: 'reader' },
    });
  });

  it('lets the built-in db become another database type, keeping its id slot', () => {
    const config = parse('platform: { name: demo }\nservices:\n  - name: db\n    type: pgsql\n    config: { database: app }\n');
    expect(config.services[4]).toMatchObject({ name: 'db', type: 'pgsql', label: 'Local SQL Database', config: { database: 'app' } });
  });

  it('accepts an empty document only to report the missing platform section', () => {
    expect(problems('')).toEqual(["platform.yaml:1:1: Missing required key 'platform' in the top level. [PCO103]"]);
  });
});

describe('parseConfig: every problem at once', () => {
  it('reports schema, kind and cross-reference problems with positions and suggestions', () => {
    const text = [
      /*  1 */ 'platform:',
      /*  2 */ '  name: Demo',
      /*  3 */ '  titel: Demo',
      /*  4 */ 'servics: []',
      /*  5 */ 'services:',
      /*  6 */ '  - name: db',
      /*  7 */ '    lable: x',
      /*  8 */ '  - name: shop',
      /*  9 */ '    type: sqlit',
      /* 10 */ '  - name: crm',
      /* 11 */ '    type: sqlite',
      /* 12 */ '    is_active: yes',
      /* 13 */ '    config: { databse: crm.sqlite, max_records: many }',
      /* 14 */ '  - name: crm',
      /* 15 */ '    type: pgsql',
      /* 16 */ '    config: { database: crm }',
      /* 17 */ '  - name: files',
      /* 18 */ '    type: sqlite',
      /* 19 */ '    config: { database: x }',
      /* 20 */ '  - name: extra',
      /* 21 */ 'roles:',
      /* 22 */ '  - name: reader',
      /* 23 */ '    grants:',
      /* 24 */ '      - service: shopp',
      /* 25 */ '        verbs: [GET, PUTT]',
      /* 26 */ '        filter_op: AND',
      /* 27 */ '  - name: reader',
      /* 28 */ 'apps:',
      /* 29 */ '  - name: web',
      /* 30 */ '    role: readr',
      /* 31 */ '    api_key: not-a-key',
      /* 32 */ 'admins:',
      /* 33 */ '  - email: not-an-email',
      /* 34 */ '    password: short',
      /* 35 */ 'system:',
      /* 36 */ '  session_ttl_minutes: 0',
      /* 37 */ '  open_registration_role: writer',
      /* 38 */ '  open_registration_app_roles: { nosuch: reader, web: writer }',
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      "platform.yaml:2:9: platform.name must be lowercase letters, digits, '_' and '-', starting with a letter or digit. [PCO106]",
      "platform.yaml:3:3: Unknown key 'titel' in platform. Did you mean 'title'? [PCO102]",
      "platform.yaml:4:1: Unknown key 'servics' in the top level. Did you mean 'services'? [PCO102]",
      "platform.yaml:7:5: Unknown key 'lable' in services[0]. Did you mean 'label'? [PCO102]",
      "platform.yaml:9:11: Unknown service type 'sqlit'. Did you mean 'sqlite'? [PCO108]",
      'platform.yaml:12:16: services[2].is_active must be true or false, not a string. [PCO104]',
      "platform.yaml:13:15: Unknown key 'databse' in services[2].config (type sqlite). Did you mean 'database'? [PCO102]",
      'platform.yaml:13:49: services[2].config.max_records must be an integer, not a string. [PCO104]',
      "platform.yaml:14:11: Service name 'crm' is already used by services[2]. [PCO107]",
      "platform.yaml:18:11: The built-in service 'files' has type 'local_file'; an override may change its label, description, is_active and config, not its type. [PCO110]",
      "platform.yaml:20:5: Missing required key 'type' in services[5]. [PCO103]",
      "platform.yaml:24:18: Unknown service 'shopp' in roles[0].grants[0].service. Did you mean 'shop'? [PCO109]",
      "platform.yaml:25:22: 'PUTT' is not allowed for roles[0].grants[0].verbs[1]; use one of: 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'. Did you mean 'PUT'? [PCO105]",
      "platform.yaml:26:20: 'AND' is not allowed for roles[0].grants[0].filter_op; use one of: 'and', 'or'. Did you mean 'and'? [PCO105]",
      "platform.yaml:27:11: Role name 'reader' is already used by roles[0]. [PCO107]",
      "platform.yaml:30:11: Unknown role 'readr' in apps[0].role. Did you mean 'reader'? [PCO109]",
      'platform.yaml:31:14: apps[0].api_key must be 64 lowercase hex characters. [PCO106]',
      'platform.yaml:33:12: admins[0].email must be a valid email. [PCO106]',
      'platform.yaml:34:15: admins[0].password is shorter than system.password_min_length (16 characters). [PCO106]',
      'platform.yaml:36:24: system.session_ttl_minutes must be >= 1. [PCO106]',
      "platform.yaml:37:27: Unknown role 'writer' in system.open_registration_role. [PCO109]",
      "platform.yaml:38:42: Unknown app 'nosuch' in system.open_registration_app_roles. [PCO109]",
      "platform.yaml:38:55: Unknown role 'writer' in system.open_registration_app_roles.web. [PCO109]",
    ]);
  });

  it('checks declared limits: the services and roles they name, and what their type needs', () => {
    const text = [
      'platform: { name: demo }',
      'roles: [{ name: reader }]',
      'limits:',
      '  - { name: a, type: instance.service, rate: 5, service: shopp }',
      '  - { name: b, type: instance.role, rate: 5, role: readr }',
      '  - { name: c, type: instance.service.endpoint, rate: 5, service: db }',
      '  - { name: d, type: instance.user, rate: 5 }',
      '  - { name: e, type: instance.role, rate: 5, role: reader, period: hour }',
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      "platform.yaml:4:58: Unknown service 'shopp' in limits[0].service. [PCO109]",
      "platform.yaml:5:52: Unknown role 'readr' in limits[1].role. Did you mean 'reader'? [PCO109]",
      'platform.yaml:6:5: limits[2] of type instance.service.endpoint needs an endpoint. [PCO109]',
      "platform.yaml:7:22: 'instance.user' is not allowed for limits[3].type; use one of: 'instance', 'instance.each_user', 'instance.each_user.service', 'instance.service', 'instance.service.endpoint', 'instance.each_user.service.endpoint', 'instance.role'. Did you mean 'instance.role'? [PCO105]",
    ]);
  });

  it('refuses a built-in db of a non-database type', () => {
    expect(problems('platform: { name: demo }\nservices:\n  - name: db\n    type: soap\n    config: { wsdl: x.wsdl }\n')).toEqual([
      "platform.yaml:4:11: The built-in service 'db' must be a database; 'soap' is of group Remote Service. [PCO110]",
    ]);
  });

  it('refuses a system database URL of no kind Portico has (it was taken for a SQLite path), and takes a known scheme in any case', () => {
    const message = (scheme: string) =>
      `platform.yaml:3:13: system.database: '${scheme}://' is not a system database URL: give a postgres://, postgresql://, mysql:// or mariadb:// URL, or the path of a SQLite file. [PCO106]`;
    for (const scheme of ['postgress', 'sqlite', 'redis'])
      expect(problems(`platform: { name: demo }\nsystem:\n  database: ${scheme}://portico@db.internal/portico\n`)).toEqual([
        message(scheme),
      ]);
    for (const database of [
      'data/system.sqlite',
      'POSTGRES://portico@db.internal/portico',
      '${env:SYSTEM_DB}',
      'mariadb://${env:CRED}@db/p',
    ])
      expect(() => parse(`platform: { name: demo }\nsystem:\n  database: "${database}"\n`)).not.toThrow();
  });

  it('gives a code frame pointing at the column', () => {
    try {
      parse('platform:\n  name: demo\n  nmae: x\n');
      expect.unreachable();
    } catch (error) {
      expect((error as DiagnosticError).diagnostics[0]!.frame).toBe('   3 |   nmae: x\n     |   ^');
    }
  });

  it('reports YAML syntax errors: each duplicate key and the first other error', () => {
    expect(problems('platform:\n  name: a\n  name: b\n')).toEqual(['platform.yaml:3:3: Map keys must be unique. [PCO101]']);
    const [first, ...rest] = problems('platform: [a,\nservices: : x\n');
    expect(first).toMatch(/^platform\.yaml:2:1: .* \[PCO101\]$/);
    expect(rest).toEqual([]);
  });

  it('reports what plain data cannot hold, positioned: an alias bomb, an alias to no anchor, a list as a key, an unknown tag, a second document', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefghi')
      bomb.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(name.charCodeAt(0) - 1)}`)
          .join(', ')}]`,
      );
    expect(problems(`${bomb.join('\n')}\nplatform: { name: demo }\n`)).toEqual([
      'platform.yaml:2:8: Aliases expand too far (more than 100 expansions, as in an alias bomb); write the values out instead. [PCO101]',
    ]);
    expect(problems('platform:\n  name: demo\n  title: *nope\n')).toEqual([
      'platform.yaml:3:10: Alias *nope names no anchor &nope defined before it. [PCO101]',
    ]);
    expect(problems('platform:\n  name: demo\n  ? [a, b]\n  : c\n')).toEqual([
      'platform.yaml:3:5: A key must be a plain name, not a list or mapping. [PCO101]',
    ]);
    expect(problems('platform:\n  name: !foo demo\n')).toEqual(['platform.yaml:2:9: Unresolved tag: !foo. [PCO101]']);
    expect(problems('platform: { name: demo }\n---\nplatform: { name: other }\n')).toEqual([
      "platform.yaml:2:1: The file holds more than one YAML document (a second '---'); a platform is one document. [PCO101]",
    ]);
    // Aliases within reason expand as ever.
    expect(parse('platform: { name: demo, title: &t Demo, description: *t }\n').platform.description).toBe('Demo');
  });

  it('says in words what a hook entry must hold', () => {
    expect(problems('platform: { name: demo }\nhooks:\n  - { file: hooks/audit.js, export: audit-hooks }\n')).toEqual([
      'platform.yaml:3:13: hooks[0].file must name a TypeScript file (ending in .ts). [PCO106]',
      'platform.yaml:3:37: hooks[0].export must be a JavaScript identifier (default, or the name of a named export). [PCO106]',
    ]);
  });

  it('says that lists nest too deeply, and frames a long line around the column', () => {
    const [nested] = problems(`platform: { name: demo }\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(nested).toMatch(/^platform\.yaml:2:\d+: Lists or mappings nest too deeply here\. \[PCO101\]$/);
    try {
      parse(`platform: { name: demo, title: ${'y'.repeat(300)}, nmae: x }\n`);
      expect.unreachable();
    } catch (error) {
      expect((error as DiagnosticError).diagnostics[0]!.frame).toBe(`   1 | …${'y'.repeat(89)}, nmae: x }\n     | ${' '.repeat(92)}^`);
    }
  });

  it('hints at quoting an env reference inside a flow mapping', () => {
    expect(problems('platform: { name: demo, title: ${env:T} }\n')[0]).toContain('Quote values holding ${env:...} inside { } or [ ].');
  });
});

describe('parseConfig: ${env:NAME}', () => {
  const text = [
    'platform: { name: demo }',
    'services:',
    '  - name: crm',
    '    type: pgsql',
    '    config:',
    '      database: "postgres://app:${env:CRM_PASSWORD}@localhost/crm"',
    'apps:',
    '  - name: web',
    '    api_key: ${env:WEB_KEY}',
    '    description: ${env:WEB_DESCRIPTION:-The web shop}',
    '',
  ].join('\n');

  it('validates resolved values but keeps the references in the config', () => {
    const config = parse(text, { CRM_PASSWORD: 's3cret', WEB_KEY: KEY });
    expect(config.services.at(-1)!.config).toEqual({ database: 'postgres://app:${env:CRM_PASSWORD}@localhost/crm', max_records: 1000 });
    expect(config.apps.at(-1)).toMatchObject({ api_key: '${env:WEB_KEY}', description: '${env:WEB_DESCRIPTION:-The web shop}' });
    expect(JSON.stringify(config)).not.toContain('s3cret');
  });

  it('checks the resolved value against the schema, at the reference', () => {
    expect(problems(text, { CRM_PASSWORD: 'x', WEB_KEY: 'short' })).toEqual([
      'platform.yaml:9:14: apps[0].api_key must be 64 lowercase hex characters. [PCO106]',
    ]);
  });

  it('needs no variable to load: unset ones stay references, and what their empty value would break is not reported', () => {
    const config = parse(text);
    expect(config.services.at(-1)!.config).toEqual({ database: 'postgres://app:${env:CRM_PASSWORD}@localhost/crm', max_records: 1000 });
    expect(config.apps.at(-1)).toMatchObject({ api_key: '${env:WEB_KEY}' });
  });

  it('names the unset variables under a path (those introspection reads), at their references', () => {
    const { source } = parseConfig(text, 'platform.yaml', { env: {}, kinds: fixtureRegistry });
    expect(missingEnvDiagnostics(source, ['services', 0, 'config'], {}).map(formatDiagnostic)).toEqual([
      'platform.yaml:6:17: Environment variable CRM_PASSWORD is not set; the build needs it to read the service (set it, or write ${env:CRM_PASSWORD:-default}). [PCO111]',
    ]);
    expect(missingEnvDiagnostics(source, ['services', 0, 'config'], { CRM_PASSWORD: 'x' })).toEqual([]);
    expect(missingEnvDiagnostics(source, ['apps', 0], {}).map((diagnostic) => diagnostic.code)).toEqual(['PCO111']);
  });

  it('refuses malformed references instead of keeping them as literal text', () => {
    for (const value of ['${env:DB_PATH', '${env:}', '${env:A B}', 'x-${env:1X}', '${env:A:-${env:B}}'])
      expect(problems(`platform: { name: demo }\nservices:\n  - name: db\n    config:\n      database: "${value}"\n`)).toEqual([
        "platform.yaml:5:17: services[0].config.database holds a malformed ${env:...} reference; write ${env:NAME} or ${env:NAME:-default} (NAME: letters, digits and '_', not starting with a digit). [PCO106]",
      ]);
  });

  it('refuses references in names other entries refer to', () => {
    expect(problems('platform: { name: demo }\nroles:\n  - name: "${env:ROLE}"\n', { ROLE: 'reader' })).toEqual([
      'platform.yaml:3:11: roles[0].name must be written literally, without ${env:...}. [PCO106]',
    ]);
  });
});

describe('loadConfig', () => {
  it('reads a file, names it relative to cwd and returns the platform directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-config-'));
    fs.mkdirSync(path.join(dir, 'site'));
    fs.writeFileSync(path.join(dir, 'site', 'platform.yaml'), 'platform: { name: demo }\n');
    const loaded = await loadConfig('site/platform.yaml', { cwd: dir, kinds: fixtureRegistry, env: {} });
    expect(loaded.path).toBe(path.join(dir, 'site', 'platform.yaml'));
    expect(loaded.platformDir).toBe(path.join(dir, 'site'));
    expect(loaded.source.file).toBe(path.join('site', 'platform.yaml'));
    expect(loaded.config.platform.name).toBe('demo');
  });

  it('refuses a file that is not UTF-8, at its first foreign byte', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-config-'));
    const load = (bytes: Buffer) => {
      fs.writeFileSync(path.join(dir, 'platform.yaml'), bytes);
      return loadConfig('platform.yaml', { cwd: dir, kinds: fixtureRegistry, env: {} });
    };
    await expect(load(Buffer.from('platform:\n  name: demo\n  title: Caf\xe9\n', 'latin1'))).rejects.toThrow(
      'platform.yaml:3:13: The platform config is not UTF-8: byte 0xe9 cannot start or continue a character; save the file as UTF-8. [PCO100]',
    );
    await expect(load(Buffer.from('\ufeffplatform: { name: demo }\n', 'utf16le'))).rejects.toThrow(
      'platform.yaml: The platform config is UTF-16; save it as UTF-8. [PCO100]',
    );
    // UTF-8 with a byte order mark, and a U+FFFD written in the file, are UTF-8.
    expect((await load(Buffer.from('\ufeffplatform: { name: demo, title: "\ufffd" }\n', 'utf8'))).config.platform.title).toBe('\ufffd');
  });

  it('refuses a directory and a file beyond 16 MiB before reading it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-config-'));
    fs.mkdirSync(path.join(dir, 'site.yaml'));
    await expect(loadConfig('site.yaml', { cwd: dir, kinds: fixtureRegistry })).rejects.toThrow(
      'site.yaml: Cannot read the platform config: it is a directory. [PCO100]',
    );
    fs.writeFileSync(path.join(dir, 'platform.yaml'), `platform: { name: demo, description: "${'x'.repeat(17 * 2 ** 20)}" }\n`);
    await expect(loadConfig('platform.yaml', { cwd: dir, kinds: fixtureRegistry })).rejects.toThrow(
      'platform.yaml: The platform config is 17.0 MiB; it may be at most 16 MiB. [PCO100]',
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports a missing file as a diagnostic', async () => {
    await expect(loadConfig('nowhere/platform.yaml', { cwd: os.tmpdir(), kinds: fixtureRegistry })).rejects.toThrow(
      'nowhere/platform.yaml: Cannot read the platform config: no such file. [PCO100]',
    );
  });
});
