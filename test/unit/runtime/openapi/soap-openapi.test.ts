/** The OpenAPI fragment and the TypeScript types of a SOAP service (runtime/openapi/soap-openapi.ts, generator/emit/soap/). */
import { describe, expect, it } from 'vitest';
import { createSoapTypesFile } from '#generator/emit/soap/create-soap-types-file.js';
import type { SoapServiceModel } from '#runtime/model/platform-model.js';
import { serviceDocument } from '#runtime/openapi/service-document.js';
import { soapServiceOpenApi } from '#runtime/openapi/soap-openapi.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { openApiErrors } from '#test/golden/validators.js';
import { soapService } from '../services/soap/soap-test-helpers.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';

const calculator = (await soapKind.introspect!(soapService({ wsdl: 'pm-calculator.wsdl' }, { name: 'my_calc' }), {
  baseDir: WSDL_CORPUS_DIR,
  resolveEnv: (value) => value,
})) as SoapServiceModel;

describe('SOAP OpenAPI fragment', () => {
  it('documents the operation list, then POST and (for simple inputs) GET per operation', async () => {
    const fragment = soapServiceOpenApi(calculator);
    expect(Object.keys(fragment.paths)).toEqual(['/', '/add', '/divide', '/multiply', '/subtract']);
    const add = fragment.paths['/add'];
    expect(add.post?.operationId).toBe('callMyCalcAdd');
    expect(add.get?.operationId).toBe('getMyCalcAdd');
    expect(add.get?.parameters).toEqual([
      { name: 'intA', in: 'query', required: true, schema: { type: 'integer', format: 'int32' } },
      { name: 'intB', in: 'query', required: true, schema: { type: 'integer', format: 'int32' } },
    ]);
    expect(add.post?.requestBody).toEqual({
      description: 'The fields of the request message.',
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/AddRequest' } } },
    });
    // The input message is a schema component of its own, named as the TypeScript type.
    expect(fragment.components.schemas?.AddRequest).toEqual(calculator.operations[0].input.schema);
    expect(Object.keys(add.post?.responses ?? {})).toEqual(['200', '500', '503']);
    expect(await openApiErrors(serviceDocument(calculator, fragment))).toBeNull();
  });

  it('emits TypeScript request and response types and the Operations map', () => {
    const text = createSoapTypesFile(calculator);
    expect(text).toContain('export interface AddRequest {\n  intA: number;\n  intB: number;\n}');
    expect(text).toContain('export interface AddResponse {\n  AddResult: number;\n}');
    expect(text).toContain('  Add: { request: AddRequest; response: AddResponse };');
  });
});
