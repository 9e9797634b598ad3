/**
 * Hook events beyond `_table` (issue 17): the runtime's own services (`system.role...`,
 * `system.admin.session.post`), SOAP operations by their documented names (`calc.add.post`, the
 * GET form changing the query), and a database's `_func`/`_proc` calls on PostgreSQL. Payload
 * hooks see and replace the body; GET /system/event lists each hook on the path it belongs to.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError } from '#runtime/core/errors.js';
import { defineHooks, type RoutineRequest } from '#runtime/http/hooks.js';
import type { InternalServiceEvents } from '#runtime/http/service-events.js';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { requireService } from '#test/helpers/require-service.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';
import type { Events as CalcEvents } from '#test/golden/scenarios/soap-calculator/server/services/calc/types.js';
import { modelWithDatabase, openDatabaseTarget, type DatabaseTarget } from './database-api/database-targets.js';
import { calculatorServices, startPeer, type Peer } from './soap/soap-peers.js';

const builtinHooks = defineHooks<InternalServiceEvents<'system', 'system'>>({
  'system.role.post.pre_process': (body) => {
    const records = (body as { resource: Array<Record<string, unknown>> }).resource;
    return { resource: records.map((record) => ({ ...record, description: 'stamped by a hook' })) };
  },
  'system.role.get.post_process': (body) => {
    const list = body as { resource: Array<{ name: string }> };
    return { ...list, resource: list.resource.filter((role) => role.name !== 'hidden') };
  },
  'system.role.{id}.get.post_process': (body) => ({ ...(body as object), seen: true }),
  'system.admin.session.post.pre_process': (body) => {
    if ((body as { email?: string }).email === 'blocked@test.local') throw new ForbiddenError('This administrator is blocked by a hook.');
  },
});

const soapHooks = defineHooks<CalcEvents>({
  'calc.add.post.pre_process': (request) => ({ ...request, intB: 100 }),
  'calc.add.post.post_process': (response) => ({ AddResult: response.AddResult * 2 }),
  'calc.add.get.pre_process': (_request, context) => {
    context.query.intB = '10';
  },
  'calc.divide.post.pre_process': (request) => {
    if (request.intB === 0) throw new BadRequestError('No division by zero here.');
  },
});

describe('the runtime own services', () => {
  let server: TestServer;
  let api: Api;
  let peer: Peer | null = null;
  const corpus = fs.existsSync(WSDL_CORPUS_DIR);

  beforeAll(async () => {
    const base = minimalModel();
    const services = [...base.services];
    if (corpus) {
      peer = await startPeer('pm-calculator.wsdl', calculatorServices());
      const calc: ServiceModel = {
        id: 8,
        name: 'calc',
        label: 'calc',
        type: 'soap',
        description: '',
        is_active: true,
        origin: 'platform',
        kind: 'plain',
        config: { wsdl: peer.wsdlFile, options: { location: peer.url, connection_timeout: 5 } },
      };
      services.push(await soapKind.introspect!(calc, { baseDir: '/', resolveEnv: (value) => value }));
    }
    server = await startTestServer(minimalModel({ services }), { hooks: [builtinHooks, soapHooks] });
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => {
    await server?.close();
    await peer?.close();
  });

  it('a pre_process hook changes the body of a system write, post_process hooks the answers of a list and a record', async () => {
    const created = await api('POST', '/system/role', {
      resource: [
        { name: 'stamped', is_active: true },
        { name: 'hidden', is_active: true },
      ],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    const list = await api('GET', '/system/role?fields=name,description');
    expect(list.body.resource).toEqual([{ name: 'stamped', description: 'stamped by a hook' }]);
    expect((await api('GET', `/system/role/${id}?fields=name`)).body).toEqual({ name: 'stamped', seen: true });
  });

  it('a hook on a login refuses it with its own status and message', async () => {
    const refused = await api('POST', '/system/admin/session', { email: 'blocked@test.local', password: 'whatever-password' });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 403, message: 'This administrator is blocked by a hook.' } } });
  });

  it.skipIf(!corpus)('SOAP: hooks change the request and the response of an operation, by its documented name, POST and GET', async () => {
    expect((await api('POST', '/calc/Add', { intA: 1, intB: 2 })).body).toEqual({ AddResult: 202 });
    // GET has hooks of its own: the pre_process one changes the query, and no post_process one doubles the result.
    expect((await api('GET', '/calc/add?intA=1&intB=2')).body).toEqual({ AddResult: 11 });
    expect(await api('POST', '/calc/Divide', { intA: 1, intB: 0 })).toMatchObject({
      status: 400,
      body: { error: { message: 'No division by zero here.' } },
    });
    // No hook on Subtract: the call is as it was.
    expect((await api('POST', '/calc/subtract', { intA: 5, intB: 2 })).body).toEqual({ SubtractResult: 3 });
  });

  it('GET /system/event lists each hook on its path', async () => {
    const events = (await api('GET', '/system/event')).body;
    expect(events.system['system/role'].hooks).toEqual(['system.role.get.post_process', 'system.role.post.pre_process']);
    expect(events.system['system/role/{id}'].hooks).toEqual(['system.role.{id}.get.post_process']);
    expect(events.system['system/admin/session'].hooks).toEqual(['system.admin.session.post.pre_process']);
    if (corpus) {
      expect(events.calc['calc/add'].hooks).toEqual([
        'calc.add.get.pre_process',
        'calc.add.post.post_process',
        'calc.add.post.pre_process',
      ]);
      expect(events.calc['calc/subtract'].hooks).toBeUndefined();
    }
  });
});

describe.skipIf(!(await requireService('postgres')))('stored routines on PostgreSQL', () => {
  let target: DatabaseTarget;
  let server: TestServer;
  let api: Api;

  const routineHooks = defineHooks<Record<string, unknown>>({
    // POST: the body's arguments, replaced; GET: the query's.
    'db._func.add_numbers.post.pre_process': (body) => {
      const request = body as RoutineRequest;
      const params = request.params as Array<{ name: string; value?: unknown }>;
      return { ...request, params: params.map((param) => (param.name === 'b' ? { ...param, value: 40 } : param)) };
    },
    'db._func.add_numbers.get.pre_process': (_body, context) => {
      context.query.b = '1000';
    },
    'db._func.add_numbers.post.post_process': (result) => ({ sum: result }),
    'db._proc.bump.post.post_process': (result) => ({ ...(result as object), hooked: true }),
  });

  beforeAll(async () => {
    target = await openDatabaseTarget('postgres');
    await target.exec(`
create function add_numbers(a integer, b integer) returns integer language sql as 'select a + b'
;;
create procedure bump(inout counter integer, in step integer) language plpgsql as $$ begin counter := counter + step; end $$
`);
    server = await startTestServer(modelWithDatabase(target), {
      hooks: [routineHooks],
    });
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => {
    await server?.close();
    await target?.close();
  });

  it('hooks change the arguments and the result of a function, and the result of a procedure', async () => {
    const posted = await api('POST', '/db/_func/add_numbers', {
      params: [
        { name: 'a', value: 2 },
        { name: 'b', value: 3 },
      ],
    });
    expect(posted).toMatchObject({ status: 200, body: { sum: 42 } });
    expect((await api('GET', '/db/_func/add_numbers?a=1&b=2')).body).toBe(1001);
    const bumped = await api('POST', '/db/_proc/bump', {
      params: [
        { name: 'counter', value: 1 },
        { name: 'step', value: 2 },
      ],
    });
    expect(bumped).toMatchObject({ status: 200, body: { counter: 3, hooked: true } });
  });

  it('GET /system/event lists routine hooks on the routine paths', async () => {
    const events = (await api('GET', '/system/event?service=db')).body.db;
    expect(events['db/_func/{function_name}'].hooks).toEqual([
      'db._func.add_numbers.get.pre_process',
      'db._func.add_numbers.post.post_process',
      'db._func.add_numbers.post.pre_process',
    ]);
    expect(events['db/_proc/{procedure_name}'].hooks).toEqual(['db._proc.bump.post.post_process']);
  });
});
