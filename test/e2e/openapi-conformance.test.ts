/**
 * Every answer matches its own service's OpenAPI document: real requests against the generated
 * quickstart server (db lists, reads and writes, _schema, the system resources, user sessions,
 * files, email, and the errors they can be made to give) and each status, content type and body
 * checked with ajv against the document `GET /api/v2/{service}/_spec` serves. Black-box suites
 * and generated clients read those documents; a status or body the document does not describe
 * breaks them.
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';
import { type Answer, DocumentChecker } from './openapi-truth/document-checker.js';

const ADMIN = { email: 'conformance@portico.local', password: 'conformance-password-0123' };
let server: RunningQuickstart;
let token: string;

type Json = any;

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const all: Record<string, string> = {
    'X-Service-API-Key': server.apiKey,
    ...(token ? { 'X-Service-Session-Token': token } : {}),
    ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...headers,
  };
  const response = await fetch(`${server.url}/api/v2${url}`, {
    method,
    // An empty value leaves the header out (a call without a session or a key).
    headers: Object.fromEntries(Object.entries(all).filter(([, value]) => value !== '')),
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: Json = text;
  if (contentType.includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: response.status, body: parsed, contentType };
}

/**
 * A write that declares a body past the 10 MiB limit and sends only its start: the server answers
 * from the Content-Length (fetch would fail writing the rest once the server stops reading).
 */
