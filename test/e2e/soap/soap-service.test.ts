/**
 * SOAP services over HTTP (Fastify inject) against real node-soap peers on 127.0.0.1: the JSON
 * returned and the envelopes actually sent, for SOAP 1.1 and 1.2, faults, arrays and nesting,
 * WS-Security, rpc/encoded (MantisConnect's arrays of structs too), nil, generic headers,
 * caching, unreachable and slow hosts, and a service created at run time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SoapServiceHandler } from '#runtime/services/soap/soap-handler.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';
import { calculatorServices, digestMatches, soapModel, startPeer, type Peer } from './soap-peers.js';

const peers: Record<string, Peer> = {};
let countryResponses = 0;
const receivedHeaders: unknown[] = [];
let silent: http.Server;
let silentUrl: string;
let server: TestServer;
let headers: Record<string, string>;

/** A value as node-soap's server reads it: text, or { attributes, $value } when the element has attributes. */
type Typed = string | { $value: string };
const textOf = (value: Typed) => (typeof value === 'string' ? value : value.$value);

const continents = [
  { sCode: 'AF', sName: 'Africa' },
  { sCode: 'AN', sName: 'Antarctica' },
];

beforeAll(async () => {
  peers.calc = await startPeer('pm-calculator.wsdl', calculatorServices());
  const country = {
    ListOfContinentsByName: () => ({
      ListOfContinentsByNameResult: { tContinent: continents.slice(0, ++countryResponses % 2 === 1 ? 1 : 2) },
    }),
    CapitalCity: (args: { sCountryISOCode: string }) => ({ CapitalCityResult: args.sCountryISOCode === 'NL' ? 'Amsterdam' : 'Unknown' }),
    FullCountryInfo: () => ({
      FullCountryInfoResult: {
        sISOCode: 'NL',
        sName: 'Netherlands',
        sCapitalCity: 'Amsterdam',
        sPhoneCode: '31',
        sContinentCode: 'EU',
        sCurrencyISOCode: 'EUR',
        sCountryFlag: 'nl.jpg',
        Languages: { tLanguage: [{ sISOCode: 'nl', sName: 'Dutch' }] },
      },
    }),
  };
  peers.country = await startPeer('pm-countryinfo.wsdl', {
    CountryInfoService: { CountryInfoServiceSoap: country, CountryInfoServiceSoap12: country },
  });
  const numbers = { NumberToWords: (args: { ubiNum: string }) => ({ NumberToWordsResult: `words for ${args.ubiNum}` }) };
  peers.wsse = await startPeer(
    'pm-usernametoken.wsdl',
    { NumberConversion: { NumberConversionSoap: numbers, NumberConversionSoap12: numbers } },
    {
      authenticate: (security) => digestMatches(security, 'bob', 'bobs-secret'),
    },
  );
  peers.rpc = await startPeer('ns-rpcexample.wsdl', {
    RpcExample: {
      RpcExample: {
        // node-soap's server reads an element with xsi:type as { attributes, $value }.
        getKey: (args: { params: { module: Typed; key: Typed } }) => ({
          base64EncodedVariantResult: `${textOf(args.params.module)}/${textOf(args.params.key)}`,
        }),
      },
    },
  });
  const mantis = {
    mc_enum_status: () => ({
      return: [
        { id: 10, name: 'new' },
        { id: 20, name: 'feedback' },
      ],
    }),
    mc_issue_add: () => ({ return: 7 }),
    mc_filter_search_issue_ids: () => ({ return: [3, 4] }),
    mc_issue_get: () => ({
      return: {
        id: 5,
        summary: 'S',
        tags: [
          { id: 1, name: 't' },
          { id: 2, name: 'u' },
        ],
      },
    }),
  };
  peers.mantis = await startPeer('mantis-connect.wsdl', { MantisConnect: { MantisConnectPort: mantis } });
  const pets = { addPets: () => ({ status: null }) };
  peers.nillable = await startPeer('ss-nillable.wsdl', { Service1: { Service1Soap: pets, Service1Soap12: pets } });
  // zeep-soap-header.wsdl declares its headers as the first parts of the input message, which
  // node-soap's server cannot serve; the Calculator takes any header.
  peers.header = await startPeer('pm-calculator.wsdl', calculatorServices(receivedHeaders));
  // Accepts connections and never answers.
  silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/soap`;

  const services = [
    await soapModel(8, 'calc', peers.calc.wsdlFile, {}, { location: peers.calc.url, login: 'al', password: 'pw' }),
    await soapModel(9, 'calc12', peers.calc.wsdlFile, {}, { location: peers.calc.url, soap_version: 'SOAP_1_2' }),
    await soapModel(10, 'country', peers.country.wsdlFile, { cache_enabled: true, cache_ttl: 600 }, { location: peers.country.url }),
    await soapModel(
      11,
      'numbers',
      peers.wsse.wsdlFile,
      {
        headers: [
          { type: 'wsse', name: 'username', data: 'bob' },
          { type: 'wsse', name: 'password', data: 'bobs-secret' },
        ],
        wsse_username_token: 'UsernameToken-7',
      },
      { location: peers.wsse.url },
    ),
    await soapModel(
      17,
      'numbersbad',
      peers.wsse.wsdlFile,
      {
        headers: [
          { type: 'wsse', name: 'username', data: 'bob' },
          { type: 'wsse', name: 'password', data: 'wrong' },
        ],
      },
      { location: peers.wsse.url },
    ),
    await soapModel(12, 'rpc', peers.rpc.wsdlFile, {}, { location: peers.rpc.url }),
    await soapModel(18, 'mantis', peers.mantis.wsdlFile, {}, { location: peers.mantis.url }),
    await soapModel(13, 'pets', peers.nillable.wsdlFile, {}, { location: peers.nillable.url }),
    await soapModel(
      14,
      'traced',
      peers.header.wsdlFile,
      {
        headers: [
          { type: 'generic', namespace: 'urn:trace', name: 'Trace', data: '{"id":"svc:trace","app":"portico"}', mustunderstand: true },
        ],
      },
      { location: peers.header.url },
    ),
    await soapModel(15, 'down', peers.calc.wsdlFile, {}, { location: 'http://127.0.0.1:9/soap' }),
    await soapModel(16, 'slow', peers.calc.wsdlFile, {}, { location: silentUrl, connection_timeout: 0.3 }),
  ];
  const model = minimalModel();
  server = await startTestServer({ ...model, services: [...model.services, ...services] });
  headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
});

afterAll(async () => {
  await server?.close();
  await Promise.all(Object.values(peers).map((peer) => peer.close()));
  silent?.closeAllConnections();
  silent?.close();
});

async function api(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) {
  const response = await server.app.inject({ method, url: `/api/v2/${url}`, headers, payload: payload as object | undefined });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

const lastRequest = (peer: Peer) => peer.requests[peer.requests.length - 1];

describe('Calculator over SOAP 1.1 and 1.2', () => {
  it('lists the operations of both ports once', async () => {
    expect(await api('GET', 'calc')).toEqual({
      status: 200,
      body: { resource: [{ name: 'Add' }, { name: 'Divide' }, { name: 'Multiply' }, { name: 'Subtract' }] },
    });
    expect((await api('GET', 'calc?as_list=true')).body).toEqual({ resource: ['Add', 'Divide', 'Multiply', 'Subtract'] });
    expect((await api('GET', 'calc?refresh=true&fields=*')).body).toEqual({
      resource: [
        { name: 'Add', description: 'Adds two integers. This is a test WebService. ©DNE Online' },
        { name: 'Divide', description: '' },
        { name: 'Multiply', description: '' },
        { name: 'Subtract', description: '' },
      ],
    });
  });

  it('calls an operation with POST, matching its name ignoring case, and sends a SOAP 1.1 envelope', async () => {
    expect(await api('POST', 'calc/add', { intB: 3, intA: 2 })).toEqual({ status: 200, body: { AddResult: 5 } });
    const sent = lastRequest(peers.calc);
    expect(sent.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(sent.headers.soapaction).toBe('"http://tempuri.org/Add"');
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from('al:pw').toString('base64')}`);
    expect(sent.body).toContain('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"');
    expect(sent.body).toContain(
      '<soap:Body><Add xmlns="http://tempuri.org/"><intA xmlns="">2</intA><intB xmlns="">3</intB></Add></soap:Body>',
    );
  });

  it('calls an operation with GET and query parameters', async () => {
    expect(await api('GET', 'calc/Multiply?intA=6&intB=7')).toEqual({ status: 200, body: { MultiplyResult: 42 } });
  });

  it('takes the fields of a GET tunnelled through POST from its JSON body too, as table lists take their options (query parameters win)', async () => {
    expect(await api('POST', 'calc/Multiply?method=GET', { intA: 6, intB: 7 })).toEqual({ status: 200, body: { MultiplyResult: 42 } });
    const tunnelled = await server.app.inject({
      method: 'POST',
      url: '/api/v2/calc/Subtract?intB=2',
      headers: { ...headers, 'x-http-method': 'GET' },
      payload: { intA: 9, intB: 5 },
    });
    expect([tunnelled.statusCode, tunnelled.json()]).toEqual([200, { SubtractResult: 7 }]);
    // Cached per body too (the country service caches GET results): another body is another call.
    const sent = peers.country.requests.length;
    const capital = async (code: string) => (await api('POST', 'country/CapitalCity?method=GET', { sCountryISOCode: code })).body;
    expect([await capital('FR'), await capital('BE'), await capital('FR')]).toEqual(Array(3).fill({ CapitalCityResult: 'Unknown' }));
    expect(peers.country.requests.slice(sent).map((request) => /sCountryISOCode[^>]*>(\w+)</.exec(request.body)?.[1])).toEqual([
      'FR',
      'BE',
    ]);
  });

  it('sends a SOAP 1.2 envelope when asked', async () => {
    expect(await api('POST', 'calc12/Subtract', { intA: 9, intB: 4 })).toEqual({ status: 200, body: { SubtractResult: 5 } });
    const sent = lastRequest(peers.calc);
    expect(sent.headers['content-type']).toBe('application/soap+xml; charset=utf-8; action="http://tempuri.org/Subtract"');
    expect(sent.headers.soapaction).toBeUndefined();
    expect(sent.body).toContain('xmlns:soap="http://www.w3.org/2003/05/soap-envelope"');
  });

  it('answers a SOAP fault with 500, its text and its code', async () => {
    expect(await api('POST', 'calc/Divide', { intA: 1, intB: 0 })).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'Attempted to divide by zero. [Fault code:soap:Server]',
          context: { faultcode: 'soap:Server', faultstring: 'Attempted to divide by zero.' },
        },
      },
    });
  });

  it.each([
    ['POST', 'calc/Power', {}, 404, "Function 'Power' does not exist on this service."],
    ['POST', 'calc/Add', { intA: 'two', intB: 1 }, 400, "Field 'intA' must be an integer."],
    ['GET', 'calc/Add?intA=1', undefined, 400, "Field 'intB' is required."],
    ['POST', 'calc', {}, 400, "POST requests without a resource are not currently supported by the 'calc' service."],
    ['GET', 'calc/Add/more', undefined, 404, "Resource 'Add/more' not found for service 'calc'."],
  ] as const)('%s %s -> %i', async (method, url, payload, status, message) => {
    expect(await api(method, url, payload)).toEqual({ status, body: { error: expect.objectContaining({ code: status, message }) } });
  });

  it('answers 503 when the endpoint cannot be reached, and when it does not answer within connection_timeout', async () => {
    const down = await api('POST', 'down/Add', { intA: 1, intB: 2 });
    expect(down.status).toBe(503);
    expect((down.body.error as { message: string }).message).toMatch(
      /^The SOAP host http:\/\/127\.0\.0\.1:9\/soap cannot be reached: .*ECONNREFUSED/,
    );
    expect(await api('POST', 'slow/Add', { intA: 1, intB: 2 })).toEqual({
      status: 503,
      body: { error: { code: 503, message: `The SOAP host ${silentUrl} did not answer within 0.3 s.` } },
    });
  });
});

