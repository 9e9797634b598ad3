/**
 * Reads the message JSON Schemas the way the request writer and the response reader need them:
 * `$ref`s followed, an `allOf` extension flattened into one ordered member list (base first),
 * each member with its XML name, namespace, attribute flag and whether it repeats.
 * Shapes are memoised per schema object: the model's schemas do not change while served.
 */
import type { JsonSchema } from '../../../model/platform-model.js';
import { ANY_ELEMENTS, DEFINITION_REF, FRACTION_DIGITS, LIST, REPEATED_GROUP, TOTAL_DIGITS, XML_TYPE } from './json-schema-parts.js';

export interface Member {
  /** Key in the JSON object. */
  key: string;
  /** Local name of the XML element or attribute. */
  xmlName: string;
  /** Namespace of a qualified element or attribute, or ''. */
  namespace: string;
  attribute: boolean;
  /** A repeated element: a JSON array of `schema` values. */
  array: boolean;
  /** The repeated model group it repeats with others in (json-schema-parts.ts REPEATED_GROUP). */
  group?: number;
  /** A repeated element's bounds (its minOccurs of 1 or more, a bounded maxOccurs). */
  minItems?: number;
  maxItems?: number;
  required: boolean;
  /** Schema of one value. */
  schema: JsonSchema;
}

export interface ObjectShape {
  kind: 'object';
  /** Members in XML order: attributes, the text member `_`, and elements. */
  members: Member[];
  /** Elements by local name (the first of each), and by `{namespace}local`. */
  elements: Map<string, Member>;
  /** Two elements share a local name (in different namespaces): replies are read by qualified name. */
  sameLocalNames?: true;
  attributes: Map<string, Member>;
  /** The simple content beside attributes, under `_`. */
  text: Member | null;
  /** Other members are allowed (xsd:any, anyAttribute). */
  open: boolean;
  /** Other members are elements (xsd:any; json-schema-parts.ts ANY_ELEMENTS). */
  anyElements: boolean;
  /** The members of each required xs:choice, of which one must be given (the schema's oneOf of `required`, or its allOf of them). */
  choices?: string[][];
  /** The XML Schema type (`{ns}local`), when the schema records it (encoded operations: json-schema-parts.ts XML_TYPE). */
  xmlType?: string;
}

export interface ArrayShape {
  kind: 'array';
  items: JsonSchema;
  xmlType?: string;
}

export interface ScalarShape {
  kind: 'scalar';
  /** null: any JSON value. */
  type: 'string' | 'integer' | 'number' | 'boolean' | null;
  enum: unknown[] | null;
  /** The schema's `format` (`int32`, `int64`, `double`, ...), when it has one. */
  format?: string;
  /** The schema's `minimum` and `maximum` (a bounded integer type, minInclusive/maxInclusive facets), when given. */
  minimum?: number;
  maximum?: number;
  /** minExclusive/maxExclusive: the bound itself is outside. */
  exclusiveMinimum?: true;
  exclusiveMaximum?: true;
  /** An xsd:list: text of space-separated items (json-schema-parts.ts: LIST). */
  list?: true;
  xmlType?: string;
  /** The value's text must match it (the `u` flag): xs:pattern facets, xsd:duration (wsdl/xsd-pattern.ts). */
  pattern?: RegExp;
  /** length, minLength and maxLength facets: characters (octets for base64Binary, format `byte`). */
  minLength?: number;
  maxLength?: number;
  /** totalDigits and fractionDigits facets of a decimal or integer type. */
  totalDigits?: number;
  fractionDigits?: number;
}

export type Shape = ObjectShape | ArrayShape | ScalarShape;

const ANY: ScalarShape = { kind: 'scalar', type: null, enum: null };

