/**
 * The text of a starter platform.yaml (`gen init`): one service made from what introspection
 * found in an existing database or WSDL, a role that reads it and an app with that role, each
 * commented so that a new user can see what to change. Pure: the command does the I/O.
 */
import { stringify } from 'yaml';

export interface StarterSource {
  /** Service type: sqlite, pgsql, mysql or soap. */
  type: string;
  /** The service's name in the URL (`/api/v2/{name}`). */
  name: string;
  label: string;
  /** The service's config as written to the file (secrets as `${env:...}` references). */
  config: Record<string, unknown>;
  /** What introspection found: table names, or SOAP operation names. */
  found: string[];
  /** Environment variables the config refers to, with what each should hold. */
  environment: Array<{ name: string; holds: string }>;
}

const yamlValue = (value: unknown) => stringify(value, { lineWidth: 0 }).trimEnd();

/** A commented starter platform.yaml for `source`. */
export function starterPlatform(platformName: string, source: StarterSource): string {
  const database = source.type !== 'soap';
  const what = database ? 'tables' : 'operations';
  const config = yamlValue(source.config)
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
  const grants = database
    ? [
        `      - { service: ${source.name}, component: "_table/*", verbs: [GET] }`,
        `      - { service: ${source.name}, component: "_schema/*", verbs: [GET] }`,
      ]
    : [`      - { service: ${source.name}, component: "*", verbs: [GET, POST] }`];
  const lines = [
    '# Portico platform, written by `gen init`. Edit it, then:',
    '#   npx gen build platform.yaml   # generate ./server (commit it)',
    '#   npx gen serve platform.yaml   # build when stale and serve on http://127.0.0.1:8080',
    ...(source.environment.length > 0
      ? ['#', '# Set before building and serving:', ...source.environment.map(({ name, holds }) => `#   ${name}  ${holds}`)]
      : []),
    'platform:',
    `  name: ${yamlValue(platformName)}`,
    `  title: ${yamlValue(platformName)}`,
    '',
    'services:',
    `  # ${source.found.length} ${what} found${source.found.length > 0 ? ':' : '.'}`,
    ...wrapNames(source.found).map((line) => `  #   ${line}`),
    `  - name: ${yamlValue(source.name)}`,
    `    label: ${yamlValue(source.label)}`,
    `    type: ${source.type}`,
    '    config:',
    config,
    '',
    'roles:',
    `  # Grants name a service, a component (${database ? '"_table/contact", "_table/*", "_schema/*", "*"' : '"*" or an operation'}) and verbs;`,
    '  # row filters limit which records a role sees (see the README of Portico).',
    '  - name: reader',
    `    description: Reads the ${source.label} service.`,
    '    grants:',
    ...grants,
    '',
    'apps:',
    '  # Each app gets an API key at first start (printed, and listed by GET /api/v2/system/app).',
    '  - name: web',
    '    role: reader',
    '',
  ];
  return lines.join('\n');
}

/** Names in lines of at most ~90 characters. */
function wrapNames(names: string[]): string[] {
  const lines: string[] = [];
  let line = '';
  for (const name of names) {
    if (line !== '' && line.length + name.length + 2 > 90) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? name : `${line}, ${name}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Lines `gen init` adds to .gitignore: Portico's own state and Prisma's generated client. */
export const GITIGNORE_LINES = [
  '# Portico: system database, sessions and local mail; Prisma clients',
  '.portico/',
  'server/prisma/client/',
];
