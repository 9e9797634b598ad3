/**
 * WSDLs beyond the corpus (test/e2e/soap/wsdl/outside/), each written for what real services
 * publish: import chains with a cycle, schemas sharing local names, any content,
 * substitution groups, polymorphism, nested groups, attributes, mixed and simple content, nillable
 * members, arrays, lists and unions, odd enumerations and names, recursion, deep nesting,
 * overloads, headers, faults, bare and rpc messages, SOAP 1.1 and 1.2 bindings, several services,
 * and the ones Portico cannot map (HTTP-only, WSDL 2.0, malformed, missing parts).
 *
 * All are built by one `gen build` of one platform.yaml (the unmappable ones by a second), the
 * generated server is type-checked with a user's strict tsc, every OpenAPI document validated, and
 * each operation called against node-soap servers started here on 127.0.0.1, one per WSDL, at the
 * path of its port address (the addresses of the built model point at them); the few WSDLs node-soap
 * cannot load or serve (HAND_WRITTEN below says why) get a peer answering written envelopes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { type IServices, listen } from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import type { PlatformModel, ServiceModel } from '#runtime/model/platform-model.js';
import { captureIo } from '#test/cli/cli-fixtures.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { repoRoot } from '#test/helpers/quickstart-copy.js';
import { FIXTURES } from './soap-peers.js';

const OUTSIDE = path.join(FIXTURES, 'outside');

/** The mappable WSDLs by service name (with config lines beyond `wsdl`). */
const MAPPED: Record<string, string | [string, string]> = {
  chain: 'chain/main.wsdl',
  same_names: 'same-names.wsdl',
  any_content: 'any-content.wsdl',
  any_attribute: 'any-attribute.wsdl',
  substitution: 'substitution.wsdl',
  polymorphism: 'polymorphism.wsdl',
  nested_groups: 'nested-groups.wsdl',
  attributes: 'attributes.wsdl',
  mixed_content: 'mixed-content.wsdl',
  simple_content: 'simple-content.wsdl',
  nillable: 'nillable.wsdl',
  arrays: 'arrays.wsdl',
  list_union: 'list-union.wsdl',
  odd_enums: 'odd-enums.wsdl',
  recursive: 'recursive.wsdl',
  deep: 'deep.wsdl',
  odd_names: 'odd-names.wsdl',
  overloads: 'overloads.wsdl',
  headers: ['headers.wsdl', `headers: [{ type: generic, namespace: 'urn:o:headers', name: Session, data: '{"token":"svc:token"}' }]`],
  faults: 'faults.wsdl',
  bare: 'bare.wsdl',
  rpc_literal: 'rpc-literal.wsdl',
  soap11_12: 'soap11-12.wsdl',
  soap12: ['soap11-12.wsdl', 'options: { soap_version: SOAP_1_2 }'],
  services: 'services.wsdl',
  dataset: 'dataset.wsdl',
  missing_message: 'missing-message.wsdl',
  loose: 'loose/loose.wsdl',
  no_namespace: 'no-namespace.wsdl',
  occurrences: 'occurrences.wsdl',
  underscore: 'underscore.wsdl',
  fixed_values: 'fixed-values.wsdl',
  required_choice: 'required-choice.wsdl',
  shared_enums: 'shared-enums.wsdl',
  big_integers: 'big-integers.wsdl',
  two_choices: 'two-choices.wsdl',
  simple_content_facets: 'simple-content-facets.wsdl',
  addressing: 'addressing.wsdl',
  jaxws: 'jaxws.wsdl',
  repeated_query: 'repeated-query.wsdl',
  addressing_own_to: [
    'addressing.wsdl',
    `headers: [{ type: generic, namespace: 'http://www.w3.org/2005/08/addressing', name: To, data: 'urn:o:elsewhere' }]`,
  ],
  utf8_bom: 'utf8-bom.wsdl',
  utf16: 'utf16.wsdl',
  case_names: 'case-names.wsdl',
  reserved_names: 'reserved-names.wsdl',
  redefine: 'redefine/redefine.wsdl',
  encoded_collections: 'encoded-collections.wsdl',
  standard_imports: 'standard-imports.wsdl',
  interface_only: ['interface-only.wsdl', "options: { location: 'http://peer.invalid/interface-only/' }"],
  interface_only_unplaced: 'interface-only.wsdl',
};

const work = path.join(repoRoot, `.tmp-outside-${randomBytes(4).toString('hex')}`);

function platformYaml(services: Record<string, string | [string, string]>, dir = work): string {
  const entries = Object.entries(services).map(([name, entry]) => {
    const [file, extra] = typeof entry === 'string' ? [entry, ''] : entry;
    const wsdl = path.relative(dir, path.join(OUTSIDE, file));
    return `  - name: ${name}\n    type: soap\n    config:\n      wsdl: ${wsdl}\n${extra === '' ? '' : `      ${extra}\n`}`;
  });
  return `platform:\n  name: outside\nservices:\n${entries.join('')}`;
}

let build: { code: number; stderr: string };
let model: PlatformModel;

beforeAll(async () => {
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'platform.yaml'), platformYaml(MAPPED));
  const { io, out } = captureIo(work);
  build = { code: await runCli(['build'], io), stderr: out.stderr };
  model = JSON.parse(fs.readFileSync(path.join(work, 'server/model.json'), 'utf8')) as PlatformModel;
}, 120_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const soapService = (name: string) =>
  model.services.find((service) => service.name === name) as ServiceModel & {
    operations: Array<{ name: string }>;
    warnings: string[];
  };

