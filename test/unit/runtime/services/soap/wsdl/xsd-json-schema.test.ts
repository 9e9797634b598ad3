import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '#runtime/model/platform-model.js';
import { RequestWriter } from '#runtime/services/soap/call/request-xml.js';
import { SchemaView } from '#runtime/services/soap/wsdl/json-schema-view.js';
import { documentWsdl, introspectText, TNS } from '../soap-test-helpers.js';

/** The request schema and definitions of an operation `Op` whose input element is `Req`. */
async function request(schema: string, options: { elementFormDefault?: 'qualified' | 'unqualified' } = {}) {
  const model = await introspectText(documentWsdl(schema, [{ name: 'Op', input: 'Req' }], options));
  return { input: model.operations[0]?.input, definitions: model.definitions, warnings: model.warnings };
}

const ns = { xml: { namespace: TNS } };

describe('XSD -> JSON Schema', () => {
  it.each<[string, 'qualified' | 'unqualified', string, JsonSchema]>([
    [
      'required from minOccurs, optional with minOccurs 0, nullable from nillable (and so not required; null by default when it must occur)',
      'qualified',
      `<xs:element name="Req"><xs:complexType><xs:sequence>
         <xs:element name="a" type="xs:int"/><xs:element name="b" type="xs:string" minOccurs="0"/><xs:element name="c" type="xs:boolean" nillable="true"/>
       </xs:sequence></xs:complexType></xs:element>`,
      {
        type: 'object',
        properties: {
          a: { type: 'integer', format: 'int32', ...ns },
          b: { type: 'string', ...ns },
          c: { type: 'boolean', nullable: true, default: null, ...ns },
        },
        required: ['a'],
      },
    ],
    [
      'arrays from maxOccurs, on the element or on its sequence',
      'qualified',
      `<xs:element name="Req"><xs:complexType><xs:sequence>
         <xs:element name="tag" type="xs:string" maxOccurs="unbounded"/>
         <xs:sequence maxOccurs="3"><xs:element name="n" type="xs:long" minOccurs="0"/></xs:sequence>
       </xs:sequence></xs:complexType></xs:element>`,
      {
        type: 'object',
        properties: {
          tag: { type: 'array', items: { type: 'string' }, minItems: 1, ...ns },
          n: { type: 'array', items: { type: 'integer', format: 'int64' }, ...ns },
        },
        required: ['tag'],
      },
    ],
    [
      'named enumerations by reference to their shared definition, other named simple types inline with their facets',
      'qualified',
      `<xs:simpleType name="Colour"><xs:restriction base="xs:string"><xs:enumeration value="red"/><xs:enumeration value="blue"/></xs:restriction></xs:simpleType>
       <xs:simpleType name="Level"><xs:restriction base="xs:int"><xs:enumeration value="1"/><xs:enumeration value="2"/></xs:restriction></xs:simpleType>
       <xs:simpleType name="Code"><xs:restriction base="xs:string"><xs:maxLength value="3"/></xs:restriction></xs:simpleType>
       <xs:element name="Req"><xs:complexType><xs:sequence>
         <xs:element name="colour" type="tns:Colour"/><xs:element name="level" type="tns:Level"/><xs:element name="code" type="tns:Code"/>
       </xs:sequence></xs:complexType></xs:element>`,
      {
        type: 'object',
        properties: {
          colour: { allOf: [{ $ref: '#/components/schemas/Colour' }], ...ns },
          level: { allOf: [{ $ref: '#/components/schemas/Level' }], ...ns },
          code: { type: 'string', maxLength: 3, ...ns },
        },
        required: ['colour', 'level', 'code'],
      },
    ],
    [
      'a required choice of single elements is a oneOf; an optional one is not',
      'qualified',
      `<xs:element name="Req"><xs:complexType><xs:sequence>
         <xs:choice><xs:element name="byId" type="xs:int"/><xs:element name="byName" type="xs:string"/></xs:choice>
         <xs:choice minOccurs="0"><xs:element name="x" type="xs:int"/><xs:element name="y" type="xs:int"/></xs:choice>
       </xs:sequence></xs:complexType></xs:element>`,
      {
        type: 'object',
        properties: {
          byId: { type: 'integer', format: 'int32', ...ns },
          byName: { type: 'string', ...ns },
          x: { type: 'integer', format: 'int32', ...ns },
          y: { type: 'integer', format: 'int32', ...ns },
        },
        oneOf: [{ required: ['byId'] }, { required: ['byName'] }],
      },
    ],
    [
      'attributes as members flagged xml.attribute, required by use; unqualified elements carry no namespace',
      'unqualified',
      `<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="v" type="xs:decimal"/></xs:sequence>
         <xs:attribute name="id" type="xs:ID" use="required"/><xs:attribute name="note" type="xs:string"/><xs:attribute name="gone" type="xs:string" use="prohibited"/>
       </xs:complexType></xs:element>`,
      {
        type: 'object',
        properties: {
          v: { type: 'number' },
          id: { type: 'string', xml: { attribute: true } },
          note: { type: 'string', xml: { attribute: true } },
        },
        required: ['v', 'id'],
      },
    ],
  ])('%s', async (_, elementFormDefault, schema, expected) => {
    const { input } = await request(schema, { elementFormDefault });
    expect(input?.wrapper).toEqual({ name: 'Req', namespace: TNS });
    expect(input?.schema).toEqual(expected);
  });

  it('defines a named enumeration once however often it is used, numeric values as numbers; a fixed value or a restriction narrows a copy', async () => {
    const uses = Array.from({ length: 50 }, (_, i) => `<xs:element name="c${i}" type="tns:Colour" minOccurs="0"/>`).join('');
    const { input, definitions } = await request(`
      <xs:simpleType name="Colour"><xs:restriction base="xs:string"><xs:enumeration value="red"/><xs:enumeration value="blue"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="Level"><xs:restriction base="xs:int"><xs:enumeration value="01"/><xs:enumeration value="2"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="Red"><xs:restriction base="tns:Colour"><xs:enumeration value="red"/></xs:restriction></xs:simpleType>
      <xs:element name="Req"><xs:complexType><xs:sequence>${uses}
        <xs:element name="level" type="tns:Level" default="2"/><xs:element name="blue" type="tns:Colour" fixed="blue"/><xs:element name="red" type="tns:Red"/>
      </xs:sequence><xs:attribute name="tint" type="tns:Colour"/></xs:complexType></xs:element>`);
    expect(definitions).toEqual({
      Colour: { type: 'string', enum: ['red', 'blue'] },
      Level: { type: 'integer', format: 'int32', enum: [1, 2] },
      Red: { type: 'string', enum: ['red'] },
    });
    const properties = input?.schema.properties as Record<string, JsonSchema>;
    expect(Object.values(properties).filter((member) => JSON.stringify(member).includes('"enum"'))).toEqual([
      { type: 'string', enum: ['blue'], default: 'blue', ...ns },
    ]);
    expect([properties.c49, properties.level, properties.red, properties.tint]).toEqual([
      { allOf: [{ $ref: '#/components/schemas/Colour' }], ...ns },
      { allOf: [{ $ref: '#/components/schemas/Level' }], default: 2, ...ns },
      { allOf: [{ $ref: '#/components/schemas/Red' }], ...ns },
      { allOf: [{ $ref: '#/components/schemas/Colour' }], xml: { attribute: true } },
    ]);
  });

  it('turns simple content with attributes into `_` beside them, and without attributes into a plain value', async () => {
    const { definitions } = await request(`
      <xs:complexType name="Money"><xs:simpleContent><xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string" use="required"/></xs:extension></xs:simpleContent></xs:complexType>
      <xs:complexType name="Label"><xs:simpleContent><xs:extension base="xs:string"/></xs:simpleContent></xs:complexType>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="price" type="tns:Money"/><xs:element name="label" type="tns:Label"/></xs:sequence></xs:complexType></xs:element>`);
    expect(definitions.Money).toEqual({
      type: 'object',
      properties: { _: { type: 'number' }, currency: { type: 'string', xml: { attribute: true } } },
      required: ['currency'],
    });
    expect(definitions.Label).toEqual({ type: 'string' });
  });

  it('makes an extension an allOf of its base and its own members', async () => {
    const { definitions } = await request(
      `
      <xs:complexType name="Base"><xs:sequence><xs:element name="id" type="xs:int"/></xs:sequence></xs:complexType>
      <xs:complexType name="Derived"><xs:complexContent><xs:extension base="tns:Base"><xs:sequence><xs:element name="extra" type="xs:string"/></xs:sequence></xs:extension></xs:complexContent></xs:complexType>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="item" type="tns:Derived"/></xs:sequence></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(definitions.Derived).toEqual({
      allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { extra: { type: 'string' } }, required: ['extra'] }],
    });
  });

  it('ends recursive types with $ref, through named types and through element references', async () => {
    const { input, definitions } = await request(
      `
      <xs:complexType name="Node"><xs:sequence><xs:element name="child" type="tns:Node" minOccurs="0" maxOccurs="unbounded"/></xs:sequence></xs:complexType>
      <xs:element name="Part"><xs:complexType><xs:sequence><xs:element ref="tns:Part" minOccurs="0"/></xs:sequence></xs:complexType></xs:element>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="tree" type="tns:Node"/><xs:element ref="tns:Part"/></xs:sequence></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(definitions.Node).toEqual({
      type: 'object',
      properties: { child: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
    });
    expect(definitions.Part).toEqual({ type: 'object', properties: { Part: { allOf: [{ $ref: '#/components/schemas/Part' }], ...ns } } });
    expect(input?.schema).toEqual({
      type: 'object',
      properties: { tree: { $ref: '#/components/schemas/Node' }, Part: { allOf: [{ $ref: '#/components/schemas/Part' }], ...ns } },
      required: ['tree', 'Part'],
    });
  });

  it('makes a required element or attribute with a fixed or default value optional, that value its default (as FedEx versions are), a fixed value the only one allowed, and sends nil for a nillable one left out', async () => {
    const { input } = await request(
      `<xs:element name="Req"><xs:complexType><xs:sequence>
         <xs:element name="ServiceId" type="xs:string" fixed="crs"/><xs:element name="Major" type="xs:int" fixed="28"/>
         <xs:element name="Rush" type="xs:boolean" default="true"/><xs:element name="Note" type="xs:string" minOccurs="0" default="n"/>
         <xs:element name="Stamp" type="xs:dateTime" nillable="true"/><xs:element name="Memo" type="xs:string" nillable="true" minOccurs="0"/>
       </xs:sequence><xs:attribute name="version" type="xs:decimal" use="required" fixed="1.3"/></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(input?.schema).toEqual({
      type: 'object',
      properties: {
        ServiceId: { type: 'string', enum: ['crs'], default: 'crs' },
        Major: { type: 'integer', format: 'int32', enum: [28], default: 28 },
        Rush: { type: 'boolean', default: true },
        Note: { type: 'string' },
        Stamp: { type: 'string', format: 'date-time', nullable: true, default: null },
        Memo: { type: 'string', nullable: true },
        version: { type: 'number', enum: [1.3], default: 1.3, xml: { attribute: true } },
      },
    });
    const writer = new RequestWriter(new SchemaView({}));
    expect(writer.message(input!, {})).toBe(
      '<Req xmlns="urn:test" version="1.3"><ServiceId xmlns="">crs</ServiceId><Major xmlns="">28</Major><Rush xmlns="">true</Rush><Stamp xmlns="" xsi:nil="true"/></Req>',
    );
    expect(writer.message(input!, { Major: '28', version: '1.30', Rush: false, Note: 'x' })).toBe(
      '<Req xmlns="urn:test" version="1.30"><ServiceId xmlns="">crs</ServiceId><Major xmlns="">28</Major><Rush xmlns="">false</Rush><Note xmlns="">x</Note><Stamp xmlns="" xsi:nil="true"/></Req>',
    );
    // As the reference's client refuses a value other than the fixed one ('has fixed value ... is not allowed').
    expect(() => writer.message(input!, { Major: 29 })).toThrow("Field 'Major' must be '28'.");
    expect(() => writer.message(input!, { version: 2 })).toThrow("Field 'version' must be '1.3'.");
  });

  it('builds a chain of 5,000 types, each referring to the next (large generated WSDLs), without exhausting the stack', async () => {
    const chain = Array.from(
      { length: 5000 },
      (_, index) =>
        `<xs:complexType name="T${index}"><xs:sequence><xs:element name="next" type="tns:T${index + 1}" minOccurs="0"/></xs:sequence></xs:complexType>`,
    ).join('');
    const { input, definitions } = await request(
      `${chain}<xs:complexType name="T5000"><xs:sequence><xs:element name="end" type="xs:int"/></xs:sequence></xs:complexType>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="first" type="tns:T0"/></xs:sequence></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(input?.schema).toEqual({ type: 'object', properties: { first: { $ref: '#/components/schemas/T0' } }, required: ['first'] });
    expect(Object.keys(definitions)).toHaveLength(5001);
    expect(definitions.T4999).toEqual({ type: 'object', properties: { next: { $ref: '#/components/schemas/T5000' } } });
  });

  it('expands groups and attribute groups, and reads SOAP-encoded arrays as arrays', async () => {
    const { definitions } = await request(
      `
      <xs:group name="Pair"><xs:sequence><xs:element name="k" type="xs:string"/><xs:element name="v" type="xs:string"/></xs:sequence></xs:group>
      <xs:attributeGroup name="Meta"><xs:attribute name="rev" type="xs:int"/></xs:attributeGroup>
      <xs:complexType name="Entry"><xs:sequence><xs:group ref="tns:Pair"/></xs:sequence><xs:attributeGroup ref="tns:Meta"/></xs:complexType>
      <xs:complexType name="Entries" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:w="http://schemas.xmlsoap.org/wsdl/">
        <xs:complexContent><xs:restriction base="enc:Array"><xs:attribute ref="enc:arrayType" w:arrayType="tns:Entry[]"/></xs:restriction></xs:complexContent>
      </xs:complexType>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="all" type="tns:Entries"/></xs:sequence></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(definitions.Entry).toEqual({
      type: 'object',
      properties: { k: { type: 'string' }, v: { type: 'string' }, rev: { type: 'integer', format: 'int32', xml: { attribute: true } } },
      required: ['k', 'v'],
    });
    expect(definitions.Entries).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Entry' } });
  });

  it('keeps definition names clear of the shared OpenAPI components and of each other', async () => {
    const { definitions } = await request(`
      <xs:complexType name="Error"><xs:sequence><xs:element name="text" type="xs:string"/></xs:sequence></xs:complexType>
      <xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="e" type="tns:Error"/></xs:sequence></xs:complexType></xs:element>`);
    expect(Object.keys(definitions)).toEqual(['Error2']);
  });

  it('warns about undefined types and accepts any value for them', async () => {
    const { input, warnings } = await request(
      `<xs:element name="Req"><xs:complexType><xs:sequence><xs:element name="x" type="tns:Missing"/></xs:sequence></xs:complexType></xs:element>`,
      { elementFormDefault: 'unqualified' },
    );
    expect(input?.schema).toEqual({ type: 'object', properties: { x: {} }, required: ['x'] });
    expect(warnings).toEqual([`Type 'Missing' of namespace '${TNS}' is not defined; any value is accepted.`]);
  });
});
