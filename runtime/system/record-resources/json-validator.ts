/**
 * JSON Schema validation of request data with ajv: the first problem becomes a 400 in the spec's
 * error shape, naming the field (`config.database`, `role_service_access_by_role_id[0].verb_mask`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { PorticoError } from '../../core/errors.js';
import type { JsonSchema } from './resource-definition.js';
import { systemMessages } from '../system-messages.js';

// ajv-formats is CommonJS with a `default` export; under NodeNext its default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

// Not strict: service kinds bring their own config schemas. Defaults fill in (service configs).
const ajv = new Ajv({ allErrors: false, useDefaults: true, allowUnionTypes: true, strict: false, verbose: true });
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
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = prefix;
  for (const part of parts) path = /^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`;
  return path;
}

function describe(error: ErrorObject, prefix: string, what: string): PorticoError {
  const at = fieldPath(prefix, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const join = (name: string) => (at === '' ? name : `${at}.${name}`);
  switch (error.keyword) {
    case 'additionalProperties': {
      const name = join(String(params.additionalProperty));
      return systemMessages.unknownField.error(name, what);
    }
    case 'required': {
      const name = join(String(params.missingProperty));
      return systemMessages.fieldRequired.error(name);
    }
    case 'type':
      return systemMessages.wrongType.error(at, String(params.type).replace(',', ' or '));
    case 'enum':
      return systemMessages.notOneOf.error(at, params.allowedValues as unknown[]);
    case 'anyOf':
      return systemMessages.invalidValue.error(at);
    case 'pattern': {
      // The words a schema gives for its pattern (as platform.yaml's diagnostics use them), not the regular expression.
      const hint = (error.parentSchema as { patternErrorMessage?: unknown } | undefined)?.patternErrorMessage;
      return systemMessages.fieldProblem.error(at, typeof hint === 'string' ? hint : (error.message ?? 'is invalid'));
    }
    default:
      return systemMessages.fieldProblem.error(at, error.message ?? 'is invalid');
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
