/**
 * The OpenAPI fragment of a SOAP service: `/` (the operation list) and, per operation,
 * `/{operation}` with POST (body: the request message's fields) and, when every input field is a
 * scalar, GET with those fields as query parameters. Request and response schemas are the
 * XSD-derived JSON Schemas of the model; its definitions, and each request message (referenced by
 * its POST body), are the fragment's schema components.
 * Operation ids follow the reference: `call{Service}{Operation}` (POST), `get{Service}{Operation}` (GET).
 */
import type { OperationObject, ParameterObject, PathsObject, SchemaObject } from 'openapi3-ts/oas30';
import type { JsonSchema, SoapOperationModel, SoapServiceModel } from '../model/platform-model.js';
import { isWideDecimal, isWideInteger } from '../services/soap/wsdl/json-schema-parts.js';
import { SchemaView } from '../services/soap/wsdl/json-schema-view.js';
import type { OpenApiFragment } from './fragment.js';
import { pascalCase, uniqueNamer } from './code-identifiers.js';
import { jsonOperation } from './operation-builder.js';
import { componentRef, jsonContent, sharedComponents } from './shared-components.js';
import { documentedNames } from '../services/soap/operation-names.js';

const FAULT_RESPONSE = {
  description:
    'A SOAP Fault (message `<faultstring> [Fault code:<faultcode>]`; `context` holds faultcode, faultstring and detail), or another internal error.',
  content: jsonContent(componentRef('schemas', 'Error')),
};
const UNREACHABLE_RESPONSE = {
  description: 'The SOAP service cannot be reached or did not answer in time.',
  content: jsonContent(componentRef('schemas', 'Error')),
};

const NUMBER_KEYWORDS = ['type', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum'];
/** The text of an integer, and of a decimal, given as a string. */
const INTEGER_TEXT = '^[+-]?[0-9]+$';
const DECIMAL_TEXT = '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)$';

/**
 * A message schema as OpenAPI shows it: an integer that may exceed 2^53 (json-schema-parts.ts
 * isWideInteger) is what the API gives and takes, a number or else a string of digits (as
 * bigint columns are, record-schemas.ts); a decimal of more digits than a double keeps
 * (isWideDecimal) a number or else a decimal's text. Unchanged schemas are returned as they are.
 */
function documented(schema: JsonSchema, done: WeakMap<JsonSchema, JsonSchema>): JsonSchema {
  const known = done.get(schema);
  if (known !== undefined) return known;
  let result: JsonSchema = schema;
  const change = (key: string, value: unknown) => {
    if (result === schema) result = { ...schema };
    result[key] = value;
  };
  const wide = isWideInteger(schema) ? INTEGER_TEXT : isWideDecimal(schema) ? DECIMAL_TEXT : undefined;
  if (wide !== undefined) {
    const number = Object.fromEntries(Object.entries(schema).filter(([key]) => NUMBER_KEYWORDS.includes(key)));
    const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => !NUMBER_KEYWORDS.includes(key) && key !== 'nullable'));
    // OpenAPI 3.0 reads `nullable` only beside a `type`: each branch carries it.
    const nullable = schema.nullable === true ? { nullable: true } : {};
    result = {
      ...rest,
      anyOf: [
        { ...number, ...nullable },
        { type: 'string', pattern: wide, ...nullable },
      ],
    };
  }
  for (const key of ['items', 'additionalProperties'])
    if (isRecord(schema[key])) {
      const value = documented(schema[key], done);
      if (value !== schema[key]) change(key, value);
    }
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(schema[key]) && result[key] === schema[key]) {
      const values = (schema[key] as unknown[]).map((value) => (isRecord(value) ? documented(value, done) : value));
      if (values.some((value, index) => value !== (schema[key] as unknown[])[index])) change(key, values);
    }
  if (isRecord(schema.properties)) {
    const properties = schema.properties;
    const values = Object.entries(properties).map(([key, value]) => [key, isRecord(value) ? documented(value, done) : value] as const);
    if (values.some(([key, value]) => value !== properties[key])) change('properties', Object.fromEntries(values));
  }
  done.set(schema, result);
  return result;
}

