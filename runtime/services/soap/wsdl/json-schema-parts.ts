/**
 * The pieces SOAP message schemas are built from: the JSON Schema of each XML Schema built-in
 * type, the `xml` member that records a member's namespace and attribute flag, members added
 * beside a `$ref`, and the object model a complex type's members are collected in.
 */
import { DOUBLE_DIGITS } from '../../../model/field-rules.js';
import type { JsonSchema } from '../../../model/platform-model.js';
import { uniqueNamer } from '../../../openapi/code-identifiers.js';
import { DURATION_PATTERN } from './xsd-pattern.js';

/** The extension that marks a string schema as an xsd:list (space-separated items). */
export const LIST = 'x-xml-list';

/**
 * The extension naming the XML Schema type (`{namespace}local`) of a built-in, a named simple type
 * or a complex type's definition, and `x-xml-array-item` that of a SOAP-encoded array's items.
 * Written only for WSDLs with rpc/encoded or document/encoded operations: the request writer names
 * them in xsi:type (and soapenc:arrayType), as the reference's client does in encoded mode.
 */
export const XML_TYPE = 'x-xml-type';

/** The extensions recording xs:totalDigits and xs:fractionDigits of a decimal or integer type. */
export const TOTAL_DIGITS = 'x-total-digits';
export const FRACTION_DIGITS = 'x-fraction-digits';

/**
 * The extension that marks an object type with xs:any among its particles: members its schema
 * does not name are elements (an open type with only xs:anyAttribute takes no such elements).
 */
export const ANY_ELEMENTS = 'x-xml-any';

/**
 * The extension numbering the repeated sequence, choice or group a repeated element is in, when
 * others are in it too: the request writer writes their items in turns (key, value, key, value),
 * as the content model repeats, rather than all of one member first.
 */
export const REPEATED_GROUP = 'x-xml-group';

/** Prefix of the `$ref`s the builder writes. */
export const DEFINITION_REF = '#/components/schemas/';

const INTEGER_FORMATS: Record<string, string | undefined> = {
  int: 'int32',
  short: 'int32',
  byte: 'int32',
  unsignedShort: 'int32',
  unsignedByte: 'int32',
  long: 'int64',
  unsignedInt: 'int64',
  integer: undefined,
  unsignedLong: undefined,
  nonNegativeInteger: undefined,
  positiveInteger: undefined,
  nonPositiveInteger: undefined,
  negativeInteger: undefined,
};

/**
 * The value range of the bounded integer types whose format does not say it (an int32 byte,
 * an int64 unsignedInt); the request writer refuses what lies outside. unsignedLong's maximum
 * (2^64 - 1) is beyond what a JSON number holds exactly, so only its minimum is given.
 */
const INTEGER_BOUNDS: Record<string, { minimum?: number; maximum?: number }> = {
  byte: { minimum: -128, maximum: 127 },
  short: { minimum: -32768, maximum: 32767 },
  unsignedByte: { minimum: 0, maximum: 255 },
  unsignedShort: { minimum: 0, maximum: 65535 },
  unsignedInt: { minimum: 0, maximum: 4294967295 },
  unsignedLong: { minimum: 0 },
  nonNegativeInteger: { minimum: 0 },
  positiveInteger: { minimum: 1 },
  nonPositiveInteger: { maximum: 0 },
  negativeInteger: { maximum: -1 },
};

const STRING_FORMATS: Record<string, string> = { date: 'date', dateTime: 'date-time', base64Binary: 'byte', anyURI: 'uri' };

/** JSON Schema of an XML Schema built-in type. */
export function builtinSchema(local: string): JsonSchema {
  if (local in INTEGER_FORMATS) {
    const format = INTEGER_FORMATS[local];
    return { type: 'integer', ...(format === undefined ? {} : { format }), ...INTEGER_BOUNDS[local] };
  }
  if (local === 'float' || local === 'double') return { type: 'number', format: local };
  if (local === 'decimal') return { type: 'number' };
  if (local === 'boolean') return { type: 'boolean' };
  if (local === 'anyType') return {};
  // The built-in list types: space-separated names, taken as text or as a JSON array like any xsd:list.
  if (local === 'NMTOKENS' || local === 'IDREFS' || local === 'ENTITIES') return { type: 'string', [LIST]: true };
  if (local === 'duration') return { type: 'string', pattern: DURATION_PATTERN };
  const format = STRING_FORMATS[local];
  return format === undefined ? { type: 'string' } : { type: 'string', format };
}

/**
 * Whether an integer schema admits values beyond 2^53 (long, unsignedLong, integer and its kin,
 * unless facets bound them): the response reader returns such a value as its text, so that no
 * digit is lost, and a request must give it as text (a JSON number that large is already
 * rounded). A value within 2^53 is a number either way.
 */
export function isWideInteger(schema: JsonSchema): boolean {
  if (schema.type !== 'integer' || schema.format === 'int32') return false;
  if (Array.isArray(schema.enum)) return !schema.enum.every((value) => Number.isSafeInteger(value));
  const digits = schema[TOTAL_DIGITS];
  if (typeof digits === 'number' && digits <= DOUBLE_DIGITS) return false;
  const { minimum, maximum } = schema;
  return !(typeof minimum === 'number' && typeof maximum === 'number' && Number.isSafeInteger(minimum) && Number.isSafeInteger(maximum));
}

