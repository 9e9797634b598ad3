/**
 * The services and apps every platform has (the spec's fresh install). An entry of platform.yaml
 * named like one of them overrides it instead of adding a service or app.
 */

export interface BuiltinService {
  id: number;
  name: string;
  type: string;
  label: string;
  description: string;
  config: Record<string, unknown>;
}

/** Built-in services in id order. Relative paths resolve against the platform directory. */
export const builtinServices: readonly BuiltinService[] = [
  {
    id: 1,
    name: 'system',
    type: 'system',
    label: 'System Management',
    description: 'Manages administrators, users, apps, services, roles and settings.',
    config: {},
  },
  { id: 2, name: 'api_docs', type: 'swagger', label: 'Live API Docs', description: 'OpenAPI documents of every service.', config: {} },
  {
    id: 3,
    name: 'files',
    type: 'local_file',
    label: 'Local File Storage',
    description: 'Files stored in a directory of the server.',
    config: { container: 'data/files' },
  },
  {
    id: 4,
    name: 'logs',
    type: 'local_file',
    label: 'Local Log Storage',
    description: 'Log files of the server.',
    config: { container: 'data/logs' },
  },
  {
    id: 5,
    name: 'db',
    type: 'sqlite',
    label: 'Local SQL Database',
    description: 'The embedded SQLite database.',
    config: { database: 'data/db.sqlite' },
  },
  {
    id: 6,
    name: 'email',
    type: 'local_email',
    label: 'Local Email Service',
    description: 'Writes each message as a file.',
    config: { directory: 'data/mail' },
  },
  {
    id: 7,
    name: 'user',
    type: 'user',
    label: 'User Management',
    description: 'Sessions, registration and passwords of regular users.',
    config: {},
  },
];

/** The built-in service whose type an entry may change (to another database type). */
export const RETYPABLE_BUILTIN = 'db';

/** Ids of services declared in platform.yaml start after the built-ins. */
export const FIRST_DECLARED_SERVICE_ID = 8;

export interface BuiltinApp {
  name: string;
  label: string;
  description: string;
}

/** Built-in apps in the order the model lists them. */
export const builtinApps: readonly BuiltinApp[] = [
  { name: 'admin', label: 'Admin', description: 'The administration app; its API key is the one administrators use.' },
  { name: 'api_docs', label: 'API Docs', description: 'The live API documentation.' },
  { name: 'file_manager', label: 'File Manager', description: 'Browses the file services.' },
];
