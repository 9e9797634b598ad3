/**
 * WSDLs seen in the wild that node-soap loads (issue 9 items 18, 19): a binding written with an
 * undeclared `soap:` prefix beside a declared `soap12:` namespace, and schemas that import or
 * include each other in a cycle (each document is read once). And what no real WSDL does:
 * anonymous types nested thousands deep, types chained thousands deep, refused clearly rather
 * than with a stack overflow.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { loadWsdlDocuments } from '#runtime/services/soap/wsdl/wsdl-loader.js';
import type { SoapServiceModel } from '#runtime/model/platform-model.js';
import { documentWsdl, introspectText, soapService, tempFiles, TNS } from '../soap-test-helpers.js';

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function files(entries: Record<string, string>): string {
  const made = tempFiles(entries);
  cleanups.push(made.cleanup);
  return made.dir;
}

const introspect = async (dir: string) =>
  (await soapKind.introspect!(soapService({ wsdl: 'service.wsdl' }), { baseDir: dir, resolveEnv: (value) => value })) as SoapServiceModel;

/** A document/literal WSDL whose types import `A.xsd` (namespace urn:a) and whose one operation takes a:Ping. */
const wsdlImportingA = (binding: string, declarations = 'xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"') => `<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" ${declarations} xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" xmlns:tns="${TNS}" targetNamespace="${TNS}">
  <wsdl:types><xs:schema><xs:import namespace="urn:a" schemaLocation="./A.xsd"/></xs:schema></wsdl:types>
  <wsdl:message name="PingIn"><wsdl:part name="parameters" element="a:Ping"/></wsdl:message>
  <wsdl:portType name="Port"><wsdl:operation name="Ping"><wsdl:input message="tns:PingIn"/></wsdl:operation></wsdl:portType>
  ${binding}
</wsdl:definitions>`;

const SOAP11_BINDING = `<wsdl:binding name="Binding" type="tns:Port"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="Ping"><soap:operation soapAction="urn:ping"/><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation></wsdl:binding>
  <wsdl:service name="Service"><wsdl:port name="Port" binding="tns:Binding"><soap:address location="http://127.0.0.1:1/svc"/></wsdl:port></wsdl:service>`;

const PING_SCHEMA = (imports: string, extra = '') => `<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" xmlns:b="urn:b" targetNamespace="urn:a" elementFormDefault="qualified">
  ${imports}
  <xs:element name="Ping"><xs:complexType><xs:sequence><xs:element name="item" type="${extra || 'b:Item'}"/></xs:sequence></xs:complexType></xs:element>
  <xs:complexType name="Note"><xs:sequence><xs:element name="text" type="xs:string"/></xs:sequence></xs:complexType>
</xs:schema>`;

describe('a binding with an undeclared soap: prefix beside soap12:', () => {
  it('finds the operations and their SOAP version', async () => {
    const dir = files({
      'service.wsdl': wsdlImportingA(SOAP11_BINDING, 'xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/"'),
      'A.xsd': PING_SCHEMA('', 'xs:string'),
    });
    const model = await introspect(dir);
    expect(model.operations.map((operation) => operation.name)).toEqual(['Ping']);
    expect(model.endpoints).toEqual({ '1.1': 'http://127.0.0.1:1/svc' });
  });
});

