/**
 * The platform the discovery-truth test walks: every service type the runtime has, each with
 * something behind it. The three databases hold the address book (created through `_schema`,
 * loaded through `_table`) and a few awkward tables (a view, a table without a key, a composite
 * key, a text key, names with a space and a dash); SOAP services read the WSDLs written for the
 * tests (test/e2e/soap/wsdl/) and call a peer of this file's own; an rws service calls a JSON
 * remote of its own; the cache and brokers use the machine's Redis, RabbitMQ and Mosquitto; a
 * custom service serves endpoints declared here.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CustomServiceModel, ServiceModel } from '#runtime/model/platform-model.js';
import { defineEndpoints, readEndpointSet, sortRoutes } from '#runtime/services/custom/endpoints.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { brokerUrl } from '#test/helpers/require-broker.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { ADDRESS_BOOK_DIR } from '#test/helpers/shared-dir.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from '../database-api/database-targets.js';

/** The WSDLs written for the tests that the walk serves (each one SOAP service). */
export const WSDLS = ['calculator.wsdl', 'types.wsdl', 'rpc.wsdl', 'mixed.wsdl', 'edges.wsdl'];
const WSDL_DIR = fileURLToPath(new URL('../soap/wsdl/', import.meta.url));

/**
 * Awkward tables beside the address book, per database (the same names on each); `write_shape`
 * holds the columns whose values a request body may send as text (wide decimals, 64-bit integers).
 */
const AWKWARD: Record<TargetKind, string> = {
  sqlite: `
create view contact_names as select id, first_name, last_name from contact
;;
create table log_line (at varchar(40), message text)
;;
create table member (contact_id integer not null references contact (id), contact_group_id integer not null references contact_group (id), since varchar(20), primary key (contact_id, contact_group_id))
;;
create table "odd name" (code varchar(20) primary key, "e-mail" varchar(100), "first name" text)
;;
create table write_shape (id integer primary key autoincrement, exact numeric, cents decimal(10,2), big bigint)`,
  postgres: `
create view contact_names as select id, first_name, last_name from contact
;;
create table log_line (at varchar(40), message text)
;;
create table member (contact_id integer not null references contact (id), contact_group_id integer not null references contact_group (id), since varchar(20), primary key (contact_id, contact_group_id))
;;
create table "odd name" (code varchar(20) primary key, "e-mail" varchar(100), "first name" text)
;;
create table write_shape (id serial primary key, exact numeric, cents numeric(10,2), big bigint, exacts numeric[], bigs bigint[])`,
  mysql: `
create view contact_names as select id, first_name, last_name from contact
;;
create table log_line (at varchar(40), message text)
;;
create table member (contact_id integer not null, contact_group_id integer not null, since varchar(20), primary key (contact_id, contact_group_id), foreign key (contact_id) references contact (id), foreign key (contact_group_id) references contact_group (id))
;;
create table \`odd name\` (code varchar(20) primary key, \`e-mail\` varchar(100), \`first name\` text)
;;
create table write_shape (id int auto_increment primary key, exact decimal(65,10), cents decimal(10,2), big bigint)`,
};

const AWKWARD_ROWS = `
insert into log_line (at, message) values ('2026-01-01', 'started')
;;
insert into member (contact_id, contact_group_id, since) values (1, 1, '2020')
;;
insert into write_shape (exact, cents, big) values (1, 2, 3)`;

/** Custom endpoints: a plain read, a path parameter, a checked body answered 201, an empty 204 and a text answer. */
export const shopEndpoints = defineEndpoints({
  routes: [
    {
      method: 'GET',
      path: '/greet/:name',
      response: { type: 'object', required: ['hello'], properties: { hello: { type: 'string' } } },
      handler: (request) => ({ hello: request.params.name }),
    },
    {
      method: 'POST',
      path: '/orders',
      request: {
        type: 'object',
        additionalProperties: false,
        required: ['item', 'quantity'],
        properties: { item: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } },
      },
      response: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, item: { type: 'string' } } },
      handler: (request: { body: { item: string } }, ctx) => ctx.reply(201, { id: 7, item: request.body.item }),
    },
    { method: 'DELETE', path: '/orders/:id', handler: () => undefined },
  ],
});

export interface TruthPlatform {
  server: TestServer;
  api: Api;
  /** The database services by kind (`db_sqlite`, `db_postgres`, `db_mysql`); those whose server is unreachable are left out. */
  databases: Map<TargetKind, string>;
  /** The SOAP service of each WSDL. */
  soap: Map<string, string>;
  /** Services whose peer is unreachable (left out of the platform). */
  missing: string[];
  close(): Promise<void>;
}