describe('gen build of WSDLs outside the corpus', () => {
  it('refuses the WSDLs it cannot map with one line each, naming the file and why, and builds nothing', async () => {
    const site = path.join(work, 'unmappable');
    fs.mkdirSync(site, { recursive: true });
    const unmappable = {
      wsdl20: 'wsdl20.wsdl',
      malformed: 'malformed.wsdl',
      missing_import: 'missing-import.wsdl',
      html_page: 'html-page.wsdl',
      unreachable_import: 'unreachable-import.wsdl',
    };
    fs.writeFileSync(path.join(site, 'platform.yaml'), platformYaml(unmappable, site));
    const { io, out } = captureIo(site);
    expect(await runCli(['build'], io)).toBe(1);
    const lines = out.stderr.split('\n').filter((line) => line.includes('[PCO201]'));
    expect(lines).toEqual([
      "platform.yaml:4:5: Introspection of service 'wsdl20' (soap) failed: 'wsdl20.wsdl' is a WSDL 2.0 document; Portico reads WSDL 1.1 (wsdl:definitions), as most SOAP stacks do. [PCO201]",
      "platform.yaml:8:5: Introspection of service 'malformed' (soap) failed: 'malformed.wsdl' is not well-formed XML: the element wsdl:message is not closed (line 5, column 3) [PCO201]",
      "platform.yaml:12:5: Introspection of service 'missing_import' (soap) failed: Could not read the schema file 'xsd/gone.xsd' (imported by 'missing-import.wsdl'): no such file. [PCO201]",
      "platform.yaml:16:5: Introspection of service 'html_page' (soap) failed: 'html-page.wsdl' is an HTML page ('Sign in'), not a WSDL document: its address serves a web page (an error or login page, or a service's help page) instead of the WSDL. [PCO201]",
      "platform.yaml:20:5: Introspection of service 'unreachable_import' (soap) failed: Could not read the schema http://127.0.0.1:19599/far.xsd (imported by 'unreachable-import.wsdl'): the SOAP host http://127.0.0.1:19599/far.xsd cannot be reached: connect ECONNREFUSED 127.0.0.1:19599. [PCO201]",
    ]);
    expect(out.stderr).toContain('5 problems found.');
    expect(out.stderr).not.toMatch(/bug in Portico|\n\s+at /);
    expect(fs.existsSync(path.join(site, 'server'))).toBe(false);
  });

  it('builds a WSDL without a SOAP port (HTTP bindings only, or a binding that is not defined) as a service without operations, and says why', async () => {
    const site = path.join(work, 'no-soap');
    fs.mkdirSync(site, { recursive: true });
    fs.writeFileSync(
      path.join(site, 'platform.yaml'),
      platformYaml(
        { http_only: 'http-only.wsdl', missing_binding: 'missing-binding.wsdl', untyped_bindings: 'untyped-bindings.wsdl' },
        site,
      ),
    );
    const { io, out } = captureIo(site);
    expect(await runCli(['build'], io)).toBe(0);
    expect(out.stderr.split('\n').filter(Boolean)).toEqual([
      "platform.yaml:4:5: warning: service 'http_only': The WSDL offers no usable SOAP 1.1 or SOAP 1.2 operation, so the service has none.",
      "platform.yaml:8:5: warning: service 'missing_binding': Port 'SPort' of service 'S' names the binding 'PBinding', which is not defined; the port is left out.",
      "platform.yaml:8:5: warning: service 'missing_binding': The WSDL offers no usable SOAP 1.1 or SOAP 1.2 operation, so the service has none.",
      "platform.yaml:12:5: warning: service 'untyped_bindings': Binding 'BlogSoap': the port type '' of binding 'BlogSoap' is not defined; the port is left out.",
      "platform.yaml:12:5: warning: service 'untyped_bindings': The WSDL defines no service (no wsdl:service, so no endpoint address): its SOAP bindings are offered, and calls go to the service option 'location'.",
      "platform.yaml:12:5: warning: service 'untyped_bindings': The WSDL offers no usable SOAP 1.1 or SOAP 1.2 operation, so the service has none.",
    ]);
  });

  it('builds them all in one platform, with a warning for each part it leaves out', () => {
    const line = (service: string) =>
      `platform.yaml:${platformYaml(MAPPED).split('\n').indexOf(`  - name: ${service}`) + 1}:5: warning: service '${service}'`;
    expect(build.stderr.split('\n').filter(Boolean)).toEqual([
      `${line('overloads')}: Operation 'Find' appears more than once in port type 'Products' (an overload, which one JSON name cannot tell apart): only the first is offered.`,
      `${line('overloads')}: Operation 'Find' of binding 'PeopleBinding' takes other messages than the one of binding 'ProductsBinding'; it is offered as 'Find_2'.`,
      `${line('missing_message')}: Operation 'Ghost' is left out: its part 'parameters' names the element 'Ghost', which is not defined.`,
      `${line('missing_message')}: Operation 'Lost' is left out: its message 'LostIn' is not defined.`,
      `${line('loose')}: Attribute group 'tns:NoAttributes' is not defined; its attributes are left out.`,
      `${line('loose')}: Group 'tns:NoGroup' is not defined; its elements are left out.`,
      `${line('loose')}: Operation 'Take' of binding 'LooseBinding' is not in its port type; it is left out.`,
      `${line('loose')}: Part 'note' names neither an element nor a type; any value is accepted.`,
      `${line('loose')}: Type 'A' derives from itself (through its base 'B'); its base is left out.`,
      `${line('loose')}: Type 'B' derives from itself (through its base 'A'); its base is left out.`,
      `${line('loose')}: Type 'Nowhere' of namespace 'urn:o:loose' is not defined; any value is accepted.`,
      `${line('case_names')}: Operation 'GetItem' differs from 'GETITEM' only in case, which operation names in the API do not tell apart: it is offered as 'GetItem_2' (a call spelling 'GetItem' exactly still reaches it).`,
      `${line('reserved_names')}: Operation '_spec' has the name of the service's route GET /_spec, which serves the service's OpenAPI document: GET reaches the operation as '/spec2' (its documented name), POST as '/_spec' too.`,
      `${line('interface_only')}: The WSDL defines no service (no wsdl:service, so no endpoint address): its SOAP bindings are offered, and calls go to the service option 'location'.`,
      `${line('interface_only_unplaced')}: The WSDL defines no service (no wsdl:service, so no endpoint address): its SOAP bindings are offered, and calls go to the service option 'location'.`,
    ]);
    expect(build.code).toBe(0);
    expect(
      model.services
        .filter((service) => service.type === 'soap')
        .map((service) => [service.name, soapService(service.name).operations.length])
        .filter(([, count]) => count === 0),
    ).toEqual([]);
  });

  it('writes OpenAPI documents that validate, with every $ref resolving', { timeout: 120_000 }, async () => {
    const problems: string[] = [];
    for (const name of Object.keys(MAPPED)) {
      const document = JSON.parse(fs.readFileSync(path.join(work, 'server/openapi', `${name}.json`), 'utf8')) as unknown;
      const errors = await openApiErrors(document);
      if (errors !== null) problems.push(`${name}: ${JSON.stringify(errors).slice(0, 300)}`);
      const missing = unresolvedRefs(document);
      if (missing.length > 0) problems.push(`${name}: unresolved ${missing.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });

  it("writes TypeScript that a user's strict tsc accepts (nodenext, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess)", {
    timeout: 120_000,
  }, async () => {
    fs.writeFileSync(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noPropertyAccessFromIndexSignature: true,
          noUnusedLocals: true,
        },
        // The types of each SOAP service (events.ts, the same for every platform, imports portico/runtime).
        include: ['server/services/**/*.ts'],
      }),
    );
    const tsc = await execa(path.join(repoRoot, 'node_modules/.bin/tsc'), ['-p', path.join(work, 'tsconfig.json')], {
      cwd: work,
      reject: false,
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.exitCode).toBe(0);
    expect(fs.readdirSync(path.join(work, 'server/services'))).toEqual(expect.arrayContaining(Object.keys(MAPPED)));
  });
});

// ---------------------------------------------------------------------------------------------
// The peers: node-soap servers on one HTTP server, each at the paths of its WSDL's port addresses.

interface Received {
  operation: string;
  args: unknown;
  headers: unknown;
}

/** What the peers received, in order; and the raw envelopes by request path. */
const received: Received[] = [];
const envelopes: Array<{ path: string; action: string; body: string }> = [];

/** A reply whose content is written as XML (node-soap wraps it in the response element). */
const raw = (xml: string) => ({ $xml: xml });

type Handler = (args: Record<string, unknown>) => unknown;

/** A member schema of an OpenAPI document, as far as tests look into it. */
interface JsonSchemaLike {
  anyOf?: unknown[];
  items?: JsonSchemaLike;
  [keyword: string]: unknown;
}

/** Records each call, then answers with `handler`. */
function ops(handlers: Record<string, Handler>): Record<string, (args: Record<string, unknown>, cb: unknown, headers: unknown) => unknown> {
  return Object.fromEntries(
    Object.entries(handlers).map(([operation, handler]) => [
      operation,
      (args: Record<string, unknown>, _cb: unknown, headers: unknown) => {
        received.push({ operation, args, headers });
        return handler(args ?? {});
      },
    ]),
  );
}

/** `served`: the WSDL as node-soap is given it, where node-soap cannot read it as written. */
const PEERS: Array<{ file: string; path: RegExp; services: IServices; served?: (xml: string) => string }> = [];

/**
 * Peers for WSDLs node-soap cannot load or serve (it keeps WSDL names in plain objects, so
 * `__proto__` and `constructor` break it; it gives two bindings of one port type the actions of the
 * last; it wraps a bare reply of several parts in the first; it reads no WSDL without a target
 * namespace, nor a derivation cycle): by request path, the Body content to
 * answer for an action, in the envelope of the request's SOAP version.
 */
const HAND_WRITTEN: Record<string, (action: string) => string> = {};

let peerServer: http.Server;
let peerBase: string;
let server: TestServer;
let headers: Record<string, string>;

async function startPeers(): Promise<void> {
  // Requests no node-soap server takes: the hand-written peers, else 404.
  peerServer = http.createServer((request, response) => {
    const requestPath = new URL(request.url ?? '/', peerBase).pathname.replace(/\/?$/, '/');
    const answer = HAND_WRITTEN[requestPath];
    if (answer === undefined || request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      const soap12 = contentType.startsWith('application/soap+xml');
      const action = soap12
        ? (/action="([^"]*)"/.exec(contentType)?.[1] ?? '')
        : String(request.headers.soapaction ?? '').replace(/"/g, '');
      envelopes.push({ path: requestPath, action, body: Buffer.concat(chunks).toString('utf8') });
      const namespace = soap12 ? 'http://www.w3.org/2003/05/soap-envelope' : 'http://schemas.xmlsoap.org/soap/envelope/';
      response
        .writeHead(200, { 'content-type': soap12 ? 'application/soap+xml; charset=utf-8' : 'text/xml; charset=utf-8' })
        .end(
          `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${namespace}"><soap:Body>${answer(action)}</soap:Body></soap:Envelope>`,
        );
    });
  });
  await new Promise<void>((resolve) => peerServer.listen(0, '127.0.0.1', resolve));
  peerBase = `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}`;
  await Promise.all(
    PEERS.map(
      (peer) =>
        new Promise<void>((resolve, reject) => {
          const file = path.join(OUTSIDE, peer.file);
          const xml = (peer.served ?? ((text: string) => text))(fs.readFileSync(file, 'utf8'));
          const soapServer = listen(peerServer, {
            path: peer.path,
            services: peer.services,
            xml,
            uri: file,
            callback: (error: unknown) => (error ? reject(error) : resolve()),
          });
          // Each node-soap server sees the requests that reach it, its own among them.
          soapServer.authorizeConnection = (request: http.IncomingMessage) => {
            const requestPath = new URL(request.url ?? '/', peerBase).pathname.replace(/\/?$/, '/');
            if (request.method !== 'POST' || !peer.path.test(requestPath)) return true;
            const chunks: Buffer[] = [];
            request.on('data', (chunk: Buffer) => chunks.push(chunk));
            request.on('end', () =>
              envelopes.push({
                path: requestPath,
                action: String(request.headers.soapaction ?? request.headers['content-type'] ?? ''),
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            return true;
          };
        }),
    ),
  );
}

async function call(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const response = await server.app.inject({ method, url: `/api/v2/${url}`, headers, payload: payload as object | undefined });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

const lastEnvelope = () => envelopes[envelopes.length - 1];
/** The Body content of the last request. */
const lastBody = () => /<soap:Body>(.*)<\/soap:Body>/s.exec(lastEnvelope().body)?.[1];
const lastArgs = () => received[received.length - 1];

describe('calling the operations of WSDLs outside the corpus against node-soap peers', () => {
  beforeAll(async () => {
    await startPeers();
    const soap = model.services
      .filter((service) => service.type === 'soap')
      .map((service) => JSON.parse(JSON.stringify(service).replaceAll('http://peer.invalid', peerBase)) as ServiceModel);
    const base = minimalModel();
    server = await startTestServer({ ...base, services: [...base.services, ...soap] });
    headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (peerServer !== undefined) {
      peerServer.closeAllConnections();
      await new Promise<void>((resolve) => peerServer.close(() => resolve()));
    }
  });

  PEERS.push({
    file: 'chain/main.wsdl',
    path: /^\/chain\/$/,
    services: {
      ChainService: {
        ChainPort: ops({
          FindOrders: () =>
            raw(
              '<order xmlns="urn:o:chain:orders"><number>1</number><total currency="EUR">10.50</total>' +
                '<l:line xmlns:l="urn:o:chain:lines"><sku>A</sku><price currency="EUR">10.50</price></l:line></order>',
            ),
        }),
      },
    },
  });
  it('chain: a WSDL whose binding, port type and schemas come through imports with relative paths and cycles', async () => {
    expect(await call('GET', 'chain/FindOrders?customer=c1')).toEqual({
      status: 200,
      body: { order: [{ number: 1, total: { currency: 'EUR', _: 10.5 }, line: [{ sku: 'A', price: { currency: 'EUR', _: 10.5 } }] }] },
    });
    expect(lastArgs()).toMatchObject({ operation: 'FindOrders', args: { customer: 'c1' } });
    expect(lastBody()).toBe('<FindOrders xmlns="urn:o:chain:orders"><customer>c1</customer></FindOrders>');
  });

  PEERS.push({
    file: 'same-names.wsdl',
    path: /^\/same-names\/$/,
    services: {
      SameNamesService: {
        SameNamesPort: ops({
          Lookup: () =>
            raw(
              '<both xmlns="urn:o:same-names"><Item xmlns="urn:o:same-names:a"><id>7</id><code>A2</code></Item>' +
                '<Item xmlns="urn:o:same-names:b"><name>n</name><code>3</code></Item></both>',
            ),
        }),
      },
    },
  });
  it('same_names: types and elements of one local name in three namespaces stay apart', async () => {
    const reply = await call('POST', 'same_names/Lookup', { first: { id: 1, code: 'A1' }, second: { name: 'x', code: 2 } });
    // The second member of the local name Item gets the key Item2 (its XML name is in the schema's `xml.name`).
    expect(reply).toEqual({ status: 200, body: { both: { Item: { id: 7, code: 'A2' }, Item2: { name: 'n', code: 3 } } } });
    const docs = await call('GET', 'api_docs/same_names');
    const schemas = (docs.body.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
    expect(schemas.Item.properties).toEqual({
      Item: { allOf: [{ $ref: '#/components/schemas/Item2' }], xml: { namespace: 'urn:o:same-names:a' } },
      Item2: { allOf: [{ $ref: '#/components/schemas/Item3' }], xml: { namespace: 'urn:o:same-names:b', name: 'Item' } },
    });
    expect(lastBody()).toBe(
      '<Lookup xmlns="urn:o:same-names"><first><id xmlns="urn:o:same-names:a">1</id><code xmlns="urn:o:same-names:a">A1</code></first>' +
        '<second><name xmlns="urn:o:same-names:b">x</name><code xmlns="urn:o:same-names:b">2</code></second></Lookup>',
    );
    expect((await call('POST', 'same_names/Lookup', { first: { id: 1, code: 'B1' }, second: { name: 'x', code: 2 } })).status).toBe(400);
    expect((await call('POST', 'same_names/Lookup', { first: { id: 1, code: 'A1' }, second: { name: 'x', code: 'A1' } })).status).toBe(400);
  });

  PEERS.push({
    file: 'any-content.wsdl',
    path: /^\/any-content\/$/,
    services: {
      AnyContentService: {
        AnyContentPort: ops({
          Store: () =>
            raw(
              '<stored xmlns="urn:o:any-content" xmlns:x="urn:x" x:tag="t1" note="n"><kind>k</kind><x:extra a="1"><x:deep>d</x:deep></x:extra><x:extra>e2</x:extra></stored>' +
                '<stored xmlns="urn:o:any-content"><kind>k2</kind></stored><anything xmlns="urn:y">z</anything>',
            ),
        }),
      },
    },
  });
  it('any_content: what xs:any and xs:anyAttribute stand for is sent and read generically', async () => {
    expect(await call('POST', 'any_content/Store', { item: { kind: 'k', extra: { deep: 'd' }, tag: 'x' } })).toEqual({
      status: 200,
      body: {
        stored: [{ tag: 't1', note: 'n', kind: 'k', extra: [{ a: '1', deep: 'd' }, 'e2'] }, { kind: 'k2' }],
        anything: 'z',
      },
    });
    // Members the schema does not name are what xs:any stands for: elements after the named ones.
    expect(lastBody()).toBe(
      '<Store xmlns="urn:o:any-content"><item><kind>k</kind><extra xmlns=""><deep>d</deep></extra><tag xmlns="">x</tag></item></Store>',
    );
    expect(lastArgs().args).toMatchObject({ item: { kind: 'k', extra: { deep: 'd' }, tag: 'x' } });
  });

  PEERS.push({
    file: 'any-attribute.wsdl',
    path: /^\/any-attribute\/$/,
    services: {
      AnyAttributeService: {
        AnyAttributePort: ops({
          Tag: () => raw('<tagged xmlns="urn:o:any-attribute" id="2" colour="red" size="3"><kind>k</kind></tagged>'),
        }),
      },
    },
  });
  it('any_attribute: members a type open only to attributes (xs:anyAttribute, no xs:any) does not name are sent as attributes', async () => {
    const item = { id: 1, kind: 'k', colour: 'blue & green', size: 2, ok: true, none: null };
    expect(await call('POST', 'any_attribute/Tag', { item })).toEqual({
      status: 200,
      body: { tagged: { id: 2, colour: 'red', size: '3', kind: 'k' } },
    });
    expect(lastBody()).toBe(
      '<Tag xmlns="urn:o:any-attribute"><item id="1" colour="blue &amp; green" size="2" ok="true"><kind>k</kind></item></Tag>',
    );
    expect(lastArgs().args).toMatchObject({ item: { kind: 'k' } });
    // An attribute holds one simple value: a list or an object is refused, naming the member.
    for (const extra of [{ colours: ['a', 'b'] }, { colours: { a: 1 } }]) {
      const refused = await call('POST', 'any_attribute/Tag', { item: { kind: 'k', ...extra } });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain("Field 'item.colours'");
    }
  });

  PEERS.push({
    file: 'substitution.wsdl',
    path: /^\/substitution\/$/,
    services: {
      SubstitutionService: {
        SubstitutionPort: ops({
          Draw: () => raw('<area xmlns="urn:o:substitution">12.5</area><square xmlns="urn:o:substitution"><w>2</w><h>2</h></square>'),
        }),
      },
    },
  });
  it('substitution: the members of a substitution group stand in for its abstract head', async () => {
    expect(await call('POST', 'substitution/Draw', { circle: [{ radius: 1.5 }], square: [{ label: 's', w: 2, h: 2 }] })).toEqual({
      status: 200,
      body: { area: 12.5, square: { w: 2, h: 2 } },
    });
    expect(lastBody()).toBe(
      '<Draw xmlns="urn:o:substitution"><circle><radius>1.5</radius></circle><square><label>s</label><w>2</w><h>2</h></square></Draw>',
    );
  });

  PEERS.push({
    file: 'polymorphism.wsdl',
    path: /^\/polymorphism\/$/,
    services: {
      PolymorphismService: {
        PolymorphismPort: ops({
          Zoo: () =>
            raw(
              '<animal xmlns="urn:o:polymorphism" xmlns:p="urn:o:polymorphism" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="p:Dog" id="1"><name>Rex</name><legs>4</legs><breed>lab</breed></animal>' +
                '<animal xmlns="urn:o:polymorphism" xmlns:q="urn:o:polymorphism" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="q:Puppy" id="2" vaccinated="true"><name>Bit</name><breed>pug</breed><ageWeeks>9</ageWeeks></animal>' +
                '<animal xmlns="urn:o:polymorphism" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Snake" id="3"><name>Kaa</name></animal>',
            ),
        }),
      },
    },
  });
  it('polymorphism: replies name derived types (by extension, two levels, and by restriction) in xsi:type', async () => {
    expect(await call('POST', 'polymorphism/Zoo', { add: { id: 4, name: 'Tiny', breed: 'pug', ageWeeks: 3, vaccinated: false } })).toEqual({
      status: 200,
      body: {
        animal: [
          { id: 1, name: 'Rex', legs: 4, breed: 'lab' },
          { id: 2, vaccinated: true, name: 'Bit', breed: 'pug', ageWeeks: 9 },
          { id: 3, name: 'Kaa' },
        ],
      },
    });
    expect(lastBody()).toBe(
      '<Zoo xmlns="urn:o:polymorphism"><add xmlns:xt="urn:o:polymorphism" xsi:type="xt:Puppy" id="4" vaccinated="false"><name>Tiny</name><breed>pug</breed><ageWeeks>3</ageWeeks></add></Zoo>',
    );
    expect(lastArgs().args).toMatchObject({ add: { name: 'Tiny', breed: 'pug' } });
  });

  PEERS.push({
    file: 'nested-groups.wsdl',
    path: /^\/nested-groups\/$/,
    services: { NestedGroupsService: { NestedGroupsPort: ops({ Route: () => ({ km: 12.5 }) }) } },
  });
  it('nested_groups: choices and sequences nested in each other, optional and repeated, and xs:all', async () => {
    const route = { from: { city: 'A' }, to: { lat: 1.5, lon: 2 }, prefer: 'coast', via: ['B', 'C'], options: { fast: true } };
    expect(await call('POST', 'nested_groups/Route', route)).toEqual({ status: 200, body: { km: 12.5 } });
    expect(lastBody()).toBe(
      '<Route xmlns="urn:o:nested-groups"><from><city>A</city></from><to><lat>1.5</lat><lon>2</lon></to><prefer>coast</prefer>' +
        '<via>B</via><via>C</via><options><fast>true</fast></options></Route>',
    );
    expect(lastArgs().args).toMatchObject({ from: { city: 'A' }, to: { lat: 1.5, lon: 2 }, options: { fast: true } });
  });

  PEERS.push({
    file: 'attributes.wsdl',
    path: /^\/attributes\/$/,
    services: {
      AttributesService: {
        AttributesPort: ops({
          Tag: () =>
            raw(
              '<label xmlns="urn:o:attributes" xmlns:a="urn:o:attributes" lang="de" a:color="green" createdBy="bob" version="3"><text>Hallo</text></label>',
            ),
        }),
      },
    },
  });
  it('attributes: local, referenced, qualified, defaulted and fixed attributes and nested attribute groups', async () => {
    expect(
      await call('POST', 'attributes/Tag', { dryRun: true, label: { text: 'Hi', lang: 'en', color: 'red', createdBy: 'ann' } }),
    ).toEqual({
      status: 200,
      body: { label: { lang: 'de', color: 'green', createdBy: 'bob', version: 3, text: 'Hallo' } },
    });
    expect(lastBody()).toBe(
      '<Tag xmlns="urn:o:attributes" dryRun="true"><label xmlns:a0="urn:o:attributes" a0:lang="en" xmlns:a1="urn:o:attributes" a1:color="red" createdBy="ann"><text>Hi</text></label></Tag>',
    );
    expect((await call('POST', 'attributes/Tag', { label: { text: 'Hi', color: 'blue', createdBy: 'ann' } })).status).toBe(400);
    expect((await call('POST', 'attributes/Tag', { label: { text: 'Hi' } })).body).toMatchObject({
      error: { code: 400, message: "Field 'label.createdBy' is required." },
    });
  });

  PEERS.push({
    file: 'mixed-content.wsdl',
    path: /^\/mixed-content\/$/,
    services: {
      MixedContentService: {
        MixedContentPort: ops({
          Render: () =>
            raw(
              '<para xmlns="urn:o:mixed-content" style="b">Use <code>ls</code> or <em>dir</em>.</para><para xmlns="urn:o:mixed-content">plain</para>',
            ),
        }),
      },
    },
  });
  it('mixed_content: the text between child elements is `_`', async () => {
    expect(await call('POST', 'mixed_content/Render', { para: { _: 'Hello', em: ['x'], style: 's' } })).toEqual({
      status: 200,
      body: { para: [{ style: 'b', _: 'Use  or .', code: ['ls'], em: ['dir'] }, { _: 'plain' }] },
    });
    expect(lastBody()).toBe('<Render xmlns="urn:o:mixed-content"><para style="s">Hello<em>x</em></para></Render>');
  });

  PEERS.push({
    file: 'simple-content.wsdl',
    path: /^\/simple-content\/$/,
    services: {
      SimpleContentService: {
        SimpleContentPort: ops({
          Quote: () =>
            raw(
              '<price xmlns="urn:o:simple-content" currency="EUR" rate="0.19">11.90</price><price xmlns="urn:o:simple-content" currency="USD">3</price>' +
                '<note xmlns="urn:o:simple-content" by="al">ok</note>',
            ),
        }),
      },
    },
  });
  it('simple_content: text beside attributes, through extensions of extensions and a restriction', async () => {
    const quote = { weight: [{ _: 1.5, unit: 'lb' }, 2], limit: { _: 50, currency: 'EUR' }, unitName: { _: 'kg', lang: 'en' } };
    expect(await call('POST', 'simple_content/Quote', quote)).toEqual({
      status: 200,
      body: {
        price: [
          { currency: 'EUR', rate: 0.19, _: 11.9 },
          { currency: 'USD', _: 3 },
        ],
        note: { by: 'al', _: 'ok' },
      },
    });
    expect(lastBody()).toBe(
      '<Quote xmlns="urn:o:simple-content"><weight unit="lb">1.5</weight><weight>2</weight><limit currency="EUR">50</limit><unitName lang="en">kg</unitName></Quote>',
    );
    expect((await call('POST', 'simple_content/Quote', { weight: [{ _: 1, unit: 'stone' }] })).status).toBe(400);
    // SmallAmount restricts Amount's text to 100 at most.
    expect((await call('POST', 'simple_content/Quote', { weight: [1], limit: { _: 150, currency: 'EUR' } })).body).toMatchObject({
      error: { code: 400, message: expect.stringContaining("'limit._'") },
    });
    expect((await call('POST', 'simple_content/Quote', { weight: [1], unitName: { _: 'g' } })).status).toBe(400);
  });

  PEERS.push({
    file: 'nillable.wsdl',
    path: /^\/nillable\/$/,
    services: {
      NillableService: {
        NillablePort: ops({
          Update: () =>
            raw(
              '<fields xmlns="urn:o:nillable" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><required>1</required><nillable xsi:nil="true"/>' +
                '<person xsi:nil="true"/><scores>1</scores><scores xsi:nil="true"/><flagged flag="f" xsi:nil="true"/><when xsi:nil="1"/></fields>',
            ),
        }),
      },
    },
  });
  it('nillable: null is xsi:nil where the schema allows it, a left-out member is left out', async () => {
    expect(
      await call('POST', 'nillable/Update', { fields: { required: 1, person: null, scores: [1, null], optionalNillable: null } }),
    ).toEqual({
      status: 200,
      body: { fields: { required: 1, nillable: null, person: null, scores: [1, null], flagged: null, when: null } },
    });
    expect(lastBody()).toBe(
      '<Update xmlns="urn:o:nillable"><fields><required>1</required><nillable xsi:nil="true"/><optionalNillable xsi:nil="true"/>' +
        '<person xsi:nil="true"/><scores>1</scores><scores xsi:nil="true"/></fields></Update>',
    );
    // null where the element is not nillable: a required one refused, an optional one left out.
    expect(await call('POST', 'nillable/Update', { fields: { required: null, person: null } })).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "Field 'fields.required' cannot be null (its element is not nillable).",
          context: { field: 'fields.required' },
        },
      },
    });
    const sent = envelopes.length;
    expect((await call('POST', 'nillable/Update', { fields: { required: 1, optional: null, person: null } })).status).toBe(200);
    expect(lastBody()).toBe(
      '<Update xmlns="urn:o:nillable"><fields><required>1</required><nillable xsi:nil="true"/><person xsi:nil="true"/></fields></Update>',
    );
    expect(envelopes.length).toBe(sent + 1);
  });

  PEERS.push({
    file: 'arrays.wsdl',
    path: /^\/arrays\/$/,
    services: {
      ArraysService: {
        ArraysPort: ops({
          Batch: () =>
            raw(
              '<names xmlns="urn:o:arrays" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><string>a</string><string xsi:nil="true"/></names>' +
                '<matrix xmlns="urn:o:arrays"><ArrayOfInt><int>1</int><int>2</int></ArrayOfInt><ArrayOfInt><int>3</int></ArrayOfInt></matrix><ok xmlns="urn:o:arrays">true</ok>',
            ),
        }),
      },
    },
  });
  it('arrays: repeated elements are arrays even once, ArrayOf wrappers hold theirs, and a repeated sequence keeps its order', async () => {
    const batch = {
      id: [1, '2'],
      names: { string: ['a', null] },
      matrix: { ArrayOfInt: [{ int: [1, 2] }, { int: [3] }] },
      top3: ['x'],
      pairs: { key: ['k1', 'k2'], value: ['v1', 'v2'] },
    };
    expect(await call('POST', 'arrays/Batch', batch)).toEqual({
      status: 200,
      body: { names: { string: ['a', null] }, matrix: { ArrayOfInt: [{ int: [1, 2] }, { int: [3] }] }, ok: [true] },
    });
    expect(lastBody()).toBe(
      '<Batch xmlns="urn:o:arrays"><id>1</id><id>2</id><names><string>a</string><string xsi:nil="true"/></names>' +
        '<matrix><ArrayOfInt><int>1</int><int>2</int></ArrayOfInt><ArrayOfInt><int>3</int></ArrayOfInt></matrix><top3>x</top3>' +
        '<pairs><key>k1</key><value>v1</value><key>k2</key><value>v2</value></pairs></Batch>',
    );
    const sent = envelopes.length;
    expect(await call('POST', 'arrays/Batch', { ...batch, top3: ['a', 'b', 'c', 'd'] })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'top3' must have at most 3 items.", context: { field: 'top3' } } },
    });
    expect(envelopes.length).toBe(sent);
  });

  PEERS.push({
    file: 'list-union.wsdl',
    path: /^\/list-union\/$/,
    services: {
      ListUnionService: {
        ListUnionPort: ops({ Plot: () => raw('<ys xmlns="urn:o:list-union">4 5  6</ys><size xmlns="urn:o:list-union">auto</size>') }),
      },
    },
  });
  it('list_union: lists as arrays or space-separated text, unions as text', async () => {
    expect(
      await call('POST', 'list_union/Plot', { xs: [1, 2, 3], colors: 'red blue', size: 12, marks: [7, 8], when: '2024-01-01' }),
    ).toEqual({
      status: 200,
      body: { ys: '4 5  6', size: 'auto' },
    });
    expect(lastBody()).toBe(
      '<Plot xmlns="urn:o:list-union" marks="7 8"><xs>1 2 3</xs><colors>red blue</colors><size>12</size><when>2024-01-01</when></Plot>',
    );
  });

  PEERS.push({
    file: 'odd-enums.wsdl',
    path: /^\/odd-enums\/$/,
    services: {
      OddEnumsService: {
        OddEnumsPort: ops({
          Classify: () =>
            raw(
              '<grade xmlns="urn:o:odd-enums">with space</grade><grade xmlns="urn:o:odd-enums"></grade><grade xmlns="urn:o:odd-enums">Größe</grade><level xmlns="urn:o:odd-enums">-1</level>',
            ),
        }),
      },
    },
  });
  it('odd_enums: enumeration values that are no identifiers are taken and returned as they are', async () => {
    for (const grade of ['1st', 'a-b', 'with space', '', 'class', '__proto__', 'Größe', 'it\'s "x"', 'A', 'a', '*/', '${x}']) {
      const reply = await call('POST', 'odd_enums/Classify', { grade, level: '0', ratio: '1.5', flag: true });
      expect(reply).toEqual({ status: 200, body: { grade: ['with space', '', 'Größe'], level: -1 } });
      // node-soap reads an empty element as null.
      expect(lastArgs().args).toMatchObject({ grade: grade === '' ? null : grade });
    }
    expect((await call('POST', 'odd_enums/Classify', { grade: 'b' })).status).toBe(400);
    expect((await call('POST', 'odd_enums/Classify', { grade: 'a', level: 2 })).status).toBe(400);
    expect((await call('POST', 'odd_enums/Classify', { grade: 'a', flag: false })).status).toBe(400);
  });

  PEERS.push({
    file: 'recursive.wsdl',
    path: /^\/recursive\/$/,
    // node-soap recurses without end through a group that contains itself: it gets the chain one level deep.
    served: (xml) =>
      xml.replace(
        '<xs:complexType><xs:group ref="tns:Chain"/></xs:complexType></xs:element></xs:sequence></xs:group>',
        '<xs:complexType/></xs:element></xs:sequence></xs:group>',
      ),
    services: {
      RecursiveService: {
        RecursivePort: ops({
          Walk: () =>
            raw(
              '<forest xmlns="urn:o:recursive"><tree><label>a</label><forest><tree><label>b</label></tree><tree><label>c</label></tree></forest></tree></forest>' +
                '<part xmlns="urn:o:recursive"><no>1</no><part><no>2</no><part><no>3</no></part></part></part>',
            ),
        }),
      },
    },
  });
  it('recursive: self-recursive, mutually recursive and group-recursive types, both ways', async () => {
    const walk = {
      tree: { label: 'root', forest: { tree: [{ label: 'leaf' }] } },
      part: { no: 'p1', part: [{ no: 'p2' }] },
      chain: { value: 1, next: { value: 2, next: { value: 3 } } },
    };
    expect(await call('POST', 'recursive/Walk', walk)).toEqual({
      status: 200,
      body: {
        forest: { tree: [{ label: 'a', forest: { tree: [{ label: 'b' }, { label: 'c' }] } }] },
        part: { no: '1', part: [{ no: '2', part: [{ no: '3' }] }] },
      },
    });
    expect(lastBody()).toBe(
      '<Walk xmlns="urn:o:recursive"><tree><label>root</label><forest><tree><label>leaf</label></tree></forest></tree>' +
        '<part><no>p1</no><part><no>p2</no></part></part><chain><value>1</value><next><value>2</value><next><value>3</value></next></next></chain></Walk>',
    );
  });

  const DEPTH = 120;
  const deepJson = (leaf: string) => {
    let value: Record<string, unknown> = { leaf };
    for (let level = 1; level <= DEPTH; level++) value = { [`n${level}`]: value };
    return value;
  };
  const deepXml = (leaf: string) => {
    let xml = `<leaf>${leaf}</leaf>`;
    for (let level = 1; level <= DEPTH; level++) xml = `<n${level}>${xml}</n${level}>`;
    return xml;
  };
  PEERS.push({
    file: 'deep.wsdl',
    path: /^\/deep\/$/,
    services: { DeepService: { DeepPort: ops({ Dive: () => raw(deepXml('up').replace('<n120>', '<n120 xmlns="urn:o:deep">')) }) } },
  });
  it('deep: anonymous types nested 120 levels deep, both ways', async () => {
    expect(await call('POST', 'deep/Dive', deepJson('down'))).toEqual({ status: 200, body: deepJson('up') });
    expect(lastBody()).toBe(`<Dive xmlns="urn:o:deep">${deepXml('down')}</Dive>`);
  });

  const ODD_NAMES: Record<string, string> = {
    class: '<classResponse><return>r</return><typeof>t</typeof></classResponse>',
    delete: '<deleteResponse><prototype>p</prototype><__proto__>q</__proto__></deleteResponse>',
    constructor: '<constructorResponse><toString>s</toString></constructorResponse>',
    __proto__: '<__proto__Response><valueOf>v</valueOf></__proto__Response>',
    'get.v2': '<get.v2Response><v><a.b>1</a.b><c-d>2</c-d></v></get.v2Response>',
    'get-item': '<get-itemResponse><item-name>thing</item-name></get-itemResponse>',
    Grüße: '<GrüßeResponse><g><Ärger>ä</Ärger><名前>名</名前></g></GrüßeResponse>',
    Object: '<ObjectResponse><ObjectResult><default>d</default><new>1</new></ObjectResult></ObjectResponse>',
  };
  HAND_WRITTEN['/odd-names/'] = (action) => {
    const operation = decodeURIComponent(action.slice('urn:o:odd-names#'.length));
    return (Object.hasOwn(ODD_NAMES, operation) ? ODD_NAMES[operation] : '').replace('>', ' xmlns="urn:o:odd-names">');
  };
  it('odd_names: operations and members named like reserved words, built-ins, with dots, dashes and beyond ASCII', async () => {
    expect(await call('POST', 'odd_names/class', { class: 'c', interface: { x: 'x' }, for: 'f' })).toEqual({
      status: 200,
      body: { return: 'r', typeof: 't' },
    });
    expect(lastBody()).toBe('<class xmlns="urn:o:odd-names" for="f"><class>c</class><interface><x>x</x></interface></class>');
    const proto = await call('POST', 'odd_names/delete', { constructor: 'k', hasOwnProperty: 'h' });
    expect(proto).toEqual({ status: 200, body: JSON.parse('{"prototype":"p","__proto__":"q"}') });
    expect(lastBody()).toBe('<delete xmlns="urn:o:odd-names"><constructor>k</constructor><hasOwnProperty>h</hasOwnProperty></delete>');
    // A member named `then` (of the type named Promise) is data like any other.
    const promise = JSON.parse('{"then":"t"}');
    expect(
      await call('POST', 'odd_names/constructor', { obj: { default: 'd' }, p: promise, s: { length: 1 }, r: { Record: 'r' } }),
    ).toEqual({
      status: 200,
      body: { toString: 's' },
    });
    // A member named __proto__ cannot be given: the platform's JSON parser refuses a body with one
    // (prototype poisoning), and its query parser leaves the parameter out.
    expect(await call('POST', 'odd_names/__proto__', JSON.parse('{"__proto__":"x"}'))).toEqual({
      status: 400,
      body: {
        error: { code: 400, message: "Invalid JSON: a member named '__proto__', or 'constructor' holding 'prototype', is not accepted." },
      },
    });
    expect((await call('GET', 'odd_names/__proto__?__proto__=x')).body).toMatchObject({
      error: { message: "Field '__proto__' is required." },
    });
    expect(await call('POST', 'odd_names/get.v2', { v: { 'a.b': '1', 'c-d': '2' } })).toEqual({
      status: 200,
      body: { v: { 'a.b': '1', 'c-d': '2' } },
    });
    expect(await call('GET', 'odd_names/get-item?item-id=7')).toEqual({ status: 200, body: { 'item-name': 'thing' } });
    expect(lastBody()).toBe('<get-item xmlns="urn:o:odd-names"><item-id>7</item-id></get-item>');
    expect(await call('POST', `odd_names/${encodeURIComponent('grüße')}`, { g: { Ärger: 'a', 名前: 'n' } })).toEqual({
      status: 200,
      body: { g: { Ärger: 'ä', 名前: '名' } },
    });
    expect(await call('POST', 'odd_names/object', { Object: { default: 'x' } })).toEqual({
      status: 200,
      body: { ObjectResult: { default: 'd', new: 1 } },
    });
    expect(((await call('GET', 'odd_names?as_list=true')).body as { resource: string[] }).resource).toEqual([
      '__proto__',
      'class',
      'constructor',
      'delete',
      'get-item',
      'get.v2',
      'Grüße',
      'Object',
    ]);
  });

  PEERS.push({
    file: 'overloads.wsdl',
    path: /^\/overloads\/(products|people)\/$/,
    // node-soap takes the last of the overloads in one port type, Portico (with a warning) the first.
    served: (xml) => xml.replace(/^.*<wsdl:input name="byName".*$/m, ''),
    services: {
      Directory: {
        ProductsPort: ops({ Find: (args) => ({ found: `product ${String(args.id)}` }) }),
        PeoplePort: ops({ Find: (args) => ({ person: [`person ${String(args.name)}`] }) }),
      },
    },
  });
  it('overloads: one operation name in two port types with other messages is two operations', async () => {
    expect(await call('POST', 'overloads/Find', { id: 3 })).toEqual({ status: 200, body: { found: 'product 3' } });
    expect(lastEnvelope().path).toBe('/overloads/products/');
    expect(await call('POST', 'overloads/Find_2', { name: 'ann' })).toEqual({ status: 200, body: { person: ['person ann'] } });
    expect(lastEnvelope().path).toBe('/overloads/people/');
    expect(lastBody()).toBe('<FindByName xmlns="urn:o:overloads"><name>ann</name></FindByName>');
  });

  PEERS.push({
    file: 'headers.wsdl',
    path: /^\/headers\/$/,
    // node-soap finds an operation by the element of its input's first part, here a header's.
    served: (xml) =>
      xml.replace(
        /(<wsdl:part name="session" element="tns:Session"\/>)(\s*)(<wsdl:part name="parameters" element="tns:Transfer"\/>)/,
        '$3$2$1',
      ),
    services: { BankService: { BankPort: ops({ Transfer: (args) => ({ receipt: `r-${String(args.amount)}` }) }) } },
  });
  it('headers: header parts are left out of the body; the configured header is sent', async () => {
    expect(await call('POST', 'headers/Transfer?token=t-9', { from: 'a', to: 'b', amount: '2.50' })).toEqual({
      status: 200,
      body: { receipt: 'r-2.5' },
    });
    expect(lastBody()).toBe('<Transfer xmlns="urn:o:headers"><from>a</from><to>b</to><amount>2.50</amount></Transfer>');
    expect(lastArgs().headers).toMatchObject({ Session: { token: 't-9' } });
  });

  PEERS.push({
    file: 'faults.wsdl',
    path: /^\/faults\/$/,
    services: {
      AtmService: {
        AtmPort: ops({
          Withdraw: (args) => {
            if (args.account === 'locked')
              throw {
                Fault: { faultcode: 'soap:Client', faultstring: 'Locked', detail: { AccountLocked: 'since monday' }, statusCode: 500 },
              };
            throw {
              Fault: {
                faultcode: 'soap:Client',
                faultstring: 'Insufficient funds',
                detail: { InsufficientFunds: { attributes: { code: '42' }, balance: '1.00', hint: ['save', 'wait'] } },
                statusCode: 500,
              },
            };
          },
        }),
      },
    },
  });
  it('faults: a declared fault answers 500 with its detail, typed as the fault element says and so documented', async () => {
    expect(await call('POST', 'faults/Withdraw', { account: 'a', amount: 5 })).toEqual({
      status: 500,
      body: {
        error: {
          code: 500,
          message: 'Insufficient funds [Fault code:soap:Client]',
          context: {
            faultcode: 'soap:Client',
            faultstring: 'Insufficient funds',
            detail: { InsufficientFunds: { code: 42, balance: 1, hint: ['save', 'wait'] } },
          },
        },
      },
    });
    expect((await call('POST', 'faults/Withdraw', { account: 'locked', amount: 5 })).body).toMatchObject({
      error: { code: 500, message: 'Locked [Fault code:soap:Client]', context: { detail: { AccountLocked: 'since monday' } } },
    });
    const docs = await call('GET', 'api_docs/faults');
    const operation = (docs.body.paths as Record<string, { post: { responses: Record<string, unknown> } }>)['/withdraw'].post;
    expect(operation.responses['500']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/WithdrawFault' } } },
    });
    // One error envelope: the fault's schema is the shared Error, its context narrowed to the fault's.
    const fault = (docs.body.components as { schemas: Record<string, JsonSchemaLike> }).schemas.WithdrawFault as {
      allOf: [unknown, { properties: { error: { properties: { context: unknown } } } }];
    };
    expect(fault.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
    expect(fault.allOf[1].properties.error.properties.context).toEqual({
      type: 'object',
      properties: {
        faultcode: { type: 'string' },
        faultstring: { type: 'string' },
        faultactor: { type: 'string' },
        detail: {
          type: 'object',
          properties: {
            InsufficientFunds: expect.objectContaining({
              properties: expect.objectContaining({ code: expect.objectContaining({ type: 'integer' }) }),
            }),
            AccountLocked: { type: 'string', xml: { namespace: 'urn:o:faults' } },
          },
        },
      },
    });
  });

  HAND_WRITTEN['/bare/'] = (action) =>
    action === 'urn:o:bare#Echo'
      ? '<echo xmlns="urn:o:bare">hi</echo>'
      : '<statement xmlns="urn:o:bare"><line>l1</line></statement><balance xmlns="urn:o:bare">9.99</balance>';
  it('bare: document/literal messages of several parts, and of one part of a simple type', async () => {
    const statement = { accountId: 'acc', period: { from: '2024-01-01', to: '2024-01-31' }, limit: 10 };
    expect(await call('POST', 'bare/Statement', statement)).toEqual({ status: 200, body: { statement: { line: ['l1'] }, balance: 9.99 } });
    expect(lastBody()).toBe(
      '<accountId xmlns="urn:o:bare">acc</accountId><period xmlns="urn:o:bare"><from>2024-01-01</from><to>2024-01-31</to></period><limit xmlns="urn:o:bare">10</limit>',
    );
    expect(await call('GET', 'bare/Echo?echo=hi')).toEqual({ status: 200, body: { echo: 'hi' } });
    expect(lastBody()).toBe('<echo xmlns="urn:o:bare">hi</echo>');
  });

  PEERS.push({
    file: 'rpc-literal.wsdl',
    path: /^\/rpc-literal\/$/,
    services: {
      GeoService: {
        GeoPort: ops({
          measure: () => ({ length: 5.5, farthest: { x: 3, y: 4 } }),
          log: () => ({}),
        }),
      },
    },
  });
  it('rpc_literal: parts as members of the operation element, typed parts of complex types, several output parts', async () => {
    const measure = {
      origin: { x: 0, y: 0 },
      path: {
        point: [
          { x: 1, y: 1 },
          { x: 3, y: 4 },
        ],
      },
      mode: 'exact',
      scale: 1,
    };
    expect(await call('POST', 'rpc_literal/measure', measure)).toEqual({ status: 200, body: { length: 5.5, farthest: { x: 3, y: 4 } } });
    expect(lastBody()).toBe(
      '<measure xmlns="urn:o:rpc-literal"><origin xmlns=""><x>0</x><y>0</y></origin><path xmlns=""><point><x>1</x><y>1</y></point><point><x>3</x><y>4</y></point></path>' +
        '<mode xmlns="">exact</mode><scale xmlns="">1</scale></measure>',
    );
    expect(lastArgs().args).toMatchObject({ origin: { x: '0' }, mode: 'exact' });
    expect((await call('POST', 'rpc_literal/measure', { ...measure, mode: 'slow' })).status).toBe(400);
    // node-soap cannot answer a one-way operation (it fails without an envelope), which Portico reports as such.
    expect(await call('POST', 'rpc_literal/log', { line: 'hello' })).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'The SOAP service answered HTTP 500 without a SOAP envelope.' } },
    });
    expect(lastBody()).toBe('<log xmlns="urn:o:rpc-literal"><line xmlns="">hello</line></log>');
  });

  HAND_WRITTEN['/soap11-12/v11/'] = () => '<ConvertResponse xmlns="urn:o:soap11-12"><fahrenheit>212</fahrenheit></ConvertResponse>';
  HAND_WRITTEN['/soap11-12/v12/'] = (action) =>
    action.endsWith('Kelvin')
      ? '<KelvinResponse xmlns="urn:o:soap11-12"><kelvin>273.15</kelvin></KelvinResponse>'
      : '<ConvertResponse xmlns="urn:o:soap11-12"><fahrenheit>32</fahrenheit></ConvertResponse>';
  it("soap11_12: each operation goes to a binding that has it, with that binding's version and soapAction", async () => {
    expect(await call('GET', 'soap11_12/Convert?celsius=100')).toEqual({ status: 200, body: { fahrenheit: 212 } });
    expect(lastEnvelope()).toMatchObject({ path: '/soap11-12/v11/', action: 'urn:o:soap11-12#Convert11' });
    expect(await call('GET', 'soap11_12/Kelvin?celsius=0')).toEqual({ status: 200, body: { kelvin: 273.15 } });
    expect(lastEnvelope()).toMatchObject({ path: '/soap11-12/v12/' });
    expect(lastEnvelope().action).toBe('urn:o:soap11-12#Kelvin');
    // The same WSDL as a service configured for SOAP 1.2: the 1.2 binding's port and action.
    expect(await call('GET', 'soap12/Convert?celsius=0')).toEqual({ status: 200, body: { fahrenheit: 32 } });
    expect(lastEnvelope()).toMatchObject({ path: '/soap11-12/v12/' });
    expect(lastEnvelope().action).toBe('urn:o:soap11-12#Convert12');
  });

  PEERS.push({
    file: 'services.wsdl',
    path: /^\/services\/(warehouse|billing|backup)\/$/,
    services: {
      Shop: {
        WarehousePort: ops({ Ping: () => ({ pong: 'warehouse' }), Stock: () => ({ count: 3 }) }),
        BillingPort: ops({ Invoice: () => ({ total: 99.5 }) }),
      },
      Backup: { WarehouseBackup: ops({ Ping: () => ({ pong: 'backup' }), Stock: () => ({ count: 0 }) }) },
    },
  });
  it('services: operations of several services and ports, each sent to a port that has it', async () => {
    expect(await call('GET', 'services')).toEqual({
      status: 200,
      body: { resource: [{ name: 'Invoice' }, { name: 'Ping' }, { name: 'Stock' }] },
    });
    expect(await call('GET', 'services/Ping')).toEqual({ status: 200, body: { pong: 'warehouse' } });
    expect(lastBody()).toBe('<Ping xmlns="urn:o:services"></Ping>');
    expect(await call('GET', 'services/Stock?sku=s')).toEqual({ status: 200, body: { count: 3 } });
    expect(await call('GET', 'services/Invoice?order=1')).toEqual({ status: 200, body: { total: 99.5 } });
    expect(lastEnvelope().path).toBe('/services/billing/');
  });

  PEERS.push({
    file: 'dataset.wsdl',
    path: /^\/dataset\/$/,
    services: {
      Customers: {
        CustomersSoap: ops({
          GetCustomers: () =>
            raw(
              '<GetCustomersResult xmlns="http://tempuri.org/"><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" id="NewDataSet"><xs:element name="NewDataSet"/></xs:schema>' +
                '<diffgr:diffgram xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1"><NewDataSet xmlns=""><Table diffgr:id="Table1"><Name>Ann</Name></Table><Table diffgr:id="Table2"><Name>Bob</Name></Table></NewDataSet></diffgr:diffgram></GetCustomersResult>',
            ),
        }),
      },
    },
  });
  it('dataset: a .NET DataSet reply (its inline schema, then the diffgram) is read generically', async () => {
    expect(await call('GET', 'dataset/GetCustomers?country=DE')).toEqual({
      status: 200,
      body: {
        GetCustomersResult: {
          schema: { id: 'NewDataSet', element: { name: 'NewDataSet' } },
          diffgram: {
            NewDataSet: {
              Table: [
                { id: 'Table1', Name: 'Ann' },
                { id: 'Table2', Name: 'Bob' },
              ],
            },
          },
        },
      },
    });
  });

  PEERS.push({
    file: 'missing-message.wsdl',
    path: /^\/missing-message\/$/,
    // node-soap cannot read the operations Portico leaves out.
    served: (xml) => xml.replace(/^.*(Lost|Ghost).*$/gm, ''),
    services: { S: { SPort: ops({ Ok: (args) => ({ b: `got ${String(args.a)}` }) }) } },
  });
  it('missing_message: the operations whose messages resolve are offered', async () => {
    expect(await call('GET', 'missing_message?as_list=true')).toEqual({ status: 200, body: { resource: ['Ok'] } });
    expect(await call('GET', 'missing_message/Ok?a=x')).toEqual({ status: 200, body: { b: 'got x' } });
    expect((await call('GET', 'missing_message/Lost')).status).toBe(404);
  });

  HAND_WRITTEN['/loose/'] = () => '<l:PutResponse xmlns:l="urn:o:loose"><ok>true</ok></l:PutResponse>';
  it('loose: what a sloppy WSDL leaves undefined is any value, a derivation cycle is broken, and the operation works', async () => {
    expect(await call('POST', 'loose/Put', { Item: { cycle: { a: '1', b: '2' }, lost: { any: 'x' } }, note: 'n' })).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(lastBody()).toBe(
      '<Put xmlns="urn:o:loose"><Item><cycle><a>1</a></cycle><lost><any>x</any></lost></Item><note xmlns="" xsi:type="xsd:string">n</note></Put>',
    );
  });

  PEERS.push({
    file: 'occurrences.wsdl',
    path: /^\/occurrences\/$/,
    services: {
      TaggingService: {
        TaggingPort: ops({ Tag: () => raw('<tagged xmlns="urn:o:occurrences">2</tagged><tokens xmlns="urn:o:occurrences">a b</tokens>') }),
      },
    },
  });
  it('occurrences: a particle of maxOccurs 0 is no member, a repeated element that must occur needs an item, the built-in lists take arrays', async () => {
    const label = { text: 't', color: 'red', legacyCode: 7 };
    const tag = { ids: [1, 2], label, tokens: ['a', 'b'], refs: 'r1 r2', entities: ['e'], retired: 'x', gone: 'y' };
    expect(await call('POST', 'occurrences/Tag', tag)).toEqual({ status: 200, body: { tagged: 2, tokens: 'a b' } });
    // What may not occur is not sent, like any member the schema does not have.
    expect(lastBody()).toBe(
      '<Tag xmlns="urn:o:occurrences"><ids>1</ids><ids>2</ids><label><text>t</text><color>red</color></label>' +
        '<tokens>a b</tokens><refs>r1 r2</refs><entities>e</entities></Tag>',
    );
    const docs = (await call('GET', 'api_docs/occurrences')).body as { components: { schemas: Record<string, { properties: object }> } };
    expect(Object.keys(docs.components.schemas.PlainLabel.properties)).toEqual(['text', 'color']);
    expect(Object.keys(docs.components.schemas.TagRequest.properties)).toEqual(['ids', 'label', 'tokens', 'refs', 'entities']);
    const sent = envelopes.length;
    expect(await call('POST', 'occurrences/Tag', { ...tag, ids: [] })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'ids' must have at least 1 item.", context: { field: 'ids' } } },
    });
    expect(await call('POST', 'occurrences/Tag', { ...tag, tokens: ['a b'] })).toMatchObject({ status: 400 });
    expect(envelopes.length).toBe(sent);
  });

  // node-soap answers a request with an element named `_` with an HTTP 500 of no envelope.
  HAND_WRITTEN['/underscore/'] = () =>
    '<FillResponse xmlns="urn:o:underscore"><slot><_>7</_><__>b</__></slot><local><_ xmlns="">true</_><_ xmlns="">0</_></local></FillResponse>';
  it('underscore: an element named `_` is an element, not the text that `_` is beside attributes or in mixed content', async () => {
    const fill = { slot: { _: 1, __: 'a' }, local: { _: [true] }, amount: { _: 2.5, _Attribute: 'x' }, note: { _: 'see ', _2: 3 } };
    expect(await call('POST', 'underscore/Fill', fill)).toEqual({
      status: 200,
      body: { slot: { _: 7, __: 'b' }, local: { _: [true, false] } },
    });
    expect(lastBody()).toBe(
      '<Fill xmlns="urn:o:underscore"><slot><_>1</_><__>a</__></slot><local><_ xmlns="">true</_></local>' +
        '<amount _="x">2.5</amount><note>see <_>3</_></note></Fill>',
    );
  });

  PEERS.push({
    file: 'fixed-values.wsdl',
    path: /^\/fixed-values\/$/,
    services: {
      SettingsService: {
        SettingsPort: ops({
          Configure: () => raw('<limit xmlns="urn:o:fixed-values">INF</limit><level xmlns="urn:o:fixed-values">01</level>'),
        }),
      },
    },
  });
  it('fixed_values: enumeration values by value (INF, NaN, 01 and 1, 1 and true), fixed values as the one value allowed', async () => {
    for (const limit of ['INF', '-INF', 'NaN', 0.5, '0.500']) {
      expect(await call('POST', 'fixed_values/Configure', { limit, level: '1', confirmed: true })).toEqual({
        status: 200,
        body: { limit: 'INF', level: 1 },
      });
    }
    expect(lastBody()).toBe(
      '<Configure xmlns="urn:o:fixed-values"><limit>0.500</limit><level>1</level><confirmed>true</confirmed><protocol>2</protocol></Configure>',
    );
    const docs = (await call('GET', 'api_docs/fixed_values')).body as {
      components: { schemas: Record<string, { enum?: unknown[]; properties: Record<string, { enum?: unknown[] }> }> };
    };
    // The named enumerations are components of their own (the members refer to them); fixed values are the members' own.
    const { Limit, Level, Yes, ConfigureRequest } = docs.components.schemas;
    const request = ConfigureRequest.properties;
    expect([Limit.enum, Level.enum, Yes.enum, request.protocol.enum, request.mode.enum]).toEqual([
      ['INF', '-INF', 'NaN', 0.5],
      [1, 2],
      [true],
      [2],
      ['strict'],
    ]);
    const sent = envelopes.length;
    expect(await call('POST', 'fixed_values/Configure', { limit: 'INF', protocol: 3 })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'protocol' must be '2'.", context: { field: 'protocol' } } },
    });
    expect((await call('POST', 'fixed_values/Configure', { limit: 'INF', schemaVersion: 2 })).body).toMatchObject({
      error: { message: "Field 'schemaVersion' must be '1'." },
    });
    expect((await call('POST', 'fixed_values/Configure', { limit: 'INF', confirmed: false })).status).toBe(400);
    expect(envelopes.length).toBe(sent);
  });

  PEERS.push({
    file: 'required-choice.wsdl',
    path: /^\/required-choice\/$/,
    services: { CustomersService: { CustomersPort: ops({ Lookup: () => ({ name: 'Ann' }) }) } },
  });
  it('required_choice: one member of a required xs:choice must be given, and only one', async () => {
    expect(await call('GET', 'required_choice/Lookup?email=ann@example.com')).toEqual({ status: 200, body: { name: 'Ann' } });
    expect(lastBody()).toBe('<Lookup xmlns="urn:o:required-choice"><email>ann@example.com</email></Lookup>');
    expect(await call('POST', 'required_choice/Lookup', { id: 1, latest: true })).toEqual({ status: 200, body: { name: 'Ann' } });
    expect(lastBody()).toBe('<Lookup xmlns="urn:o:required-choice"><id>1</id><latest>true</latest></Lookup>');
    const sent = envelopes.length;
    expect(await call('POST', 'required_choice/Lookup', { latest: true })).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "The request must have one of the fields 'id', 'email': they are the choices of an xs:choice.",
          context: { field: '' },
        },
      },
    });
    expect((await call('POST', 'required_choice/Lookup', { id: 1, email: 'ann@example.com' })).body).toMatchObject({
      error: {
        code: 400,
        message:
          "The request must have only one of the fields 'id', 'email' (it has 'id' and 'email'): they are the choices of an xs:choice.",
      },
    });
    expect(envelopes.length).toBe(sent);
  });

  PEERS.push({
    file: 'shared-enums.wsdl',
    path: /^\/shared-enums\/$/,
    services: {
      PaintsService: {
        PaintsPort: ops({
          Mix: () =>
            raw(
              '<result xmlns="urn:o:shared-enums">green</result>' +
                '<paint xmlns="urn:o:shared-enums" tint="red"><colour>blue</colour><mixedWith>red</mixedWith></paint>',
            ),
        }),
      },
    },
  });
  it('shared_enums: a named enumeration is one named type wherever it is used (model, OpenAPI, TypeScript), and each use still checks it', async () => {
    const types = fs.readFileSync(path.join(work, 'server/services/shared_enums/types.ts'), 'utf8');
    expect(types).toContain('export type Colour = "red" | "green" | "blue";');
    expect(types).toContain('export type Warm = "red";');
    expect(types).toMatch(/colour: Colour;\s+mixedWith\?: Colour\[\];\s+\/\*\* \(XML attribute\) \*\/\s+tint\?: Colour;/);
    expect(types).toMatch(/_\?: Colour;/);
    expect(types).toMatch(/result\?: Colour \| null;/);
    const openapi = fs.readFileSync(path.join(work, 'server/openapi/shared_enums.json'), 'utf8');
    for (const text of [types, openapi, JSON.stringify(soapService('shared_enums'))]) expect(text.match(/"green"/g)).toHaveLength(1);

    const paint = { colour: 'red', mixedWith: ['green', 'blue'], tint: 'blue' };
    expect(await call('POST', 'shared_enums/Mix', { paint, label: { _: 'green', lang: 'en' }, warm: 'red', base: 'blue' })).toEqual({
      status: 200,
      body: { result: 'green', paint: { tint: 'red', colour: 'blue', mixedWith: ['red'] } },
    });
    expect(lastBody()).toBe(
      '<Mix xmlns="urn:o:shared-enums"><paint tint="blue"><colour>red</colour><mixedWith>green</mixedWith><mixedWith>blue</mixedWith></paint>' +
        '<label lang="en">green</label><warm>red</warm><base>blue</base></Mix>',
    );
    const sent = envelopes.length;
    const refused = async (body: unknown) => ((await call('POST', 'shared_enums/Mix', body)).body.error as { message: string }).message;
    const bodies = [
      { paint: { colour: 'pink' } },
      { paint: { colour: 'red', mixedWith: ['pink'] } },
      { paint: { colour: 'red', tint: 'pink' } },
      { paint: { colour: 'red' }, label: { _: 'pink' } },
      { paint: { colour: 'red' }, warm: 'blue' },
      { paint: { colour: 'red' }, base: 'red' },
    ];
    const messages: string[] = [];
    for (const body of bodies) messages.push(await refused(body));
    expect(messages).toEqual([
      "Field 'paint.colour' must be one of 'red', 'green', 'blue'.",
      "Field 'paint.mixedWith[0]' must be one of 'red', 'green', 'blue'.",
      "Field 'paint.tint' must be one of 'red', 'green', 'blue'.",
      "Field 'label._' must be one of 'red', 'green', 'blue'.",
      "Field 'warm' must be 'red'.",
      "Field 'base' must be 'blue'.",
    ]);
    expect(envelopes.length).toBe(sent);
  });

  PEERS.push({
    file: 'big-integers.wsdl',
    path: /^\/big-integers\/$/,
    services: {
      LedgerService: {
        LedgerPort: ops({
          Transfer: () =>
            raw(
              '<account xmlns="urn:o:big-integers" version="9007199254740993"><id>9223372036854775807</id><balance>-42</balance>' +
                '<serial>18446744073709551615</serial><history>7</history><history>123456789012345678901234567890</history>' +
                '<count>2147483647</count><size>4294967295</size><share>100</share><code>999999999</code></account>',
            ),
        }),
      },
    },
  });
  it('big_integers: integers that may exceed 2^53 are numbers, or text beyond 2^53, and their types and OpenAPI schemas say so', async () => {
    expect(await call('POST', 'big_integers/Transfer', { from: '9223372036854775807', amount: 5 })).toEqual({
      status: 200,
      body: {
        account: {
          version: '9007199254740993',
          id: '9223372036854775807',
          balance: -42,
          serial: '18446744073709551615',
          history: [7, '123456789012345678901234567890'],
          count: 2147483647,
          size: 4294967295,
          share: 100,
          code: 999999999,
        },
      },
    });
    expect(lastBody()).toBe('<Transfer xmlns="urn:o:big-integers"><from>9223372036854775807</from><amount>5</amount></Transfer>');
    const types = fs.readFileSync(path.join(work, 'server/services/big_integers/types.ts'), 'utf8');
    const members = (name: string) => /interface \w+ \{([^}]*)\}/.exec(types.slice(types.indexOf(`export interface ${name} `)))?.[1];
    expect(members('Account')?.replace(/\s+/g, ' ')).toBe(
      ' id: number | string; balance: number | string; serial?: number | string | null; history?: Array<number | string>;' +
        ' count: number; size: number; share: number; code: number; /** (XML attribute) */ version?: number | string; ',
    );
    expect(members('TransferRequest')?.replace(/\s+/g, ' ')).toBe(' from: number | string; amount: number | string; ');
    const docs = (await call('GET', 'api_docs/big_integers')).body as {
      components: { schemas: Record<string, { properties: Record<string, JsonSchemaLike> }> };
    };
    const account = docs.components.schemas.Account.properties;
    const text = { type: 'string', pattern: '^[+-]?[0-9]+$' };
    expect([account.id.anyOf, account.serial.anyOf, account.history.items?.anyOf, account.count, account.share.anyOf]).toEqual([
      [{ type: 'integer', format: 'int64' }, text],
      [
        { type: 'integer', minimum: 0, nullable: true },
        { ...text, nullable: true },
      ],
      [{ type: 'integer', minimum: 0 }, text],
      { type: 'integer', format: 'int32', xml: { namespace: 'urn:o:big-integers' } },
      undefined,
    ]);
  });

  PEERS.push({
    file: 'two-choices.wsdl',
    path: /^\/two-choices\/$/,
    services: { AccountsService: { AccountsPort: ops({ Statement: () => ({ total: '12.50' }) }) } },
  });
  it('two_choices: each of two required xs:choice groups needs one of its members, and only one', async () => {
    expect(await call('POST', 'two_choices/Statement', { email: 'ann@example.com', latest: true })).toEqual({
      status: 200,
      body: { total: 12.5 },
    });
    expect(lastBody()).toBe('<Statement xmlns="urn:o:two-choices"><email>ann@example.com</email><latest>true</latest></Statement>');
    const sent = envelopes.length;
    const refused = async (body: unknown) =>
      ((await call('POST', 'two_choices/Statement', body)).body.error as { message: string }).message;
    expect([
      await refused({ id: 1 }),
      await refused({ latest: true }),
      await refused({ id: 1, email: 'ann@example.com', asOf: '2026-01-01' }),
      await refused({ id: 1, asOf: '2026-01-01', latest: true }),
    ]).toEqual([
      "The request must have one of the fields 'asOf', 'latest': they are the choices of an xs:choice.",
      "The request must have one of the fields 'id', 'email': they are the choices of an xs:choice.",
      "The request must have only one of the fields 'id', 'email' (it has 'id' and 'email'): they are the choices of an xs:choice.",
      "The request must have only one of the fields 'asOf', 'latest' (it has 'asOf' and 'latest'): they are the choices of an xs:choice.",
    ]);
    expect(envelopes.length).toBe(sent);
    const types = fs.readFileSync(path.join(work, 'server/services/two_choices/types.ts'), 'utf8');
    expect(types).toMatch(
      /export interface StatementRequest \{\s+id\?: number;\s+email\?: string;\s+asOf\?: string;\s+latest\?: boolean;\s+\}/,
    );
  });

  PEERS.push({
    file: 'simple-content-facets.wsdl',
    path: /^\/simple-content-facets\/$/,
    services: {
      FacetsService: {
        FacetsPort: ops({
          Register: () =>
            raw(
              '<country xmlns="urn:o:simple-content-facets" scheme="iso">DE</country>' +
                ['0.1', '12345678901234567890.123456789', '010.50', '-0.000000000000000000001', '3.141592653589793238462643383279', '1e2']
                  .map((price) => `<price xmlns="urn:o:simple-content-facets">${price}</price>`)
                  .join('') +
                '<total xmlns="urn:o:simple-content-facets" currency="EUR">99999999999999999999.99</total>' +
                '<rate xmlns="urn:o:simple-content-facets">0.1000000000000000055511151231257827</rate>' +
                '<small xmlns="urn:o:simple-content-facets">1234567.89</small>',
            ),
        }),
      },
    },
  });
  it('simple_content_facets: facets of simpleContent restrictions narrow the text; decimals beyond a double are text', async () => {
    const register = {
      country: { _: 'DE', scheme: 'iso', version: '2' },
      origin: { _: 'FR', scheme: 'iso' },
      sku: ['ABC-1234', { _: 'XYZ-0001', version: '1' }],
      label: 'abc',
      discount: { _: '12.5', currency: 'EUR' },
      grade: { _: 'A', scheme: 'school' },
      price: '12345678901234567890.123456789',
    };
    expect(await call('POST', 'simple_content_facets/Register', register)).toEqual({
      status: 200,
      body: {
        country: { scheme: 'iso', _: 'DE' },
        price: [0.1, '12345678901234567890.123456789', 10.5, -1e-21, '3.141592653589793238462643383279', 100],
        total: { currency: 'EUR', _: '99999999999999999999.99' },
        rate: 0.1,
        small: 1234567.89,
      },
    });
    // CountryCode prohibits Code's attribute version: it is not sent (unknown members are ignored).
    expect(lastBody()).toBe(
      '<Register xmlns="urn:o:simple-content-facets"><country scheme="iso">DE</country><origin scheme="iso">FR</origin>' +
        '<sku>ABC-1234</sku><sku version="1">XYZ-0001</sku><label>abc</label><discount currency="EUR">12.5</discount>' +
        '<grade scheme="school">A</grade><price>12345678901234567890.123456789</price></Register>',
    );
    const sent = envelopes.length;
    const refused = async (change: Record<string, unknown>) => {
      const answer = await call('POST', 'simple_content_facets/Register', { ...register, ...change });
      expect(answer.status).toBe(400);
      return (answer.body.error as { message: string }).message;
    };
    const messages = [
      await refused({ country: { _: 'XX', scheme: 'iso' } }),
      await refused({ country: { _: 'DE' } }),
      await refused({ origin: { _: 'US', scheme: 'iso' } }),
      await refused({ sku: ['abc-1234'] }),
      await refused({ label: 'too long' }),
      await refused({ label: '' }),
      await refused({ discount: { _: 150, currency: 'EUR' } }),
      await refused({ discount: { _: '1.234', currency: 'EUR' } }),
      await refused({ grade: 'C' }),
      await refused({ price: '12.5.1' }),
    ];
    expect(messages.map((message) => /'([^']+)'/.exec(message)?.[1])).toEqual([
      'country._',
      'country.scheme',
      'origin._',
      'sku[0]._',
      'label',
      'label',
      'discount._',
      'discount._',
      'grade._',
      'price',
    ]);
    expect(envelopes.length).toBe(sent);
    const docs = (await call('GET', 'api_docs/simple_content_facets')).body as {
      components: { schemas: Record<string, { properties: Record<string, JsonSchemaLike> }> };
    };
    const schemas = docs.components.schemas;
    expect([schemas.CountryCode.properties, schemas.EuCountryCode.properties._, schemas.Sku.properties._.pattern]).toEqual([
      {
        _: { type: 'string', enum: ['DE', 'FR', 'US'], minLength: 2, maxLength: 2 },
        scheme: { type: 'string', xml: { attribute: true } },
      },
      { type: 'string', enum: ['DE', 'FR'], minLength: 2, maxLength: 2 },
      '^(?:(?:[A-Z]{3}-\\p{Nd}{4}))$',
    ]);
    expect(schemas.ShortLabel).toEqual({ type: 'string', minLength: 1, maxLength: 5 });
    expect(schemas.Percent.properties._).toEqual({
      anyOf: [
        { type: 'number', minimum: 0, maximum: 100 },
        { type: 'string', pattern: '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)$' },
      ],
      'x-fraction-digits': 2,
    });
    const types = fs.readFileSync(path.join(work, 'server/services/simple_content_facets/types.ts'), 'utf8');
    const members = (name: string) => /interface \w+ \{([^}]*)\}/.exec(types.slice(types.indexOf(`export interface ${name} `)))?.[1];
    expect(members('RegisterResponse')?.replace(/\s+/g, ' ')).toBe(
      ' country: CountryCode; price: Array<number | string>; total: Amount; rate?: number; small?: number; ',
    );
    expect(types).toMatch(/export type ShortLabel = string;/);
  });

  // Hand-written, to see the envelopes and actions as sent: by action, the answer.
  HAND_WRITTEN['/addressing/'] = (action) =>
    ({
      'urn:o:addressing/orders/submit': '<SubmitResponse xmlns="urn:o:addressing"><state>open</state></SubmitResponse>',
      'urn:o:addressing#Ping': '<PingResponse xmlns="urn:o:addressing"><ok>true</ok></PingResponse>',
      'http://example.org/echo/Echo': '<EchoResponse xmlns="urn:o:addressing"><text>hi</text></EchoResponse>',
    })[action] ?? '';
  it('addressing: a binding that uses WS-Addressing gets its headers (Action, MessageID, ReplyTo, To); a stated action alone goes in SOAPAction', async () => {
    const wsa = 'http://www.w3.org/2005/08/addressing';
    const header = () => /<soap:Header>(.*)<\/soap:Header>/s.exec(lastEnvelope().body)?.[1];
    const ids: string[] = [];
    const withoutId = (text: string | undefined) =>
      text?.replace(/urn:uuid:([0-9a-f-]{36})/g, (_, id: string) => {
        ids.push(id);
        return 'urn:uuid:ID';
      });
    // Required by a referenced policy (wsam:Addressing), SOAP 1.2, the input's stated wsam:Action.
    expect(await call('POST', 'addressing/Submit', { id: 7 })).toEqual({ status: 200, body: { state: 'open' } });
    expect(lastEnvelope().action).toBe('urn:o:addressing/orders/submit');
    expect(withoutId(header())).toBe(
      `<wsa:Action xmlns:wsa="${wsa}" soap:mustUnderstand="true">urn:o:addressing/orders/submit</wsa:Action>` +
        `<wsa:MessageID xmlns:wsa="${wsa}">urn:uuid:ID</wsa:MessageID>` +
        `<wsa:ReplyTo xmlns:wsa="${wsa}"><wsa:Address>${wsa}/anonymous</wsa:Address></wsa:ReplyTo>` +
        `<wsa:To xmlns:wsa="${wsa}" soap:mustUnderstand="true">${peerBase}/addressing/</wsa:To>`,
    );
    // Required in the binding (wsaw:UsingAddressing wsdl:required), SOAP 1.1, one-way: the default action, no ReplyTo.
    expect(await call('POST', 'addressing/Cancel', { id: 7 })).toEqual({ status: 200, body: {} });
    expect(lastEnvelope().action).toBe('');
    expect(withoutId(header())).toBe(
      `<wsa:Action xmlns:wsa="${wsa}" soap:mustUnderstand="1">urn:o:addressing:Cancellations:Cancel</wsa:Action>` +
        `<wsa:MessageID xmlns:wsa="${wsa}">urn:uuid:ID</wsa:MessageID>` +
        `<wsa:To xmlns:wsa="${wsa}" soap:mustUnderstand="1">${peerBase}/addressing/</wsa:To>`,
    );
    // Optional, the 2004/08 submission (an inline policy): its namespace and anonymous address, nothing marked mustUnderstand.
    const wsa04 = 'http://schemas.xmlsoap.org/ws/2004/08/addressing';
    expect(await call('GET', 'addressing/Ping')).toEqual({ status: 200, body: { ok: true } });
    expect(withoutId(header())).toBe(
      `<wsa:Action xmlns:wsa="${wsa04}">urn:o:addressing#Ping</wsa:Action><wsa:MessageID xmlns:wsa="${wsa04}">urn:uuid:ID</wsa:MessageID>` +
        `<wsa:ReplyTo xmlns:wsa="${wsa04}"><wsa:Address>${wsa04}/role/anonymous</wsa:Address></wsa:ReplyTo>` +
        `<wsa:To xmlns:wsa="${wsa04}">${peerBase}/addressing/</wsa:To>`,
    );
    expect(new Set(ids).size).toBe(3);
    // wsaw:Action without WS-Addressing in the binding: no headers, the action in SOAPAction (its soapAction is empty).
    expect(await call('POST', 'addressing/Echo', { text: 'hi' })).toEqual({ status: 200, body: { text: 'hi' } });
    expect([lastEnvelope().action, header()]).toEqual(['http://example.org/echo/Echo', undefined]);
    // A header the configuration sends in the WS-Addressing namespace is not sent twice.
    expect((await call('POST', 'addressing_own_to/Submit', { id: 7 })).status).toBe(200);
    expect(header()?.match(/<wsa:To |<To /g)).toEqual(['<To ']);
    expect(header()).toContain('<To xmlns="http://www.w3.org/2005/08/addressing">urn:o:elsewhere</To>');
  });

  PEERS.push({
    file: 'jaxws.wsdl',
    path: /^\/jaxws\/$/,
    services: {
      InventoryService: {
        InventoryPort: ops({
          findItems: (args) => {
            if (Number(args.limit) === 0)
              throw {
                Fault: {
                  Code: { Value: 'soap:Sender' },
                  Reason: { Text: 'Not found' },
                  Detail: { NotFound: { sku: ['a', 'b'] } },
                  statusCode: 500,
                },
              };
            return {
              attributes: { total: 2 },
              return: [{ attributes: { status: 'new' }, sku: 'a', tags: ['x', { attributes: { 'xsi:nil': true } }] }, { sku: 'b' }],
            };
          },
        }),
      },
    },
  });
  it('jaxws: SOAP 1.2 only, unqualified members, attributes on the wrappers, nillable optional arrays, a fault with detail', async () => {
    expect(await call('POST', 'jaxws/findItems', { skus: ['a', null], limit: 2, locale: 'en' })).toEqual({
      status: 200,
      body: { total: 2, return: [{ status: 'new', sku: 'a', tags: ['x', null] }, { sku: 'b' }] },
    });
    expect(lastBody()).toBe(
      '<findItems xmlns="http://ws.example.org/" locale="en"><skus xmlns="">a</skus><skus xmlns="" xsi:nil="true"/><limit xmlns="">2</limit></findItems>',
    );
    expect(lastEnvelope().action).toMatch(/^application\/soap\+xml/);
    expect(lastArgs().args).toMatchObject({ limit: 2 });
    expect(await call('POST', 'jaxws/findItems', { limit: 0 })).toMatchObject({
      status: 500,
      body: { error: { code: 500, message: 'Not found [Fault code:soap:Sender]', context: { detail: { NotFound: { sku: ['a', 'b'] } } } } },
    });
    expect((await call('POST', 'jaxws/findItems', { skus: [] })).status).toBe(400);
  });

  // node-soap cannot read a WSDL without a target namespace.
  HAND_WRITTEN['/no-namespace/'] = () => '<GreetResponse><text>hello ann</text></GreetResponse>';
  it('no_namespace: a WSDL and schema without any target namespace', async () => {
    expect(await call('GET', 'no_namespace/Greet?name=ann')).toEqual({ status: 200, body: { text: 'hello ann' } });
    expect(lastBody()).toBe('<Greet><name>ann</name></Greet>');
  });

  PEERS.push({
    file: 'repeated-query.wsdl',
    path: /^\/repeated-query\/$/,
    services: { RepeatedService: { RepeatedPort: ops({ Lookup: () => raw('<count xmlns="urn:o:repeated-query">2</count>') }) } },
  });
  it('repeated_query: an operation with repeated scalar inputs is offered with GET, a parameter given once per value', async () => {
    const docs = (await call('GET', 'api_docs/repeated_query')).body as {
      paths: Record<string, { get?: { parameters: Array<{ name: string; required: boolean; schema: unknown }> } }>;
    };
    expect(docs.paths['/lookup'].get?.parameters).toEqual([
      { name: 'id', in: 'query', required: true, schema: { type: 'array', items: { type: 'integer', format: 'int32' }, minItems: 1 } },
      { name: 'tag', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
      { name: 'exact', in: 'query', required: false, schema: { type: 'boolean' } },
    ]);
    expect(await call('GET', 'repeated_query/Lookup?id=1&id=2&tag=a&exact=true')).toEqual({ status: 200, body: { count: 2 } });
    expect(lastBody()).toBe('<Lookup xmlns="urn:o:repeated-query"><id>1</id><id>2</id><tag>a</tag><exact>true</exact></Lookup>');
    expect(await call('GET', 'repeated_query/Lookup?id=5')).toEqual({ status: 200, body: { count: 2 } });
    expect(lastBody()).toBe('<Lookup xmlns="urn:o:repeated-query"><id>5</id></Lookup>');
    const sent = envelopes.length;
    expect(await call('GET', 'repeated_query/Lookup?id=1&tag=a&tag=b&tag=c&tag=d')).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Field 'tag' must have at most 3 items.", context: { field: 'tag' } } },
    });
    expect(envelopes.length).toBe(sent);
  });
  HAND_WRITTEN['/utf8-bom/'] = () => '<GreetResponse xmlns="urn:o:encodings"><greeting>Grüß dich</greeting></GreetResponse>';
  HAND_WRITTEN['/utf16/'] = () => '<GreetResponse xmlns="urn:o:encodings"><greeting>こんにちは</greeting></GreetResponse>';
  it('utf8_bom, utf16: WSDLs in UTF-8 with a byte order mark and in UTF-16, an operation named beyond ASCII', async () => {
    expect(await call('POST', `utf8_bom/${encodeURIComponent('Grüßen')}`, { name: 'Jörg' })).toEqual({
      status: 200,
      body: { greeting: 'Grüß dich' },
    });
    expect(lastBody()).toBe('<Greet xmlns="urn:o:encodings"><name>Jörg</name></Greet>');
    expect(await call('GET', `utf16/${encodeURIComponent('grüßen')}?name=${encodeURIComponent('名前')}`)).toEqual({
      status: 200,
      body: { greeting: 'こんにちは' },
    });
    expect(lastEnvelope()).toMatchObject({ path: '/utf16/', action: 'urn:o:encodings#greet' });
    expect(lastBody()).toBe('<Greet xmlns="urn:o:encodings"><name>名前</name></Greet>');
  });

  HAND_WRITTEN['/case-names/'] = (action) =>
    action === 'urn:o:case-names#GetItem'
      ? '<GetItemResponse xmlns="urn:o:case-names"><name>by id</name></GetItemResponse>'
      : '<GETITEMResponse xmlns="urn:o:case-names"><count>2</count></GETITEMResponse>';
  it('case_names: operations whose names differ only in case: each spelt exactly calls its own, another case the first', async () => {
    expect(await call('POST', 'case_names/GetItem', { id: 1 })).toEqual({ status: 200, body: { name: 'by id' } });
    expect(lastBody()).toBe('<GetItem xmlns="urn:o:case-names"><id>1</id></GetItem>');
    expect(await call('POST', 'case_names/GETITEM', { code: 'c' })).toEqual({ status: 200, body: { count: 2 } });
    expect(lastBody()).toBe('<GETITEM xmlns="urn:o:case-names"><code>c</code></GETITEM>');
    expect(await call('GET', 'case_names/getitem?code=d')).toEqual({ status: 200, body: { count: 2 } });
    expect(await call('GET', 'case_names/getitem_2?id=3')).toEqual({ status: 200, body: { name: 'by id' } });
    expect(lastBody()).toBe('<GetItem xmlns="urn:o:case-names"><id>3</id></GetItem>');
    expect((await call('GET', 'case_names')).body).toEqual({ resource: [{ name: 'GETITEM' }, { name: 'GetItem_2' }] });
  });
  HAND_WRITTEN['/reserved-names/'] = (action) =>
    action === 'urn:o:reserved-names#spec'
      ? '<specResponse xmlns="urn:o:reserved-names"><name>plain</name></specResponse>'
      : '<_specResponse xmlns="urn:o:reserved-names"><count>4</count></_specResponse>';
  it("reserved_names: an operation named _spec (the service document's route) is documented and reached by GET under another name, by POST under its own", async () => {
    const document = await call('GET', 'reserved_names/_spec');
    expect(document.body).toMatchObject({ openapi: expect.any(String) });
    expect(Object.keys(document.body.paths as object).sort()).toEqual(['/', '/spec', '/spec2']);
    expect(await call('GET', 'reserved_names/spec2?code=g')).toEqual({ status: 200, body: { count: 4 } });
    expect(lastBody()).toBe('<_spec xmlns="urn:o:reserved-names"><code>g</code></_spec>');
    expect(await call('POST', 'reserved_names/_spec', { code: 'p' })).toEqual({ status: 200, body: { count: 4 } });
    expect(lastBody()).toBe('<_spec xmlns="urn:o:reserved-names"><code>p</code></_spec>');
    expect(await call('GET', 'reserved_names/spec?id=1')).toEqual({ status: 200, body: { name: 'plain' } });
  });
  HAND_WRITTEN['/redefine/'] = () =>
    '<ShipResponse xmlns="urn:o:redefine"><from><street>s</street><city>c</city><zip>12</zip></from></ShipResponse>';
  it('redefine: a type of xs:redefine replaces the one it redefines, which it extends', async () => {
    const to = { street: 'Main St', city: 'Town', zip: '99' };
    expect(await call('POST', 'redefine/Ship', { to })).toEqual({ status: 200, body: { from: { street: 's', city: 'c', zip: '12' } } });
    expect(lastBody()).toBe('<Ship xmlns="urn:o:redefine"><to><street>Main St</street><city>Town</city><zip>99</zip></to></Ship>');
    expect((await call('POST', 'redefine/Ship', { to: { street: 'Main St', city: 'Town' } })).body).toMatchObject({
      error: { code: 400, context: { field: 'to.zip' } },
    });
  });
  HAND_WRITTEN['/encoded-collections/'] = () =>
    '<ns:tallyResponse xmlns:ns="urn:o:encoded-collections" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/"' +
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
    '<result><count xsi:type="xsd:int">3</count><distinct xsi:type="enc:Array" enc:arrayType="xsd:anyType[2]">' +
    '<item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item></distinct></result></ns:tallyResponse>';
  it('encoded_collections: JAX-RPC collection types (List, Set: an encoded array of anyType extended by nothing) as parts and members', async () => {
    const document = await call('GET', 'api_docs/encoded_collections');
    expect(unresolvedRefs(document.body)).toEqual([]);
    expect(await call('POST', 'encoded_collections/tally', { words: ['a', 'b', 'a'] })).toEqual({
      status: 200,
      body: { result: { count: 3, distinct: ['a', 'b'] } },
    });
    expect(lastBody()).toBe(
      '<tally xmlns="urn:o:encoded-collections"><words xmlns="" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="SOAP-ENC:Array"' +
        ' SOAP-ENC:arrayType="xsd:ur-type[3]"><item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item><item xsi:type="xsd:string">a</item></words></tally>',
    );
  });
  HAND_WRITTEN['/standard-imports/'] = () =>
    '<SubscribeResponse xmlns="urn:o:standard-imports" xmlns:wsa="http://www.w3.org/2005/08/addressing" xmlns:env="http://www.w3.org/2003/05/soap-envelope">' +
    '<Manager><wsa:Address>http://cam.example/sub/7</wsa:Address></Manager>' +
    '<LastFault><env:Code><env:Value>env:Receiver</env:Value></env:Code><env:Reason><env:Text xml:lang="en">busy</env:Text></env:Reason></LastFault>' +
    '</SubscribeResponse>';
  it('standard_imports: the SOAP 1.1 and 1.2 envelope and WS-Addressing schemas a schema imports from the web are built in', async () => {
    const consumer = { Address: { _: 'http://me.example/events' } };
    expect(await call('POST', 'standard_imports/Subscribe', { Consumer: consumer, Topic: 'motion' })).toEqual({
      status: 200,
      body: {
        Manager: { Address: { _: 'http://cam.example/sub/7' } },
        LastFault: { Code: { Value: 'env:Receiver' }, Reason: { Text: [{ lang: 'en', _: 'busy' }] } },
      },
    });
    expect(lastBody()).toBe(
      '<Subscribe xmlns="urn:o:standard-imports"><Consumer><Address xmlns="http://www.w3.org/2005/08/addressing">http://me.example/events</Address></Consumer><Topic>motion</Topic></Subscribe>',
    );
    const schemas = ((await call('GET', 'standard_imports/_spec')).body.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['EndpointReferenceType', 'Fault', 'Fault2']));
  });
  HAND_WRITTEN['/interface-only/'] = () => '<OpenDoorResponse xmlns="urn:o:interface-only"><Opened>true</Opened></OpenDoorResponse>';
  it('interface_only: a WSDL without wsdl:service offers its SOAP bindings, called at the location option (without it, a message saying so)', async () => {
    expect(await call('POST', 'interface_only/OpenDoor', { Token: 't1' })).toEqual({ status: 200, body: { Opened: true } });
    expect(lastEnvelope()).toMatchObject({ path: '/interface-only/', action: 'urn:o:interface-only/OpenDoor' });
    expect(lastBody()).toBe('<OpenDoor xmlns="urn:o:interface-only"><Token>t1</Token></OpenDoor>');
    expect(await call('POST', 'interface_only_unplaced/OpenDoor', { Token: 't1' })).toEqual({
      status: 500,
      body: { error: { code: 500, message: "The WSDL gives no endpoint address for SOAP 1.2; set the service option 'location'." } },
    });
  });
});