function tooLarge(method: string, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${server.url}/api/v2${url}`, {
      method,
      headers: {
        'X-Service-API-Key': server.apiKey,
        'X-Service-Session-Token': token,
        'Content-Type': 'application/json',
        'Content-Length': String(11 * 1024 * 1024),
      },
    });
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), contentType: response.headers['content-type'] ?? '' });
      });
    });
    request.on('error', reject);
    request.write('{"resource":[');
  });
}

/** A service's served document: calls on the service, each answer checked against it (the walk's checker, openapi-truth/). */
class Conformance {
  private readonly checker: DocumentChecker;

  constructor(service: string, doc: Json) {
    this.checker = new DocumentChecker(service, doc);
  }

  get problems(): readonly string[] {
    return this.checker.problems;
  }

  /** The statuses the checked answers had. */
  get statuses(): ReadonlySet<number> {
    return this.checker.statuses;
  }

  /** Calls `method url` on the service and checks the answer against the document (which must describe the request); returns it. */
  async check(method: string, url: string, body?: unknown, headers: Record<string, string> = {}, send = call): Promise<Answer> {
    const answer = await send(method, `/${this.checker.service}${url}`, body, headers);
    this.checker.check(method, url, answer, { documented: true });
    return answer;
  }
}

async function conformance(service: string): Promise<Conformance> {
  const spec = await call('GET', `/${service}/_spec`);
  expect(spec.status).toBe(200);
  // The api_docs service serves the same operations (its info also names the group, as the reference's does).
  expect((await call('GET', `/api_docs/${service}`)).body.paths).toEqual(spec.body.paths);
  return new Conformance(service, spec.body);
}

beforeAll(async () => {
  server = await startQuickstart(copyQuickstart(), { PORTICO_ADMIN_EMAIL: ADMIN.email, PORTICO_ADMIN_PASSWORD: ADMIN.password });
  const login = await call('POST', '/system/admin/session', ADMIN);
  expect(login.status).toBe(200);
  token = login.body.session_token;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

describe('answers match the served OpenAPI documents', () => {
  it('db: lists, reads, writes, _schema and their errors', { timeout: 60_000 }, async () => {
    const db = await conformance('db');
    await db.check('GET', '/');
    await db.check('GET', '/_table');
    await db.check('GET', '/_table?as_list=true');
    await db.check('GET', '/_table/contact');
    await db.check('GET', '/_table/contact?include_count=true&limit=2&order=last_name');
    await db.check('GET', '/_table/contact?related=contact_info_by_contact_id&limit=1');
    await db.check('GET', '/_table/contact?count_only=true');
    await db.check('GET', '/_table/contact?ids=1,2');
    await db.check('GET', '/_table/contact/1');
    await db.check('GET', '/_table/contact/999999');
    await db.check('GET', '/_table/nothing_here');
    await db.check('GET', '/_table/contact?filter=nonsense%20%3D%3D');
    await db.check('GET', '/_table/contact?fields=no_such_field');
    const created = await db.check('POST', '/_table/contact', { resource: [{ first_name: 'Ada', last_name: 'Lovelace' }] });
    const id = created.body?.resource?.[0]?.id;
    await db.check('POST', '/_table/contact?fields=*', {
      resource: [
        { first_name: 'Alan', last_name: 'Turing' },
        { first_name: 'Grace', last_name: 'Hopper' },
      ],
    });
    await db.check('POST', '/_table/contact', { resource: [{ first_name: '' }] });
    await db.check('POST', '/_table/contact', '{not json');
    await db.check('POST', '/_table/contact', { resource: [{ id, first_name: 'Dup', last_name: 'Licate' }] });
    await db.check('PATCH', `/_table/contact/${id}`, { notes: 'first programmer' });
    await db.check('PUT', `/_table/contact/${id}`, { first_name: 'Ada', last_name: 'King' });
    await db.check('PATCH', '/_table/contact', { resource: [{ id, twitter: '@ada' }] });
    await db.check('PATCH', `/_table/contact?ids=${id}`, { resource: [{ skype: 'ada' }] });
    await db.check('PATCH', '/_table/contact/999999', { notes: 'x' });
    await db.check('PATCH', '/_table/contact?ids=999999', { resource: [{ notes: 'x' }] });
    await db.check('POST', '/_table/contact?continue=true', { resource: [{ first_name: 'Ok', last_name: 'Fine' }, { first_name: '' }] });
    await db.check('POST', '/_table/contact?rollback=true', { resource: [{ first_name: 'Ok', last_name: 'Fine' }, { first_name: '' }] });
    await db.check('DELETE', `/_table/contact/${id}`);
    await db.check('DELETE', `/_table/contact/${id}`);
    await db.check('DELETE', '/_table/contact?ids=999998,999999');
    await db.check('GET', '/_schema');
    await db.check('GET', '/_schema?as_list=true');
    await db.check('GET', '/_schema/contact');
    await db.check('GET', '/_schema/contact/_field');
    await db.check('GET', '/_schema/contact/_field/first_name');
    await db.check('GET', '/_schema/contact/_related');
    await db.check('GET', '/_schema/nothing_here');
    await db.check('POST', '/_schema', {
      resource: [
        {
          name: 'scratch',
          field: [
            { name: 'id', type: 'id' },
            { name: 'label', type: 'string' },
          ],
        },
      ],
    });
    await db.check('POST', '/_schema', { resource: [{ name: 'scratch', field: [{ name: 'id', type: 'id' }] }] });
    await db.check('PATCH', '/_schema/scratch', { field: [{ name: 'extra', type: 'integer' }] });
    await db.check('POST', '/_schema/scratch/_field', { resource: [{ name: 'more', type: 'string' }] });
    await db.check('GET', '/_table/scratch');
    await db.check('PATCH', '/_schema/scratch/_field/more', { label: 'More' });
    await db.check('DELETE', '/_schema/scratch/_field/more');
    await db.check('DELETE', '/_schema/scratch');
    await db.check('DELETE', '/_schema/scratch');
    expect((await db.check('POST', '/_table/contact', undefined, {}, tooLarge)).status).toBe(413);
    // With the addressbook app's key alone (its reader role reads; a write wants a session), and with no key.
    const app = await call('GET', "/system/app?filter=name%3D'addressbook'&fields=api_key");
    const reader = { 'X-Service-API-Key': app.body.resource[0].api_key, 'X-Service-Session-Token': '' };
    await db.check('GET', '/_table/contact?limit=1', undefined, reader);
    await db.check('POST', '/_table/contact', { resource: [{ first_name: 'No', last_name: 'Access' }] }, reader);
    await db.check('GET', '/_table/contact', undefined, { 'X-Service-API-Key': '', 'X-Service-Session-Token': '' });
    expect(db.problems).toEqual([]);
    expect(db.statuses).toEqual(new Set([200, 400, 401, 404, 409, 413, ...db.statuses]));
  });

  it('system: the resources, sessions and their errors', { timeout: 60_000 }, async () => {
    const system = await conformance('system');
    await system.check('GET', '/');
    for (const resource of [
      'app',
      'role',
      'user',
      'admin',
      'service',
      'lookup',
      'cors',
      'email_template',
      'scheduler',
      'service_report',
      'script_type',
      'environment',
      'event',
      'constant',
      'cache',
      'service_type',
      'custom',
    ]) {
      await system.check('GET', `/${resource}`);
    }
    await system.check('GET', '/app?include_count=true&fields=id,name');
    await system.check('GET', '/app/1');
    await system.check('GET', '/app/999999');
    await system.check('GET', '/service?group=type&fields=type');
    const role = await system.check('POST', '/role', { resource: [{ name: 'conformance-role', description: 'x' }] });
    const roleId = role.body?.resource?.[0]?.id;
    await system.check('POST', '/role', { resource: [{ name: 'conformance-role' }] });
    await system.check('POST', '/role', { resource: [{}] });
    await system.check('PATCH', `/role/${roleId}`, { description: 'y' });
    await system.check('PATCH', '/role', { resource: [{ id: roleId, description: 'z' }] });
    await system.check('GET', `/role/${roleId}?related=role_service_access_by_role_id`);
    await system.check('DELETE', `/role?ids=${roleId},999999`);
    await system.check('DELETE', `/role/${roleId}`);
    await system.check('DELETE', `/role/${roleId}`);
    const user = await system.check('POST', '/user', {
      resource: [{ email: 'someone@example.com', name: 'Someone', password: 'someone-password-12345' }],
    });
    await system.check('GET', `/user/${user.body?.resource?.[0]?.id}`);
    await system.check('POST', '/lookup', { resource: [{ name: 'conformance', value: 'v' }] });
    await system.check('POST', '/cors', { resource: [{ origin: 'https://example.com', path: '*', method: ['GET'] }] });
    await system.check('POST', '/email_template', { resource: [{ name: 'hello', subject: 'Hi', body_text: 'Hello' }] });
    await system.check('GET', '/environment');
    await system.check('GET', '/cache');
    await system.check('DELETE', '/cache');
    await system.check('GET', '/constant');
    await system.check('GET', '/admin/session');
    await system.check('GET', '/admin/profile');
    await system.check('GET', '/role', undefined, { 'X-Service-Session-Token': 'not-a-token' });
    await system.check('POST', '/admin/session', { email: ADMIN.email, password: 'wrong-password-0000000' });
    expect((await call('GET', '/system/nothing_here')).status).toBe(404);
    expect(system.problems).toEqual([]);
  });

  it("user, files, email and the platform's own services", { timeout: 60_000 }, async () => {
    const user = await conformance('user');
    await user.check('GET', '/');
    await user.check('GET', '/session');
    await user.check('GET', '/profile');
    await user.check('POST', '/session', { email: 'someone@example.com', password: 'wrong-password-0000000' });
    await user.check('POST', '/register', {
      email: 'new@example.com',
      first_name: 'N',
      last_name: 'E',
      new_password: 'new-password-0123456789',
    });
    await user.check('POST', '/password', { old_password: 'nope', new_password: 'whatever-password-12345' });
    await user.check('POST', '/password?reset=true', { email: 'nobody@example.com' });
    const files = await conformance('files');
    await files.check('GET', '/');
    await files.check('POST', '/notes/');
    await files.check('PUT', '/notes/hello.txt', 'hello', { 'Content-Type': 'text/plain' });
    await files.check('GET', '/notes/');
    await files.check('GET', '/notes/?include_properties=true');
    await files.check('GET', '/notes/hello.txt?include_properties=true');
    await files.check('GET', '/notes/missing.txt');
    await files.check('DELETE', '/notes/hello.txt');
    await files.check('DELETE', '/notes/?force=true');
    const email = await conformance('email');
    await email.check('POST', '/', { to: [{ email: 'someone@example.com' }], subject: 'Hi', body_text: 'Hello' });
    await email.check('POST', '/', { subject: 'No one' });
    const stats = await conformance('stats');
    await stats.check('GET', '/contacts');
    expect((await call('GET', '/stats/nothing_here')).status).toBe(404);
    const audit = await conformance('audit');
    await audit.check('GET', '/_table');
    expect([...user.problems, ...files.problems, ...email.problems, ...stats.problems, ...audit.problems]).toEqual([]);
  });
});
