/** Small WSDLs for the SOAP unit tests: a document/literal service around a schema, read from a temp directory. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServiceModel, SoapServiceModel } from '#runtime/model/platform-model.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';

export const TNS = 'urn:test';

export interface TestOperation {
  name: string;
  /** Global element of the request. */
  input: string;
  /** Global element of the response, if any. */
  output?: string;
}

/** A WSDL 1.1 document/literal service (SOAP 1.1 port) whose schema is `schema` (elements of `xs:schema`, tns prefix `tns`). */
export function documentWsdl(
  schema: string,
  operations: TestOperation[],
  options: { elementFormDefault?: 'qualified' | 'unqualified' } = {},
): string {
  const form = options.elementFormDefault ?? 'qualified';
  const messages = operations.flatMap((op) => [
    `<wsdl:message name="${op.name}In"><wsdl:part name="parameters" element="tns:${op.input}"/></wsdl:message>`,
    ...(op.output ? [`<wsdl:message name="${op.name}Out"><wsdl:part name="parameters" element="tns:${op.output}"/></wsdl:message>`] : []),
  ]);
  const portOps = operations.map(
    (op) =>
      `<wsdl:operation name="${op.name}"><wsdl:input message="tns:${op.name}In"/>${op.output ? `<wsdl:output message="tns:${op.name}Out"/>` : ''}</wsdl:operation>`,
  );
  const bindingOps = operations.map(
    (op) =>
      `<wsdl:operation name="${op.name}"><soap:operation soapAction="${TNS}/${op.name}"/><wsdl:input><soap:body use="literal"/></wsdl:input>${op.output ? '<wsdl:output><soap:body use="literal"/></wsdl:output>' : ''}</wsdl:operation>`,
  );
  return `<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="${TNS}" targetNamespace="${TNS}">
  <wsdl:types><xs:schema targetNamespace="${TNS}" elementFormDefault="${form}">${schema}</xs:schema></wsdl:types>
  ${messages.join('\n  ')}
  <wsdl:portType name="TestPort">${portOps.join('')}</wsdl:portType>
  <wsdl:binding name="TestBinding" type="tns:TestPort"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>${bindingOps.join('')}</wsdl:binding>
  <wsdl:service name="TestService"><wsdl:port name="TestPort" binding="tns:TestBinding"><soap:address location="http://127.0.0.1:1/test"/></wsdl:port></wsdl:service>
</wsdl:definitions>`;
}

/** A temporary directory holding files; `cleanup` removes it. */
export function tempFiles(files: Record<string, string>): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-soap-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function soapService(config: Record<string, unknown>, change: Partial<ServiceModel> = {}): ServiceModel {
  return {
    id: 8,
    name: 'test',
    label: 'Test',
    type: 'soap',
    description: '',
    is_active: true,
    config,
    origin: 'platform',
    kind: 'plain',
    ...change,
  } as ServiceModel;
}

/** The model `soapKind.introspect` builds from WSDL text. */
export async function introspectText(wsdl: string, config: Record<string, unknown> = {}): Promise<SoapServiceModel> {
  const files = tempFiles({ 'test.wsdl': wsdl });
  try {
    return (await soapKind.introspect!(soapService({ wsdl: 'test.wsdl', ...config }), {
      baseDir: files.dir,
      resolveEnv: (value) => value,
    })) as SoapServiceModel;
  } finally {
    files.cleanup();
  }
}