describe('the generated document (spec, Discovery and SOAP services)', () => {
  it('documents each operation at its lowercase name without underscores, callable there, its request body a schema component', async () => {
    const document = (await api('GET', 'api_docs/mantis')).body as {
      paths: Record<
        string,
        Record<string, { summary?: string; description?: string; requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.paths).toHaveProperty('/mcenumstatus');
    expect(document.paths).not.toHaveProperty('/mc_enum_status');
    expect((await api('GET', 'mantis/_spec')).body.paths).toEqual(document.paths);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation, `${method} ${path}`).toMatchObject({ summary: expect.any(String), description: expect.any(String) });
        const schema = operation.requestBody?.content['application/json'].schema;
        if (schema === undefined) continue;
        expect({ at: `${method} ${path}`, ref: schema.$ref }).toEqual({
          at: expect.any(String),
          ref: expect.stringMatching(/^#\/components\/schemas\//),
        });
        expect(document.components.schemas).toHaveProperty(String(schema.$ref).slice('#/components/schemas/'.length));
      }
    }
    const add = document.paths['/mcissueadd'].post.requestBody?.content['application/json'].schema.$ref as string;
    expect(document.components.schemas[add.split('/').at(-1) as string]).toMatchObject({
      type: 'object',
      properties: { username: expect.any(Object), password: expect.any(Object), issue: expect.any(Object) },
    });
    // Valid, every $ref resolving, alone (as _spec gives it: api_docs/{service} adds the reference's info.group) and in the
    // combined document of every service.
    const combined = (await api('GET', 'api_docs')).body as { paths: Record<string, unknown> };
    for (const doc of [(await api('GET', 'mantis/_spec')).body, combined]) {
      expect(await openApiErrors(doc)).toBeNull();
      expect(unresolvedRefs(doc)).toEqual([]);
    }
    expect(JSON.stringify(combined.paths['/mantis/mcissueadd'])).toMatch(/"\$ref":"#\/components\/schemas\/mantis\.McIssueAddRequest"/);
    // The documented name calls the operation, as its own name does in any case.
    expect(await api('POST', 'mantis/mcenumstatus', { username: 'u', password: 'p' })).toMatchObject({ status: 200 });
    expect(await api('POST', 'mantis/MC_ENUM_STATUS', { username: 'u', password: 'p' })).toMatchObject({ status: 200 });
  });
});

