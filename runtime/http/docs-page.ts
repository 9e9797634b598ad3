/**
 * `GET /docs`: an interactive reference of the platform's API (Swagger UI, bundled from the
 * swagger-ui-dist package and served from this server: no CDN, works offline). The page asks for
 * an API key and a session token, fetches the combined document from /api/v2/api_docs with them,
 * and sends "Try it out" requests with them.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../core/errors.js';

/** Files of swagger-ui-dist the page loads, with their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page's own script: credentials from the form (kept for the tab), then Swagger UI. */
const PAGE_SCRIPT = `
const form = document.getElementById('credentials');
const key = document.getElementById('api-key');
const token = document.getElementById('session-token');
key.value = sessionStorage.getItem('portico.apiKey') || '';
token.value = sessionStorage.getItem('portico.sessionToken') || '';
function load() {
  sessionStorage.setItem('portico.apiKey', key.value.trim());
  sessionStorage.setItem('portico.sessionToken', token.value.trim());
  window.ui = SwaggerUIBundle({
    url: 'api/v2/api_docs',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'none',
    requestInterceptor: (request) => {
      if (key.value.trim()) request.headers['X-Service-API-Key'] = key.value.trim();
      if (token.value.trim()) request.headers['X-Service-Session-Token'] = token.value.trim();
      return request;
    },
  });
}
form.addEventListener('submit', (event) => { event.preventDefault(); load(); });
if (key.value) load();
`;

function pageHtml(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped}: API reference</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<style>
  body { margin: 0; font-family: sans-serif; }
  #credentials { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: end; padding: 1rem 1.25rem; background: #1b1b1b; color: #fff; }
  #credentials h1 { font-size: 1.1rem; margin: 0 1rem 0 0; align-self: center; }
  #credentials label { display: flex; flex-direction: column; font-size: 0.8rem; gap: 0.2rem; }
  #credentials input { font-family: monospace; width: 22rem; max-width: 80vw; padding: 0.3rem; }
</style>
</head>
<body>
<form id="credentials">
  <h1>${escaped}</h1>
  <label>API key <input id="api-key" name="api_key" autocomplete="off" placeholder="X-Service-API-Key"></label>
  <label>Session token <input id="session-token" name="session_token" autocomplete="off" placeholder="X-Service-Session-Token (optional)"></label>
  <button type="submit">Load the API</button>
</form>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/page.js"></script>
</body>
</html>
`;
}

export function registerDocsPage(app: FastifyInstance, title: string): void {
  const html = pageHtml(title);
  // Resolved when first asked for: a server whose users never open /docs does not read the bundle.
  let assetDir: string | undefined;
  const cache = new Map<string, Buffer>();
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (request, reply) => {
    const { file } = request.params;
    if (file === 'page.js') return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PAGE_SCRIPT);
    const type = ASSETS[file];
    if (type === undefined) throw new NotFoundError(`No such file: docs/assets/${file}.`);
    assetDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    let body = cache.get(file);
    if (!body) {
      body = fs.readFileSync(path.join(assetDir, file));
      cache.set(file, body);
    }
    return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
  });
}
