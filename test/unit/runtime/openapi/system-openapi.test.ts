import { describe, expect, it } from 'vitest';
import { serviceDocument } from '../../../../runtime/openapi/service-document.js';
import { systemServiceOpenApi } from '../../../../runtime/openapi/system-openapi.js';
import { openApiErrors, unresolvedRefs } from '../../../golden/validators.js';

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

  it('makes a valid document with the shared session schemas', async () => {
    const document = serviceDocument({ name: 'system', label: 'System Management', description: '', type: 'system' }, fragment);
    expect(await openApiErrors(document)).toBeNull();
    expect(unresolvedRefs(document)).toEqual([]);
    expect(document.components?.schemas?.SessionResponse).toMatchObject({ properties: { session_token: { type: 'string' } } });
  });
});