describe('access by role (spec, Authentication 8)', () => {
  it("grants every operation with the service-level component '*'; a grant of one operation reaches that one only", async () => {
    const calcId = (await api('GET', 'system/service?filter=name%3Dcalc&fields=id')).body.resource as Array<{ id: number }>;
    const role = async (name: string, component: string) =>
      (
        (
          await api('POST', 'system/role', {
            resource: [{ name, role_service_access_by_role_id: [{ service_id: calcId[0].id, component, verb_mask: 1 | 2 }] }],
          })
        ).body.resource as Array<{ id: number }>
      )[0].id;
    const whole = await role('soap-whole', '*');
    const one = await role('soap-add', 'Add');
    const app = async (name: string, roleId: number) =>
      (
        (await api('POST', 'system/app?fields=api_key', { resource: [{ name, role_id: roleId }] })).body.resource as Array<{
          api_key: string;
        }>
      )[0].api_key;
    const call = async (key: string, url: string, payload: unknown) => {
      const response = await server.app.inject({
        method: 'POST',
        url: `/api/v2/${url}`,
        headers: { 'x-service-api-key': key },
        payload: payload as object,
      });
      return response.statusCode;
    };
    const wholeKey = await app('soap-whole-app', whole);
    const oneKey = await app('soap-add-app', one);
    expect(await call(wholeKey, 'calc/Add', { intA: 1, intB: 1 })).toBe(200);
    expect(await call(wholeKey, 'calc/multiply', { intA: 1, intB: 1 })).toBe(200);
    // Stricter than the spec's reference, which lets one operation's grant reach all: the grant names its operation (any case).
    expect(await call(oneKey, 'calc/add', { intA: 1, intB: 1 })).toBe(200);
    expect(await call(oneKey, 'calc/Multiply', { intA: 1, intB: 1 })).toBe(401);
  });
});

