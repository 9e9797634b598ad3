/**
 * `${env:NAME}` references in config values. platform.yaml and the model keep them as written
 * (secrets never land in generated files); the generator resolves them to validate and introspect,
 * the runtime resolves them again at start.
 *
 * Forms: `${env:NAME}` (the variable must be set) and `${env:NAME:-default}` (the default is used
 * when the variable is unset or empty, as in the shell). A reference may be part of a longer string.
 */
import { InternalServerError } from './errors.js';

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** One reference found in a config value. */
export interface EnvRef {
  name: string;
  /** The `:-default` part, or null when the variable is required. */
  fallback: string | null;
  /** Where the string holding the reference sits inside the searched value (keys and indexes). */
  path: Array<string | number>;
}

export type Env = Record<string, string | undefined>;

/** A required `${env:NAME}` whose variable is unset: a configuration error (500, as the spec's table). */
export class EnvNotSetError extends InternalServerError {
  readonly variable: string;
  constructor(variable: string) {
    super(`Environment variable ${variable} is not set (referenced as \${env:${variable}}).`);
    this.variable = variable;
  }
}

/** Every `${env:...}` reference in a value, deep over objects and arrays, in document order. */
export function findEnvRefs(value: unknown, path: Array<string | number> = []): EnvRef[] {
  if (typeof value === 'string') {
    return [...value.matchAll(ENV_REF)].map((match) => ({ name: match[1]!, fallback: match[2] ?? null, path }));
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findEnvRefs(item, [...path, index]));
  if (isPlainObject(value)) return Object.entries(value).flatMap(([key, item]) => findEnvRefs(item, [...path, key]));
  return [];
}

/** Whether a string contains at least one `${env:...}` reference. */
export function hasEnvRef(value: string): boolean {
  return findEnvRefs(value).length > 0;
}

/**
 * Replaces every reference, deep over objects, arrays and strings; other values are returned as
 * they are. A required variable that is unset is a configuration error (500, as the spec's table).
 */
export function resolveEnv<T>(value: T, env: Env = process.env): T {
  if (typeof value === 'string') {
    return value.replace(ENV_REF, (_ref, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (fallback !== undefined) return found === undefined || found === '' ? fallback : found;
      if (found === undefined) throw new EnvNotSetError(name);
      return found;
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => resolveEnv(item, env)) as T;
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveEnv(item, env)])) as T;
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
