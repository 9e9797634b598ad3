/**
 * The admin console's pages beside services (reference df-admin-interface: scripts, scheduler,
 * reports): GET /system/script_type, /system/service_report written by every service change made
 * through the API, and /system/scheduler with its runner (tasks called as their creator every
 * `frequency` minutes, once per period however many instances share the system database, the last
 * run's outcome as `task_log_by_task_id`). Runs on SQLite here and on PostgreSQL and MariaDB
 * through system-suite.*.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { SCHEDULER_TICK_MS, type TaskScheduler } from '#runtime/system/scheduler/scheduler-runner.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, testSystemDatabase, type TestServer } from '#test/helpers/platform-fixtures.js';

const MINUTE = 60_000;

describe('console resources', () => {
  const clock = {
    time: Date.UTC(2026, 0, 1, 12, 0, 0),
    now() {
      return this.time;
    },
  };
  let server: TestServer;
  let admin: Api;
  let dbId: number;
  let scheduler: TaskScheduler;

  /** The rows of the `hits` table the tasks below write into. */
  const hits = () => {
    const db = new Database(path.join(server.dir, 'tasks.sqlite'), { readonly: true });
    try {
      return db.prepare('select note from hits order by id').all() as Array<{ note: string }>;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    server = await startTestServer(minimalModel(), { clock: clock as Clock });
    const token = await server.adminToken();
    admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
    const db = new Database(path.join(server.dir, 'tasks.sqlite'));
    db.exec('create table hits (id integer primary key autoincrement, note text not null)');
    db.close();
    const created = await admin('POST', '/system/service', {
      resource: [{ name: 'tasks', label: 'Tasks', type: 'sqlite', config: { database: 'tasks.sqlite' } }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    dbId = created.body.resource[0].id;
    scheduler = server.app.portico.scheduler as TaskScheduler;
  });
  afterAll(async () => server.close());

  it('GET /system lists the three resources', async () => {
    const names = (await admin('GET', '/system?as_list=true')).body.resource;
    expect(names).toEqual(expect.arrayContaining(['access_usage', 'scheduler', 'script_type', 'service_report']));
  });

  describe('GET /system/script_type', () => {
    it('lists the hook modules as the one script type, the type event scripts name', async () => {
      const list = await admin('GET', '/system/script_type');
      expect(list.status).toBe(200);
      expect(list.body.resource).toEqual([
        {
          name: 'typescript',
          label: 'TypeScript (Node.js)',
          description: expect.stringContaining('platform.yaml'),
          sandboxed: false,
          supports_inline_execution: false,
        },
      ]);
      expect((await admin('GET', '/system/script_type?fields=name,label')).body.resource).toEqual([
        { name: 'typescript', label: 'TypeScript (Node.js)' },
      ]);
      expect((await admin('GET', '/system/script_type?as_list=true')).body).toEqual({ resource: ['typescript'] });
      expect((await admin('GET', '/system/script_type/typescript')).body).toMatchObject({ name: 'typescript', sandboxed: false });
    });

    it('answers an unknown name with a 404 and a write with a 400, in the error shape', async () => {
      const missing = await admin('GET', '/system/script_type/php');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: { code: 404, message: "Script type 'php' not found." } });
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const write = await admin(method, '/system/script_type', method === 'DELETE' ? undefined : { resource: [{ name: 'x' }] });
        expect(write.status, method).toBe(400);
        expect(write.body.error).toMatchObject({ code: 400, message: expect.stringContaining('not currently supported') });
      }
    });
  });

  describe('/system/service_report', () => {
    it('records each service created, changed and deleted through the API, with who and how', async () => {
      const before = (await admin('GET', '/system/service_report?include_count=true&limit=1')).body.meta.count as number;
      const created = await admin('POST', '/system/service', {
        resource: [{ name: 'reported', label: 'Reported', type: 'local_email', config: {} }],
      });
      const id = created.body.resource[0].id;
      await admin('PATCH', `/system/service/${id}`, { description: 'changed' });
      await admin('DELETE', `/system/service/${id}`);
      const reports = await admin('GET', `/system/service_report?filter=service_id=${id}&order=id&include_count=true`);
      expect(reports.status).toBe(200);
      expect(reports.body.meta.count).toBe(3);
      expect(reports.body.resource).toEqual(
        ['Service created', 'Service modified', 'Service deleted'].map((action, index) => ({
          id: expect.any(Number),
          service_id: id,
          service_name: 'reported',
          user_email: 'admin@test.local',
          action,
          request_verb: ['POST', 'PATCH', 'DELETE'][index],
          created_date: '2026-01-01 12:00:00',
          last_modified_date: '2026-01-01 12:00:00',
        })),
      );
      const all = await admin('GET', '/system/service_report?include_count=true&order=id desc&limit=2&fields=action,service_name');
      expect(all.body.meta.count).toBe(before + 3);
      expect(all.body.resource).toEqual([
        { action: 'Service deleted', service_name: 'reported' },
        { action: 'Service modified', service_name: 'reported' },
      ]);
      const one = await admin('GET', `/system/service_report/${reports.body.resource[0].id}`);
      expect(one.body).toMatchObject({ action: 'Service created', service_id: id });
    });

    it("serves the consoles' reports page: its columns and its search box's filter", async () => {
      const made = await admin('POST', '/system/service', {
        resource: [{ name: 'searched', label: 'Searched', type: 'local_email', config: {} }],
      });
      const id = made.body.resource[0].id;
      // df-admin-interface's table: limit, offset and include_count, then these columns and meta.count.
      const page = await admin('GET', '/system/service_report?limit=50&offset=0&include_count=true');
      expect(page.status).toBe(200);
      expect(page.body.meta.count).toBe(page.body.resource.length);
      const row = page.body.resource.find((r: { service_name: string }) => r.service_name === 'searched');
      expect(row).toMatchObject({
        last_modified_date: '2026-01-01 12:00:00',
        service_id: id,
        service_name: 'searched',
        user_email: 'admin@test.local',
        action: 'Service created',
        request_verb: 'POST',
      });
      // Its search box, typed a service id and a word (df-admin-app shows the same request_verb).
      const search = (value: string) =>
        `(service_id like ${value}) or (service_name like "%${value}%") or (user_email like "%${value}%") or (action like "%${value}%") or (request_verb like "%${value}%")`;
      const byId = await admin(
        'GET',
        `/system/service_report?limit=50&offset=0&include_count=true&filter=${encodeURIComponent(search(String(id)))}`,
      );
      expect(byId.status, JSON.stringify(byId.body)).toBe(200);
      expect(byId.body.resource.map((r: { service_name: string }) => r.service_name)).toContain('searched');
      const byWord = await admin(
        'GET',
        `/system/service_report?limit=50&offset=0&include_count=true&filter=${encodeURIComponent(search('searched'))}`,
      );
      expect(byWord.status, JSON.stringify(byWord.body)).toBe(200);
      expect(byWord.body.resource).toEqual([expect.objectContaining({ service_id: id, request_verb: 'POST' })]);
      const byVerb = await admin('GET', `/system/service_report?include_count=true&limit=100&filter=${encodeURIComponent(search('POS'))}`);
      expect(byVerb.body.resource.length).toBeGreaterThan(0);
      expect(byVerb.body.resource.every((r: { request_verb: string }) => r.request_verb === 'POST')).toBe(true);
      // df-admin-app's search: ids compared only when a number is typed.
      const texts = (value: string) =>
        ['service_name', 'user_email', 'action', 'request_verb'].map((field) => `(${field} like "%${value}%")`).join(' or ');
      const legacyById = await admin(
        'GET',
        `/system/service_report?offset=0&include_count=true&limit=100&filter=${encodeURIComponent(`(id like ${id}) or (service_id like ${id}) or ${texts(String(id))}`)}`,
      );
      expect(legacyById.status, JSON.stringify(legacyById.body)).toBe(200);
      expect(legacyById.body.resource.map((r: { service_name: string }) => r.service_name)).toContain('searched');
      const legacyByWord = await admin(
        'GET',
        `/system/service_report?offset=0&include_count=true&limit=100&filter=${encodeURIComponent(texts('searched'))}`,
      );
      expect(legacyByWord.body.resource).toEqual([expect.objectContaining({ service_id: id, request_verb: 'POST' })]);
      await admin('DELETE', `/system/service/${id}`);
    });

    it('writes no report for a service change that fails', async () => {
      const before = (await admin('GET', '/system/service_report?count_only=true')).body;
      const refused = await admin('POST', '/system/service', { resource: [{ name: 'bad', label: 'Bad', type: 'no_such_type' }] });
      expect(refused.status).toBe(400);
      expect((await admin('GET', '/system/service_report?count_only=true')).body).toEqual(before);
    });

    it("is the restricted administrators' reports tab", async () => {
      const password = 'reports-password-1234';
      const created = await admin('POST', '/system/admin', {
        resource: [{ name: 'Reporter', email: 'reports@x.io', password, is_restricted_admin: true, access_by_tabs: ['reports'] }],
      });
      expect(created.status).toBe(201);
      const session = (await admin('POST', '/system/admin/session', { email: 'reports@x.io', password }, { key: server.apiKey })).body;
      expect((await admin('GET', `/system/role/${session.role_id}?accessible_tabs=true`)).body.accessible_tabs).toEqual([
        'config',
        'reports',
      ]);
      const reporter = apiClient(server.app, () => ({ key: server.apiKey, token: session.session_token }));
      expect((await reporter('GET', '/system/service_report?include_count=true')).status).toBe(200);
      expect((await reporter('GET', '/system/service')).status).toBe(403);
    });

    it('is read only, except that old reports may be deleted', async () => {
      const post = await admin('POST', '/system/service_report', { resource: [{ service_name: 'forged', action: 'Service created' }] });
      expect(post.status).toBe(400);
      expect(post.body.error.message).toBe(
        "POST requests for resource 'service_report' are not currently supported by the 'system' service.",
      );
      const first = (await admin('GET', '/system/service_report?order=id&limit=1')).body.resource[0];
      expect((await admin('PATCH', `/system/service_report/${first.id}`, { action: 'forged' })).status).toBe(400);
      expect((await admin('GET', `/system/service_report/${first.id}`)).body.action).toBe(first.action);
      const deleted = await admin('DELETE', `/system/service_report?filter=service_name=reported`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.resource).toHaveLength(3);
      expect((await admin('GET', '/system/service_report?filter=service_name=reported')).body.resource).toEqual([]);
      expect((await admin('GET', '/system/service_report/999999')).status).toBe(404);
    });
  });

  describe('/system/scheduler', () => {
    let taskId: number;

    it('creates a task (201) as the console sends it, with the verb as name and mask and no log yet', async () => {
      const created = await admin('POST', '/system/scheduler?fields=*&related=task_log_by_task_id', {
        resource: [
          {
            name: 'tick',
            description: 'Adds a hit',
            is_active: true,
            service_id: dbId,
            component: '_table/hits',
            verb: 'post',
            frequency: 5,
            payload: { resource: [{ note: 'tick' }] },
            // What the console sends beside the task.
            service: { id: dbId, name: 'tasks' },
            service_name: 'tasks',
            has_log: false,
          },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const task = created.body.resource[0];
      taskId = task.id;
      expect(task).toMatchObject({
        name: 'tick',
        description: 'Adds a hit',
        is_active: true,
        service_id: dbId,
        component: '_table/hits',
        verb: 'POST',
        verb_mask: 2,
        frequency: 5,
        payload: '{"resource":[{"note":"tick"}]}',
        created_date: '2026-01-01 12:00:00',
        created_by_id: expect.any(Number),
        task_log_by_task_id: null,
      });
      const byMask = await admin('POST', '/system/scheduler?fields=id,verb,verb_mask,is_active,frequency', {
        resource: [{ name: 'by-mask', service_id: dbId, component: '_table/hits', verb_mask: 16 }],
      });
      expect(byMask.body.resource[0]).toEqual({ id: expect.any(Number), verb: 'DELETE', verb_mask: 16, is_active: true, frequency: 5 });
      expect((await admin('DELETE', `/system/scheduler/${byMask.body.resource[0].id}`)).status).toBe(200);
      // The console sends an empty frequency field as null: the default period, on create and on change.
      const empty = await admin('POST', '/system/scheduler?fields=id,frequency', {
        resource: [{ name: 'no-frequency', service_id: dbId, component: '_table/hits', verb: 'GET', frequency: null }],
      });
      expect(empty.status, JSON.stringify(empty.body)).toBe(201);
      expect(empty.body.resource[0]).toEqual({ id: expect.any(Number), frequency: 5 });
      const emptyId = empty.body.resource[0].id;
      expect((await admin('PATCH', `/system/scheduler/${emptyId}?fields=frequency`, { frequency: 30 })).body).toEqual({ frequency: 30 });
      expect((await admin('PUT', `/system/scheduler/${emptyId}?fields=frequency`, { frequency: null })).body).toEqual({ frequency: 5 });
      expect((await admin('DELETE', `/system/scheduler/${emptyId}`)).status).toBe(200);
    });

    it('refuses an unknown service, a bad verb, a frequency under one minute and a second task of one name (400)', async () => {
      const post = (record: Record<string, unknown>) =>
        admin('POST', '/system/scheduler', { resource: [{ name: 'bad', service_id: dbId, component: '_table/hits', ...record }] });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ service_id: 424242 }, 'service_id'],
        [{ verb: 'FETCH' }, 'verb'],
        [{ verb_mask: 3 }, 'verb_mask'],
        [{ verb: 'GET', verb_mask: 2 }, 'verb_mask'],
        [{ frequency: 0 }, 'frequency'],
        [{ frequency: 1.5 }, 'frequency'],
        [{ payload: '{"resource": [' }, 'payload'],
        [{ service_id: undefined }, 'service_id'],
      ];
      for (const [record, field] of cases) {
        const refused = await post(record);
        expect(refused.status, JSON.stringify(record)).toBe(400);
        expect(refused.body.error.code).toBe(400);
        expect(JSON.stringify(refused.body.error), JSON.stringify(record)).toContain(field);
      }
      expect((await post({ name: 'tick' })).status).toBeGreaterThanOrEqual(400);
      expect((await admin('GET', '/system/scheduler?filter=name=bad')).body.resource).toEqual([]);
    });

    it('runs an active task once per period as its creator, with no log while it succeeds', async () => {
      const start = clock.time;
      expect(await scheduler.runDue(start + 4 * MINUTE)).toEqual([]);
      expect(hits()).toEqual([]);
      expect(await scheduler.runDue(start + 5 * MINUTE)).toEqual([{ task_id: taskId, status_code: 200 }]);
      expect(hits()).toEqual([{ note: 'tick' }]);
      // Claimed for this period: looking again (another instance, or this one) runs nothing.
      expect(await scheduler.runDue(start + 5 * MINUTE)).toEqual([]);
      expect(await scheduler.runDue(start + 9 * MINUTE)).toEqual([]);
      // Several periods missed are one run, on the task's beat.
      expect(await scheduler.runDue(start + 21 * MINUTE)).toHaveLength(1);
      expect(await scheduler.runDue(start + 24 * MINUTE)).toEqual([]);
      expect(await scheduler.runDue(start + 25 * MINUTE)).toHaveLength(1);
      expect(hits()).toHaveLength(3);
      const task = (await admin('GET', `/system/scheduler/${taskId}?related=task_log_by_task_id`)).body;
      expect(task.task_log_by_task_id).toBeNull();
      const list = (await admin('GET', '/system/scheduler?related=task_log_by_task_id&include_count=true')).body;
      expect(list.meta.count).toBe(1);
      expect(list.resource[0].task_log_by_task_id).toBeNull();
    });

    it('does not run an inactive task, and starts the period again when it is activated', async () => {
      const start = clock.time;
      clock.time = start + 30 * MINUTE;
      expect((await admin('PATCH', `/system/scheduler/${taskId}`, { is_active: false })).status).toBe(200);
      expect(await scheduler.runDue(start + 60 * MINUTE)).toEqual([]);
      // Its next run was at 12:30 (before it was deactivated): activated at 12:30 every minute, it first runs at 12:31.
      expect((await admin('PATCH', `/system/scheduler/${taskId}`, { is_active: true, frequency: 1 })).status).toBe(200);
      expect(await scheduler.runDue(start + 30.5 * MINUTE)).toEqual([]);
      expect(await scheduler.runDue(start + 31 * MINUTE)).toHaveLength(1);
      clock.time = start;
    });

    it("keeps a failing call's status and error as the log, until a run succeeds", async () => {
      const broken = await admin('POST', '/system/scheduler', {
        resource: [{ name: 'broken', service_id: dbId, component: '_table/missing', verb: 'GET', frequency: 1 }],
      });
      const id = broken.body.resource[0].id;
      const outcomes = await scheduler.runDue(clock.time + 24 * 60 * MINUTE);
      expect(outcomes).toContainEqual({ task_id: id, status_code: 404 });
      const log = (await admin('GET', `/system/scheduler/${id}?related=task_log_by_task_id`)).body.task_log_by_task_id;
      expect(log).toEqual({
        task_id: id,
        status_code: 404,
        content: expect.any(String),
        created_date: '2026-01-02 12:00:00',
        last_modified_date: '2026-01-02 12:00:00',
      });
      expect(JSON.parse(log.content)).toMatchObject({ error: { code: 404 } });
      // Mended, it runs well: the reference removes the log of a task whose run succeeded.
      expect((await admin('PATCH', `/system/scheduler/${id}`, { component: '_table/hits' })).status).toBe(200);
      expect(await scheduler.runDue(clock.time + (24 * 60 + 1) * MINUTE)).toContainEqual({ task_id: id, status_code: 200 });
      expect((await admin('GET', `/system/scheduler/${id}?related=task_log_by_task_id`)).body.task_log_by_task_id).toBeNull();
      expect((await admin('DELETE', `/system/scheduler/${id}`)).status).toBe(200);
      expect((await admin('GET', `/system/scheduler/${id}`)).status).toBe(404);
    });

    it("serves both consoles' scheduler pages as they call them, a healthy task with no log", async () => {
      // What both consoles send beside a task: the service they picked, with its components.
      const service = { id: dbId, name: 'tasks', label: 'Tasks', description: '', type: 'sqlite', components: ['', '*', '_table/hits/'] };
      // df-admin-interface's form (its keys turned to snake case): the verb as name and mask, payload as text, id null.
      const made = await admin('POST', '/system/scheduler?fields=*&related=task_log_by_task_id', {
        resource: [
          {
            component: '_table/hits',
            description: 'From the console',
            frequency: 5,
            is_active: true,
            name: 'console-task',
            payload: '{"resource":[{"note":"console"}]}',
            service_id: dbId,
            service_name: 'tasks',
            verb: 'POST',
            service,
            verb_mask: 2,
            id: null,
          },
        ],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const id = made.body.resource[0].id;
      expect(made.body.resource[0]).toMatchObject({ verb: 'POST', verb_mask: 2, task_log_by_task_id: null });
      // df-admin-app's new task: description null, payload null for GET, frequency 1.
      const legacy = await admin('POST', '/system/scheduler?fields=*', {
        resource: [
          {
            name: 'legacy-task',
            description: null,
            is_active: true,
            service_id: dbId,
            component: '_table/missing',
            id: null,
            verb_mask: 1,
            verb: 'GET',
            frequency: 1,
            payload: null,
            service,
            service_name: 'tasks',
          },
        ],
      });
      expect(legacy.status, JSON.stringify(legacy.body)).toBe(201);
      const legacyId = legacy.body.resource[0].id;
      const outcomes = await scheduler.runDue(clock.time + 5 * MINUTE);
      expect(outcomes).toEqual(
        expect.arrayContaining([
          { task_id: id, status_code: 200 },
          { task_id: legacyId, status_code: 404 },
        ]),
      );
      // df-admin-interface's table: its Log column is whether task_log_by_task_id is there.
      const page = await admin(
        'GET',
        '/system/scheduler?limit=50&offset=0&include_count=true&related=task_log_by_task_id,service_by_service_id',
      );
      expect(page.status).toBe(200);
      expect(page.body.meta.count).toBe(page.body.resource.length);
      const row = (taskId: number) => page.body.resource.find((r: { id: number }) => r.id === taskId);
      expect(row(id)).toMatchObject({
        id,
        name: 'console-task',
        description: 'From the console',
        is_active: true,
        service_id: dbId,
        component: '_table/hits',
        verb: 'POST',
        frequency: 5,
        task_log_by_task_id: null,
        service_by_service_id: expect.objectContaining({ id: dbId, name: 'tasks' }),
      });
      expect(row(legacyId).task_log_by_task_id).toMatchObject({ task_id: legacyId, status_code: 404, content: expect.any(String) });
      // Its edit page reads the task with its log, then PUTs the form back with the audit fields it read.
      const read = (await admin('GET', `/system/scheduler/${id}?related=task_log_by_task_id`)).body;
      expect(read).toMatchObject({ payload: '{"resource":[{"note":"console"}]}', task_log_by_task_id: null });
      const put = await admin('PUT', `/system/scheduler/${id}?fields=*&related=task_log_by_task_id`, {
        last_modified_date: read.last_modified_date,
        last_modified_by_id: read.last_modified_by_id,
        has_log: false,
        created_date: read.created_date,
        created_by_id: read.created_by_id,
        id,
        component: '_table/hits',
        description: 'Edited',
        frequency: 10,
        is_active: true,
        name: 'console-task',
        payload: null,
        service_id: dbId,
        service_name: 'tasks',
        verb: 'GET',
        service,
        verb_mask: 1,
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toMatchObject({ id, description: 'Edited', frequency: 10, verb: 'GET', verb_mask: 1, payload: null });
      // df-admin-app PUTs the whole record it listed (its log and has_log too): the log is not changed by it.
      const listed = (await admin('GET', '/system/scheduler?include_count=true&limit=100&related=task_log_by_task_id')).body.resource.find(
        (r: { id: number }) => r.id === legacyId,
      );
      const update = await admin('PUT', `/system/scheduler/${legacyId}?fields=*`, {
        ...listed,
        description: 'Edited too',
        service,
        service_name: 'tasks',
        has_log: true,
      });
      expect(update.status, JSON.stringify(update.body)).toBe(200);
      expect(update.body).toMatchObject({ id: legacyId, description: 'Edited too' });
      const kept = (await admin('GET', `/system/scheduler/${legacyId}?related=task_log_by_task_id`)).body.task_log_by_task_id;
      expect(kept).toEqual(listed.task_log_by_task_id);
      // A refused save: df-admin-interface shows error.context.resource[0].message.
      const refused = await admin('POST', '/system/scheduler?fields=*&related=task_log_by_task_id', {
        resource: [{ name: '', service_id: dbId, component: '_table/hits', verb: 'GET', verb_mask: 1, frequency: 5, id: null }],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.context.resource[0].message).toContain('name');
      // Deleted one by one (df-admin-interface) and as df-admin-app's selection (ids, rollback).
      expect((await admin('DELETE', `/system/scheduler/${id}`)).status).toBe(200);
      const extra = await admin('POST', '/system/scheduler', {
        resource: [{ name: 'legacy-extra', service_id: dbId, component: '_table/hits', verb: 'GET', frequency: 1 }],
      });
      const selected = [legacyId, extra.body.resource[0].id];
      const removed = await admin('DELETE', `/system/scheduler?ids=${selected.join(',')}&rollback=true`);
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(removed.body.resource).toEqual(selected.map((taskId) => ({ id: taskId })));
      const left = (await admin('GET', '/system/scheduler?fields=id')).body.resource.map((r: { id: number }) => r.id);
      for (const taskId of [id, ...selected]) expect(left).not.toContain(taskId);
    });

    it("opens the consoles' scheduler pages to a restricted administrator given only the scheduler tab", async () => {
      const password = 'scheduler-password-1234';
      const created = await admin('POST', '/system/admin', {
        resource: [{ name: 'Planner', email: 'planner@x.io', password, is_restricted_admin: true, access_by_tabs: ['scheduler'] }],
      });
      expect(created.status).toBe(201);
      const session = (await admin('POST', '/system/admin/session', { email: 'planner@x.io', password }, { key: server.apiKey })).body;
      const planner = apiClient(server.app, () => ({ key: server.apiKey, token: session.session_token }));
      // df-admin-app's scheduler page reads the system resources first (a refusal sends the admin home)
      // and shows the page only if 'scheduler' is among them; df-admin-interface's paywall reads the same.
      const system = await planner('GET', '/system');
      expect(system.status, JSON.stringify(system.body)).toBe(200);
      expect(system.body.resource).toContainEqual({ name: 'scheduler' });
      // The pages' own calls: the service list (/api/v2 for df-admin-app, /system/service for df-admin-interface), the tasks.
      expect((await planner('GET', '/')).status).toBe(200);
      expect((await planner('GET', '/system/service?limit=0&offset=0&include_count=true&sort=name')).status).toBe(200);
      expect((await planner('GET', '/system/scheduler?include_count=true&limit=100&related=task_log_by_task_id')).status).toBe(200);
      const made = await planner('POST', '/system/scheduler?fields=*', {
        resource: [{ name: 'planned', service_id: dbId, component: '_table/hits', verb: 'GET', verb_mask: 1, frequency: 5, id: null }],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect((await planner('DELETE', `/system/scheduler/${made.body.resource[0].id}`)).status).toBe(200);
      // Their tasks run with their role (theirs through the console's app): one reading what the tab grants succeeds.
      const own = await planner('POST', '/system/scheduler', {
        resource: [{ name: 'planner-read', service_id: 1, component: 'scheduler', verb: 'GET', frequency: 1 }],
      });
      expect(own.status).toBe(201);
      const ownId = own.body.resource[0].id;
      expect(await scheduler.runDue(clock.time + 3 * 24 * 60 * MINUTE)).toContainEqual({ task_id: ownId, status_code: 200 });
      expect((await planner('GET', `/system/scheduler/${ownId}?related=task_log_by_task_id`)).body.task_log_by_task_id).toBeNull();
      // One calling beyond it is refused as their role refuses it.
      const beyond = await planner('POST', '/system/scheduler', {
        resource: [{ name: 'planner-apps', service_id: 1, component: 'app', verb: 'GET', frequency: 1 }],
      });
      const beyondId = beyond.body.resource[0].id;
      expect(await scheduler.runDue(clock.time + 4 * 24 * 60 * MINUTE)).toContainEqual({ task_id: beyondId, status_code: 403 });
      for (const id of [ownId, beyondId]) expect((await planner('DELETE', `/system/scheduler/${id}`)).status).toBe(200);
      // Nothing beyond: no other system resource.
      expect((await planner('GET', '/system/app')).status).toBe(403);
      expect((await planner('GET', '/system/cors')).status).toBe(403);
    });

    it('deletes a task with its log when its service is deleted', async () => {
      const made = await admin('POST', '/system/service', {
        resource: [{ name: 'doomed', label: 'Doomed', type: 'sqlite', config: { database: 'tasks.sqlite' } }],
      });
      const serviceId = made.body.resource[0].id;
      const task = await admin('POST', '/system/scheduler', {
        resource: [{ name: 'doomed-task', service_id: serviceId, component: '_table/hits', frequency: 1 }],
      });
      expect(task.status).toBe(201);
      expect((await admin('DELETE', `/system/service/${serviceId}`)).status).toBe(200);
      expect((await admin('GET', '/system/scheduler?filter=name=doomed-task')).body.resource).toEqual([]);
    });
  });

  describe('GET /system/access_usage', () => {
    it('tells when each app was last used and refused, with the cleanup flags, and never its key', async () => {
      const start = clock.time;
      const made = await admin('POST', '/system/app?fields=id,name,api_key', {
        resource: [{ name: 'audited' }, { name: 'dormant' }, { name: 'unused' }],
      });
      const [audited, dormant] = made.body.resource;
      expect((await admin('GET', '/system/environment', undefined, { key: audited.api_key })).status).toBe(200);
      await admin('PATCH', `/system/app/${dormant.id}`, { is_active: false });
      expect((await admin('GET', '/system/environment', undefined, { key: dormant.api_key })).status).toBeGreaterThanOrEqual(400);
      const report = await admin('GET', '/system/access_usage');
      expect(report.status).toBe(200);
      expect(JSON.stringify(report.body)).not.toContain(audited.api_key);
      expect(report.body.meta).toEqual({
        count: report.body.resource.length,
        generated_at: '2026-01-01 12:00:00',
        ledger_available: false,
        stale_days: 90,
      });
      const row = (name: string) => report.body.resource.find((r: { name: string }) => r.name === name);
      expect(row('audited')).toEqual({
        subject_type: 'app',
        subject_id: audited.id,
        name: 'audited',
        is_active: true,
        last_used_at: '2026-01-01 12:00:00',
        last_denied_at: null,
        last_service: 'system',
        last_status: 200,
        requests_30d: null,
        top_services: null,
        never_used: false,
        stale: false,
        disabled_but_attempted: false,
        role_unreferenced: null,
      });
      expect(row('dormant')).toMatchObject({
        is_active: false,
        never_used: true,
        last_denied_at: '2026-01-01 12:00:00',
        disabled_but_attempted: true,
      });
      expect(row('unused')).toMatchObject({ never_used: true, stale: false, last_used_at: null, last_denied_at: null });
      expect(row('admin')).toMatchObject({ never_used: false, last_status: 200 });
      const used = (await admin('GET', '/system/access_usage?include_never_used=false')).body.resource.map((r: { name: string }) => r.name);
      expect(used).toContain('audited');
      expect(used).not.toContain('unused');
      // Used 91 days ago (its key alone reaches the open environment): stale for the default 90 days, not for 100.
      const old = (await admin('POST', '/system/app?fields=api_key', { resource: [{ name: 'old' }] })).body.resource[0];
      clock.time = start - 91 * 24 * 60 * MINUTE;
      try {
        expect((await admin('GET', '/system/environment', undefined, { key: old.api_key })).status).toBe(200);
      } finally {
        clock.time = start;
      }
      const oldRow = async (query: string) =>
        (await admin('GET', `/system/access_usage${query}`)).body.resource.find((r: { name: string }) => r.name === 'old');
      expect(await oldRow('')).toMatchObject({ stale: true, never_used: false, last_used_at: '2025-10-02 12:00:00' });
      expect(await oldRow('?stale_days=100')).toMatchObject({ stale: false });
    });

    it('reports roles (unreferenced ones flagged) and users (with last login and is_sys_admin)', async () => {
      const roles = await admin('POST', '/system/role', { resource: [{ name: 'orphan' }, { name: 'assigned' }] });
      const [orphan, assigned] = roles.body.resource.map((r: { id: number }) => r.id);
      await admin('POST', '/system/app', { resource: [{ name: 'with-role', role_id: assigned }] });
      const report = (await admin('GET', '/system/access_usage?subject=role')).body.resource;
      expect(report.find((r: { subject_id: number }) => r.subject_id === orphan)).toMatchObject({
        name: 'orphan',
        role_unreferenced: true,
        never_used: true,
      });
      expect(report.find((r: { subject_id: number }) => r.subject_id === assigned)).toMatchObject({ role_unreferenced: false });
      const users = (await admin('GET', '/system/access_usage?subject=USER')).body.resource;
      expect(users.find((r: { name: string }) => r.name === 'admin@test.local')).toMatchObject({
        subject_type: 'user',
        is_sys_admin: true,
        never_used: false,
        last_login_date: expect.any(String),
        role_unreferenced: null,
      });
    });

    it('refuses a bad subject or stale_days, and writes, with a 400', async () => {
      for (const query of ['subject=apps', 'stale_days=0', 'stale_days=1.5', 'stale_days=x']) {
        const refused = await admin('GET', `/system/access_usage?${query}`);
        expect(refused.status, query).toBe(400);
        expect(refused.body.error.code).toBe(400);
      }
      expect((await admin('POST', '/system/access_usage', {})).status).toBe(400);
      expect((await admin('GET', '/system/access_usage/1')).status).toBe(404);
    });
  });

  describe("the server's own timer", () => {
    it('runs a due task on its own once the server is ready', async () => {
      // Only the intervals are faked: the timer's look is made to come at once, the rest runs for real.
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const timed = { time: Date.UTC(2026, 0, 1), now: () => timed.time };
      let own: TestServer | undefined;
      try {
        own = await startTestServer(minimalModel(), { clock: timed as Clock });
        const token = await own.adminToken();
        const api = apiClient(own.app, () => ({ key: own?.apiKey, token }));
        // A task that fails, so that its run leaves a log to wait for.
        const task = await api('POST', '/system/scheduler', {
          resource: [{ name: 'timed', service_id: 1, component: 'environment', verb: 'DELETE', frequency: 1 }],
        });
        expect(task.status, JSON.stringify(task.body)).toBe(201);
        const log = async () =>
          (await api('GET', `/system/scheduler/${task.body.resource[0].id}?related=task_log_by_task_id`)).body.task_log_by_task_id;
        await vi.advanceTimersByTimeAsync(SCHEDULER_TICK_MS);
        expect(await log()).toBeNull();
        timed.time += MINUTE;
        // Each tick looks once (a look still reading the database makes the next tick wait): tick until the run is logged.
        for (let i = 0; i < 100 && (await log()) === null; i++) {
          await vi.advanceTimersByTimeAsync(SCHEDULER_TICK_MS);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await log()).toMatchObject({ status_code: 400, content: expect.stringContaining('environment') });
      } finally {
        await own?.close();
        vi.useRealTimers();
      }
    });
  });

  describe('several instances on one system database', () => {
    let dir: string;
    let drop: () => Promise<void> = async () => undefined;
    const servers: TestServer[] = [];

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-scheduler-'));
      const own = await testSystemDatabase();
      drop = own.drop;
      // SQLite in memory is one instance's own: share a file, as PORTICO_WORKERS's workers do.
      const target = own.target === ':memory:' ? path.join(dir, 'system.sqlite') : own.target;
      for (let i = 0; i < 3; i++) servers.push(await startTestServer(minimalModel(), { systemDatabase: target, clock: clock as Clock }));
    });
    afterAll(async () => {
      for (const s of servers) await s.close();
      await drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('runs a task once per period, not once per instance', async () => {
      const [first] = servers;
      const token = await first.adminToken();
      const api = apiClient(first.app, () => ({ key: first.apiKey, token }));
      const db = new Database(path.join(dir, 'shared.sqlite'));
      db.exec('create table hits (id integer primary key autoincrement, note text not null)');
      db.close();
      const service = await api('POST', '/system/service', {
        resource: [{ name: 'shared', label: 'Shared', type: 'sqlite', config: { database: path.join(dir, 'shared.sqlite') } }],
      });
      expect(service.status, JSON.stringify(service.body)).toBe(201);
      const task = await api('POST', '/system/scheduler', {
        resource: [
          {
            name: 'shared-tick',
            service_id: service.body.resource[0].id,
            component: '_table/hits',
            verb: 'POST',
            frequency: 2,
            payload: '{"resource":[{"note":"x"}]}',
          },
        ],
      });
      expect(task.status).toBe(201);
      const count = () => {
        const reader = new Database(path.join(dir, 'shared.sqlite'), { readonly: true });
        try {
          return (reader.prepare('select count(*) as n from hits').get() as { n: number }).n;
        } finally {
          reader.close();
        }
      };
      for (const [period, expected] of [
        [1, 1],
        [2, 2],
        [3, 3],
      ] as const) {
        const at = clock.time + period * 2 * MINUTE;
        const outcomes = await Promise.all(servers.map((s) => (s.app.portico.scheduler as TaskScheduler).runDue(at)));
        expect(outcomes.flat(), `period ${period}`).toEqual([{ task_id: task.body.resource[0].id, status_code: 200 }]);
        expect(count()).toBe(expected);
      }
    });
  });
});
