import { describe, expect, it } from 'vitest';
import type { JsonSchema, SoapMessageModel } from '#runtime/model/platform-model.js';
import { SchemaView } from '#runtime/services/soap/wsdl/json-schema-view.js';
import { faultError, parseEnvelope, ResponseReader } from '#runtime/services/soap/call/response-json.js';

const definitions: Record<string, JsonSchema> = {
  Money: { type: 'object', properties: { _: { type: 'number' }, currency: { type: 'string', xml: { attribute: true } } } },
  Item: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      big: { type: 'integer' },
      ok: { type: 'boolean' },
      price: { $ref: '#/components/schemas/Money' },
    },
  },
};
const output: SoapMessageModel = {
  wrapper: { name: 'ListResponse', namespace: 'urn:shop' },
  schema: {
    type: 'object',
    properties: {
      item: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
      total: { type: 'number', nullable: true },
      tags: { type: 'array', items: { type: 'string' } },
    },
  },
};
const reader = new ResponseReader(new SchemaView(definitions));

function envelope(body: string, version: '1.1' | '1.2' = '1.1'): Element {
  const ns = version === '1.1' ? 'http://schemas.xmlsoap.org/soap/envelope/' : 'http://www.w3.org/2003/05/soap-envelope';
  return parseEnvelope(
    `<?xml version="1.0"?><s:Envelope xmlns:s="${ns}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Body>${body}</s:Body></s:Envelope>`,
  );
}

describe('response JSON', () => {
  it('drops namespaces, types values, keeps attributes and `_`, reads nil as null, and makes a single repeated element an array', () => {
    const reply = reader.read(
      envelope(`<p:ListResponse xmlns:p="urn:shop" p:extra="attr">
      <p:item><p:name> spaced </p:name><p:count>3</p:count><p:big>9007199254740993</p:big><p:ok>1</p:ok><p:price currency="EUR">9.50</p:price><p:other a="1">x</p:other></p:item>
      <p:total xsi:nil="true"/></p:ListResponse>`),
      output,
    );
    expect(reply).toEqual({
      value: {
        extra: 'attr',
        item: [
          { name: ' spaced ', count: 3, big: '9007199254740993', ok: true, price: { currency: 'EUR', _: 9.5 }, other: { a: '1', _: 'x' } },
        ],
        total: null,
      },
    });
  });

  it('reads a decimal beyond the digits of a double as its text, a value of any type named xsd:double as a number', () => {
    const message: SoapMessageModel = {
      wrapper: null,
      schema: {
        type: 'object',
        properties: {
          d: { type: 'array', items: { type: 'number' } },
          f: { type: 'number', format: 'double' },
          short: { type: 'number', 'x-total-digits': 15 },
          any: { type: 'array', items: {} },
        },
      },
    };
    const digits = '0.1000000000000000055511151231257827';
    const body = ['1.50', '-000.25', digits, '123456789012345678901234567890', '1E3', ' 7 '].map((value) => `<d>${value}</d>`).join('');
    const xsd = `xmlns:xsd="http://www.w3.org/2001/XMLSchema"`;
    const any = `<any ${xsd} xsi:type="xsd:double">${digits}</any><any ${xsd} xsi:type="xsd:decimal">${digits}</any>`;
    expect(reader.read(envelope(`${body}<f>${digits}</f><short>${digits}</short>${any}`), message)).toEqual({
      value: { d: [1.5, -0.25, digits, '123456789012345678901234567890', 1000, 7], f: 0.1, short: 0.1, any: [0.1, digits] },
    });
  });

  it('follows SOAP-encoded multi-references', () => {
    const encoded = `<ns:ListResponse xmlns:ns="urn:shop"><item href="#id0"/><item href="#id1"/></ns:ListResponse>
      <multiRef id="id0"><name>a</name></multiRef><multiRef id="id1"><name>b</name><count>2</count></multiRef>`;
    expect(reader.read(envelope(encoded), output)).toEqual({ value: { item: [{ name: 'a' }, { name: 'b', count: 2 }] } });
  });

  it('reads a SOAP-encoded array written item by item as the array element itself (node-soap), of structs and of strings', () => {
    const encoded = new ResponseReader(
      new SchemaView({
        Refs: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
        Names: { type: 'array', items: { type: 'string' } },
      }),
    );
    const message: SoapMessageModel = {
      wrapper: { name: 'r', namespace: '' },
      schema: {
        type: 'object',
        properties: { refs: { $ref: '#/components/schemas/Refs' }, names: { $ref: '#/components/schemas/Names' } },
      },
    };
    const asItems = '<r><refs><item><id>1</id></item><item><name>b</name></item></refs><names><item>x</item><item>y</item></names></r>';
    const asRepeats = '<r><refs><id>1</id></refs><refs><name>b</name></refs><names>x</names><names>y</names></r>';
    for (const body of [asItems, asRepeats]) {
      expect(encoded.read(envelope(body), message)).toEqual({ value: { refs: [{ id: 1 }, { name: 'b' }], names: ['x', 'y'] } });
    }
    expect(encoded.read(envelope('<r><refs/><names></names></r>'), message)).toEqual({ value: { refs: [], names: [] } });
  });

  it('reads elements the schema does not describe generically, repeats as arrays', () => {
    const reply = reader.read(envelope('<ListResponse><x>1</x><x>2</x><y><z/></y></ListResponse>'), output);
    expect(reply).toEqual({ value: { x: ['1', '2'], y: { z: '' } } });
  });

  it.each([
    [
      'SOAP 1.1',
      envelope('<s:Fault><faultcode>s:Server</faultcode><faultstring>Boom</faultstring><detail><code>E1</code></detail></s:Fault>'),
      { code: 's:Server', text: 'Boom', detail: { code: 'E1' } },
    ],
    [
      'SOAP 1.2',
      envelope(
        '<s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>t:NotFound</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en">Missing</s:Text></s:Reason></s:Fault>',
        '1.2',
      ),
      { code: 's:Sender / t:NotFound', text: 'Missing' },
    ],
  ])('reads a %s fault', (_, root, fault) => {
    expect(reader.read(root, output)).toEqual({ fault });
  });

  it('turns a fault into the spec error: 500 with text and code', () => {
    const error = faultError({ code: 'soap:Server', text: 'Attempted to divide by zero.' });
    expect(error.toBody()).toEqual({
      error: {
        code: 500,
        message: 'Attempted to divide by zero. [Fault code:soap:Server]',
        context: { faultcode: 'soap:Server', faultstring: 'Attempted to divide by zero.' },
      },
    });
  });

  it.each([
    ['<html><body>Bad gateway</body></html>', 'The SOAP service answered with <html>, not a SOAP envelope.'],
    ['<a><b>', 'The SOAP service answered with malformed XML'],
    ['not xml', 'The SOAP service answered with malformed XML'],
  ])('refuses a reply that is no envelope: %s', (text, message) => {
    expect(() => parseEnvelope(text)).toThrow(message);
  });

  it('refuses a reply nested more than 500 levels deep (reading it would exhaust the stack)', () => {
    const deep = `<r>${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}</r>`;
    expect(() => envelope(deep)).toThrow('The SOAP service answered with XML nested more than 500 levels deep.');
    expect(() => envelope(`<r>${'<a>'.repeat(400)}${'</a>'.repeat(400)}</r>`)).not.toThrow();
  });
});

