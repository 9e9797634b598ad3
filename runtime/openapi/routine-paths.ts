/** `_proc` and `_func` paths of a database service that has stored procedures or functions. */
import type { PathItemObject, SchemasObject } from 'openapi3-ts/oas30';
import type { RoutineModel } from '../model/platform-model.js';
import { jsonOperation, pathParameter } from './operation-builder.js';
import { componentRef } from './shared-components.js';

export function routineSchemas(): SchemasObject {
  return {
    RoutineRequest: {
      type: 'object',
      properties: {
        params: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: {} } },
        },
        wrapper: { type: 'string', description: 'Wrap result rows under this name.' },
        returns: { type: 'string', description: 'Type to cast a single result to.' },
      },
    },
    RoutineResponse: { description: 'Result rows, output parameters or the returned value.' },
  };
}

const KINDS = [
  { kind: 'procedure', segment: '_proc', param: 'procedure_name', label: 'StoredProcedure', text: 'stored procedure' },
  { kind: 'function', segment: '_func', param: 'function_name', label: 'StoredFunction', text: 'stored function' },
] as const;

/**
 * Paths of the routines: the listings `/_proc` and `/_func` of a database that can have routines
 * (`listed`: the service's root lists them, and they answer, empty or not), and a kind's by-name
 * paths when the database has routines of that kind.
 */
export function routinePaths(service: string, routines: RoutineModel[], listed: boolean): Record<string, PathItemObject> {
  const paths: Record<string, PathItemObject> = {};
  for (const { kind, segment, param, label, text } of KINDS) {
    const some = routines.some((routine) => routine.kind === kind);
    if (listed || some) {
      paths[`/${segment}`] = {
        get: jsonOperation({
          operationId: `get${service}${label}s`,
          summary: `List the ${text}s.`,
          response: { description: 'Names of the routines.', schema: componentRef('schemas', 'ResourceList') },
        }),
      };
    }
    if (!some) continue;
    const result = { description: 'The result.', schema: componentRef('schemas', 'RoutineResponse') };
    paths[`/${segment}/{${param}}`] = {
      parameters: [pathParameter(param, `Name of the ${text}.`)],
      get: jsonOperation({
        operationId: `get${service}${label}`,
        summary: `Run a ${text}, parameters in the query string.`,
        response: result,
      }),
      post: jsonOperation({
        operationId: `call${service}${label}`,
        summary: `Run a ${text} with parameters.`,
        body: {
          description: 'Parameters: `{"params": [{"name": ..., "value": ...}]}`.',
          schema: componentRef('schemas', 'RoutineRequest'),
        },
        response: result,
      }),
    };
  }
  return paths;
}
