/**
 * Input validation of system records: each definition becomes a JSON Schema per write mode
 * (required fields only on create; read-only and ignored fields accepted; anything else refused),
 * nested relation arrays are checked against their own definitions.
 */
import { BadRequestError } from '../../core/errors.js';
import { assertValid } from './json-validator.js';
import type { JsonSchema, RecordDefinition } from './resource-definition.js';

export type WriteMode = 'create' | 'update';

const schemas = new WeakMap<RecordDefinition, Record<WriteMode, JsonSchema>>();

/** The JSON Schema of an input record. */
export function recordSchema(def: RecordDefinition, mode: WriteMode): JsonSchema {
  let both = schemas.get(def);
  if (!both) {
    const build = (required: string[]): JsonSchema => {
      const properties: Record<string, JsonSchema> = {};
      for (const name of [...def.readOnly, ...def.ignored]) properties[name] = {};
      for (const [name, rule] of Object.entries(def.fields)) properties[name] = rule.schema;
      for (const [name, relation] of Object.entries(def.relations)) {
        if (!relation.writable) properties[name] = {};
        else properties[name] = relation.kind === 'has_one' ? { type: ['object', 'null'] } : { type: 'array', items: { type: 'object' } };
      }
      return { type: 'object', properties, additionalProperties: false, ...(required.length > 0 ? { required } : {}) };
    };
    const required = Object.entries(def.fields)
      .filter(([, rule]) => rule.required)
      .map(([name]) => name);
    both = { create: build(required), update: build([]) };
    schemas.set(def, both);
  }
  return both[mode];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether a field's schema takes integers (directly or as one branch of anyOf). */
function takesIntegers(schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) return true;
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some(takesIntegers);
}

/**
 * The reference platform's leniency, applied before validation (in place): integers given as
 * numeric strings (`"type":"0"`), "" for fields where it means null (`username`), null for those
 * where it means "" (optional texts), and a nested record's `"id": null` meaning a new record.
 */
function normaliseInput(def: RecordDefinition, record: Record<string, unknown>): void {
  for (const [name, rule] of Object.entries(def.fields)) {
    const value = record[name];
    if (value === null && rule.nullIsEmpty) record[name] = '';
    if (typeof value !== 'string') continue;
    if (rule.emptyIsNull && value.trim() === '') record[name] = null;
    else if (/^\s*-?\d+\s*$/.test(value) && takesIntegers(rule.schema)) record[name] = Number(value);
  }
  if (def.idField in record && record[def.idField] === null) delete record[def.idField];
}

/**
 * Checks one input record and the records nested in its writable relations; throws a 400 naming
 * the first bad field. `prefix` places the record in the request (`resource[2]`), for messages.
 */
export function validateRecord(
  def: RecordDefinition,
  record: unknown,
  mode: WriteMode,
  prefix = '',
): asserts record is Record<string, unknown> {
  if (!isObject(record)) throw new BadRequestError(`${prefix || 'The record'} must be a JSON object.`, prefix ? { field: prefix } : null);
  normaliseInput(def, record);
  assertValid(recordSchema(def, mode), record, prefix, `${def.label} record`);
  for (const [name, relation] of Object.entries(def.relations)) {
    const value = record[name];
    const children = relation.kind === 'has_one' && isObject(value) ? [value] : value;
    if (!relation.writable || !Array.isArray(children)) continue;
    children.forEach((child, index) => {
      const at = `${prefix ? `${prefix}.` : ''}${name}${relation.kind === 'has_one' ? '' : `[${index}]`}`;
      // A zero id is a new record and a zero parent id this parent, as the reference takes them (its empty()); the
      // Terraform provider sends both for a grant it adds.
      if (isObject(child)) {
        if (child[relation.target.idField] === 0) delete child[relation.target.idField];
        if (child[relation.field] === 0) delete child[relation.field];
      }
      const childMode = isObject(child) && child[relation.target.idField] !== undefined ? 'update' : 'create';
      validateRecord(relation.target, child, childMode, at);
    });
  }
}
