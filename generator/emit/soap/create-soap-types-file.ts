/**
 * `services/<name>/types.ts` of a SOAP service: a type per shared schema definition (named after
 * the XSD type), the request and response type of every operation (`AddRequest`, `AddResponse`),
 * the map `Operations` keyed by operation name, for hooks and clients, and the service's hook
 * events (`Events`, ../create-events.ts). The types follow the
 * JSON the API takes and returns (runtime/services/soap): optional members are those the schema
 * does not require, `nullable` adds `| null`, repeated elements are arrays, an integer that may
 * exceed 2^53 is `number | string`, and so is a decimal of more digits than a double keeps.
 */
import type { JsonSchema, SoapServiceModel } from '../../../runtime/model/platform-model.js';
import { pascalCase, uniqueNamer } from '../../../runtime/openapi/code-identifiers.js';
import { DEFINITION_REF, isWideDecimal, isWideInteger } from '../../../runtime/services/soap/wsdl/json-schema-parts.js';
import { eventsInterface, soapEvents } from '../create-events.js';
import {
  docText,
  GLOBAL_TYPE_NAMES,
  printTypeScript,
  propertyKey,
  type Declaration,
  type PropertySignature,
} from '../typescript-printer.js';

function isRecord(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The parts of an allOf that are types: not the `{ oneOf }` of a required choice (its members are optional members). */
function typeParts(schema: JsonSchema): JsonSchema[] {
  return (Array.isArray(schema.allOf) ? schema.allOf : [])
    .filter(isRecord)
    .filter((part) => !(Object.keys(part).length === 1 && Array.isArray(part.oneOf)));
}

/** A TypeScript identifier from a schema name: PascalCase, starting with a letter. */
function typeName(name: string): string {
  const base = pascalCase(name);
  return /^[A-Za-z]/.test(base) ? base : `T${base}`;
}

class TypeWriter {
  constructor(private readonly names: ReadonlyMap<string, string>) {}

  /** The TypeScript type of a schema. */
  type(schema: JsonSchema): string {
    const base = this.baseType(schema);
    return schema.nullable === true && base !== 'unknown' ? `${base} | null` : base;
  }

  /** Members of an object schema as property signatures. */
  properties(schema: JsonSchema): PropertySignature[] {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    return Object.entries(isRecord(schema.properties) ? schema.properties : {})
      .filter(([, member]) => isRecord(member))
      .map(([key, member]) => {
        return {
          name: propertyKey(key),
          type: this.type(member as JsonSchema),
          optional: !required.has(key),
          doc: this.docs(member as JsonSchema),
        };
      });
  }

  /** Whether a schema is a plain object (an interface can declare it). */
  isInterface(schema: JsonSchema): boolean {
    return (
      (schema.type === 'object' || isRecord(schema.properties)) &&
      typeParts(schema).length === 0 &&
      schema.nullable !== true &&
      schema.additionalProperties !== true
    );
  }

  docs(schema: JsonSchema): string | undefined {
    const notes: string[] = [];
    if (typeof schema.description === 'string') notes.push(schema.description);
    if (isRecord(schema.xml) && schema.xml.attribute === true) notes.push('(XML attribute)');
    return notes.length === 0 ? undefined : docText(notes.join(' '));
  }

  private baseType(schema: JsonSchema): string {
    if (typeof schema.$ref === 'string') return this.names.get(schema.$ref.slice(DEFINITION_REF.length)) ?? 'unknown';
    if (typeParts(schema).length > 0) {
      const parts = typeParts(schema).map((part) => this.type(part));
      const own = isRecord(schema.properties) ? [this.objectLiteral(schema)] : [];
      const all = [...parts, ...own].map((part) => (part.includes('|') ? `(${part})` : part));
      return all.length === 0 ? 'unknown' : all.join(' & ');
    }
    if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ') || 'never';
    switch (schema.type) {
      case 'array': {
        const item = isRecord(schema.items) ? this.type(schema.items) : 'unknown';
        return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'object':
        return this.objectLiteral(schema);
      case 'string':
        return 'string';
      case 'integer':
        // Beyond 2^53 the API gives and takes an integer as text (json-schema-parts.ts).
        return isWideInteger(schema) ? 'number | string' : 'number';
      case 'number':
        // So is a decimal with more digits than a double keeps.
        return isWideDecimal(schema) ? 'number | string' : 'number';
      case 'boolean':
        return 'boolean';
      default:
        return isRecord(schema.properties) ? this.objectLiteral(schema) : 'unknown';
    }
  }

  private objectLiteral(schema: JsonSchema): string {
    const members = this.properties(schema).map((property) => {
      const doc = property.doc === undefined ? '' : `/** ${property.doc} */ `;
      return `${doc}${property.name}${property.optional ? '?' : ''}: ${property.type};`;
    });
    if (schema.additionalProperties === true) members.push('[member: string]: unknown;');
    return members.length === 0 ? 'Record<string, never>' : `{ ${members.join(' ')} }`;
  }
}

function declaration(writer: TypeWriter, name: string, schema: JsonSchema, doc: string): Declaration {
  if (writer.isInterface(schema)) return { kind: 'interface', name, doc: docText(doc), properties: writer.properties(schema) };
  return { kind: 'typeAlias', name, doc: docText(doc), type: writer.type(schema) };
}

export function createSoapTypesFile(service: SoapServiceModel): string {
  const namer = uniqueNamer(['Events', 'Operations', ...GLOBAL_TYPE_NAMES]);
  const definitionNames = new Map(
    Object.keys(service.definitions)
      .sort()
      .map((name) => [name, namer(typeName(name))]),
  );
  const writer = new TypeWriter(definitionNames);
  const operations = service.operations.map((operation) => ({
    operation,
    request: namer(`${typeName(operation.name)}Request`),
    response: namer(`${typeName(operation.name)}Response`),
  }));
  const statements: Declaration[] = [];
  for (const [name, typeNameOf] of definitionNames) {
    const schema = service.definitions[name];
    statements.push(declaration(writer, typeNameOf, schema, writer.docs(schema) ?? `The XML Schema type \`${name}\` as JSON.`));
  }
  for (const { operation, request, response } of operations) {
    statements.push(
      declaration(
        writer,
        request,
        operation.input.schema,
        `Request of the operation \`${operation.name}\`: the JSON body of POST, or the query of GET.`,
      ),
    );
    statements.push(
      declaration(
        writer,
        response,
        operation.output?.schema ?? { type: 'object', properties: {} },
        `Response of the operation \`${operation.name}\`.`,
      ),
    );
  }
  statements.push({
    kind: 'interface',
    name: 'Operations',
    doc: docText(`Request and response types of the \`${service.name}\` SOAP service, by operation name.`),
    properties: operations.map(({ operation, request, response }) => ({
      name: propertyKey(operation.name),
      type: `{ request: ${request}; response: ${response} }`,
    })),
  });
  statements.push(eventsInterface(service.name, soapEvents(service, operations)));
  return printTypeScript(statements);
}
