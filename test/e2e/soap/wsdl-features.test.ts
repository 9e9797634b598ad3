/**
 * SOAP services built from the WSDLs written for the tests (test/e2e/soap/wsdl/), read by URL from
 * a local peer that serves them and answers the calls: what the corpus may not show (a WSDL split
 * over files, ports of several bindings at different addresses, rpc/encoded arrays, a SOAP
 * 1.2-only binding, schema features), the JSON returned and the envelopes actually sent.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { FIXTURES, soapModel, startFixturePeer, type FixturePeer, type FixtureReply, type FixtureRequest } from './soap-peers.js';

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const ENCODING = 'http://schemas.xmlsoap.org/soap/encoding/';

/** The envelope of a reply whose Body holds `body`. */
function envelope(body: string, version: '1.1' | '1.2' = '1.1'): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${version === '1.1' ? SOAP11 : SOAP12}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="${ENCODING}">` +
    `<soap:Body>${body}</soap:Body></soap:Envelope>`
  );
}

/** The action of a request: SOAPAction (1.1) or the content type's action (1.2). */
function actionOf(request: FixtureRequest): string {
  const soapAction = request.headers.soapaction;
  if (typeof soapAction === 'string') return soapAction.replace(/"/g, '');
  return /action="([^"]*)"/.exec(request.headers['content-type'] ?? '')?.[1] ?? '';
}

/** The replies of the peer by action; a test sets the ones it calls. */
const replies = new Map<string, FixtureReply>();
let peer: FixturePeer;
let server: TestServer;
let headers: Record<string, string>;

beforeAll(async () => {
  peer = await startFixturePeer((request) => replies.get(actionOf(request)) ?? { status: 500, body: 'no reply set' });
  const services = [
    await soapModel(8, 'shop', `${peer.base}/shop/main.wsdl`),
    await soapModel(9, 'rpc', `${peer.base}/rpc.wsdl`),
    await soapModel(10, 'types', `${peer.base}/types.wsdl`),
    await soapModel(11, 'latin', `${peer.base}/latin1.wsdl`),
    await soapModel(12, 'relative', `${peer.base}/relative-address.wsdl`),
    await soapModel(13, 'relativefile', path.join(FIXTURES, 'relative-address.wsdl')),
    await soapModel(14, 'wcf', `${peer.base}/wcf/Shop.wsdl`),
    await soapModel(14, 'wcf', `${peer.base}/wcf/Shop.wsdl`),
    await soapModel(15, 'mixed', `${peer.base}/mixed.wsdl`),
    await soapModel(16, 'edges', `${peer.base}/edges.wsdl`, {
      headers: [{ type: 'generic', namespace: 'urn:edges', name: 'Auth', data: '{"token":"t1"}' }],
    }),
  ];
  const model = minimalModel();
  server = await startTestServer({ ...model, services: [...model.services, ...services] });
  headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
});

afterAll(async () => {
  await server?.close();
  await peer?.close();
});

async function api(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const response = await server.app.inject({ method, url: `/api/v2/${url}`, headers, payload: payload as object | undefined });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

const lastRequest = () => peer.requests[peer.requests.length - 1];
/** The content of the Body of the last request. */
const lastBody = () => /<soap:Body>(.*)<\/soap:Body>/s.exec(lastRequest().body)?.[1];

describe('a WSDL split over files, with several services, bindings and ports', () => {
  it('lists the operations of its SOAP ports once, leaving out the HTTP bindings', async () => {
    expect(await api('GET', 'shop?as_list=true')).toEqual({
      status: 200,
      body: {
        resource: ['BareSum', 'Echo', 'get-item.v2', 'GetItem', 'getItem_2', 'GetOrder', 'Größe', 'Notify', 'Ping', 'PlaceOrder'],
      },
    });
  });

  it('calls a wrapped operation whose schema comes through wsdl:import, xsd:import and a chameleon xsd:include', async () => {
    replies.set('urn:GetOrder', {
      body: envelope(
        '<GetOrderResponse xmlns="urn:example:orders"><order><id>7</id><placed>2024-01-01T00:00:00Z</placed><status>PAID</status>' +
          '<items><item id="i1"><sku>A</sku><qty>2</qty><price currency="EUR">10.50</price></item></items>' +
          '<customer xmlns:c="urn:example:common" xsi:type="c:Person"><name xmlns="">Al</name></customer><total>21.00</total></order></GetOrderResponse>',
      ),
    });
    expect(await api('GET', 'shop/getorder?id=5&expand=false')).toEqual({
      status: 200,
      body: {
        order: {
          id: 7,
          placed: '2024-01-01T00:00:00Z',
          status: 'PAID',
          items: { item: [{ id: 'i1', sku: 'A', qty: 2, price: { currency: 'EUR', _: 10.5 } }] },
          customer: { name: 'Al' },
          total: 21,
        },
      },
    });
    expect(lastRequest().path).toBe('/shop');
    expect(lastBody()).toBe('<GetOrder xmlns="urn:example:orders"><id>5</id><expand>false</expand></GetOrder>');
  });

  it('reads an element by the derived type its xsi:type names (an abstract Party that is a Person)', async () => {
    replies.set('urn:GetOrder', {
      body: envelope(
        '<GetOrderResponse xmlns="urn:example:orders"><order><id>7</id><placed>2024-01-01T00:00:00Z</placed><status>PAID</status>' +
          '<customer xmlns:c="urn:example:common" xsi:type="c:Person"><name xmlns="">Al</name><born xmlns="">1990-01-01</born>' +
          '<age xmlns="">33</age><nickname xmlns="">Big Al</nickname></customer><total>21.00</total></order></GetOrderResponse>',
      ),
    });
    const reply = await api('POST', 'shop/GetOrder', { id: 7 });
    expect(reply.body.order).toMatchObject({ customer: { name: 'Al', born: '1990-01-01', age: 33, nickname: ['Big Al'] } });
    const docs = await api('GET', 'api_docs/shop');
    expect(Object.keys((docs.body.components as { schemas: object }).schemas)).toEqual(
      expect.arrayContaining(['Party', 'Person', 'Company']),
    );
  });

  it('calls an operation named and with an action beyond ASCII (the action percent-encoded, as a header must carry it)', async () => {
    replies.set('urn:Gr%C3%B6%C3%9Fe/%E6%93%8D%E4%BD%9C', {
      body: envelope('<Item xmlns="urn:example:orders"><sku>x</sku><qty>1</qty><price currency="EUR">2</price></Item>'),
    });
    expect(await api('POST', `shop/${encodeURIComponent('größe')}`, { id: 'x' })).toEqual({
      status: 200,
      body: { sku: 'x', qty: 1, price: { currency: 'EUR', _: 2 } },
    });
    expect(lastRequest().headers.soapaction).toBe('"urn:Gr%C3%B6%C3%9Fe/%E6%93%8D%E4%BD%9C"');
  });

  it('sends the parts of a bare message as body elements and reads them back', async () => {
    replies.set('urn:BareSum', { body: envelope('<a:sum xmlns:a="urn:example:abstract">12345678901234567890</a:sum>') });
    expect(await api('POST', 'shop/BareSum', { a: 1, b: '2' })).toEqual({ status: 200, body: { sum: '12345678901234567890' } });
    expect(lastBody()).toBe('<a xmlns="urn:example:abstract">1</a><b xmlns="urn:example:abstract">2</b>');
  });

  it('reads an MTOM answer (multipart/related): the envelope part, its xop:Include as base64', async () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const root = envelope(
      '<EchoText xmlns="urn:example:orders"><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:bin%40peer"/></EchoText>',
    );
    replies.set('urn:Echo', {
      contentType: 'multipart/related; type="application/xop+xml"; boundary="MIMEBoundary"; start="<root@peer>"',
      body: Buffer.concat([
        Buffer.from(`--MIMEBoundary\r\nContent-Type: application/xop+xml; charset=UTF-8\r\nContent-ID: <root@peer>\r\n\r\n${root}\r\n`),
        Buffer.from('--MIMEBoundary\r\nContent-Type: application/octet-stream\r\nContent-ID: <bin@peer>\r\n\r\n'),
        bytes,
        Buffer.from('\r\n--MIMEBoundary--\r\n'),
      ]),
    });
    expect(await api('POST', 'shop/Echo', { EchoText: 'x' })).toEqual({ status: 200, body: { EchoText: bytes.toString('base64') } });
  });

  it('refuses values XML cannot carry with a 400 before calling the peer', async () => {
    const sent = peer.requests.length;
    expect(await api('POST', 'shop/Echo', { EchoText: 'bell\u0007' })).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "Field 'EchoText' holds the character U+0007, which XML cannot carry.",
          context: { field: 'EchoText' },
        },
      },
    });
    expect(await api('POST', 'shop/BareSum', { a: 1, b: 2 ** 31 })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'b' must be an integer from -2147483648 to 2147483647.", context: { field: 'b' } } },
    });
    expect(peer.requests.length).toBe(sent);
  });

  it('answers a fault with its detail, a one-way operation with {}, and nothing or a redirect for another with a 500', async () => {
    replies.set('urn:PlaceOrder', {
      status: 500,
      body: envelope(
        '<soap:Fault><faultcode>soap:Client</faultcode><faultstring>Bad order</faultstring>' +
          '<detail><NotFoundFault xmlns="urn:example:abstract"><id>3</id><reason>gone</reason></NotFoundFault></detail></soap:Fault>',
      ),
    });
    const order = { id: 1, placed: '2024-01-01T00:00:00Z', status: 'NEW', customer: { name: 'x' }, total: 1 };
    expect(await api('POST', 'shop/PlaceOrder', { order, Note: ['n1', 'n2'] })).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'Bad order [Fault code:soap:Client]',
          context: { faultcode: 'soap:Client', faultstring: 'Bad order', detail: { NotFoundFault: { id: '3', reason: 'gone' } } },
        },
      },
    });
    expect(lastBody()).toContain('<Note xmlns="urn:example:common">n1</Note><Note xmlns="urn:example:common">n2</Note></PlaceOrder>');
    replies.set('urn:Notify', { status: 202, body: '' });
    expect(await api('POST', 'shop/notify', { message: 'm' })).toEqual({ status: 200, body: {} });
    // Nothing is no answer for an operation with an output; a redirect (to https, say) is no answer at all.
    replies.set('urn:Ping', { status: 200, body: '' });
    expect(await api('POST', 'shop/Ping')).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'The SOAP service answered HTTP 200 without a SOAP envelope.' } },
    });
    replies.set('urn:Notify', { status: 301, body: '' });
    expect(await api('POST', 'shop/notify', { message: 'm' })).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'The SOAP service answered HTTP 301 without a SOAP envelope.' } },
    });
  });
});

describe('rpc/encoded and rpc/literal on ports at different addresses', () => {
  it('sends each operation to the address of a port that offers it', async () => {
    replies.set('urn:rpc#login', {
      body: envelope('<ns1:loginResponse xmlns:ns1="urn:rpc"><return xsi:type="xsd:string">sess-1</return></ns1:loginResponse>'),
    });
    replies.set('urn:rpc#saveUser', { body: envelope('<l:saveUserResponse xmlns:l="urn:rpc:lit"><ok>1</ok></l:saveUserResponse>') });
    expect(await api('GET', 'rpc/login?username=a&password=b')).toEqual({ status: 200, body: { return: 'sess-1' } });
    expect(lastRequest().path).toBe('/rpc');
    const user = { id: 1, name: 'n', tags: ['a'] };
    expect(await api('POST', 'rpc/saveUser', { user, when: '2020-01-01T00:00:00Z' })).toEqual({ status: 200, body: { ok: true } });
    expect(lastRequest().path).toBe('/rpclit');
    expect(lastBody()).toBe(
      '<saveUser xmlns="urn:rpc:lit"><user xmlns=""><id>1</id><name>n</name><tags><item>a</item></tags></user><when xmlns="">2020-01-01T00:00:00Z</when></saveUser>',
    );
  });

  it('reads SOAP-encoded arrays of structs (with multi-references) and of arrays', async () => {
    replies.set('urn:rpc#listUsers', {
      body: envelope(
        '<ns1:listUsersResponse xmlns:ns1="urn:rpc"><return xsi:type="soapenc:Array" soapenc:arrayType="ns1:User[2]"><item href="#id1"/>' +
          '<item><id>2</id><name>b</name><tags soapenc:arrayType="xsd:string[0]"/></item></return><count>2</count></ns1:listUsersResponse>' +
          '<multiRef id="id1"><id>1</id><name>a</name><tags soapenc:arrayType="xsd:string[1]"><item>x</item></tags></multiRef>',
      ),
    });
    expect(await api('POST', 'rpc/listUsers', { session: 's', ids: ['1', '2'] })).toEqual({
      status: 200,
      body: {
        return: [
          { id: 1, name: 'a', tags: ['x'] },
          { id: 2, name: 'b', tags: [] },
        ],
        count: 2,
      },
    });
    replies.set('urn:rpc#transpose', {
      body: envelope(
        '<ns1:transposeResponse xmlns:ns1="urn:rpc"><m><item><item>1</item><item>2</item></item><item><item>3</item></item></m></ns1:transposeResponse>',
      ),
    });
    expect(await api('POST', 'rpc/transpose', { m: [[1, 2], [3]] })).toEqual({ status: 200, body: { m: [[1, 2], [3]] } });
  });
});

describe('a SOAP 1.2-only binding and XML Schema features', () => {
  it('refuses an anyType value nested 20,000 levels deep with a 400, and a reply nested as deep with a 500 in the error shape', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v2/types/Everything',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: `{"version":"1","nilInt":1,"anything":${deep}}`,
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'anything' is nested more than 500 levels deep.", context: { field: 'anything' } } },
    });
    replies.set('urn:Everything', {
      contentType: 'application/soap+xml',
      body: envelope(
        `<EverythingResponse xmlns="urn:types"><echo>${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}</echo></EverythingResponse>`,
        '1.2',
      ),
    });
    expect(await api('POST', 'types/Everything', { version: '1', nilInt: null })).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'The SOAP service answered with XML nested more than 500 levels deep.' } },
    });
  });

  it('takes and returns members named like what every JavaScript object inherits (constructor, toString, valueOf, __proto__)', async () => {
    expect(await api('POST', 'types/Names', {})).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'constructor' is required.", context: { field: 'constructor' } } },
    });
    replies.set('urn:Names', {
      contentType: 'application/soap+xml',
      body: envelope(
        '<NamesResponse xmlns="urn:types"><constructor>c</constructor><__proto__>p</__proto__><valueOf>v</valueOf><toString a="1">t</toString></NamesResponse>',
        '1.2',
      ),
    });
    const reply = await api('POST', 'types/Names', { constructor: 'a', valueOf: 3 });
    expect(lastBody()).toBe('<Names xmlns="urn:types" valueOf="3"><constructor>a</constructor></Names>');
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.body)).toBe('{"constructor":"c","__proto__":["p"],"valueOf":"v","toString":{"a":"1","_":"t"}}');
  });

  it('reads recursive and mutually recursive types, simple content with attributes, and elements of a substitution group', async () => {
    replies.set('', {
      contentType: 'application/soap+xml; charset=utf-8',
      body: envelope(
        '<GetTreeResponse xmlns="urn:types"><root><name>r</name><entries><file size="10" mime="a/b">f1.txt</file>' +
          '<folder><name>sub</name><entries><file size="9007199254740993">big</file></entries></folder></entries></root>' +
          '<list><value>1</value><next><value>2</value></next></list><Circle><r>1.5</r></Circle></GetTreeResponse>',
        '1.2',
      ),
    });
    expect(await api('GET', 'types/gettree?depth=2')).toEqual({
      status: 200,
      body: {
        root: {
          name: 'r',
          entries: {
            file: [{ size: 10, mime: 'a/b', _: 'f1.txt' }],
            folder: [{ name: 'sub', entries: { file: [{ size: '9007199254740993', _: 'big' }] } }],
          },
        },
        list: { value: '1', next: { value: '2' } },
        Circle: [{ r: 1.5 }],
      },
    });
    expect(lastRequest().headers['content-type']).toBe('application/soap+xml; charset=utf-8; action=""');
    expect(await api('GET', 'types/gettree?depth=5')).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'depth' must be one of '1', '2', '3'.", context: { field: 'depth' } } },
    });
  });

  it('sends the members of a substitution group in place of their abstract head, as the schema orders and namespaces them', async () => {
    replies.set('urn:Everything', {
      contentType: 'application/soap+xml',
      body: envelope('<EverythingResponse xmlns="urn:types"/>', '1.2'),
    });
    const shapes = { Circle: [{ r: 2 }], Square: { label: 'q', side: '3' } };
    expect(await api('POST', 'types/Everything', { version: '1', nilInt: 1, ...shapes })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toBe(
      '<Everything xmlns="urn:types" version="1"><Circle><r>2</r></Circle><Square><label>q</label><side>3</side></Square><nilInt>1</nilInt></Everything>',
    );
    expect(await api('POST', 'types/Everything', { version: '1', nilInt: 1, Circle: { r: 'wide' } })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'Circle[0].r' must be a number.", context: { field: 'Circle[0].r' } } },
    });
  });
});

describe('a WSDL in ISO-8859-1', () => {
  it('reads it in the encoding its XML declaration names, and a response in the same way', async () => {
    expect(await api('GET', 'latin?fields=*')).toEqual({
      status: 200,
      body: { resource: [{ name: 'Messen', description: 'Misst die Größe.' }] },
    });
    replies.set('urn:latin:Messen', {
      contentType: 'text/xml',
      body: Buffer.from(
        envelope('<MessenResponse xmlns="urn:latin"><ergebnis>3 Maß</ergebnis></MessenResponse>').replace('utf-8', 'ISO-8859-1'),
        'latin1',
      ),
    });
    expect(await api('POST', 'latin/messen', { einheit: 'Maß' })).toEqual({ status: 200, body: { ergebnis: '3 Maß' } });
    expect(lastBody()).toBe('<Messen xmlns="urn:latin"><einheit>Maß</einheit></Messen>');
  });
});

describe('a port address relative to the WSDL', () => {
  it('is relative to the URL the WSDL was read from; in a WSDL file it asks for the option location', async () => {
    replies.set('urn:relative:Echo', { body: envelope('<EchoResponse xmlns="urn:relative"><text>back</text></EchoResponse>') });
    expect(await api('POST', 'relative/Echo', { text: 'hi' })).toEqual({ status: 200, body: { text: 'back' } });
    expect(lastRequest().path).toBe('/services/echo');
    expect(await api('POST', 'relativefile/Echo', { text: 'hi' })).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: "The WSDL's address for SOAP 1.1, 'services/echo', is no http(s) URL; set the service option 'location'.",
        },
      },
    });
  });
});

describe('an Axis2 / JAX-WS service (unqualified local elements, anyType answers, a port without input parts)', () => {
  it('reads an anyType value by the built-in or complex type its xsi:type names, and a derived type by its own', async () => {
    replies.set('urn:Calc', {
      body: envelope(
        '<ns:CalcResponse xmlns:ns="urn:mixed" xmlns:ax21="urn:mixed:types"><return xsi:type="xsd:int">5</return><return xsi:type="xsd:boolean">true</return>' +
          '<return xsi:type="xsd:string">007</return><return xsi:type="xsd:long">9007199254740993</return><return xsi:nil="true"/>' +
          '<return xsi:type="ax21:Version"><ax21:major>2</ax21:major><ax21:beta>false</ax21:beta></return>' +
          '<return xsi:type="ax21:Circle"><ax21:label>c</ax21:label><ax21:radius>1.5</ax21:radius></return>' +
          '<shape xsi:type="ax21:Square"><ax21:label>s</ax21:label><ax21:side>2</ax21:side></shape><ids>1 2 3</ids><price currency="EUR" scale="2">1.50</price></ns:CalcResponse>',
      ),
    });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true } })).toEqual({
      status: 200,
      body: {
        return: [5, true, '007', '9007199254740993', null, { major: 2, beta: false }, { label: 'c', radius: 1.5 }],
        shape: { label: 's', side: 2 },
        ids: '1 2 3',
        price: { currency: 'EUR', scale: 2, _: 1.5 },
      },
    });
    expect(lastRequest().path).toBe('/axis2/services/Mixed.MixedHttpSoap11Endpoint/');
    expect(lastBody()).toBe('<Calc xmlns="urn:mixed"><add xmlns="">1</add><flags xmlns=""><fast>true</fast></flags></Calc>');
    replies.set('urn:getVersion', {
      body: envelope('<ns:getVersionResponse xmlns:ns="urn:mixed"><return>Hi - the Axis2 version is 1.8</return></ns:getVersionResponse>'),
    });
    expect(await api('GET', 'mixed/getVersion')).toEqual({ status: 200, body: { return: 'Hi - the Axis2 version is 1.8' } });
    expect(lastBody()).toBe('');
  });

  it('refuses a value beyond the range of its type or the bounds of its schema with a 400, before calling the host', async () => {
    const sent = peer.requests.length;
    const calc = (fields: object) => api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ...fields });
    const refused = (field: string, message: string) => ({ status: 400, body: { error: { code: 400, message, context: { field } } } });
    expect(await calc({ small: 256 })).toEqual(refused('small', "Field 'small' must be an integer from 0 to 255."));
    expect(await calc({ big: '-1' })).toEqual(refused('big', "Field 'big' must be an integer of at least 0."));
    expect(await calc({ pct: 100.5 })).toEqual(refused('pct', "Field 'pct' must be a number from 0 to 100."));
    expect(peer.requests.length).toBe(sent);
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await calc({ small: '255', big: '18446744073709551615', pct: 0 })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<small xmlns="">255</small><big xmlns="">18446744073709551615</big><pct xmlns="">0</pct>');
  });

  it('takes a number of a numeric enumeration by its value, whatever its spelling', async () => {
    replies.set('urn:Calc', {
      body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"><level>10</level><ratio>1.0</ratio></ns:CalcResponse>'),
    });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, level: '+10', ratio: '1.0' })).toEqual({
      status: 200,
      body: { level: 10, ratio: 1 },
    });
    expect(lastBody()).toContain('<level xmlns="">+10</level><ratio xmlns="">1.0</ratio>');
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ratio: 0.25 })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'ratio' must be one of '0.5', '1'.", context: { field: 'ratio' } } },
    });
  });

  it('takes an xsd:list as its text or as a JSON array of its items', async () => {
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"><ids>1 2 3</ids></ns:CalcResponse>') });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ids: [1, '2', 3] })).toEqual({
      status: 200,
      body: { ids: '1 2 3' },
    });
    expect(lastBody()).toContain('<ids xmlns="">1 2 3</ids>');
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ids: '4 5' })).toEqual({ status: 200, body: { ids: '1 2 3' } });
    expect(lastBody()).toContain('<ids xmlns="">4 5</ids>');
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ids: [1, { a: 2 }] })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'ids[1]' must be a text, not an object.", context: { field: 'ids[1]' } } },
    });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ids: [1, '2 3'] })).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "Field 'ids[1]' is an item of a list, whose items are separated by spaces: it cannot hold one.",
          context: { field: 'ids[1]' },
        },
      },
    });
  });

  it('sends a value of an abstract type given the members of a derived one as that type, named in xsi:type', async () => {
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    const calc = (shape: object) => api('POST', 'mixed/Calc', { shape, add: 1, flags: { fast: true } });
    expect(await calc({ label: 'c', radius: 2 })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain(
      '<shape xmlns="" xmlns:xt="urn:mixed:types" xsi:type="xt:Circle"><label xmlns="urn:mixed:types">c</label><radius xmlns="urn:mixed:types">2</radius></shape>',
    );
    await calc({ side: 3 });
    expect(lastBody()).toContain(
      '<shape xmlns="" xmlns:xt="urn:mixed:types" xsi:type="xt:Square"><side xmlns="urn:mixed:types">3</side></shape>',
    );
    expect(await calc({ radius: 'big' })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'shape.radius' must be a number.", context: { field: 'shape.radius' } } },
    });
    await calc({ label: 'plain' });
    expect(lastBody()).toContain('<shape xmlns=""><label xmlns="urn:mixed:types">plain</label></shape>');
  });

  it('takes the float and double values INF, -INF and NaN as text, which is how JSON can carry them', async () => {
    replies.set('urn:Calc', {
      body: envelope(
        '<ns:CalcResponse xmlns:ns="urn:mixed" xmlns:t="urn:mixed:types"><shape xsi:type="t:Circle"><t:radius>-INF</t:radius></shape></ns:CalcResponse>',
      ),
    });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, shape: { radius: 'INF' } })).toEqual({
      status: 200,
      body: { shape: { radius: '-INF' } },
    });
    expect(lastBody()).toContain('<radius xmlns="urn:mixed:types">INF</radius>');
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, pct: 'NaN' })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'pct' must be a number.", context: { field: 'pct' } } },
    });
  });

  it("checks INF, -INF and NaN against a double type's minimum and maximum", async () => {
    const sent = peer.requests.length;
    const gain = (value: string) => api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, gain: value });
    const refused = {
      status: 400,
      body: { error: { code: 400, message: "Field 'gain' must be a number from -10 to 10.", context: { field: 'gain' } } },
    };
    expect(await gain('INF')).toEqual(refused);
    expect(await gain('-INF')).toEqual(refused);
    expect(await gain('NaN')).toEqual(refused);
    expect(peer.requests.length).toBe(sent);
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await gain('-10')).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<gain xmlns="">-10</gain>');
  });

  it('checks length facets in characters (hexBinary: in octets, two characters each) before sending', async () => {
    const sent = peer.requests.length;
    const calc = (fields: object) => api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ...fields });
    expect(await calc({ code: 'ABCDE' })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'code' must be at most 4 characters long.", context: { field: 'code' } } },
    });
    expect(await calc({ hash: 'ABC' })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'hash' must be 4 characters long.", context: { field: 'hash' } } },
    });
    expect(peer.requests.length).toBe(sent);
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await calc({ code: 'ÄÖÜß', hash: 'CAFE' })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<code xmlns="">ÄÖÜß</code><hash xmlns="">CAFE</hash>');
  });

  it('checks totalDigits and fractionDigits of a decimal before sending', async () => {
    const sent = peer.requests.length;
    const calc = (amount: unknown) => api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, amount });
    const refused = {
      status: 400,
      body: {
        error: {
          code: 400,
          message: "Field 'amount' must have at most 5 digits, at most 2 after the decimal point.",
          context: { field: 'amount' },
        },
      },
    };
    expect(await calc(123.456)).toEqual(refused);
    expect(await calc('12345.6')).toEqual(refused);
    expect(peer.requests.length).toBe(sent);
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await calc('0123.450')).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<amount xmlns="">0123.450</amount>');
  });

  it('checks minExclusive and maxExclusive, which exclude the bound itself', async () => {
    const sent = peer.requests.length;
    const calc = (fields: object) => api('POST', 'mixed/Calc', { add: 1, flags: { fast: true }, ...fields });
    const share = {
      status: 400,
      body: { error: { code: 400, message: "Field 'share' must be a number above 0 and of at most 1.", context: { field: 'share' } } },
    };
    expect(await calc({ share: 0 })).toEqual(share);
    expect(await calc({ share: '-INF' })).toEqual(share);
    expect(await calc({ under: 10 })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'under' must be an integer from -2147483648 to 9.", context: { field: 'under' } } },
    });
    expect(peer.requests.length).toBe(sent);
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await calc({ share: 1, under: 9 })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<share xmlns="">1</share><under xmlns="">9</under>');
  });

  it('sends a scalar of xsd:anyType with the xsi:type of its JSON type', async () => {
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await api('POST', 'mixed/Echo', { value: [3, 2.5, true, 'x', 2 ** 40] })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toBe(
      '<Echo xmlns="urn:mixed"><value xmlns="" xsi:type="xsd:int">3</value><value xmlns="" xsi:type="xsd:double">2.5</value>' +
        '<value xmlns="" xsi:type="xsd:boolean">true</value><value xmlns="" xsi:type="xsd:string">x</value><value xmlns="" xsi:type="xsd:long">1099511627776</value></Echo>',
    );
  });

  it('reads an empty number or boolean element as null, not as the text ""', async () => {
    replies.set('urn:Calc', {
      body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"><level></level><ratio/><price currency="EUR"/></ns:CalcResponse>'),
    });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true } })).toEqual({
      status: 200,
      body: { level: null, ratio: null, price: { currency: 'EUR' } },
    });
  });

  it('sends an attribute of the xml: namespace (xml:lang) with its own prefix, which no other may be bound to', async () => {
    replies.set('urn:Calc', { body: envelope('<ns:CalcResponse xmlns:ns="urn:mixed"/>') });
    expect(await api('POST', 'mixed/Calc', { add: 1, flags: { fast: true, lang: 'de' } })).toEqual({ status: 200, body: {} });
    expect(lastBody()).toContain('<flags xmlns="" xml:lang="de"><fast>true</fast></flags>');
  });
});

describe('a WCF service (DataContract namespaces, ArrayOf wrappers, the serialization schema, policies)', () => {
  it('sends and reads DataContract members in their own namespace, ArrayOf* wrappers with their items, guid, char and duration', async () => {
    replies.set('http://tempuri.org/IShop/GetCustomer', {
      body: envelope(
        '<GetCustomerResponse xmlns="http://tempuri.org/"><GetCustomerResult xmlns:a="http://schemas.datacontract.org/2004/07/Shop.Model" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">' +
          '<a:Balance>10.50</a:Balance><a:Id>c8f3c3a2-1f7e-4c1b-9d9c-2b1f0a7e3d11</a:Id><a:Initial>65</a:Initial><a:Kind>Wholesale</a:Kind><a:Name i:nil="true"/>' +
          '<a:Scores xmlns:b="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><b:int>1</b:int></a:Scores>' +
          '<a:Tags xmlns:b="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><b:string>x</b:string><b:string i:nil="true"/></a:Tags>' +
          '<a:Orders><a:Order><a:Number>3</a:Number><a:Placed>2024-01-01T00:00:00</a:Placed></a:Order></a:Orders><a:Photo>AAEC</a:Photo></GetCustomerResult></GetCustomerResponse>',
      ),
    });
    const id = 'c8f3c3a2-1f7e-4c1b-9d9c-2b1f0a7e3d11';
    expect(await api('POST', 'wcf/GetCustomer', { id, timeout: 'PT1M', fields: { string: ['a', 'b'] } })).toEqual({
      status: 200,
      body: {
        GetCustomerResult: {
          Balance: 10.5,
          Id: id,
          Initial: 65,
          Kind: 'Wholesale',
          Name: null,
          Scores: { int: [1] },
          Tags: { string: ['x', null] },
          Orders: { Order: [{ Number: 3, Placed: '2024-01-01T00:00:00' }] },
          Photo: 'AAEC',
        },
      },
    });
    expect(lastRequest().path).toBe('/wcf/Shop.svc');
    expect(lastRequest().headers.soapaction).toBe('"http://tempuri.org/IShop/GetCustomer"');
    const arrays = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
    expect(lastBody()).toBe(
      `<GetCustomer xmlns="http://tempuri.org/"><id>${id}</id><timeout>PT1M</timeout><fields><string xmlns="${arrays}">a</string><string xmlns="${arrays}">b</string></fields></GetCustomer>`,
    );
    replies.set('http://tempuri.org/IShop/SaveCustomer', {
      body: envelope(
        '<SaveCustomerResponse xmlns="http://tempuri.org/"><SaveCustomerResult>true</SaveCustomerResult></SaveCustomerResponse>',
      ),
    });
    const customer = { Kind: 'Retail', Name: null, Tags: { string: ['x', null] }, Orders: { Order: [{ Number: 1 }] } };
    expect(await api('POST', 'wcf/SaveCustomer', { customer })).toEqual({ status: 200, body: { SaveCustomerResult: true } });
    const model = 'http://schemas.datacontract.org/2004/07/Shop.Model';
    expect(lastBody()).toBe(
      `<SaveCustomer xmlns="http://tempuri.org/"><customer><Kind xmlns="${model}">Retail</Kind><Name xmlns="${model}" xsi:nil="true"/>` +
        `<Tags xmlns="${model}"><string xmlns="${arrays}">x</string><string xmlns="${arrays}" xsi:nil="true"/></Tags>` +
        `<Orders xmlns="${model}"><Order><Number>1</Number></Order></Orders></customer></SaveCustomer>`,
    );
  });

  it("checks the serialization schema's guid and duration patterns before sending", async () => {
    const sent = peer.requests.length;
    const refused = (field: string, pattern: string) => ({
      status: 400,
      body: {
        error: { code: 400, message: `Field '${field}' does not match the pattern its type requires: ${pattern}`, context: { field } },
      },
    });
    const guid = '^(?:(?:[\\p{Nd}a-fA-F]{8}-[\\p{Nd}a-fA-F]{4}-[\\p{Nd}a-fA-F]{4}-[\\p{Nd}a-fA-F]{4}-[\\p{Nd}a-fA-F]{12}))$';
    expect(await api('POST', 'wcf/GetCustomer', { id: 'c8f3c3a2-1f7e-4c1b-9d9c' })).toEqual(refused('id', guid));
    expect(await api('POST', 'wcf/GetCustomer', { id: 'x' + 'c8f3c3a2-1f7e-4c1b-9d9c-2b1f0a7e3d11' })).toEqual(refused('id', guid));
    // xsd:duration's own form, then WCF's pattern: 'PT' and '1 minute' are neither.
    for (const timeout of ['PT', '1 minute', 'P1H'])
      expect((await api('POST', 'wcf/GetCustomer', { timeout })).body).toMatchObject({
        error: { code: 400, context: { field: 'timeout' } },
      });
    expect(peer.requests.length).toBe(sent);
  });

  it('answers a fault with its DataContract detail, and calls an operation without parameters', async () => {
    replies.set('http://tempuri.org/IShop/GetCustomer', {
      status: 500,
      body: envelope(
        '<s:Fault xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><faultcode>s:Client</faultcode><faultstring xml:lang="en-US">Not found</faultstring>' +
          '<detail><NotFoundFault xmlns="http://schemas.datacontract.org/2004/07/Shop.Model"><Message>none</Message></NotFoundFault></detail></s:Fault>',
      ),
    });
    expect(await api('POST', 'wcf/GetCustomer', {})).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'Not found [Fault code:s:Client]',
          context: { faultcode: 's:Client', faultstring: 'Not found', detail: { NotFoundFault: { Message: 'none' } } },
        },
      },
    });
    replies.set('http://tempuri.org/IShop/GetVersion', {
      body: envelope('<GetVersionResponse xmlns="http://tempuri.org/"><GetVersionResult>1.0</GetVersionResult></GetVersionResponse>'),
    });
    expect(await api('GET', 'wcf/GetVersion')).toEqual({ status: 200, body: { GetVersionResult: '1.0' } });
    expect(lastBody()).toBe('<GetVersion xmlns="http://tempuri.org/"></GetVersion>');
  });
});

describe('a SOAP 1.2 binding with a header from another message, rpc without input parts and mixed content', () => {
  it('reads the text of mixed content as _ beside the child elements (layout between them is no text)', async () => {
    replies.set('urn:edges:Describe', {
      contentType: 'application/soap+xml',
      body: envelope('<DescribeResponse xmlns="urn:edges"><text>Hello <b>bold</b> world</text></DescribeResponse>', '1.2'),
    });
    expect(await api('GET', 'edges/Describe?id=1')).toEqual({ status: 200, body: { text: { _: 'Hello  world', b: ['bold'] } } });
    expect(lastRequest().body).toContain('<soap:Header><Auth xmlns="urn:edges"><token>t1</token></Auth></soap:Header>');
    replies.set('urn:edges:Describe', {
      contentType: 'application/soap+xml',
      body: envelope('<DescribeResponse xmlns="urn:edges"><text>\n  <b>x</b>\n</text></DescribeResponse>', '1.2'),
    });
    expect(await api('GET', 'edges/Describe?id=1')).toEqual({ status: 200, body: { text: { b: ['x'] } } });
  });

  it('calls an rpc operation without input parts and reads its output parts and a SOAP 1.2 fault with subcodes', async () => {
    replies.set('urn:edges:Now', {
      contentType: 'application/soap+xml',
      body: envelope('<e:NowResponse xmlns:e="urn:edges"><now>2024-01-01T00:00:00Z</now><zone>UTC</zone></e:NowResponse>', '1.2'),
    });
    expect(await api('GET', 'edges/Now')).toEqual({ status: 200, body: { now: '2024-01-01T00:00:00Z', zone: 'UTC' } });
    expect(lastBody()).toBe('<Now xmlns="urn:edges"></Now>');
    replies.set('urn:edges:Now', {
      status: 500,
      contentType: 'application/soap+xml',
      body: envelope(
        '<soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value><soap:Subcode><soap:Value xmlns:e="urn:edges">e:BadClock</soap:Value></soap:Subcode></soap:Code>' +
          '<soap:Reason><soap:Text xml:lang="en">No clock</soap:Text></soap:Reason><soap:Detail><e:AuthFault xmlns:e="urn:edges">expired</e:AuthFault></soap:Detail></soap:Fault>',
        '1.2',
      ),
    });
    expect(await api('GET', 'edges/Now')).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'No clock [Fault code:soap:Sender / e:BadClock]',
          context: { faultcode: 'soap:Sender / e:BadClock', faultstring: 'No clock', detail: { AuthFault: 'expired' } },
        },
      },
    });
  });
});
