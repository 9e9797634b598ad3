/**
 * JSON Schema validation of request data with ajv: the first problem becomes a 400 in the spec's
 * error shape, naming the field (`config.database`, `role_service_access_by_role_id[0].verb_mask`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { BadRequestError } from '../../core/errors.js';
import type { JsonSchema } from './resource-definition.js';

// ajv-formats is CommonJS with a `default` export; under NodeNext its default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

// Not strict: service kinds bring their own config schemas. Defaults fill in (service configs).
const ajv = new Ajv({ allErrors: false, useDefaults: true, allowUnionTypes: true, strict: false });
addFormats(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** `a.b[0].c` from a JSON pointer and a prefix. */
function fieldPath(prefix: string, pointer: string): string {
  const parts = pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = prefix;
  for (const part of parts) path = /^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`;
  return path;
}

function describe(error: ErrorObject, prefix: string, what: string): BadRequestError {
  const at = fieldPath(prefix, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const join = (name: string) => (at === '' ? name : `${at}.${name}`);
  switch (error.keyword) {
    case 'additionalProperties': {
      const name = join(String(params.additionalProperty));
      return new BadRequestError(`Unknown field '${name}' in the ${what}.`, { field: name });
    }
    case 'required': {
      const name = join(String(params.missingProperty));
      return new BadRequestError(`Field '${name}' is required.`, { field: name });
    }
    case 'type':
      return new BadRequestError(`Field '${at}' must be of type ${String(params.type).replace(',', ' or ')}.`, { field: at });
    case 'enum':
      return new BadRequestError(`Field '${at}' must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`, { field: at });
    case 'anyOf':
      return new BadRequestError(`Field '${at}' has an invalid value.`, { field: at });
    default:
      return new BadRequestError(`Field '${at}' ${error.message ?? 'is invalid'}.`, { field: at });
  }
}

/**
 * Validates `value` (in place: defaults are filled in) and throws a 400 naming the first bad
 * field. `prefix` is the path of `value` in the request (`config`), `what` names it in messages.
 */
export function assertValid(schema: JsonSchema, value: unknown, prefix: string, what: string): void {
  const validate = validatorFor(schema);
  if (validate(value)) return;
  // anyOf reports its branches' errors first; the anyOf error itself is the useful one.
  const errors = validate.errors ?? [];
  const error = errors.find((e) => e.keyword === 'anyOf') ?? errors[0];
  throw describe(error, prefix, what);
}
