/**
 * Whether parsed JSON has the shape of a PlatformModel, as far as the runtime relies on it: a
 * model.json edited by hand (a service without a type, tables not an array, a field of a type
 * Portico does not have) is refused at start with where it is wrong, instead of a stack trace
 * from whichever part of the server first reads it. Checks structure and the closed sets of
 * values (kinds, dialects, field types, verbs), not what platform.yaml validation already checked.
 */
import { MODEL_FIELD_TYPES, MODEL_VERSION } from './platform-model.js';

const FIELD_TYPES: ReadonlySet<string> = new Set(MODEL_FIELD_TYPES);
const VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A wrong part of the model: where (a path such as `services[4].schema.tables`) and what is wrong. */
class ShapeProblem extends Error {}

type Json = Record<string, unknown>;

/** A value in a few words: `missing`, `null`, `an array`, `an object`, `string "abc"`, `number 2`. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

function fail(path: string, what: string): never {
  throw new ShapeProblem(`${path} ${what}`);
}

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `must be an object, not ${describe(value)}`);
  return value as Json;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, `must be an array, not ${describe(value)}`);
  return value;
}

function string(record: Json, key: string, path: string, nullable = false): void {
  const value = record[key];
  if (typeof value === 'string' || (nullable && value === null)) return;
  fail(`${path}.${key}`, value === undefined ? 'is missing' : `must be a string${nullable ? ' or null' : ''}, not ${describe(value)}`);
}

function nonEmpty(record: Json, key: string, path: string): string {
  string(record, key, path);
  if ((record[key] as string).trim() === '') fail(`${path}.${key}`, 'is empty');
  return record[key] as string;
}

function boolean(record: Json, key: string, path: string): void {
  const value = record[key];
  if (typeof value !== 'boolean')
    fail(`${path}.${key}`, value === undefined ? 'is missing' : `must be true or false, not ${describe(value)}`);
}

function number(record: Json, key: string, path: string): void {
  const value = record[key];
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail(`${path}.${key}`, value === undefined ? 'is missing' : `must be a number, not ${describe(value)}`);
}

function oneOf(record: Json, key: string, path: string, allowed: readonly string[] | ReadonlySet<string>): void {
  const value = record[key];
  const list = [...allowed];
  if (typeof value !== 'string' || !list.includes(value))
    fail(`${path}.${key}`, value === undefined ? 'is missing' : `is ${describe(value)}, not one of ${list.join(', ')}`);
}

function strings(record: Json, key: string, path: string): void {
  for (const [index, item] of array(record[key], `${path}.${key}`).entries()) {
    if (typeof item !== 'string') fail(`${path}.${key}[${index}]`, `must be a string, not ${describe(item)}`);
  }
}

/** Each element of an array, as an object with its path. */
function each(record: Json, key: string, path: string, check: (item: Json, path: string) => void, optional = false): void {
  if (optional && record[key] === undefined) return;
  for (const [index, item] of array(record[key], `${path}.${key}`).entries()) {
    const at = `${path}.${key}[${index}]`;
    check(object(item, at), at);
  }
}

function field(f: Json, path: string): void {
  nonEmpty(f, 'name', path);
  string(f, 'sourceName', path);
  const type = f.type;
  if (typeof type !== 'string' || !FIELD_TYPES.has(type))
    fail(
      `${path}.type`,
      type === undefined ? 'is missing' : `is ${describe(type)}, not a field type of Portico (string, integer, datetime, ...)`,
    );
  string(f, 'dbType', path);
  for (const key of ['allowNull', 'isPrimaryKey', 'autoIncrement', 'isUnique', 'isForeignKey']) boolean(f, key, path);
  if (f.picklist !== undefined) strings(f, 'picklist', path);
}

function table(t: Json, path: string): void {
  nonEmpty(t, 'name', path);
  string(t, 'sourceName', path);
  string(t, 'sourceSchema', path, true);
  boolean(t, 'isView', path);
  strings(t, 'primaryKey', path);
  each(t, 'fields', path, field);
  each(t, 'foreignKeys', path, (k, at) => {
    string(k, 'name', at);
    strings(k, 'fields', at);
    string(k, 'refTable', at);
    strings(k, 'refFields', at);
  });
  for (const [index, key] of array(t.uniqueKeys, `${path}.uniqueKeys`).entries()) {
    for (const [i, name] of array(key, `${path}.uniqueKeys[${index}]`).entries()) {
      if (typeof name !== 'string') fail(`${path}.uniqueKeys[${index}][${i}]`, `must be a string, not ${describe(name)}`);
    }
  }
  each(t, 'relations', path, (r, at) => {
    nonEmpty(r, 'name', at);
    oneOf(r, 'type', at, ['belongs_to', 'has_many', 'has_one', 'many_many']);
    strings(r, 'field', at);
    string(r, 'refTable', at);
    strings(r, 'refField', at);
  });
}