describe('CountryInfoService: arrays and nesting', () => {
  it('returns a repeated element as an array even when it occurs once', async () => {
    const one = await api('POST', 'country/ListOfContinentsByName', {});
    expect(one).toEqual({ status: 200, body: { ListOfContinentsByNameResult: { tContinent: [continents[0]] } } });
    const two = await api('POST', 'country/ListOfContinentsByName', {});
    expect(two.body).toEqual({ ListOfContinentsByNameResult: { tContinent: continents } });
  });

  it('returns nested structures', async () => {
    expect((await api('POST', 'country/FullCountryInfo', { sCountryISOCode: 'NL' })).body).toEqual({
      FullCountryInfoResult: {
        sISOCode: 'NL',
        sName: 'Netherlands',
        sCapitalCity: 'Amsterdam',
        sPhoneCode: '31',
        sContinentCode: 'EU',
        sCurrencyISOCode: 'EUR',
        sCountryFlag: 'nl.jpg',
        Languages: { tLanguage: [{ sISOCode: 'nl', sName: 'Dutch' }] },
      },
    });
  });

  it('caches GET results for the TTL; refresh=true and a cache clear call the service again', async () => {
    const sent = () => peers.country.requests.length;
    const before = sent();
    expect((await api('GET', 'country/CapitalCity?sCountryISOCode=NL')).body).toEqual({ CapitalCityResult: 'Amsterdam' });
    expect((await api('GET', 'country/capitalcity?sCountryISOCode=NL')).body).toEqual({ CapitalCityResult: 'Amsterdam' });
    expect(sent()).toBe(before + 1);
    await api('GET', 'country/CapitalCity?sCountryISOCode=NL&refresh=true');
    expect(sent()).toBe(before + 2);
    expect(await api('DELETE', 'system/cache/country')).toEqual({ status: 200, body: { success: true } });
    await api('GET', 'country/CapitalCity?sCountryISOCode=NL');
    expect(sent()).toBe(before + 3);
    await ((await server.app.portico.services.handler('country')) as SoapServiceHandler).clearCache();
    await api('GET', 'country/CapitalCity?sCountryISOCode=NL');
    expect(sent()).toBe(before + 4);
    // POST is never cached.
    await api('POST', 'country/CapitalCity', { sCountryISOCode: 'NL' });
    await api('POST', 'country/CapitalCity', { sCountryISOCode: 'NL' });
    expect(sent()).toBe(before + 6);
  });
});

