import { describe, expect, it } from 'vitest';
import type { JsonSchema, SoapMessageModel } from '#runtime/model/platform-model.js';
import { SchemaView } from '#runtime/services/soap/wsdl/json-schema-view.js';
import { RequestWriter } from '#runtime/services/soap/call/request-xml.js';

const NS = 'urn:shop';
const definitions: Record<string, JsonSchema> = {
  Money: {
    type: 'object',
    properties: { _: { type: 'number' }, currency: { type: 'string', xml: { attribute: true } } },
    required: ['currency'],
  },
  Line: {
    type: 'object',
    properties: {
      sku: { type: 'string', xml: { namespace: NS } },
      qty: { type: 'integer', xml: { namespace: NS } },
      price: { $ref: '#/components/schemas/Money' },
    },
    required: ['sku', 'qty'],
  },
  Base: { type: 'object', properties: { id: { type: 'integer', format: 'int32' } }, required: ['id'] },
  Order: {
    allOf: [
      { $ref: '#/components/schemas/Base' },
      {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['new', 'paid'] },
          express: { type: 'boolean' },
          line: { type: 'array', items: { $ref: '#/components/schemas/Line' }, xml: { namespace: NS } },
          note: { type: 'string', nullable: true },
          rush: { type: 'string', xml: { attribute: true, namespace: 'urn:flags' } },
        },
      },
    ],
  },
};
const message: SoapMessageModel = {
  wrapper: { name: 'PlaceOrder', namespace: NS },
  schema: { type: 'object', properties: { order: { $ref: '#/components/schemas/Order' } }, required: ['order'] },
};
const writer = new RequestWriter(new SchemaView(definitions));