function service(s: Json, path: string, isServiceType: (type: string) => boolean): void {
  number(s, 'id', path);
  nonEmpty(s, 'name', path);
  const type = nonEmpty(s, 'type', path);
  if (!isServiceType(type)) fail(`${path}.type`, `'${type}' is not a service type of this Portico`);
  boolean(s, 'is_active', path);
  object(s.config, `${path}.config`);
  oneOf(s, 'kind', path, ['sql', 'plain', 'soap', 'custom']);
  if (s.kind === 'sql') {
    oneOf(s, 'dialect', path, ['sqlite', 'postgres', 'mysql']);
    const schema = object(s.schema, `${path}.schema`);
    each(schema, 'tables', `${path}.schema`, table);
    each(schema, 'routines', `${path}.schema`, (r, at) => {
      nonEmpty(r, 'name', at);
      string(r, 'sourceName', at);
      oneOf(r, 'kind', at, ['procedure', 'function']);
      each(r, 'params', at, (p, pat) => {
        string(p, 'name', pat);
        oneOf(p, 'mode', pat, ['IN', 'OUT', 'INOUT']);
      });
    });
  } else if (s.kind === 'soap') {
    string(s, 'wsdl', path);
    object(s.endpoints, `${path}.endpoints`);
    object(s.definitions, `${path}.definitions`);
    each(s, 'operations', path, (o, at) => {
      nonEmpty(o, 'name', at);
      string(o, 'sourceName', at);
      object(o.input, `${at}.input`);
    });
  } else if (s.kind === 'custom') {
    each(s, 'routes', path, (r, at) => {
      oneOf(r, 'method', at, VERBS);
      string(r, 'path', at);
    });
  }
}

function settings(s: Json, path: string): void {
  const database = object(s.systemDatabase, `${path}.systemDatabase`);
  oneOf(database, 'type', `${path}.systemDatabase`, ['sqlite', 'pgsql', 'mysql']);
  string(database, database.type === 'sqlite' ? 'database' : 'url', `${path}.systemDatabase`);
  if (s.redisUrl !== undefined) string(s, 'redisUrl', path);
  number(s, 'sessionTtlMinutes', path);
  string(s, 'jwtSecret', path);
  number(s, 'passwordMinLength', path);
  boolean(s, 'allowOpenRegistration', path);
  string(s, 'openRegistrationRole', path, true);
  object(s.openRegistrationAppRoles, `${path}.openRegistrationAppRoles`);
  number(s, 'maxRecords', path);
}

/**
 * What is wrong with `data` as a PlatformModel, in a few words with where (`services[4].type is
 * missing`), or null when the runtime can serve it. `isServiceType` says which service types this
 * runtime has.
 */
export function modelShapeProblem(data: unknown, isServiceType: (type: string) => boolean): string | null {
  try {
    const model = object(data, 'the model');
    if (model.modelVersion !== MODEL_VERSION)
      fail('modelVersion', `is ${describe(model.modelVersion)}; this Portico serves models of version ${MODEL_VERSION}`);
    const platform = object(model.platform, 'platform');
    nonEmpty(platform, 'name', 'platform');
    string(platform, 'title', 'platform');
    const root = { ...model };
    each(root, 'services', '', (s, at) => service(s, at, isServiceType));
    each(root, 'roles', '', (r, at) => {
      nonEmpty(r, 'name', at);
      boolean(r, 'is_active', at);
      each(r, 'grants', at, (g, gat) => {
        string(g, 'service', gat);
        string(g, 'component', gat);
        array(g.verbs, `${gat}.verbs`).forEach((verb, index) => {
          if (typeof verb !== 'string' || !VERBS.includes(verb))
            fail(`${gat}.verbs[${index}]`, `is ${describe(verb)}, not one of ${VERBS.join(', ')}`);
        });
        strings(g, 'requestor', gat);
        array(g.filters, `${gat}.filters`);
        oneOf(g, 'filterOp', gat, ['and', 'or']);
      });
    });
    each(root, 'apps', '', (a, at) => {
      nonEmpty(a, 'name', at);
      boolean(a, 'is_active', at);
      string(a, 'apiKey', at, true);
      string(a, 'role', at, true);
    });
    each(root, 'admins', '', (a, at) => {
      nonEmpty(a, 'email', at);
      string(a, 'password', at, true);
    });
    each(
      root,
      'limits',
      '',
      (l, at) => {
        nonEmpty(l, 'name', at);
        nonEmpty(l, 'type', at);
        number(l, 'rate', at);
        string(l, 'period', at);
        boolean(l, 'is_active', at);
      },
      true,
    );
    settings(object(model.settings, 'settings'), 'settings');
    return null;
  } catch (error) {
    if (!(error instanceof ShapeProblem)) throw error;
    // Top-level paths start with the key itself.
    return error.message.replace(/^\./, '');
  }
}