/** Answers a JSON remote for the rws service: echoes the method, path, query and body. */
async function startRemote(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://remote');
      if (url.pathname.endsWith('/missing')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such thing"}');
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ method: request.method, path: url.pathname, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A SOAP peer answering every call with a fault, except the calculator's, which it computes. */
async function startSoapPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const envelope = (body: string) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${body}</soap:Body></soap:Envelope>`;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const operation = /<(?:\w+:)?(Add|Subtract)\b/.exec(text)?.[1];
      const number = (name: string) => Number(new RegExp(`<(?:\\w+:)?${name}>(-?\\d+)<`).exec(text)?.[1] ?? 0);
      if (request.url?.startsWith('/calculator') && operation !== undefined) {
        const result = operation === 'Add' ? number('intA') + number('intB') : number('intA') - number('intB');
        response
          .writeHead(200, { 'content-type': 'text/xml; charset=utf-8' })
          .end(
            envelope(
              `<${operation}Response xmlns="http://tempuri.org/"><${operation}Result>${result}</${operation}Result></${operation}Response>`,
            ),
          );
        return;
      }
      response
        .writeHead(500, { 'content-type': 'text/xml; charset=utf-8' })
        .end(envelope('<soap:Fault><faultcode>soap:Server</faultcode><faultstring>Not implemented here.</faultstring></soap:Fault>'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface FixtureTable {
  name: string;
  field?: unknown[];
  record?: Record<string, unknown>[];
}

function addressBook(file: string): FixtureTable[] {
  return (JSON.parse(fs.readFileSync(path.join(ADDRESS_BOOK_DIR, file), 'utf8')) as { service: Array<{ table: FixtureTable[] }> })
    .service[0].table;
}

/**
 * Starts the platform. `reachable` says which databases and brokers answer (the caller's
 * requireService/requireBroker); the unreachable ones are left out and named in `missing`.
 */
export async function startTruthPlatform(reachable: {
  postgres: boolean;
  mysql: boolean;
  redis: boolean;
  rabbitmq: boolean;
  mosquitto: boolean;
}): Promise<TruthPlatform> {
  const targets: DatabaseTarget[] = [];
  const missing: string[] = [];
  const databases = new Map<TargetKind, string>();
  for (const kind of ['sqlite', 'postgres', 'mysql'] as const) {
    if (kind !== 'sqlite' && !reachable[kind]) {
      missing.push(`db_${kind}`);
      continue;
    }
    targets.push(await openDatabaseTarget(kind));
    databases.set(kind, `db_${kind}`);
  }
  const remote = await startRemote();
  const soapPeer = await startSoapPeer();
  const shop: CustomServiceModel = {
    id: 20,
    name: 'shop',
    label: 'Shop',
    type: 'custom',
    description: 'Custom endpoints.',
    is_active: true,
    config: { module: 'endpoints/shop.ts' },
    origin: 'platform',
    kind: 'custom',
    routes: sortRoutes(readEndpointSet(shopEndpoints).map((route) => route.model)),
  };
  const base = minimalModel();
  const server = await startTestServer(minimalModel({ services: [...base.services, shop as ServiceModel] }), {
    endpoints: { shop: shopEndpoints },
  });
  fs.mkdirSync(path.join(server.dir, 'wsdl'));
  for (const wsdl of WSDLS) fs.copyFileSync(path.join(WSDL_DIR, wsdl), path.join(server.dir, 'wsdl', wsdl));
  const token = await server.adminToken();
  const api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const soap = new Map(WSDLS.map((wsdl) => [wsdl, `soap_${wsdl.replace(/\.wsdl$/, '')}`]));
  const services: Array<Record<string, unknown>> = [
    ...targets.map((target) => ({ name: `db_${target.kind}`, label: target.kind, type: target.type, config: target.config })),
    { name: 'remote', label: 'Remote', type: 'rws', config: { base_url: `${remote.url}/api`, timeout: 5 } },
    ...WSDLS.map((wsdl) => ({
      name: soap.get(wsdl),
      label: wsdl,
      type: 'soap',
      config: { wsdl, options: { location: `${soapPeer.url}/${wsdl.replace(/\.wsdl$/, '')}`, connection_timeout: 5 } },
    })),
  ];
  const redis = new URL(brokerUrl('redis'));
  if (reachable.redis) services.push({ name: 'cache', label: 'Cache', type: 'cache_redis', config: { url: redis.href, timeout_ms: 3000 } });
  else missing.push('cache');
  if (reachable.rabbitmq)
    services.push({ name: 'amqp', label: 'AMQP', type: 'amqp', config: { url: brokerUrl('rabbitmq'), timeout_ms: 3000 } });
  else missing.push('amqp');
  if (reachable.mosquitto)
    services.push({ name: 'mqtt', label: 'MQTT', type: 'mqtt', config: { url: brokerUrl('mosquitto'), timeout_ms: 3000 } });
  else missing.push('mqtt');
  const created = await api('POST', '/system/service', { resource: services });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  for (const [kind, name] of databases) {
    const loaded = await api('POST', `/${name}/_schema`, { resource: addressBook('schema.json') });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const data = new Map(addressBook('data.json').map((table) => [table.name, table.record ?? []]));
    for (const table of ['contact', 'contact_group', 'contact_info', 'contact_group_relationship']) {
      const written = await api('POST', `/${name}/_table/${table}`, { resource: data.get(table) ?? [] });
      expect(written.status, JSON.stringify(written.body).slice(0, 300)).toBe(200);
    }
    const target = targets.find((t) => t.kind === kind)!;
    await target.exec(AWKWARD[kind]);
    await target.exec(AWKWARD_ROWS);
    expect((await api('GET', `/${name}/_table?refresh=true`)).status).toBe(200);
  }
  return {
    server,
    api,
    databases,
    soap,
    missing,
    async close() {
      await server.close();
      for (const target of targets) await target.close();
      await remote.close();
      await soapPeer.close();
    },
  };
}