describe('request XML', () => {
  it('writes members in schema order with attributes, `_` text, repeated elements, nil and namespace changes', () => {
    const xml = writer.message(message, {
      order: {
        note: null,
        line: [
          { qty: '2', sku: 'A&1', price: { currency: 'EUR', _: 9.5 } },
          { sku: 'B', qty: 1, price: { currency: 'USD', _: '3' } },
        ],
        id: 7,
        express: 'false',
        status: 'paid',
        rush: 'y',
        unknown: 'ignored',
      },
    });
    expect(xml).toBe(
      '<PlaceOrder xmlns="urn:shop"><order xmlns="" xmlns:a0="urn:flags" a0:rush="y"><id>7</id><status>paid</status><express>false</express>' +
        '<line xmlns="urn:shop"><sku>A&amp;1</sku><qty>2</qty><price xmlns="" currency="EUR">9.5</price></line>' +
        '<line xmlns="urn:shop"><sku>B</sku><qty>1</qty><price xmlns="" currency="USD">3</price></line>' +
        '<note xsi:nil="true"/></order></PlaceOrder>',
    );
  });

  it('takes one object where an array is expected', () => {
    expect(writer.message(message, { order: { id: 1, line: { sku: 'A', qty: 1 } } })).toContain(
      '<line xmlns="urn:shop"><sku>A</sku><qty>1</qty></line></order>',
    );
  });

  it.each([
    [{}, "Field 'order' is required."],
    [{ order: { id: 'seven' } }, "Field 'order.id' must be an integer."],
    [{ order: { id: 1, status: 'lost' } }, "Field 'order.status' must be one of 'new', 'paid'."],
    [{ order: { id: 1, express: 'maybe' } }, "Field 'order.express' must be true or false."],
    [{ order: { id: 1, line: [{ sku: 'A' }] } }, "Field 'order.line[0].qty' is required."],
    [{ order: { id: 1, line: [{ sku: 'A', qty: 1, price: { _: 1 } }] } }, "Field 'order.line[0].price.currency' is required."],
    [{ order: 'x' }, "Field 'order' must be an object."],
    [{ order: { id: 2147483648 } }, "Field 'order.id' must be an integer from -2147483648 to 2147483647."],
    [{ order: { id: '-2147483649' } }, "Field 'order.id' must be an integer from -2147483648 to 2147483647."],
    [{ order: { id: 1, note: 'a\u0001b' } }, "Field 'order.note' holds the character U+0001, which XML cannot carry."],
    [{ order: { id: 1, rush: '\u001f' } }, "Field 'order.rush' holds the character U+001F, which XML cannot carry."],
    [{ order: { id: 1, note: '\uffff' } }, "Field 'order.note' holds the character U+FFFF, which XML cannot carry."],
    [
      { order: { id: 1, line: [{ sku: 'A', qty: 1, price: { _: '1e-5000', currency: 'EUR' } }] } },
      "Field 'order.line[0].price._' must be a number.",
    ],
    [[1, 2], "The request must be a JSON object of the operation's fields."],
  ])('refuses %j: %s', (body, message400) => {
    expect(() => writer.message(message, body)).toThrow(message400);
  });

  it('writes numbers given in exponent notation in digits where the XML type takes no exponent, and keeps carriage returns', () => {
    const xml = writer.message(message, {
      order: {
        id: 1,
        note: 'a\r\nb\tc',
        line: [
          { sku: 'A', qty: 1e21, price: { currency: 'EUR', _: 1e21 } },
          { sku: 'B', qty: '7', price: { currency: 'EUR', _: '-1.5E-7' } },
        ],
      },
    });
    expect(xml).toContain('<sku>A</sku><qty>1000000000000000000000</qty><price xmlns="" currency="EUR">1000000000000000000000</price>');
    expect(xml).toContain('<price xmlns="" currency="EUR">-0.00000015</price>');
    expect(xml).toContain('<note>a&#13;\nb\tc</note>');
  });

  it('refuses a value nested more than 500 levels deep (objects or arrays) before writing it', () => {
    const objects = JSON.parse(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
    expect(() => writer.message(message, { order: objects })).toThrow("Field 'order' is nested more than 500 levels deep.");
    const arrays = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(() => writer.message(message, { order: { id: 1, line: arrays } })).toThrow("Field 'order' is nested more than 500 levels deep.");
  });

  it('writes the parts of a bare message as body elements', () => {
    const bare: SoapMessageModel = {
      wrapper: null,
      schema: { type: 'object', properties: { Code: { type: 'string', xml: { namespace: NS } } }, required: ['Code'] },
    };
    expect(writer.message(bare, { Code: 'x' })).toBe('<Code xmlns="urn:shop">x</Code>');
  });
});

describe('encoded request XML', () => {
  const XSD = 'http://www.w3.org/2001/XMLSchema';
  const encodedDefinitions: Record<string, JsonSchema> = {
    Tag: { type: 'object', properties: { name: { type: 'string', 'x-xml-type': `{${XSD}}string` } }, 'x-xml-type': '{urn:t}Tag' },
    TagArray: { type: 'array', items: { $ref: '#/components/schemas/Tag' }, 'x-xml-type': '{urn:t}TagArray' },
  };
  const encodedWriter = new RequestWriter(new SchemaView(encodedDefinitions));
  const rpc: SoapMessageModel = {
    wrapper: { name: 'tag', namespace: 'urn:t' },
    schema: {
      type: 'object',
      properties: {
        level: { type: 'string', enum: ['a', 'b'], 'x-xml-type': '{urn:t}Level' },
        tags: { $ref: '#/components/schemas/TagArray' },
        any: { type: 'array', items: {}, 'x-xml-type': '{http://schemas.xmlsoap.org/soap/encoding/}Array' },
      },
    },
  };

  it('writes SOAP 1.2 arrays with itemType and arraySize, named simple types and untyped items by their JSON type', () => {
    expect(encodedWriter.message(rpc, { level: 'a', tags: [{ name: 'x' }], any: [1, 'y'] }, '1.2')).toBe(
      '<tag xmlns="urn:t" soap:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><level xmlns="" xmlns:xt="urn:t" xsi:type="xt:Level">a</level>' +
        '<tags xmlns="" xmlns:SOAP-ENC="http://www.w3.org/2003/05/soap-encoding" xmlns:it="urn:t" xsi:type="SOAP-ENC:Array" SOAP-ENC:itemType="it:Tag" SOAP-ENC:arraySize="1">' +
        '<item xmlns:xt="urn:t" xsi:type="xt:Tag"><name xsi:type="xsd:string">x</name></item></tags>' +
        '<any xmlns="" xmlns:SOAP-ENC="http://www.w3.org/2003/05/soap-encoding" xsi:type="SOAP-ENC:Array" SOAP-ENC:itemType="xsd:anyType" SOAP-ENC:arraySize="2">' +
        '<item xsi:type="xsd:int">1</item><item xsi:type="xsd:string">y</item></any></tag>',
    );
  });

  it('writes objects and arrays of no declared type as SOAP-ENC:Struct and SOAP-ENC:Array, their members typed', () => {
    expect(encodedWriter.message(rpc, { any: [{ a: 1, b: ['x'], c: null }] }, '1.1')).toBe(
      '<tag xmlns="urn:t"><any xmlns="" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:ur-type[1]">' +
        '<item xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Struct"><a xsi:type="xsd:int">1</a>' +
        '<b xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:ur-type[1]"><item xsi:type="xsd:string">x</item></b>' +
        '<c xsi:nil="true"></c></item></any></tag>',
    );
  });

  it('writes SOAP 1.1 arrays of any type as ur-type, and literal messages without types', () => {
    expect(encodedWriter.message(rpc, { any: [true] }, '1.1')).toContain(
      'SOAP-ENC:arrayType="xsd:ur-type[1]"><item xsi:type="xsd:boolean">true</item>',
    );
    expect(encodedWriter.message(rpc, { level: 'a', tags: [{ name: 'x' }] })).toBe(
      '<tag xmlns="urn:t"><level xmlns="">a</level><tags xmlns=""><item><name>x</name></item></tags></tag>',
    );
  });
});

describe('pattern facets', () => {
  const currency: SoapMessageModel = {
    wrapper: { name: 'Price', namespace: 'urn:p' },
    schema: { type: 'object', properties: { currency: { type: 'string', pattern: '^(?:(?:[A-Z]{3}))$' } } },
  };
  const patternWriter = new RequestWriter(new SchemaView({}));

  it('refuse a text that does not match, and take one that matches once its whitespace is collapsed (xs:token)', () => {
    expect(() => patternWriter.message(currency, { currency: 'EURO' })).toThrow(
      "Field 'currency' does not match the pattern its type requires: ^(?:(?:[A-Z]{3}))$",
    );
    expect(patternWriter.message(currency, { currency: ' EUR\n' })).toBe(
      '<Price xmlns="urn:p"><currency xmlns=""> EUR\n</currency></Price>',
    );
  });
});

describe('length facets', () => {
  const lengths: SoapMessageModel = {
    wrapper: null,
    schema: {
      type: 'object',
      properties: { key: { type: 'string', format: 'byte', maxLength: 3 }, name: { type: 'string', minLength: 2, maxLength: 3 } },
    },
  };
  const lengthWriter = new RequestWriter(new SchemaView({}));

  it('count characters (code points), and the octets a base64Binary stands for', () => {
    expect(lengthWriter.message(lengths, { key: 'AAEC', name: '😀😀😀' })).toBe('<key>AAEC</key><name>😀😀😀</name>');
    expect(() => lengthWriter.message(lengths, { key: 'AAECAw==' })).toThrow("Field 'key' must be at most 3 bytes long.");
    expect(() => lengthWriter.message(lengths, { name: 'x' })).toThrow("Field 'name' must be from 2 to 3 characters long.");
  });
});
