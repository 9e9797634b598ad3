/**
 * Hooks as a user ships them (issue 17): a module beside platform.yaml, named under `hooks` with
 * a `timeout_ms`, built by `gen build` into the generated server, which runs as `node main.mjs`.
 * What the hook logs through `context.log` carries the request's id; an unexpected exception is a
 * generic 500 whose cause and stack reach the log only; a hook past its timeout is a 503.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildPlatform } from '#generator/pipeline.js';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';

const ADMIN = { email: 'hooks@portico.local', password: 'hooks-password-0123456789' };

const HOOKS = `import { defineHooks } from 'portico/runtime';
import type { Events } from '../server/events.js';

export default defineHooks<Events>({
  'db._table.contact_info.post.pre_process': (records, context) => {
    context.log.info({ records: records.length }, 'normalising phone numbers');
    return records.map((record) => ({ ...record, phone: record.phone.replace(/[^0-9+]/g, '') }));
  },
  'db._table.contact.post.pre_process': (records) => {
    if (records.some((record) => record.first_name === 'Broken')) throw new Error('secret internals of the hook');
    // A thrown value with no words of its own (no prototype, so no toString).
    if (records.some((record) => record.first_name === 'Wordless')) throw Object.create(null);
  },
  'db._table.contact_group.get.pre_process': (_records, context) => {
    // A call started and never awaited, which fails once the answer has gone.
    if (context.query.filter === "name = 'stray'") void Promise.reject(new Error('stray rejection of the hook'));
    return context.query.filter === "name = 'hang'" ? new Promise<void>(() => undefined) : undefined;
  },
  'db._table.contact_group.post.queued': (_records, context) => {
    if (context.query.fail_queued !== undefined) throw new Error('queued hook internals');
  },
});
`;

let server: RunningQuickstart;
let headers: Record<string, string>;

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/v2${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The JSON log lines the server has written so far. */
function logLines(): Array<Record<string, any>> {
  return server
    .printed()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** The first log line matching, once the server has written it (its output arrives through a pipe). */
async function logLine(matches: (line: Record<string, any>) => boolean): Promise<Record<string, any> | undefined> {
  for (let tries = 0; tries < 100; tries++) {
    const line = logLines().find(matches);
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

beforeAll(async () => {
  const dir = copyQuickstart();
  fs.writeFileSync(path.join(dir, 'hooks/contact.ts'), HOOKS);
  // After the quickstart's own hook module.
  const yaml = fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8');
  const own = '  - file: hooks/contact-info.ts\n';
  expect(yaml).toContain(own);
  fs.writeFileSync(path.join(dir, 'platform.yaml'), yaml.replace(own, `${own}  - file: hooks/contact.ts\n    timeout_ms: 300\n`));
  const built = await buildPlatform({ configPath: 'platform.yaml', cwd: dir, env: {} });
  expect(built.plan.added).toEqual(['hooks/contact.mjs']);
  expect(fs.readFileSync(path.join(dir, 'server/main.mjs'), 'utf8')).toContain(
    '    { file: "hooks/contact.ts", module: new URL("./hooks/contact.mjs", import.meta.url), timeoutMs: 300 },\n  ],',
  );
  server = await startQuickstart(dir, {
    PORTICO_ADMIN_EMAIL: ADMIN.email,
    PORTICO_ADMIN_PASSWORD: ADMIN.password,
    PORTICO_LOG_LEVEL: 'info',
  });
  headers = { 'x-service-api-key': server.apiKey };
  const login = await call('POST', '/system/admin/session', ADMIN);
  headers['x-service-session-token'] = login.body.session_token;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

it('a hook changes the records and logs through the request logger, with the request id', async () => {
  const written = await call('POST', '/db/_table/contact_info?fields=phone', {
    resource: [
      {
        contact_id: 1,
        info_type: 'home',
        phone: '+1 (555) 010-99',
        email: 'a@b.c',
        address: 'x',
        city: 'y',
        state: 'z',
        zip: '1',
        country: 'q',
      },
    ],
  });
  expect(written).toEqual({ status: 200, body: { resource: [{ phone: '+155501099' }] } });
  const hookLine = await logLine((line) => line.msg === 'normalising phone numbers');
  expect(hookLine).toMatchObject({ level: 30, records: 1, reqId: expect.any(String) });
  const requestLine = await logLine(
    (line) => line.msg === 'request completed' && line.req?.url?.startsWith('/api/v2/db/_table/contact_info'),
  );
  expect(requestLine?.reqId).toBe(hookLine!.reqId);
});

it('an unexpected exception is a generic 500; its message and stack are in the log only', async () => {
  const broken = await call('POST', '/db/_table/contact', { resource: [{ first_name: 'Broken', last_name: 'Hook' }] });
  expect(broken).toEqual({ status: 500, body: { error: { code: 500, message: 'Internal server error.' } } });
  const logged = await logLine((line) => line.err?.message?.includes('secret internals of the hook'));
  expect(logged).toBeDefined();
  expect(logged!.err.message).toContain("Hook on 'db._table.contact.post.pre_process' (hooks/contact.ts) failed");
  // The compiled copy's inline source map places the hook's line in its .ts (Node's source maps are on here, as with --enable-source-maps).
  expect(logged!.err.stack).toMatch(/hooks\/contact\.ts:\d+:\d+/);
  // What the hook threw has no words: the log still names the hook.
  const wordless = await call('POST', '/db/_table/contact', { resource: [{ first_name: 'Wordless', last_name: 'Hook' }] });
  expect(wordless).toEqual({ status: 500, body: { error: { code: 500, message: 'Internal server error.' } } });
  expect(
    await logLine(
      (line) => line.err?.message === "Hook on 'db._table.contact.post.pre_process' (hooks/contact.ts) failed: [object Object]",
    ),
  ).toBeDefined();
});

it('a hook still running after platform.yaml timeout_ms is cut off with a 503', async () => {
  const started = Date.now();
  const cut = await call('GET', `/db/_table/contact_group?filter=${encodeURIComponent("name = 'hang'")}`);
  expect(cut).toEqual({
    status: 503,
    body: { error: { code: 503, message: 'The request did not complete in time: a hook of the platform took too long.' } },
  });
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  expect(await logLine((line) => line.err?.message?.includes('did not finish within 300 ms'))).toBeDefined();
  expect((await call('GET', '/db/_table/contact_group')).status).toBe(200);
});

it('what a queued hook throws is logged with the request id, after a successful answer', async () => {
  const written = await call('POST', '/db/_table/contact_group?fail_queued=1&fields=name', { resource: [{ name: 'Queued failure' }] });
  expect(written).toEqual({ status: 200, body: { resource: [{ name: 'Queued failure' }] } });
  const logged = await logLine((line) => line.err?.message === 'queued hook internals');
  expect(logged).toMatchObject({
    level: 50,
    msg: "Hook on 'db._table.contact_group.post.queued' (hooks/contact.ts) failed: queued hook internals (a queued hook: the answer had gone).",
  });
  const requestLine = await logLine((line) => line.msg === 'request completed' && line.req?.url?.includes('fail_queued'));
  expect(logged!.reqId).toBe(requestLine?.reqId);
});

it('a promise a hook rejects with nothing waiting for it is logged, and the server goes on', async () => {
  const stray = await call('GET', `/db/_table/contact_group?filter=${encodeURIComponent("name = 'stray'")}`);
  expect(stray).toEqual({ status: 200, body: { resource: [] } });
  expect((await call('GET', '/db/_table/contact_group?limit=1')).status).toBe(200);
  const logged = await logLine((line) => line.err?.message === 'stray rejection of the hook');
  expect(logged).toMatchObject({ level: 50, msg: expect.stringContaining('the server goes on') });
});