describe('headers', () => {
  it('sends a WS-Security UsernameToken the peer verifies (digest, nonce, created, wsu:Id)', async () => {
    expect(await api('GET', 'numbers/NumberToWords?ubiNum=12')).toEqual({ status: 200, body: { NumberToWordsResult: 'words for 12' } });
    const sent = lastRequest(peers.wsse).body;
    expect(sent).toMatch(
      /<wsse:UsernameToken wsu:Id="UsernameToken-7"><wsse:Username>bob<\/wsse:Username><wsse:Password Type="[^"]+#PasswordDigest">[^<]+<\/wsse:Password><wsse:Nonce EncodingType="[^"]+#Base64Binary">[^<]+<\/wsse:Nonce><wsu:Created>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/wsu:Created>/,
    );
    expect(sent).not.toContain('bobs-secret');
    const refused = await api('GET', 'numbersbad/NumberToWords?ubiNum=12');
    expect(refused.status).toBe(500);
    expect((refused.body.error as { message: string }).message).toMatch(/Invalid username or password \[Fault code:.+\]$/);
  });

  it('sends generic headers with values from the query', async () => {
    expect((await api('POST', 'traced/Add?trace=t-42', { intA: 1, intB: 1 })).body).toEqual({ AddResult: 2 });
    expect(lastRequest(peers.header).body).toContain(
      '<soap:Header><Trace xmlns="urn:trace" soap:mustUnderstand="1"><id>t-42</id><app>portico</app></Trace></soap:Header>',
    );
    expect(receivedHeaders).toEqual([{ Trace: { attributes: { 'soap:mustUnderstand': '1' }, id: 't-42', app: 'portico' } }]);
  });
});

