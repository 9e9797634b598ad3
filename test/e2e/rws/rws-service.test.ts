/**
 * rws (HTTP service) against a real HTTP server the test starts on 127.0.0.1: verbs, paths, query,
 * bodies, status and headers pass through; configured parameters and headers (per verb, with
 * lookups); the caller's credentials and hop-by-hop headers stay behind; redirects only inside the
 * base URL (one out of it is a 502); GET caching with TTL; the remote's OpenAPI document as _spec; a remote that is
 * down or slow is 503; declared in platform.yaml-style models and created through /system/service.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { defineEndpoints, readEndpointSet } from '#runtime/services/custom/endpoints.js';
import { bodiesNotByReference, unresolvedRefs } from '#test/golden/validators.js';

/** Sends the body it is given to the declared service in process, as a hook or endpoint would. */
const relay = defineEndpoints({
  routes: [
    {
      method: 'POST',
      path: '/send',
      handler: async (request: { body: { text: string; type?: string } }, ctx) => {
        const headers = request.body.type === undefined ? undefined : { 'Content-Type': request.body.type };
        await ctx.api.asAdmin().call('declared_api', 'POST', 'echo', { body: request.body.text, headers });
        return { sent: true };
      },
    },
  ],
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let remote: http.Server;
let other: http.Server;
let base: string;
let otherBase: string;
const seen: Seen[] = [];
let hits = 0;
let otherHits = 0;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

let portico: TestServer;
let api: Api;
let token: string;

beforeAll(async () => {
  remote = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/v1/slow') {
        setTimeout(() => response.end('late'), 3000);
        return;
      }
      // Answers at once, then stops halfway through its body (and never ends it).
      if (url.pathname === '/v1/stall' || url.pathname === '/v1/stall-error') {
        response.writeHead(url.pathname === '/v1/stall' ? 200 : 500, { 'content-type': 'text/plain' });
        response.write('the first half');
        return;
      }
      if (url.pathname === '/v1/missing') {
        response.statusCode = 404;
        response.end('{"message":"no such thing"}');
        return;
      }
      if (url.pathname === '/v1/moved') {
        response.statusCode = 302;
        response.setHeader('location', '/v1/echo?moved=1');
        response.end();
        return;
      }
      if (url.pathname === '/v1/away') {
        response.statusCode = 302;
        response.setHeader('location', `${otherBase}/stolen`);
        response.end();
        return;
      }
      // Same host, out of the base path /v1: as sent, by a look-alike prefix, or behind encoded dots.
      if (url.pathname.startsWith('/v1/out/')) {
        const to = { admin: '/admin', prefix: '/v1x/secret', dots: '/v1/..%2F..%2Fadmin', scheme: base.replace('http:', 'https:') };
        response.statusCode = 307;
        response.setHeader('location', to[url.pathname.slice('/v1/out/'.length) as keyof typeof to]);
        response.end();
        return;
      }
      if (url.pathname === '/v1/loop') {
        response.writeHead(302, { location: '/v1/loop' });
        response.end();
        return;
      }
      // An error answer without end: pieces of text for as long as the connection stays open.
      if (url.pathname === '/v1/endless-error') {
        response.writeHead(400, { 'content-type': 'text/plain' });
        const piece = Buffer.alloc(16 * 1024, 'e');
        const more = () => {
          while (!response.destroyed && response.write(piece));
          if (!response.destroyed) response.once('drain', more);
        };
        more();
        return;
      }
      if (url.pathname === '/v1/odd-status') {
        response.writeHead(999);
        response.end('odd');
        return;
      }
      if (url.pathname === '/v1/bad-location') {
        response.writeHead(302, { location: 'http://[bad' });
        response.end();
        return;
      }
      if (url.pathname === '/v1/counter') {
        hits += 1;
        response.setHeader('content-type', 'text/plain');
        response.end(`hit ${hits}`);
        return;
      }
      response.statusCode = request.method === 'POST' ? 201 : 200;
      response.setHeader('content-type', 'application/json');
      response.setHeader('x-remote', 'yes');
      response.setHeader('access-control-allow-origin', '*');
      response.setHeader('access-control-allow-credentials', 'true');
      response.end(
        JSON.stringify({ method: request.method, path: url.pathname, query: url.search, body: Buffer.concat(chunks).toString() }),
      );
    });
  });
  other = http.createServer((_request, response) => {
    otherHits += 1;
    response.end('should not be reached');
  });
  [base, otherBase] = await Promise.all([listen(remote), listen(other)]);
  // A port nobody listens on: one just closed.
  const closed = http.createServer();
  const closedBase = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  portico = await startTestServer(
    minimalModel({
      services: [
        ...minimalModel().services,
        {
          id: 20,
          name: 'declared_api',
          type: 'rws',
          label: 'Declared',
          description: '',
          is_active: true,
          origin: 'platform',
          kind: 'plain',
          config: { base_url: `${base}/v1`, headers: [{ name: 'X-Declared', value: 'yes' }] },
        },
        {
          id: 21,
          name: 'relay',
          type: 'custom',
          label: 'Relay',
          description: '',
          is_active: true,
          origin: 'platform',
          kind: 'custom',
          config: { module: 'endpoints/relay.ts' },
          routes: readEndpointSet(relay).map((route) => route.model),
        },
      ],
    }),
    { endpoints: { relay } },
  );
  token = await portico.adminToken();
  api = apiClient(portico.app, () => ({ key: portico.apiKey, token }));
  await api('POST', '/system/lookup', { resource: [{ name: 'partner_key', value: 'k-123' }] });
  const created = await api('POST', '/system/service', {
    resource: [
      {
        name: 'remote',
        label: 'Remote',
        type: 'rws',
        config: {
          base_url: `${base}/v1`,
          timeout: 1,
          parameters: [
            { name: 'apikey', value: '{partner_key}' },
            { name: 'only_post', value: '1', action: ['POST'] },
            { name: 'drop_me', exclude: true },
          ],
          headers: [
            { name: 'X-Partner', value: 'partner-{partner_key}', action: 1 },
            { name: 'Authorization', pass_from_client: true, action: ['GET'] },
          ],
        },
      },
      { name: 'cached', label: 'Cached', type: 'rws', config: { base_url: `${base}/v1`, cache_enabled: true, cache_ttl: 60 } },
      { name: 'down', label: 'Down', type: 'rws', config: { base_url: `${closedBase}/api`, timeout: 2 } },
      {
        name: 'documented',
        label: 'Documented',
        type: 'rws',
        config: {
          base_url: `${base}/v1`,
          openapi: {
            openapi: '3.0.3',
            info: { title: 'Echo', version: '1' },
            paths: {
              '/echo': {
                get: { operationId: 'echo', summary: 'Echoes', responses: { 200: { description: 'ok' } } },
                // An inline body: the served document references it as a component (spec, Discovery).
                post: {
                  operationId: 'echoBack',
                  summary: 'Echoes a body',
                  requestBody: {
                    content: { 'application/json': { schema: { type: 'object', properties: { text: { type: 'string' } } } } },
                  },
                  responses: { 200: { description: 'ok' } },
                },
              },
            },
          },
        },
      },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});
afterAll(async () => {
  await portico.close();
  remote.closeAllConnections();
  remote.close();
  other.close();
});

async function raw(method: string, url: string, payload?: string, headers: Record<string, string> = {}) {
  return portico.app.inject({
    method: method as 'GET',
    url: `/api/v2${url}`,
    payload,
    headers: { 'x-service-api-key': portico.apiKey, 'x-service-session-token': token, ...headers },
  });
}
const lastSeen = () => seen[seen.length - 1];

describe('rws', () => {
  it('passes verbs, paths, query, bodies, status and headers through', async () => {
    const got = await raw('GET', '/remote/echo/a%20b/c?x=1&x=2&y=z&drop_me=1');
    expect(got.statusCode).toBe(200);
    expect(got.headers['x-remote']).toBe('yes');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json()).toMatchObject({ method: 'GET', path: '/v1/echo/a%20b/c' });
    const query = new URL(lastSeen().url, 'http://x').searchParams;
    expect(query.getAll('x')).toEqual(['1', '2']);
    expect(query.get('y')).toBe('z');
    expect(query.get('drop_me')).toBeNull();
    expect(query.get('apikey')).toBe('k-123');
    expect(query.get('only_post')).toBeNull();
    expect(query.get('api_key')).toBeNull();
    expect(lastSeen().headers['x-partner']).toBe('partner-k-123');

    for (const verb of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await raw(verb, '/remote/echo', '{"n":1}', { 'content-type': 'application/json', 'x-custom': 'kept' });
      expect(answer.statusCode).toBe(verb === 'POST' ? 201 : 200);
      expect(answer.json()).toMatchObject({ method: verb, body: '{"n":1}' });
      expect(lastSeen().headers['content-type']).toBe('application/json');
      expect(lastSeen().headers['x-custom']).toBe('kept');
      expect(lastSeen().headers['x-partner']).toBeUndefined();
      expect(new URL(lastSeen().url, 'http://x').searchParams.get('only_post')).toBe(verb === 'POST' ? '1' : null);
    }
    expect((await raw('GET', '/remote')).json().path).toBe('/v1');
  });

  it('receives a string from an in-process call as its text, with the type the caller gave or text/plain', async () => {
    for (const [body, type] of [
      [{ text: '<ping id="1"/>', type: 'application/xml' }, 'application/xml'],
      [{ text: 'plain "words"' }, 'text/plain; charset=utf-8'],
    ] as const) {
      seen.length = 0;
      expect((await api('POST', '/relay/send', body)).status).toBe(200);
      expect(seen).toEqual([expect.objectContaining({ method: 'POST', url: '/v1/echo', body: body.text })]);
      expect(seen[0].headers['content-type']).toBe(type);
    }
  });

  it("answers cross-origin callers by the platform's CORS rules, never the remote's", async () => {
    // The remote allows every origin; the platform has no CORS rule for this one.
    const cross = await raw('GET', '/remote/echo', undefined, { origin: 'https://elsewhere.example' });
    expect(cross.statusCode).toBe(200);
    expect(cross.headers['x-remote']).toBe('yes');
    expect(cross.headers['access-control-allow-origin']).toBeUndefined();
    expect(cross.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it("keeps the caller's credentials and hop-by-hop headers, unless a header passes one on", async () => {
    await raw('POST', `/remote/echo?api_key=${portico.apiKey}&session_token=${token}`, 'x', {
      authorization: 'Bearer secret-token',
      cookie: 'sid=1',
      connection: 'keep-alive, x-drop',
      'x-drop': 'hop-by-hop: named in Connection',
      'proxy-authorization': 'Basic eA==',
      'x-forwarded-for': '10.0.0.1',
    });
    const { headers, url } = lastSeen();
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    expect(headers['proxy-authorization']).toBeUndefined();
    expect(headers['x-drop']).toBeUndefined();
    expect(headers['x-service-api-key']).toBeUndefined();
    expect(headers['x-service-session-token']).toBeUndefined();
    expect(url).not.toContain(portico.apiKey);
    expect(url).not.toContain(token);
    // A configured pass_from_client header forwards the caller's value (for GET only here).
    await raw('GET', '/remote/echo', undefined, { authorization: 'Bearer for-the-remote' });
    expect(lastSeen().headers.authorization).toBe('Bearer for-the-remote');
  });

  it('wraps remote errors in the envelope, follows redirects only inside its base URL, refuses dot segments', async () => {
    const missing = await raw('GET', '/remote/missing');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 404, message: '{"message":"no such thing"}' } });
    const moved = await raw('GET', '/remote/moved');
    expect(moved.statusCode).toBe(200);
    expect(moved.json().query).toBe('?moved=1');
    // A redirect out of the base URL is neither followed nor handed on to the caller.
    let before = seen.length;
    const notFollowed = {
      code: 502,
      message: "The remote server of service 'remote' redirected (302) outside the service's base URL; the redirect was not followed.",
    };
    const away = await raw('GET', '/remote/away');
    expect(away.statusCode).toBe(502);
    expect(away.headers.location).toBeUndefined();
    expect(away.json().error).toEqual(notFollowed);
    for (const where of ['admin', 'prefix', 'dots', 'scheme']) {
      const out = await raw('GET', `/remote/out/${where}`);
      expect(out.statusCode, where).toBe(502);
      expect(out.json().error, where).toEqual({ ...notFollowed, message: notFollowed.message.replace('302', '307') });
    }
    // Each of them reached the remote once, for the redirect itself, and nothing after it.
    expect(seen.slice(before).map((request) => new URL(request.url, 'http://x').pathname)).toEqual([
      '/v1/away',
      '/v1/out/admin',
      '/v1/out/prefix',
      '/v1/out/dots',
      '/v1/out/scheme',
    ]);
    expect(otherHits).toBe(0);
    before = seen.length;
    expect([400, 404]).toContain((await raw('GET', '/remote/../../other')).statusCode);
    expect(seen.length).toBe(before);
    // A segment that decodes to dot segments behind an encoded separator climbed out of the base
    // path at any remote that decodes `%2F` before resolving them (nginx does): refused as well.
    for (const path of ['/remote/echo/..%2F..%2Fx', '/remote/%2E%2E%2Fadmin', '/remote/..%5C..%5Cx', '/remote/echo/..;/..;/x']) {
      const refused = await raw('GET', path);
      expect(refused.statusCode, path).toBe(400);
      expect(refused.json().error.code).toBe(400);
    }
    expect(seen.length).toBe(before);
    // An encoded slash inside a name still goes through as it was sent.
    expect((await raw('GET', '/remote/echo/group%2Fproject')).json().path).toBe('/v1/echo/group%2Fproject');
    // Over a real socket, as sent (inject's URL parser would resolve the dot segments first).
    const address = await portico.app.listen({ port: 0, host: '127.0.0.1' });
    // Dot segments are refused (400) or resolved inside the service's own path before it sees
    // them; either way the outbound request stays under the base path.
    for (const path of [
      '/api/v2/remote/%2e%2e/x',
      '/api/v2/remote/a/.%2E/x',
      '/api/v2/remote/echo/../../x',
      '/api/v2/remote/echo/%2E%2E',
      // The URL parser reads a backslash as `/`: it must stay a character of its segment.
      '/api/v2/remote/..\\..\\x',
      '/api/v2/remote/echo\\..\\..\\x',
      '/api/v2/remote/.%2e\\x',
    ]) {
      const count = seen.length;
      const status = await new Promise<number>((resolve, reject) => {
        http
          // The path as an option, not in a URL string: that parser would turn `\` into `/` and resolve.
          .get(
            {
              host: '127.0.0.1',
              port: new URL(address).port,
              path,
              headers: { 'x-service-api-key': portico.apiKey, 'x-service-session-token': token },
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
      expect([200, 400, 404], path).toContain(status);
      if (seen.length > count) expect(lastSeen().url, path).toMatch(/^\/v1(\/|$|\?)/);
    }
  });

  it('answers a redirect loop with 502, and an endless error answer with its start', async () => {
    const before = seen.length;
    const loop = await raw('GET', '/remote/loop');
    expect(loop.statusCode).toBe(502);
    expect(loop.headers.location).toBeUndefined();
    expect(loop.json().error).toEqual({
      code: 502,
      message: "The remote server of service 'remote' redirected more than 5 times; the redirects were not followed further.",
    });
    expect(seen.length - before).toBe(6);
    // Read to its end, it ran out the timeout (the remote's text lost) and held all of it in memory.
    const endless = await raw('GET', '/remote/endless-error');
    expect(endless.statusCode).toBe(400);
    expect(endless.json().error.message).toBe(`${'e'.repeat(64 * 1024)}…`);
  });

  it('answers a remote status outside HTTP, or a Location that is no URL, in the error shape or as it is', async () => {
    const odd = await raw('GET', '/remote/odd-status');
    expect(odd.statusCode).toBe(502);
    expect(odd.json().error).toEqual({ code: 502, message: "The remote server of service 'remote' answered an invalid HTTP status 999." });
    const bad = await raw('GET', '/remote/bad-location');
    expect(bad.statusCode).toBe(302);
    expect(bad.headers.location).toBe('http://[bad');
  });

  it('answers 503 in the error shape when the remote is down or too slow', async () => {
    const down = await raw('GET', '/down/anything');
    expect(down.statusCode).toBe(503);
    expect(down.json().error).toEqual({ code: 503, message: "The remote server of service 'down' is unreachable (ECONNREFUSED)." });
    const slow = await raw('GET', '/remote/slow');
    expect(slow.statusCode).toBe(503);
    expect(slow.json().error.message).toBe("The remote server of service 'remote' did not answer within 1 s.");
  });

  it('cuts off a remote that stops sending its body midway, after the timeout, instead of holding the caller', async () => {
    const began = Date.now();
    const failed = await raw('GET', '/remote/stall-error');
    expect(failed.statusCode).toBe(500);
    // What the remote sent before it stalled is the message.
    expect(failed.json().error).toEqual({ code: 500, message: 'the first half' });
    // The status and the first half had gone to the caller: the answer is cut off.
    await expect(raw('GET', '/remote/stall')).rejects.toThrow('response destroyed before completion');
    expect(Date.now() - began).toBeLessThan(5000);
  });

  it('caches GET responses for the TTL, headers included, until the cache is cleared', async () => {
    const first = await raw('GET', '/cached/counter');
    const second = await raw('GET', '/cached/counter');
    expect([first.body, second.body]).toEqual(['hit 1', 'hit 1']);
    expect(second.headers['content-type']).toBe('text/plain');
    expect(second.headers['x-cache']).toBe('HIT');
    expect((await raw('GET', '/cached/counter?other=1')).body).toBe('hit 2');
    expect((await api('DELETE', '/system/cache/cached')).body).toEqual({ success: true });
    expect((await raw('GET', '/cached/counter')).body).toBe('hit 3');
  });

  it('serves its own or a pass-through OpenAPI document, and the declared service', async () => {
    const documented = (await api('GET', '/documented/_spec')).body;
    expect(Object.keys(documented.paths)).toEqual(['/echo']);
    expect(documented.paths['/echo'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/EchoBackRequest',
    });
    expect(documented.components.schemas.EchoBackRequest).toEqual({ type: 'object', properties: { text: { type: 'string' } } });
    const passThrough = (await api('GET', '/remote/_spec')).body;
    expect(Object.keys(passThrough.paths)).toEqual(['/', '/{path}']);
    for (const document of [documented, passThrough, (await api('GET', '/api_docs')).body]) {
      expect(bodiesNotByReference(document)).toEqual([]);
      expect(unresolvedRefs(document)).toEqual([]);
    }
    expect((await raw('GET', '/declared_api/echo')).json().path).toBe('/v1/echo');
    expect(lastSeen().headers['x-declared']).toBe('yes');
    const type = (await api('GET', '/system/service_type/rws')).body;
    expect(type).toMatchObject({ name: 'rws', label: 'HTTP Service', group: 'Remote Service' });
    expect(type.config_schema.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['base_url', 'parameters', 'headers', 'cache_enabled', 'cache_ttl']),
    );
  });

  it('sends credentials of the base URL as Basic authentication, and never shows them', async () => {
    const closed = http.createServer();
    const closedBase = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const withUser = (origin: string) => origin.replace('http://', 'http://ann:s%3Acret-77@');
    const created = await api('POST', '/system/service', {
      resource: [
        { name: 'with_user', label: 'With user', type: 'rws', config: { base_url: `${withUser(base)}/v1` } },
        { name: 'with_user_down', label: 'With user, down', type: 'rws', config: { base_url: `${withUser(closedBase)}/v1`, timeout: 2 } },
      ],
    });
    expect(created.status).toBe(201);
    // fetch refuses a URL with credentials: every call was a 503 that showed the URL, password included.
    const answer = await raw('GET', '/with_user/echo');
    expect(answer.statusCode).toBe(200);
    expect(answer.json().path).toBe('/v1/echo');
    expect(lastSeen().headers.authorization).toBe(`Basic ${Buffer.from('ann:s:cret-77').toString('base64')}`);
    const down = await raw('GET', '/with_user_down/echo');
    expect(down.json().error).toEqual({
      code: 503,
      message: "The remote server of service 'with_user_down' is unreachable (ECONNREFUSED).",
    });
    for (const url of ['/with_user/_spec', '/with_user_down/_spec']) {
      const spec = await raw('GET', url);
      expect(spec.statusCode, url).toBe(200);
      expect(spec.body, url).not.toContain('cret-77');
    }
  });

  it("refuses base URL credentials with a '%' that starts no escape: a 400 at creation, a 500 naming the service when a lookup gives them", async () => {
    const refused = await api('POST', '/system/service', {
      resource: [
        { name: 'bad_escape', label: 'Bad escape', type: 'rws', config: { base_url: base.replace('http://', 'http://ann:p%ss@') } },
      ],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("must write '%' as %25");
    // A lookup is resolved when the service opens: decodeURIComponent threw a bare URIError there.
    await api('POST', '/system/lookup', { resource: [{ name: 'bad_escape_pw', value: 'p%ss' }] });
    const created = await api('POST', '/system/service', {
      resource: [
        {
          name: 'bad_escape',
          label: 'Bad escape',
          type: 'rws',
          config: { base_url: base.replace('http://', 'http://ann:{bad_escape_pw}@') },
        },
      ],
    });
    expect(created.status).toBe(201);
    const answer = await raw('GET', '/bad_escape/echo');
    expect([answer.statusCode, answer.json()]).toEqual([
      500,
      {
        error: {
          code: 500,
          message:
            "The base URL of service 'bad_escape' has a malformed percent-escape in its password: write '%' as %25, and escapes as UTF-8.",
        },
      },
    ]);
  });

  it('sends a header value beyond Latin-1 as UTF-8, refuses one with a line break (from a lookup) and a bad header name, in the error shape', async () => {
    // Each made fetch throw: a bare 500 "Internal server error.".
    await api('POST', '/system/lookup', {
      resource: [
        { name: 'who_wide', value: 'José 日本' },
        { name: 'who_broken', value: 'x\r\nX-Injected: yes' },
      ],
    });
    const rws = (name: string, header: { name: string; value: string }) => ({
      name,
      label: name,
      type: 'rws',
      config: { base_url: `${base}/v1`, headers: [header] },
    });
    const created = await api('POST', '/system/service', {
      resource: [
        rws('looked_up', { name: 'X-Who', value: '{who_wide}' }),
        rws('looked_up_broken', { name: 'X-Who', value: '{who_broken}' }),
        rws('bad_header', { name: 'X Who', value: 'x' }),
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('GET', '/looked_up/echo')).status).toBe(200);
    expect(Buffer.from(String(lastSeen().headers['x-who']), 'latin1').toString('utf8')).toBe('José 日本');
    const sent = seen.length;
    expect((await api('GET', '/looked_up_broken/echo')).body.error).toEqual({
      code: 500,
      message:
        "The value of header 'X-Who' of service 'looked_up_broken' holds a line break or a NUL character (from a lookup?); the request was not sent.",
    });
    expect((await api('GET', '/bad_header/echo')).body.error).toEqual({
      code: 500,
      message: "Header name 'X Who' of service 'bad_header' is not a valid HTTP header name.",
    });
    expect(seen.length).toBe(sent);
  });

  it("names an OpenAPI document it cannot read in our words, not the file system's or the parser's", async () => {
    // The 500s said "cannot be read: ENOENT: no such file or directory, open '/<platform dir>/missing-api.yaml'"
    // and the JSON parser's "Expected property name or '}' in JSON at position 2 ...".
    const created = await api('POST', '/system/service', {
      resource: [
        { name: 'doc_missing', label: 'Doc missing', type: 'rws', config: { base_url: `${base}/v1`, openapi: 'missing-api.yaml' } },
        {
          name: 'doc_broken',
          label: 'Doc broken',
          type: 'rws',
          config: { base_url: `${base}/v1` },
          service_doc_by_service_id: { content: '{ not: json', format: 0 },
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('GET', '/doc_missing/echo')).body.error).toEqual({
      code: 500,
      message: "The OpenAPI document of service 'doc_missing' (file 'missing-api.yaml') cannot be read: the file is missing or unreadable.",
    });
    expect((await api('GET', '/doc_broken/echo')).body.error).toEqual({
      code: 500,
      message:
        "The OpenAPI document of service 'doc_broken' (its stored service document) cannot be read: it is neither valid JSON nor valid YAML.",
    });
  });

  it('waits for a caller uploading slowly: the timeout restarts with each piece of the body it passes on', async () => {
    // The 1 s timeout ran from the start: a body arriving over 2.5 s was a 503 saying the remote did not answer.
    async function* slowly() {
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        yield Buffer.from(`piece${i};`);
      }
    }
    const response = await raw('PUT', '/remote/echo', Readable.from(slowly()) as unknown as string, {
      'content-type': 'text/plain',
      'transfer-encoding': 'chunked',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().body).toBe('piece0;piece1;piece2;piece3;piece4;');
  });

  it('follows role grants on its paths', async () => {
    const service = (await api('GET', '/system/service?filter=name=remote&fields=id')).body.resource[0].id;
    const role = (
      await api('POST', '/system/role', {
        resource: [{ name: 'echo-reader', role_service_access_by_role_id: [{ service_id: service, component: 'echo/*', verb_mask: 1 }] }],
      })
    ).body.resource[0].id;
    const key = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'echo-app', role_id: role }] })).body.resource[0]
      .api_key;
    expect((await api('GET', '/remote/echo/x', undefined, { key })).status).toBe(200);
    expect([401, 403]).toContain((await api('POST', '/remote/echo/x', {}, { key })).status);
    expect([401, 403]).toContain((await api('GET', '/remote/counter', undefined, { key })).status);
  });
});

describe('rws: the request body limit', () => {
  it('refuses a body beyond the server limit with 413 before or while sending it, declared or chunked', async () => {
    const small = await startTestServer(minimalModel(), { bodyLimit: 1024 });
    try {
      const smallToken = await small.adminToken();
      const headers = { 'x-service-api-key': small.apiKey, 'x-service-session-token': smallToken };
      const created = await small.app.inject({
        method: 'POST',
        url: '/api/v2/system/service',
        headers,
        payload: { resource: [{ name: 'limited', label: 'Limited', type: 'rws', config: { base_url: `${base}/v1`, timeout: 5 } }] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const before = seen.length;
      const within = await small.app.inject({ method: 'POST', url: '/api/v2/limited/echo', headers, payload: 'a'.repeat(1024) });
      expect(within.statusCode).toBe(201);
      expect(lastSeen().body).toHaveLength(1024);
      // Declared by Content-Length: refused before the remote is called.
      const declared = await small.app.inject({ method: 'POST', url: '/api/v2/limited/echo', headers, payload: 'b'.repeat(1025) });
      expect(declared.statusCode).toBe(413);
      expect(declared.json()).toEqual({ error: { code: 413, message: 'Request body is too large.' } });
      expect(seen.length).toBe(before + 1);
      // Chunked, with no end: counted on its way, refused once past the limit, the connection closed.
      const address = await small.app.listen({ port: 0, host: '127.0.0.1' });
      const head = await new Promise<string>((resolve) => {
        let answer = '';
        const socket = net.connect(Number(new URL(address).port), '127.0.0.1', () => {
          socket.write(
            `PUT /api/v2/limited/echo HTTP/1.1\r\nHost: x\r\nX-Service-Api-Key: ${small.apiKey}\r\nX-Service-Session-Token: ${smallToken}\r\n` +
              'Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n',
          );
          const chunk = `${(16 * 1024).toString(16)}\r\n${'c'.repeat(16 * 1024)}\r\n`;
          const pump = () => {
            if (socket.writable) socket.write(chunk, () => setTimeout(pump, 5));
          };
          pump();
        });
        socket.on('data', (data) => {
          answer += data.toString();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
        setTimeout(() => socket.destroy(), 15_000);
      });
      expect(head).toMatch(/^HTTP\/1\.1 413 /);
      expect(head).toContain('"code":413');
      expect(seen.length, 'the remote got no body of it').toBe(before + 1);
    } finally {
      await small.close();
    }
  }, 30_000);
});