function isRecord(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The error of a SOAP Fault of an operation that declares its faults: the shared `Error` (one
 * envelope for every error of the API) whose `context` holds faultcode, faultstring, faultactor and
 * the detail, typed as the declared faults.
 */
function faultSchema(detail: JsonSchema): SchemaObject {
  const text = { type: 'string' } as const;
  return {
    allOf: [
      componentRef('schemas', 'Error'),
      {
        type: 'object',
        properties: {
          error: {
            type: 'object',
            properties: {
              message: { type: 'string', description: '`<faultstring> [Fault code:<faultcode>]`' },
              context: {
                type: 'object',
                properties: { faultcode: text, faultstring: text, faultactor: text, detail: detail as SchemaObject },
              },
            },
          },
        },
      },
    ],
  };
}

/** `fault`: the component of the operation's fault error, when it declares faults. */
function withErrors(operation: OperationObject, fault: string | null): OperationObject {
  operation.responses['500'] =
    fault === null ? FAULT_RESPONSE : { description: FAULT_RESPONSE.description, content: jsonContent(componentRef('schemas', fault)) };
  operation.responses['503'] = UNREACHABLE_RESPONSE;
  return operation;
}

/** Query parameters of a simple input: one per field, typed as the field. */
function queryParameters(view: SchemaView, operation: SoapOperationModel, done: WeakMap<JsonSchema, JsonSchema>): ParameterObject[] {
  const shape = view.shape(operation.input.schema);
  if (shape.kind !== 'object') return [];
  return shape.members.map((member) => {
    const { xml: _xml, description, ...item } = documented(view.resolve(member.schema), done);
    // A repeated scalar is the parameter given once per value (form style, exploded: OpenAPI's default).
    const schema = member.array
      ? {
          type: 'array',
          items: item,
          ...(member.minItems === undefined ? {} : { minItems: member.minItems }),
          ...(member.maxItems === undefined ? {} : { maxItems: member.maxItems }),
        }
      : item;
    const parameter: ParameterObject = { name: member.key, in: 'query', required: member.required, schema: schema as SchemaObject };
    if (typeof description === 'string') parameter.description = description;
    return parameter;
  });
}

export function soapServiceOpenApi(service: SoapServiceModel): OpenApiFragment {
  const serviceLabel = pascalCase(service.name) || 'Service';
  const view = new SchemaView(service.definitions);
  const operationId = uniqueNamer([`get${serviceLabel}Resources`]);
  const paths: PathsObject = {
    '/': {
      get: jsonOperation({
        operationId: `get${serviceLabel}Resources`,
        summary: `List the operations of the '${service.name}' SOAP service.`,
        description: 'As `{"resource":[{"name": ...}]}`; `as_list=true` gives the names only.',
        parameters: [
          { name: 'refresh', in: 'query', required: false, description: 'Read the WSDL again.', schema: { type: 'boolean' } },
          { name: 'as_list', in: 'query', required: false, description: 'Return the names only.', schema: { type: 'boolean' } },
        ],
        response: { description: 'The operations.', schema: componentRef('schemas', 'ResourceList') },
      }),
    },
  };
  const pathNames = documentedNames(service.operations.map((operation) => operation.name));
  // Request bodies reference schema components (spec, Discovery): each input message is one, named
  // beside the WSDL's own types and the shared components.
  const done = new WeakMap<JsonSchema, JsonSchema>();
  const schemas: Record<string, SchemaObject> = Object.fromEntries(
    Object.entries(service.definitions).map(([name, schema]) => [name, documented(schema, done) as SchemaObject]),
  );
  const componentName = uniqueNamer([...Object.keys(schemas), ...Object.keys(sharedComponents().schemas ?? {})]);
  for (const [index, operation] of service.operations.entries()) {
    const label = pascalCase(operation.name) || 'Operation';
    const input = documented(operation.input.schema, done);
    const requestName = typeof input.$ref === 'string' && Object.keys(input).length === 1 ? null : componentName(`${label}Request`);
    if (requestName !== null) schemas[requestName] = input as SchemaObject;
    const description = operation.description === '' ? undefined : operation.description;
    let fault: string | null = null;
    if (operation.faultDetail !== undefined) {
      fault = componentName(`${label}Fault`);
      schemas[fault] = faultSchema(documented(operation.faultDetail, done));
    }
    const response = {
      description: 'The response message as JSON.',
      schema: documented(operation.output?.schema ?? { type: 'object', properties: {} }, done) as SchemaObject,
    };
    const item: PathsObject[string] = {
      post: withErrors(
        jsonOperation({
          operationId: operationId(`call${serviceLabel}${label}`),
          summary: `Call the operation '${operation.name}'.`,
          description,
          body: {
            description: 'The fields of the request message.',
            schema: requestName === null ? input : componentRef('schemas', requestName),
          },
          response,
        }),
        fault,
      ),
    };
    if (operation.simpleInput) {
      item.get = withErrors(
        jsonOperation({
          operationId: operationId(`get${serviceLabel}${label}`),
          summary: `Call the operation '${operation.name}' with query parameters.`,
          description,
          parameters: queryParameters(view, operation, done),
          response,
        }),
        fault,
      );
    }
    // Documented lowercase without underscores (spec); calls match any case of either name.
    paths[`/${encodeURIComponent(pathNames[index])}`] = item;
  }
  const components = Object.keys(schemas).length === 0 ? {} : { schemas };
  // A copy: document builders rename components in place, and the model's schemas are shared.
  return structuredClone({ paths, components });
}