describe('rpc/encoded and nil', () => {
  it('calls an rpc/encoded SOAP 1.2 operation with its parts as JSON members', async () => {
    expect(await api('POST', 'rpc/getKey', { params: { module: 'm', key: 'k' } })).toEqual({
      status: 200,
      body: { base64EncodedVariantResult: 'm/k' },
    });
    const sent = lastRequest(peers.rpc);
    expect(sent.headers['content-type']).toContain('application/soap+xml');
    // SOAP 1.2 forbids encodingStyle on the Envelope: it is on the body's element.
    expect(sent.body).not.toContain(
      '<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" soap:encodingStyle',
    );
    // Encoded: each value names its type in xsi:type, as the reference's client writes it.
    expect(sent.body).toContain(
      '<getKey xmlns="urn:RpcExample" soap:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><params xmlns="" xmlns:xt="urn:RpcExample" xsi:type="xt:getKeyParams">' +
        '<module xsi:type="xsd:string">m</module><key xsi:type="xsd:string">k</key></params></getKey>',
    );
  });

  it('reads SOAP-encoded arrays of structs as node-soap writes them (each item as the array element itself, repeated)', async () => {
    expect(await api('POST', 'mantis/mc_enum_status', { username: 'u', password: 'p' })).toEqual({
      status: 200,
      body: {
        return: [
          { id: 10, name: 'new' },
          { id: 20, name: 'feedback' },
        ],
      },
    });
    expect(lastRequest(peers.mantis).body).toContain(
      '<mc_enum_status xmlns="http://futureware.biz/mantisconnect"><username xmlns="" xsi:type="xsd:string">u</username><password xmlns="" xsi:type="xsd:string">p</password></mc_enum_status>',
    );
    expect(await api('POST', 'mantis/mc_issue_get', { username: 'u', password: 'p', issue_id: 5 })).toEqual({
      status: 200,
      body: {
        return: {
          id: 5,
          summary: 'S',
          tags: [
            { id: 1, name: 't' },
            { id: 2, name: 'u' },
          ],
        },
      },
    });
  });

  it('writes rpc/encoded structs and SOAP-encoded arrays with their types, as the reference client does (MantisConnect)', async () => {
    const issue = { summary: 'S', project: { id: 1 }, notes: [{ text: 'n' }], tags: [{ id: 2, name: 't' }, { name: 'u' }] };
    expect(await api('POST', 'mantis/mc_issue_add', { username: 'u', password: 'p', issue })).toEqual({ status: 200, body: { return: 7 } });
    const body = /<soap:Body>(.*)<\/soap:Body>/s.exec(lastRequest(peers.mantis).body)?.[1];
    expect(lastRequest(peers.mantis).body).toContain('soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"');
    expect(body).toBe(
      '<mc_issue_add xmlns="http://futureware.biz/mantisconnect">' +
        '<username xmlns="" xsi:type="xsd:string">u</username><password xmlns="" xsi:type="xsd:string">p</password>' +
        '<issue xmlns="" xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:IssueData">' +
        '<project xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:ObjectRef"><id xsi:type="xsd:integer">1</id></project>' +
        '<summary xsi:type="xsd:string">S</summary>' +
        '<notes xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:it="http://futureware.biz/mantisconnect" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="it:IssueNoteData[1]">' +
        '<item xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:IssueNoteData"><text xsi:type="xsd:string">n</text></item></notes>' +
        '<tags xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:it="http://futureware.biz/mantisconnect" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="it:ObjectRef[2]">' +
        '<item xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:ObjectRef"><id xsi:type="xsd:integer">2</id><name xsi:type="xsd:string">t</name></item>' +
        '<item xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:ObjectRef"><name xsi:type="xsd:string">u</name></item></tags>' +
        '</issue></mc_issue_add>',
    );
    const filter = { search: 'x', category: ['a', 'b'], project_id: [] };
    expect(
      await api('POST', 'mantis/mc_filter_search_issue_ids', { username: 'u', password: 'p', filter, page_number: 1, per_page: 10 }),
    ).toEqual({
      status: 200,
      body: { return: [3, 4] },
    });
    expect(lastRequest(peers.mantis).body).toContain(
      '<filter xmlns="" xmlns:xt="http://futureware.biz/mantisconnect" xsi:type="xt:FilterSearchData">' +
        '<project_id xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:integer[0]"></project_id>' +
        '<search xsi:type="xsd:string">x</search>' +
        '<category xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:string[2]">' +
        '<item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item></category></filter>' +
        '<page_number xmlns="" xsi:type="xsd:integer">1</page_number><per_page xmlns="" xsi:type="xsd:integer">10</per_page>',
    );
  });

  it('returns xsi:nil as null', async () => {
    expect(await api('POST', 'pets/addPets', { pet: [{ Name: 'Rex', Breed: null }] })).toEqual({ status: 200, body: { status: null } });
    expect(lastRequest(peers.nillable).body).toContain(
      '<addPets xmlns="http://tempuri.org/"><pet xmlns=""><Name>Rex</Name><Breed xsi:nil="true"/></pet></addPets>',
    );
  });
});

