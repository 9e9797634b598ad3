/**
 * JSON Schema validation with ajv (every error at once, defaults filled in), its errors turned
 * into positioned diagnostics with "did you mean" for misspelt keys and enum values.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import platformSchema from '../../schemas/platform.schema.json' with { type: 'json' };
import { didYouMean, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import type { ValuePath, YamlSource } from './yaml-source.js';

// ajv-formats is CommonJS with a `default` export; under NodeNext its default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

// Not strict: service kinds bring their own config schemas. The platform schema is compiled
// strictly by its unit test.
const ajv = new Ajv({ allErrors: true, useDefaults: true, allowUnionTypes: true, verbose: true, strict: false });
addFormats(ajv);
ajv.addVocabulary(['patternErrorMessage']);

const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validates platform.yaml data against schemas/platform.schema.json, filling in defaults. */
export function validatePlatform(data: unknown, source: YamlSource): Diagnostic[] {
  return validateWithSchema(platformSchema, data, source, []);
}

/**
 * Validates `data` (found at `basePath` of the YAML document) against a JSON Schema, filling in
 * its defaults in place. Returns one diagnostic per problem.
 */
export function validateWithSchema(schema: object, data: unknown, source: YamlSource, basePath: ValuePath): Diagnostic[] {
  const validate = validatorFor(schema);
  if (validate(data)) return [];
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const errors = validate.errors ?? [];
  // An `anyOf` failure is reported once, by its own error; its branches' errors are left out.
  const alternatives = errors.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/`);
  for (const error of errors) {
    if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    const diagnostic = toDiagnostic(error, source, basePath);
    if (!diagnostic) continue;
    const key = `${diagnostic.line}:${diagnostic.col}:${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(diagnostic);
  }
  return diagnostics;
}

/** Fills in a schema's defaults in place; returns ajv's text of the problems, or null when valid. */
export function fillDefaults(schema: object, data: unknown): string | null {
  const validate = validatorFor(schema);
  return validate(data) ? null : ajv.errorsText(validate.errors);
}

/** `services[0].config.database`; the top level is `the top level`. */
export function pathText(path: ValuePath): string {
  if (path.length === 0) return 'the top level';
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

/** The JSON pointer of ajv (`/services/0/name`) as a path; array indexes become numbers. */
export function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}

function toDiagnostic(error: ErrorObject, source: YamlSource, basePath: ValuePath): Diagnostic | null {
  const path = [...basePath, ...pointerToPath(error.instancePath)];
  const where = pathText(path);
  const at = (code: DiagnosticCode, message: string, key = false) => source.diagnosticAt(path, code, message, { key });
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const message = `Unknown key '${key}' in ${where}.${didYouMean(key, known)}`;
      return source.diagnosticAt([...path, key], 'PCO102', message, { key: true });
    }
    case 'required':
      return at('PCO103', `Missing required key '${String(params.missingProperty)}' in ${where}.`);
    case 'type':
      return at('PCO104', `${where} must be ${typeText(String(params.type))}, not ${valueKind(error.data)}.`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const value = String(error.data);
      return at(
        'PCO105',
        `'${value}' is not allowed for ${where}; use one of: ${allowed.map((item) => `'${item}'`).join(', ')}.${didYouMean(value, allowed)}`,
      );
    }
    case 'pattern': {
      const hint = error.parentSchema?.patternErrorMessage as string | undefined;
      return at('PCO106', `${where} ${hint ?? `must match ${String(params.pattern)}`}.`);
    }
    case 'format':
      return at('PCO106', `${where} must be a valid ${String(params.format)}.`);
    case 'if':
      return null; // the failing `then` branch is reported on its own
    case 'anyOf': {
      // `anyOf: [{required: [url]}, {required: [database]}]`: name the keys, one of which is needed.
      const branches = Array.isArray(error.schema) ? (error.schema as Array<Record<string, unknown>>) : [];
      const requiredOnly = (branch: Record<string, unknown>) =>
        Object.keys(branch).length === 1 && Array.isArray(branch.required) && branch.required.length > 0;
      if (branches.length > 1 && branches.every(requiredOnly)) {
        const options = branches.map((branch) => (branch.required as string[]).map((key) => `'${key}'`).join(' and '));
        return at('PCO103', `${where} needs ${options.slice(0, -1).join(', ')} or ${options.at(-1)}.`);
      }
      return at('PCO106', `${where} ${error.message ?? 'is invalid'}.`);
    }
    default:
      return at('PCO106', `${where} ${error.message ?? 'is invalid'}.`);
  }
}

function typeText(types: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    integer: 'an integer',
    boolean: 'true or false',
    object: 'a mapping (key: value)',
    array: 'a list',
    null: 'empty (null)',
  };
  return types
    .split(',')
    .map((type) => names[type] ?? type)
    .join(' or ');
}

function valueKind(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return Number.isInteger(value) ? 'an integer' : 'a number';
}