describe('SOAP 1.2 RPC responses', () => {
  it('ignore rpc:result, which names the return value accessor and holds no data', () => {
    const rpc: SoapMessageModel = {
      wrapper: { name: 'getKeyResponse', namespace: 'urn:rpc' },
      schema: { type: 'object', properties: { result: { type: 'string' }, count: { type: 'integer' } } },
    };
    const reply = reader.read(
      envelope(
        '<ns1:getKeyResponse xmlns:ns1="urn:rpc" xmlns:rpc="http://www.w3.org/2003/05/soap-rpc"><rpc:result>result</rpc:result><result>v</result><count>2</count></ns1:getKeyResponse>',
        '1.2',
      ),
      rpc,
    );
    expect(reply).toEqual({ value: { result: 'v', count: 2 } });
  });
});

describe('SOAP-encoded multi-references', () => {
  it("read a target's id as markup even when it comes before its reference (as PHP's SoapServer writes a repeated object)", () => {
    const accounts = new ResponseReader(
      new SchemaView({
        AccountData: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
        AccountDataArray: { type: 'array', items: { $ref: '#/components/schemas/AccountData' } },
      }),
    );
    const message: SoapMessageModel = {
      wrapper: { name: 'mc_project_get_usersResponse', namespace: 'urn:m' },
      schema: { type: 'object', properties: { return: { $ref: '#/components/schemas/AccountDataArray' } } },
    };
    // PHP 8.2's SoapServer, word for word, for [$a, $a, ['id' => 2, 'name' => 'bo']].
    const reply = accounts.read(
      envelope(
        '<ns1:mc_project_get_usersResponse xmlns:ns1="urn:m" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
          '<return SOAP-ENC:arrayType="ns1:AccountData[3]" xsi:type="ns1:AccountDataArray">' +
          '<item xsi:type="ns1:AccountData" id="ref1"><id xsi:type="xsd:integer">1</id><name xsi:type="xsd:string">al</name></item>' +
          '<item href="#ref1"/><item xsi:type="ns1:AccountData"><id xsi:type="xsd:integer">2</id><name xsi:type="xsd:string">bo</name></item>' +
          '</return></ns1:mc_project_get_usersResponse>',
      ),
      message,
    );
    expect(reply).toEqual({
      value: {
        return: [
          { id: 1, name: 'al' },
          { id: 1, name: 'al' },
          { id: 2, name: 'bo' },
        ],
      },
    });
  });
});