describe('a SOAP service created at run time', () => {
  it('is saved through POST /system/service and works at once; TLS switches are refused on save', async () => {
    const created = await api('POST', 'system/service', {
      resource: [
        { name: 'saved', label: 'Saved', type: 'soap', config: { wsdl: peers.calc.wsdlUrl, options: { location: peers.calc.url } } },
      ],
    });
    expect(created.status).toBe(201);
    expect(await api('GET', 'saved/Add?intA=1&intB=2')).toEqual({ status: 200, body: { AddResult: 3 } });
    const refused = await api('POST', 'system/service', {
      resource: [
        {
          name: 'unsafe',
          label: 'Unsafe',
          type: 'soap',
          config: { wsdl: peers.calc.wsdlUrl, options: { stream_context: { ssl: { verify_peer: false } } } },
        },
      ],
    });
    expect(refused.status).toBe(400);
  });

  it('sends the HTTP headers and user agent of stream_context, given as an object or as JSON text (spec, SOAP client options)', async () => {
    const context = { http: { header: ['X-Trace: t-1', 'X-Tenant: acme'], user_agent: 'portico-spec/1' } };
    for (const [name, streamContext] of [
      ['ctxobject', context],
      ['ctxtext', JSON.stringify(context)],
    ] as const) {
      const created = await api('POST', 'system/service', {
        resource: [
          {
            name,
            label: name,
            type: 'soap',
            config: { wsdl: peers.calc.wsdlUrl, options: { location: peers.calc.url, stream_context: streamContext } },
          },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(await api('POST', `${name}/Add`, { intA: 1, intB: 2 })).toEqual({ status: 200, body: { AddResult: 3 } });
      expect(lastRequest(peers.calc).headers, name).toMatchObject({ 'x-trace': 't-1', 'x-tenant': 'acme', 'user-agent': 'portico-spec/1' });
    }
  });

  it('refuses on save a wsdl that is neither an http(s) URL nor a bare file name (each was saved, and refused on every call)', async () => {
    const save = (name: string, wsdl: string) =>
      api('POST', 'system/service', { resource: [{ name, label: name, type: 'soap', config: { wsdl } }] });
    for (const [wsdl, message] of [
      [
        '../../etc/passwd',
        "'config.wsdl' of a service created through the API must be an http(s) URL or a bare file name of the platform's wsdl/ directory, not '../../etc/passwd'.",
      ],
      [
        '/etc/passwd',
        "'config.wsdl' of a service created through the API must be an http(s) URL or a bare file name of the platform's wsdl/ directory, not '/etc/passwd'.",
      ],
      ['file:///etc/passwd', "'config.wsdl' must be an http(s) URL or a file name, not 'file:///etc/passwd'."],
      ['ftp://127.0.0.1/calc.wsdl', "'config.wsdl' must be an http(s) URL or a file name, not 'ftp://127.0.0.1/calc.wsdl'."],
    ]) {
      const refused = await save('badwsdl', wsdl);
      expect({ status: refused.status, message: (refused.body.error as { message: string }).message }, wsdl).toEqual({
        status: 400,
        message,
      });
      expect((await api('GET', 'badwsdl')).status, wsdl).toBe(404);
    }
    // A bare name (read on the first call) and a value a lookup completes on the call are saved.
    expect((await save('barename', 'calc.wsdl')).status).toBe(201);
    expect((await save('looked', '{calc_wsdl_url}')).status).toBe(201);
  });

  it('reads its WSDL on its first call, not when it is saved', async () => {
    const base = { type: 'soap', label: 'Dynamic', description: '', is_active: true, origin: 'api', kind: 'plain' } as const;
    await server.app.portico.services.put({
      ...base,
      id: 30,
      name: 'dyn',
      config: { wsdl: peers.calc.wsdlUrl, options: { location: peers.calc.url } },
    });
    await server.app.portico.services.put({ ...base, id: 31, name: 'nowhere', config: { wsdl: 'http://127.0.0.1:9/none?wsdl' } });
    await server.app.portico.services.put({ ...base, id: 32, name: 'nofile', config: { wsdl: 'missing.wsdl' } });
    expect((await api('GET', 'dyn')).body).toEqual({
      resource: [{ name: 'Add' }, { name: 'Divide' }, { name: 'Multiply' }, { name: 'Subtract' }],
    });
    expect(await api('POST', 'dyn/Add', { intA: 40, intB: 2 })).toEqual({ status: 200, body: { AddResult: 42 } });
    expect(await api('POST', 'nowhere/Add', { intA: 1, intB: 2 })).toEqual({
      status: 503,
      body: {
        error: { code: 503, message: expect.stringMatching(/^The SOAP host http:\/\/127\.0\.0\.1:9\/none\?wsdl cannot be reached/) },
      },
    });
    expect(await api('GET', 'nofile')).toEqual({
      status: 500,
      body: {
        error: { code: 500, message: "WSDL file 'missing.wsdl' not found: looked for wsdl/missing.wsdl in the platform directory." },
      },
    });
  });
});