describe('schemas that import each other in a cycle', () => {
  const B_IMPORTING_A = `<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" targetNamespace="urn:b" elementFormDefault="qualified">
  <xs:import namespace="urn:a" schemaLocation="./A.xsd"/>
  <xs:complexType name="Item"><xs:sequence><xs:element name="note" type="a:Note"/></xs:sequence></xs:complexType>
</xs:schema>`;

  it('A imports B imports A: both load, each once, and the types resolve across them', async () => {
    const dir = files({
      'service.wsdl': wsdlImportingA(SOAP11_BINDING),
      'A.xsd': PING_SCHEMA('<xs:import namespace="urn:b" schemaLocation="B.xsd"/>'),
      'B.xsd': B_IMPORTING_A,
    });
    const documents = await loadWsdlDocuments({ kind: 'file', path: path.join(dir, 'service.wsdl') }, {
      exchange: () => Promise.reject(new Error('no network')),
    } as never);
    const labels = documents
      .map((document) => document.label)
      .filter((label) => !label.endsWith('.xsd') || ['./A.xsd', 'B.xsd', './B.xsd'].includes(label));
    expect(labels).toEqual(['service.wsdl', './A.xsd', 'B.xsd']);
    const model = await introspect(dir);
    expect(model.operations.map((operation) => operation.name)).toEqual(['Ping']);
    expect(JSON.stringify(model)).toMatch(/"Item":\{[^}]*"properties":\{"note"/);
  });

  it('A includes B includes A (one namespace): both load, each once', async () => {
    const dir = files({
      'service.wsdl': wsdlImportingA(SOAP11_BINDING),
      'A.xsd': PING_SCHEMA('<xs:include schemaLocation="./B.xsd"/>', 'a:Item'),
      'B.xsd': `<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" targetNamespace="urn:a" elementFormDefault="qualified">
  <xs:include schemaLocation="A.xsd"/>
  <xs:complexType name="Item"><xs:sequence><xs:element name="note" type="a:Note"/></xs:sequence></xs:complexType>
</xs:schema>`,
    });
    const documents = await loadWsdlDocuments({ kind: 'file', path: path.join(dir, 'service.wsdl') }, {
      exchange: () => Promise.reject(new Error('no network')),
    } as never);
    expect(documents.filter((document) => /[AB]\.xsd$/.test(document.label)).map((document) => path.basename(document.uri))).toEqual([
      'A.xsd',
      'B.xsd',
    ]);
    expect((await introspect(dir)).operations.map((operation) => operation.name)).toEqual(['Ping']);
  });
});

describe('anonymous types nested 3,000 deep', () => {
  it('are refused with a clear message, not a stack overflow', async () => {
    const nested = Array.from({ length: 3000 }).reduce<string>(
      (inner, _, index) => `<xs:element name="e${index}"><xs:complexType><xs:sequence>${inner}</xs:sequence></xs:complexType></xs:element>`,
      '<xs:element name="leaf" type="xs:string"/>',
    );
    await expect(introspectText(documentWsdl(nested, [{ name: 'Op', input: 'e2999' }]))).rejects.toThrow(
      "'test.wsdl' nests elements more than 500 levels deep, beyond what Portico reads.",
    );
  });
});

describe('types that chain 3,000 deep', () => {
  const chain = (make: (index: number) => string) => Array.from({ length: 3000 }, (_, index) => make(index)).join('');
  it.each([
    [
      'extensions',
      chain(
        (i) =>
          `<xs:complexType name="A${i}"><xs:complexContent><xs:extension base="tns:A${i + 1}"><xs:sequence><xs:element name="f${i}" type="xs:string"/></xs:sequence></xs:extension></xs:complexContent></xs:complexType>`,
      ),
      '<xs:complexType name="A3000"><xs:sequence><xs:element name="end" type="xs:string"/></xs:sequence></xs:complexType><xs:element name="Req" type="tns:A0"/>',
    ],
    [
      'simple type restrictions',
      chain((i) => `<xs:simpleType name="S${i}"><xs:restriction base="tns:S${i + 1}"/></xs:simpleType>`),
      '<xs:simpleType name="S3000"><xs:restriction base="xs:int"/></xs:simpleType><xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="s" type="tns:S0"/></xs:sequence></xs:complexType></xs:element>',
    ],
    [
      'groups',
      chain(
        (i) =>
          `<xs:group name="G${i}"><xs:sequence><xs:element name="g${i}" type="xs:string"/><xs:group ref="tns:G${i + 1}"/></xs:sequence></xs:group>`,
      ),
      '<xs:group name="G3000"><xs:sequence><xs:element name="end" type="xs:string"/></xs:sequence></xs:group><xs:element name="Req"><xs:complexType><xs:group ref="tns:G0"/></xs:complexType></xs:element>',
    ],
  ])('of %s are refused with a clear message, not a stack overflow', async (_, types, request) => {
    await expect(introspectText(documentWsdl(types + request, [{ name: 'Op', input: 'Req' }]))).rejects.toThrow(
      "'test.wsdl' has types that extend, restrict or include one another in chains too long to read.",
    );
  });
});

describe('an overloaded operation (two forms of one name, told apart by their input names)', () => {
  it('offers the first form and says so', async () => {
    const model = await introspectText(`<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:o" targetNamespace="urn:o">
<wsdl:message name="AddInt"><wsdl:part name="a" type="xs:int"/><wsdl:part name="b" type="xs:int"/></wsdl:message>
<wsdl:message name="AddFloat"><wsdl:part name="a" type="xs:float"/><wsdl:part name="b" type="xs:float"/></wsdl:message>
<wsdl:message name="AddIntOut"><wsdl:part name="r" type="xs:int"/></wsdl:message>
<wsdl:message name="AddFloatOut"><wsdl:part name="r" type="xs:float"/></wsdl:message>
<wsdl:portType name="P">
<wsdl:operation name="Add"><wsdl:input name="AddInt" message="tns:AddInt"/><wsdl:output name="AddIntOut" message="tns:AddIntOut"/></wsdl:operation>
<wsdl:operation name="Add"><wsdl:input name="AddFloat" message="tns:AddFloat"/><wsdl:output name="AddFloatOut" message="tns:AddFloatOut"/></wsdl:operation>
</wsdl:portType>
<wsdl:binding name="B" type="tns:P"><soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
<wsdl:operation name="Add"><soap:operation soapAction="urn:AddInt"/><wsdl:input name="AddInt"><soap:body use="literal" namespace="urn:o"/></wsdl:input><wsdl:output name="AddIntOut"><soap:body use="literal" namespace="urn:o"/></wsdl:output></wsdl:operation>
<wsdl:operation name="Add"><soap:operation soapAction="urn:AddFloat"/><wsdl:input name="AddFloat"><soap:body use="literal" namespace="urn:o"/></wsdl:input><wsdl:output name="AddFloatOut"><soap:body use="literal" namespace="urn:o"/></wsdl:output></wsdl:operation>
</wsdl:binding>
<wsdl:service name="S"><wsdl:port name="P" binding="tns:B"><soap:address location="http://127.0.0.1:1/o"/></wsdl:port></wsdl:service></wsdl:definitions>`);
    expect(model.operations.map((operation) => [operation.name, operation.soapAction])).toEqual([['Add', 'urn:AddInt']]);
    expect(model.operations[0].input.schema).toMatchObject({ properties: { a: { type: 'integer' }, b: { type: 'integer' } } });
    expect(model.warnings).toEqual([
      "Operation 'Add' appears more than once in binding 'B' (an overload, which one JSON name cannot tell apart, or a copy): only the first is offered.",
    ]);
  });
});

describe("a WSDL whose default namespace is WSDL's own, naming schema components of no namespace without a prefix", () => {
  it('finds them by their local name (node-soap cannot load it)', async () => {
    const model = await introspectText(`<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <types><xs:schema elementFormDefault="qualified">
    <xs:element name="Hello"><xs:complexType><xs:sequence><xs:element name="name" type="xs:string"/><xs:element name="p" type="Point"/></xs:sequence></xs:complexType></xs:element>
    <xs:complexType name="Point"><xs:sequence><xs:element name="x" type="xs:int"/></xs:sequence></xs:complexType>
    <xs:element name="HelloResponse"><xs:complexType><xs:sequence><xs:element name="greeting" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
  </xs:schema></types>
  <message name="HelloIn"><part name="parameters" element="Hello"/></message>
  <message name="HelloOut"><part name="parameters" element="HelloResponse"/></message>
  <portType name="P"><operation name="Hello"><input message="HelloIn"/><output message="HelloOut"/></operation></portType>
  <binding name="B" type="P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="Hello"><soap:operation soapAction="Hello"/><input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation></binding>
  <service name="S"><port name="P" binding="B"><soap:address location="http://127.0.0.1:1/h"/></port></service>
</definitions>
`);
    expect(model.warnings).toEqual([]);
    expect(model.operations.map((operation) => operation.name)).toEqual(['Hello']);
    expect(model.operations[0].input).toEqual({
      wrapper: { name: 'Hello', namespace: '' },
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, p: { $ref: '#/components/schemas/Point' } },
        required: ['name', 'p'],
      },
    });
    expect(model.definitions.Point).toEqual({ type: 'object', properties: { x: { type: 'integer', format: 'int32' } }, required: ['x'] });
  });
});

describe('a solicit-response operation (its output before its input)', () => {
  it('is left out with a warning, as a notification is: the service starts it, no call can', async () => {
    const schema = ['Ask', 'AskResponse', 'Tell', 'TellResponse']
      .map((name) => `<xs:element name="${name}"><xs:complexType><xs:sequence/></xs:complexType></xs:element>`)
      .join('');
    const wsdl = documentWsdl(schema, [
      { name: 'Ask', input: 'Ask', output: 'AskResponse' },
      { name: 'Tell', input: 'Tell', output: 'TellResponse' },
    ]).replace(
      '<wsdl:operation name="Ask"><wsdl:input message="tns:AskIn"/><wsdl:output message="tns:AskOut"/>',
      '<wsdl:operation name="Ask"><wsdl:output message="tns:AskOut"/><wsdl:input message="tns:AskIn"/>',
    );
    expect(wsdl).toContain('<wsdl:output message="tns:AskOut"/><wsdl:input');
    const model = await introspectText(wsdl);
    expect(model.operations.map((operation) => operation.name)).toEqual(['Tell']);
    expect(model.warnings).toEqual([
      "Operation 'Ask' is left out: its output comes before its input (a solicit-response operation, which the service starts).",
    ]);
  });
});