/**
 * Whether a number schema is an xs:decimal that may hold more significant digits than a double
 * keeps (no totalDigits of 15 or fewer, no enumeration): the response reader returns such a value
 * as its text when the number would not give its digits back, as it does integers beyond 2^53,
 * and a request may give it as text. float and double (`format`) are doubles: numbers.
 */
export function isWideDecimal(schema: JsonSchema): boolean {
  if (schema.type !== 'number' || schema.format !== undefined || Array.isArray(schema.enum)) return false;
  const digits = schema[TOTAL_DIGITS];
  return !(typeof digits === 'number' && digits <= DOUBLE_DIGITS);
}

/** `xml` of a member: its namespace when qualified, its attribute flag. The XML object requires an absolute URI, so other namespaces go in `x-namespace`. */
export function xmlMember(namespace: string, isAttribute: boolean): JsonSchema | undefined {
  const xml: JsonSchema = {};
  if (namespace !== '') xml[/^[A-Za-z][A-Za-z0-9+.-]*:[^\s{}<>"\\^`|]*$/.test(namespace) ? 'namespace' : 'x-namespace'] = namespace;
  if (isAttribute) xml.attribute = true;
  return Object.keys(xml).length > 0 ? xml : undefined;
}

/** The namespace an `xml` member records, or ''. */
function xmlNamespace(xml: JsonSchema | undefined): string {
  const namespace = xml?.namespace ?? xml?.['x-namespace'];
  return typeof namespace === 'string' ? namespace : '';
}

/** `extra` members on a schema; a `$ref` cannot carry siblings in OpenAPI 3.0, so it is wrapped in allOf. */
export function withMembers(schema: JsonSchema, extra: JsonSchema): JsonSchema {
  const members = Object.fromEntries(Object.entries(extra).filter(([, value]) => value !== undefined));
  if (Object.keys(members).length === 0) return schema;
  return '$ref' in schema ? { allOf: [schema], ...members } : { ...schema, ...members };
}

/** The members of an object type as they are collected. */
export class ObjectModel {
  readonly properties = new Map<string, JsonSchema>();
  readonly required = new Set<string>();
  open = false;
  /** xs:any is among the particles (ANY_ELEMENTS). */
  anyElements = false;
  /** The required members of each branch of a required choice. */
  readonly choices: string[][] = [];

  add(key: string, schema: JsonSchema, required: boolean, isAttribute: boolean): void {
    const existing = this.properties.get(key);
    if (existing === undefined) {
      this.properties.set(key, schema);
      if (required) this.required.add(key);
      return;
    }
    const existingXml = existing.xml as JsonSchema | undefined;
    const sameNamespace = xmlNamespace(existingXml) === xmlNamespace(schema.xml as JsonSchema | undefined);
    if (!isAttribute && existingXml?.attribute !== true && sameNamespace) {
      // The same element twice in a content model: one array of both.
      if (existing.type !== 'array') {
        const { xml, ...item } = existing;
        this.properties.set(key, withMembers({ type: 'array', items: item }, { xml }));
      }
      return;
    }
    // An element and an attribute of one name, or two elements of one local name in different
    // namespaces: the later one gets another key, its XML name in `xml.name`.
    const suffix = isAttribute ? 'Attribute' : existingXml?.attribute === true ? 'Element' : '';
    const name = uniqueNamer(this.properties.keys())(`${key}${suffix}`);
    this.properties.set(name, withMembers(schema, { xml: { ...(schema.xml as JsonSchema | undefined), name: key } }));
    if (required) this.required.add(name);
  }

  toSchema(description?: string): JsonSchema {
    // A repeated group of one member here repeats like any repeated element: no mark needed.
    const counts = new Map<unknown, number>();
    for (const member of this.properties.values())
      if (member[REPEATED_GROUP] !== undefined) counts.set(member[REPEATED_GROUP], (counts.get(member[REPEATED_GROUP]) ?? 0) + 1);
    for (const [key, member] of this.properties)
      if (member[REPEATED_GROUP] !== undefined && counts.get(member[REPEATED_GROUP]) === 1) {
        const { [REPEATED_GROUP]: _, ...rest } = member;
        this.properties.set(key, rest);
      }
    const schema: JsonSchema = { type: 'object', properties: Object.fromEntries(this.properties) };
    if (this.required.size > 0) schema.required = [...this.required];
    if (this.open) schema.additionalProperties = true;
    if (this.anyElements) schema[ANY_ELEMENTS] = true;
    const oneOf = (names: string[]) => names.map((name) => ({ required: [name] }));
    if (this.choices.length === 1) schema.oneOf = oneOf(this.choices[0]);
    // Several required choices: an allOf of their oneOfs (a schema holds one oneOf), no members of their own.
    else if (this.choices.length > 1) schema.allOf = this.choices.map((names) => ({ oneOf: oneOf(names) }));
    if (description !== undefined) schema.description = description;
    return schema;
  }
}
