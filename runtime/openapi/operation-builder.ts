/** Builds the JSON operations of the fragments in one shape: summary, parameters, JSON body, one 200 response. */
import type { OperationObject, ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas30';
import { jsonContent } from './shared-components.js';

export interface JsonOperation {
  operationId: string;
  summary: string;
  description?: string;
  parameters?: Array<ParameterObject | ReferenceObject>;
  /** JSON request body, required when given. */
  body?: { description: string; schema: SchemaObject | ReferenceObject };
  /** The 200 response; errors are added by the document builders. */
  response: { description: string; schema: SchemaObject | ReferenceObject };
}

export function jsonOperation(spec: JsonOperation): OperationObject {
  const operation: OperationObject = { operationId: spec.operationId, summary: spec.summary, responses: {} };
  if (spec.description !== undefined) operation.description = spec.description;
  if (spec.parameters !== undefined && spec.parameters.length > 0) operation.parameters = spec.parameters;
  if (spec.body !== undefined) {
    operation.requestBody = { description: spec.body.description, required: true, content: jsonContent(spec.body.schema) };
  }
  operation.responses['200'] = { description: spec.response.description, content: jsonContent(spec.response.schema) };
  return operation;
}

/** A required string path parameter. */
export function pathParameter(name: string, description: string): ParameterObject {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}