function isRecord(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class SchemaView {
  private readonly shapes = new WeakMap<JsonSchema, Shape>();

  constructor(readonly definitions: Readonly<Record<string, JsonSchema>>) {}

  /** The schema a `$ref` points at (the schema itself otherwise). */
  resolve(schema: JsonSchema, depth = 0): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || depth > 32) return schema;
    const target = ref.startsWith(DEFINITION_REF) ? this.definitions[ref.slice(DEFINITION_REF.length)] : undefined;
    return target === undefined ? {} : this.resolve(target, depth + 1);
  }

  shape(schema: JsonSchema): Shape {
    let shape = this.shapes.get(schema);
    if (shape === undefined) {
      // Placeholder first: a recursive type meets itself while its shape is built.
      this.shapes.set(schema, ANY);
      shape = this.build(schema);
      this.shapes.set(schema, shape);
    }
    return shape;
  }

  private build(original: JsonSchema): Shape {
    const schema = this.resolve(original);
    if (schema !== original) return this.shape(schema);
    const named = typeof schema[XML_TYPE] === 'string' ? { xmlType: schema[XML_TYPE] as string } : {};
    if (schema.type === 'array') return { kind: 'array', items: isRecord(schema.items) ? schema.items : {}, ...named };
    const parts = (Array.isArray(schema.allOf) ? schema.allOf : []).filter(isRecord).map((part) => this.shape(part));
    const objectParts = parts.filter((part): part is ObjectShape => part.kind === 'object');
    const own = isRecord(schema.properties) || schema.type === 'object';
    if (!own && objectParts.length === 0) {
      if (parts.length > 0) return parts[0];
      const type = schema.type;
      return {
        kind: 'scalar',
        type: type === 'string' || type === 'integer' || type === 'number' || type === 'boolean' ? type : null,
        enum: Array.isArray(schema.enum) ? schema.enum : null,
        ...(typeof schema.format === 'string' ? { format: schema.format } : {}),
        ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
        ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
        ...(schema.exclusiveMinimum === true ? { exclusiveMinimum: true as const } : {}),
        ...(schema.exclusiveMaximum === true ? { exclusiveMaximum: true as const } : {}),
        ...(schema[LIST] === true ? { list: true as const } : {}),
        ...(typeof schema.pattern === 'string' ? compiled(schema.pattern) : {}),
        ...(typeof schema.minLength === 'number' ? { minLength: schema.minLength } : {}),
        ...(typeof schema.maxLength === 'number' ? { maxLength: schema.maxLength } : {}),
        ...(typeof schema[TOTAL_DIGITS] === 'number' ? { totalDigits: schema[TOTAL_DIGITS] as number } : {}),
        ...(typeof schema[FRACTION_DIGITS] === 'number' ? { fractionDigits: schema[FRACTION_DIGITS] as number } : {}),
        ...named,
      };
    }
    const members = objectParts.flatMap((part) => part.members);
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    for (const [key, member] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
      if (isRecord(member)) members.push(memberOf(key, member, required.has(key)));
    }
    const shape: ObjectShape = {
      kind: 'object',
      members,
      elements: new Map(),
      attributes: new Map(),
      text: null,
      open: schema.additionalProperties === true || objectParts.some((part) => part.open),
      anyElements: schema[ANY_ELEMENTS] === true || objectParts.some((part) => part.anyElements),
      // A reference wrapped to carry members beside it (nullable, xml) is of the referenced type.
      ...(named.xmlType !== undefined
        ? named
        : !own && parts.length === 1 && objectParts[0]?.xmlType !== undefined
          ? { xmlType: objectParts[0].xmlType }
          : {}),
    };
    // Its own choice (oneOf), several (an allOf of oneOfs), and those of the types it extends.
    const choiceParts = (Array.isArray(schema.allOf) ? schema.allOf : []).filter(
      (part) => isRecord(part) && Object.keys(part).length === 1,
    );
    const choices = [schema, ...choiceParts]
      .map((part) => choiceOf(part as JsonSchema))
      .filter((choice) => choice !== undefined)
      .concat(objectParts.flatMap((part) => part.choices ?? []));
    if (choices.length > 0) shape.choices = choices;
    for (const member of members) {
      if (member.key === '_' && !member.attribute && !member.array && !namesElement(member.schema)) shape.text = member;
      else if (member.attribute) shape.attributes.set(member.xmlName, member);
      else {
        // By local name (the first of a name: replies are read by local names), and by qualified name
        // for the elements of one local name in different namespaces.
        if (!shape.elements.has(member.xmlName)) shape.elements.set(member.xmlName, member);
        else shape.sameLocalNames = true;
        shape.elements.set(`{${member.namespace}}${member.xmlName}`, member);
      }
    }
    return shape;
  }
}

/** The members of the choice a oneOf of one `required` member each stands for. */
function choiceOf(schema: JsonSchema): string[] | undefined {
  const branches = schema.oneOf;
  if (!Array.isArray(branches) || branches.length < 2) return undefined;
  const keys = branches.map((branch) =>
    isRecord(branch) && Array.isArray(branch.required) && branch.required.length === 1 ? String(branch.required[0]) : undefined,
  );
  return keys.every((key) => key !== undefined) ? (keys as string[]) : undefined;
}

/** Whether a member's schema names its element in xml.name (an element `_`, not the text `_`). */
function namesElement(schema: JsonSchema): boolean {
  return isRecord(schema.xml) && typeof schema.xml.name === 'string';
}

/** A schema's pattern as a RegExp; one the model holds that does not compile is not checked. */
function compiled(pattern: string): { pattern?: RegExp } {
  try {
    return { pattern: new RegExp(pattern, 'u') };
  } catch {
    return {};
  }
}

function memberOf(key: string, schema: JsonSchema, required: boolean): Member {
  const xml = isRecord(schema.xml) ? schema.xml : {};
  const namespace = typeof xml.namespace === 'string' ? xml.namespace : typeof xml['x-namespace'] === 'string' ? xml['x-namespace'] : '';
  // An array of a named type (soapenc:Array) is one element holding its items; an unnamed one a repeated element.
  const array = schema.type === 'array' && schema[XML_TYPE] === undefined;
  return {
    key,
    xmlName: typeof xml.name === 'string' ? xml.name : key,
    namespace,
    attribute: xml.attribute === true,
    array,
    required,
    schema: array ? (isRecord(schema.items) ? schema.items : {}) : schema,
    ...(array && typeof schema[REPEATED_GROUP] === 'number' ? { group: schema[REPEATED_GROUP] as number } : {}),
    ...(array && typeof schema.minItems === 'number' ? { minItems: schema.minItems } : {}),
    ...(array && typeof schema.maxItems === 'number' ? { maxItems: schema.maxItems } : {}),
  };
}
