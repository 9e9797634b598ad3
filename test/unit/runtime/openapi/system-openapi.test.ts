import { describe, expect, it } from 'vitest';
import { docsServiceOpenApi } from '#runtime/openapi/docs-openapi.js';
import { serviceDocument } from '#runtime/openapi/service-document.js';
import { systemServiceOpenApi, toOpenApiSchema } from '#runtime/openapi/system-openapi.js';
import { userServiceOpenApi } from '#runtime/openapi/user-openapi.js';
import { SYSTEM_RECORD_RESOURCES } from '#runtime/system/record-resources/system-records.js';
import { SYSTEM_RESOURCES } from '#runtime/system/system-service.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';

describe('systemServiceOpenApi', () => {
  const fragment = systemServiceOpenApi();

  it('documents the session endpoints, the environment and the app list', () => {
    expect(Object.keys(fragment.paths['/admin/session']).sort()).toEqual(['delete', 'get', 'post', 'put']);
    expect(fragment.paths['/admin/session'].post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SessionRequest' } } },
    });
    expect(fragment.paths['/environment'].get?.operationId).toBe('getSystemEnvironment');
    expect(fragment.paths['/app'].get?.operationId).toBe('getSystemApps');
  });

  it('documents every resource the system service lists, and each record resource in full', () => {
    for (const resource of SYSTEM_RESOURCES) expect(fragment.paths, resource).toHaveProperty(`/${resource}`);
    for (const def of SYSTEM_RECORD_RESOURCES) {
      if (def.writes === 'delete') continue;
      expect(Object.keys(fragment.paths[`/${def.name}`]).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
      expect(Object.keys(fragment.paths[`/${def.name}/{id}`]).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
      expect(fragment.paths[`/${def.name}`].post?.responses).toHaveProperty('201');
    }
    // Service reports are written by the platform: read and delete only.
    expect(Object.keys(fragment.paths['/service_report']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(fragment.paths['/service_report/{id}']).sort()).toEqual(['delete', 'get', 'parameters']);
    expect(fragment.components.schemas?.ServiceReportResponse).toMatchObject({
      properties: { service_id: { type: 'integer' }, action: { type: 'string' }, request_verb: { type: 'string' } },
    });
    expect(fragment.components.schemas?.SchedulerTaskResponse).toMatchObject({
      // Null as a branch of its own: OpenAPI 3.0 ignores `nullable` where there is no `type`.
      properties: {
        task_log_by_task_id: {
          anyOf: [{ $ref: '#/components/schemas/TaskLogResponse' }, { type: 'object', nullable: true, enum: [null] }],
        },
      },
    });
    expect(fragment.paths['/script_type/{name}'].get?.operationId).toBe('getSystemScriptType');
    expect(fragment.components.schemas?.RoleRequest).toMatchObject({ properties: { role_service_access_by_role_id: { type: 'array' } } });
    expect(fragment.components.schemas?.UserResponse).not.toHaveProperty('properties.password');
  });

  it.each([
    ['system', systemServiceOpenApi()],
    ['user', userServiceOpenApi()],
    ['api_docs', docsServiceOpenApi()],
  ])('makes a valid %s document', async (name, serviceFragment) => {
    const document = serviceDocument({ name, label: name, description: '', type: name }, serviceFragment);
    expect(await openApiErrors(document)).toBeNull();
    expect(unresolvedRefs(document)).toEqual([]);
  });
});

describe('toOpenApiSchema', () => {
  it.each([
    [
      { type: ['string', 'null'], maxLength: 3 },
      { type: 'string', maxLength: 3, nullable: true },
    ],
    [
      { type: ['boolean', 'integer'], enum: [true, false, 0, 1] },
      {
        anyOf: [
          { type: 'boolean', enum: [true, false] },
          { type: 'integer', enum: [0, 1] },
        ],
      },
    ],
    [
      { type: 'array', items: { type: ['integer', 'null'] } },
      { type: 'array', items: { type: 'integer', nullable: true } },
    ],
    [
      { type: 'string', enum: ['a'] },
      { type: 'string', enum: ['a'] },
    ],
  ])('%o', (schema, want) => {
    expect(toOpenApiSchema(schema)).toEqual(want);
  });
});
